//! Phase 5 — reasoning tags that no ordinary render shows (reasoning.4, reasoning.5). Runs only when reasoning.1–3 found no
//! reasoning format, after the preserved tokens are collected (its tokens come last).
//!
//! reasoning.4: a template that cuts `…</x>` out of past assistant content (`content.split('</think>')[-1]`)
//! never renders reasoning, but tells us the tags its model writes. Every closing tag `</x>` the
//! source mentions is tried: a past assistant turn whose content is `<x>THINKING</x>TEXT` renders
//! without THINKING (but with TEXT) exactly when the template strips that block.
//!
//! reasoning.5: a template whose thinking switch is not `enable_thinking` (`thinking`) may describe the
//! format in the instructions it adds when thinking is on ("write your thoughts between
//! <think></think> and your response between <response></response>"). Empty tag pairs `<x></x>`
//! that appear only with the switch on name the reasoning tags, and a second pair the content
//! wrapper that goes with reasoning.
//!
//! reasoning.7: with no such tag pair, the same instructions may teach the format as plain phrases in
//! quotes ("Write your thoughts after 'Here is my thought process:' and write your response after
//! 'Here is my response:'", Granite 3.2): the first two quoted phrases that end with a colon, there
//! only with the switch on, are the reasoning's start and the answer's start (`reasoning.phrases`,
//! read by the parser with thinking on, rule R43).
//!
//! reasoning.6: a generation prompt that ends by opening a tag (`<|im_start|>assistant\n<think>`) which the
//! same reply in the history does not show opens a block the model continues and the history drops:
//! reasoning, closed by the tag's pair `</x>`. (A content wrapper shows in the history too.)
//!
//! Once the tags are known, a content "wrapper" content.1 found that opens with the reasoning start is the
//! reasoning block the template opens before every reply (Nemotron Nano v2 renders the last turn as
//! `<think>\n` + text): the reasoning start is taken as printed and the content is plain.

use super::diff::{common_prefix_len, trim_ws};
use super::probe::*;
use crate::findings::{Analysis, ContentMode, ReasoningMode};

use crate::findings::THINKING_SWITCHES;

/// The reply of the turn after the probed one.
const LATER_REPLY: &str = "L_LATER_MSG Done END_L";

/// At most this many closing tags of the source are tried (each costs one render).
const MAX_CANDIDATES: usize = 12;

pub fn analyze(pr: &mut Prober, a: &mut Analysis) {
    if a.reasoning.mode != ReasoningMode::None {
        return;
    }
    if let Some(name) = stripped_tag(pr) {
        set_reasoning(a, &format!("<{name}>"), &format!("</{name}>"));
        pr.diagnostics.push(format!(
            "reasoning: the template cuts `<{name}>…</{name}>` out of past assistant content; read as the model's reasoning tags"
        ));
        return;
    }
    let on_only = thinking_on_text(pr);
    let pairs = on_only.as_ref().map(|(before, added)| instructed_pairs(before, added)).unwrap_or_default();
    if let Some((start, end)) = pairs.first() {
        set_reasoning(a, start, end);
        let mut named = format!("{start}{end}");
        if let Some((cs, ce)) = pairs.get(1) {
            a.content.mode = ContentMode::WrappedWithReasoning;
            a.content.start = cs.clone();
            a.content.end = ce.clone();
            a.preserve_tokens(&[cs, ce]);
            named += &format!(" and {cs}{ce}");
        }
        pr.diagnostics.push(format!("reasoning: the instructions added with thinking on name {named}; read as the model's tags"));
        return;
    }
    if let Some([start, end]) = on_only.as_ref().and_then(|(off, added)| instructed_phrases(off, added)) {
        pr.diagnostics.push(format!("reasoning: the instructions added with thinking on teach the phrases {start:?} and {end:?}; read with thinking on as the start of the reasoning and of the answer (rule R43)"));
        a.reasoning.phrases = vec![start, end];
        return;
    }
    if let Some((start, name)) = prompt_opened_tag(pr) {
        let end = format!("</{name}>");
        set_reasoning(a, &start, &end);
        pr.diagnostics.push(format!(
            "reasoning: the generation prompt opens `<{name}>`, which a past reply does not show; read as the model's reasoning, closed by `{end}`"
        ));
    }
}

/// reasoning.6: the tag the generation prompt opens after the reply's own prefix (as printed, with the
/// whitespace around it) and its name — only when a past reply renders without it.
fn prompt_opened_tag(pr: &mut Prober) -> Option<(String, String)> {
    let mut p = Params::new(vec![user(USER_MSG)]);
    p.add_generation_prompt = true;
    let prompt = pr.render(&p).ok()?;
    let history = pr.render(&Params::new(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)])).ok()?;
    let shared = common_prefix_len(&prompt, &history);
    let tail = prompt.get(shared..)?;
    let tag = trim_ws(tail);
    let name = tag.strip_prefix('<')?.strip_suffix('>')?;
    let valid = !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (valid && history.contains(ASSISTANT_MSG) && !history[shared..].contains(tag)).then(|| (tail.to_string(), name.to_string()))
}

fn set_reasoning(a: &mut Analysis, start: &str, end: &str) {
    a.reasoning.mode = ReasoningMode::TagBased;
    a.reasoning.start = start.to_string();
    // A "content wrapper" that opens with the reasoning start is the reasoning block the template
    // opens before every reply (`<think>\n` + text): the opener as printed, and plain content.
    if a.content.mode != ContentMode::Plain && trim_ws(&a.content.start) == start {
        a.reasoning.start = std::mem::take(&mut a.content.start);
        a.content.end.clear();
        a.content.mode = ContentMode::Plain;
    }
    a.reasoning.end = end.to_string();
    a.preserve_tokens(&[start, end]);
}

/// Tag names of the closing tags `</name>` in the source, first occurrence first.
fn closing_tag_names(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in src.match_indices("</") {
        let rest = &src[at + 2..];
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len());
        let name = &rest[..len];
        let starts_alpha = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if starts_alpha && rest[len..].starts_with('>') && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
            if out.len() == MAX_CANDIDATES {
                break;
            }
        }
    }
    out
}

/// reasoning.4: the first closing tag whose block the template strips from a past assistant turn.
fn stripped_tag(pr: &mut Prober) -> Option<String> {
    for name in closing_tag_names(pr.template.source()) {
        let content = format!("<{name}>{THINKING}</{name}>{ASSISTANT_MSG}");
        // A past turn: some templates keep the reasoning of the last assistant turn.
        let p = Params::new(vec![user(USER_MSG), assistant_text(&content), user(USER_MSG_TWO), assistant_text(LATER_REPLY)]);
        if let Ok(out) = pr.render(&p) {
            if out.contains(ASSISTANT_MSG) && !out.contains(THINKING) {
                return Some(name);
            }
        }
    }
    None
}

/// The generation prompt with every thinking switch off, and what the prompt with them on adds after
/// the text both share; `None` when the switches change nothing (or a render fails).
fn thinking_on_text(pr: &mut Prober) -> Option<(String, String)> {
    let render = |pr: &mut Prober, on: bool| {
        let mut p = Params::new(vec![user(USER_MSG)]);
        p.add_generation_prompt = true;
        p.enable_thinking = on;
        p.switches = THINKING_SWITCHES.iter().map(|s| (s.to_string(), on.into())).collect();
        pr.render(&p).ok()
    };
    let (off, on) = (render(pr, false)?, render(pr, true)?);
    if off == on {
        return None;
    }
    let shared = common_prefix_len(&off, &on);
    let added = on.get(shared..).unwrap_or("").to_string();
    Some((off, added))
}

/// reasoning.5: empty tag pairs `<x></x>` in what the prompt with every thinking switch on adds that are
/// not in the prompt with them off.
fn instructed_pairs(off: &str, added: &str) -> Vec<(String, String)> {
    let before = empty_pairs(off);
    empty_pairs(added).into_iter().filter(|p| !before.contains(p)).collect()
}

/// reasoning.7: the first two quoted phrases ending with a colon in what the thinking-on prompt adds,
/// neither in the prompt with thinking off.
fn instructed_phrases(off: &str, added: &str) -> Option<[String; 2]> {
    let mut found = quoted_phrases(added).into_iter().filter(|p| !off.contains(p.as_str()));
    let start = found.next()?;
    let end = found.find(|p| *p != start)?;
    Some([start, end])
}

/// Longest phrase read as a marker, in bytes.
const MAX_PHRASE: usize = 80;

/// Phrases in quotes (`'…'`, `"…"`, `‘…’`, `“…”`) that end with a colon, in order: a quote opens
/// where no letter or digit precedes it and closes where none follows (an apostrophe inside a word
/// is neither); the phrase has a letter, no line break, at most [`MAX_PHRASE`] bytes.
fn quoted_phrases(text: &str) -> Vec<String> {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((i, open)) = text.get(at..).and_then(|t| t.char_indices().find(|&(_, c)| matches!(c, '\'' | '"' | '‘' | '“'))) {
        let open_at = at + i;
        at = open_at + open.len_utf8();
        if word(text[..open_at].chars().next_back()) {
            continue;
        }
        let close = match open {
            '‘' => '’',
            '“' => '”',
            c => c,
        };
        let body_at = at;
        let Some(end) = text[body_at..].char_indices().find(|&(j, c)| c == close && !word(text[body_at + j + c.len_utf8()..].chars().next())).map(|(j, _)| body_at + j) else { continue };
        let phrase = &text[body_at..end];
        let fits = phrase.len() <= MAX_PHRASE && !phrase.contains('\n') && phrase.ends_with(':') && phrase.chars().any(char::is_alphabetic);
        if fits && phrase.trim() == phrase {
            out.push(phrase.to_string());
            at = end + close.len_utf8();
        }
    }
    out
}

/// `<x></x>` pairs in `text`, in order.
fn empty_pairs(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (at, _) in text.match_indices("></") {
        let Some(open_at) = text[..at].rfind('<') else { continue };
        let name = &text[open_at + 1..at];
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let close = format!("</{name}>");
        if valid && text[at + 1..].starts_with(&close) {
            let pair = (format!("<{name}>"), close);
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_tags_are_read_from_the_source() {
        let src = "{% set c = content.split('</think>')[-1] %}{{ '</tool_call>' }}</ 3></think>";
        assert_eq!(closing_tag_names(src), vec!["think".to_string(), "tool_call".to_string()]);
    }

    #[test]
    fn empty_pairs_are_found_in_order() {
        let t = "Write your thoughts between <think></think> and your response between <response></response>.";
        let got = empty_pairs(t);
        assert_eq!(got[0], ("<think>".to_string(), "</think>".to_string()));
        assert_eq!(got[1], ("<response>".to_string(), "</response>".to_string()));
        assert!(empty_pairs("<a>x</a> and <b c></b c>").is_empty());
    }

    #[test]
    fn quoted_phrases_ending_with_a_colon_are_found_in_order() {
        let t = "The model's answer. Write your thoughts after 'Here is my thought process:' and write your response after \"Here is my response:\" for each 'query'.";
        assert_eq!(quoted_phrases(t), vec!["Here is my thought process:".to_string(), "Here is my response:".to_string()]);
        assert_eq!(instructed_phrases("", t), Some(["Here is my thought process:".to_string(), "Here is my response:".to_string()]));
        assert!(quoted_phrases("it's 'not one' and 'x:\ny:'").is_empty());
    }
}
