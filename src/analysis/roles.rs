//! Role markers: the text that opens an assistant turn and a user turn.

use super::diff::{segmentize_markers, trim_ws, SegmentKind};
use super::probe::*;
use crate::findings::{ContentAnalysis, ReasoningAnalysis};

/// A user turn vs the same plus an assistant reply: what precedes the reply text, minus any
/// reasoning or content markers the template inserts there (unless that would leave nothing: a
/// template may open reasoning with the turn marker itself).
/// Also returns the end-of-turn markers: the special-token-like markers after the reply text in the
/// same block (`<|im_end|>`, `<|END_OF_TURN_TOKEN|>`), minus the content wrapper's end marker; and
/// the first marker after the reply whatever its name (`<SPECIAL_12>`), which ends the reply's turn.
pub fn assistant_start(pr: &mut Prober, reasoning: &ReasoningAnalysis, content: &ContentAnalysis) -> (String, Vec<String>, String) {
    let a = Params::new(vec![user(USER_MSG)]);
    let Some(cmp) = pr.compare("detect_assistant_start_marker", "assistant reply appended", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)];
    }) else {
        return (String::new(), Vec::new(), String::new());
    };
    let block = &cmp.diff.right;
    let after = block.find(ASSISTANT_MSG).map(|p| &block[p + ASSISTANT_MSG.len()..]);
    let mut turn_end = after.map_or_else(Vec::new, |a| turn_end_markers(a, content));
    let reply_end = after.and_then(|a| segmentize_markers(a).into_iter().find(|s| !trim_ws(&s.value).is_empty()));
    let reply_end = reply_end.filter(|s| s.kind == SegmentKind::Marker).map(|s| s.value).unwrap_or_default();
    let mut start = block.find(ASSISTANT_MSG).map(|p| &block[..p]).unwrap_or(block);
    let from_prefix;
    if trim_ws(start).is_empty() {
        // The template prints the assistant header after every user turn (generation prompt or
        // not): it is in the common prefix, after the user text.
        let prefix = &cmp.diff.prefix;
        from_prefix = prefix.rfind(USER_MSG).map(|p| turn_start(&prefix[p + USER_MSG.len()..], "")).unwrap_or_default();
        start = &from_prefix;
    }
    for tag in [&reasoning.start, &reasoning.end, &content.start] {
        let tag = trim_ws(tag);
        if let Some(p) = (!tag.is_empty()).then(|| start.find(tag)).flatten() {
            if !trim_ws(&start[..p]).is_empty() {
                start = &start[..p];
            }
        }
    }
    let after_user = cmp.diff.prefix.rfind(USER_MSG).map(|p| &cmp.diff.prefix[p + USER_MSG.len()..]);
    let known: Vec<&str> = turn_end.iter().map(String::as_str).chain([&content.end, &content.start, &reasoning.end, &reasoning.start].map(|m| trim_ws(m))).collect();
    let terminator = after.zip(after_user).and_then(|(a, u)| message_terminator(a, u, &known, trim_ws(start)));
    turn_end.extend(terminator);
    (trim_ws(start).to_string(), turn_end, reply_end)
}

/// A label the template writes in front of past replies (`Asistente: ` after `<|im_start|>assistant\n`)
/// that the generation prompt does not end with: what a past reply's turn holds before its text, past
/// the generation prompt. A model prompted so writes the label itself. Only a short single-line label in
/// words ending with a colon counts (`Assistant:`, `AI:`, `答：`): anything marker-shaped is the format's.
pub fn content_label(pr: &mut Prober) -> String {
    let mut prompted = Params::new(vec![user(USER_MSG)]);
    prompted.add_generation_prompt = true;
    let history = Params::new(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)]);
    let (Ok(prompted), Ok(history)) = (pr.render(&prompted), pr.render(&history)) else { return String::new() };
    let after_user = |r: &str| r.rfind(USER_MSG).map(|p| p + USER_MSG.len());
    let gen = after_user(&prompted).map(|p| &prompted[p..]).unwrap_or_default();
    let head = after_user(&history).and_then(|p| history[p..].find(ASSISTANT_MSG).map(|q| &history[p..p + q])).unwrap_or_default();
    let Some(rest) = head.strip_prefix(gen).filter(|_| !trim_ws(gen).is_empty()) else { return String::new() };
    let label = trim_ws(rest);
    let shaped = label.chars().count() <= 40
        && label.chars().any(char::is_alphabetic)
        && (label.ends_with(':') || label.ends_with('：'))
        && !label.contains(['\n', '<', '>', '[', ']', '{', '}', '|']);
    if shaped { label.to_string() } else { String::new() }
}

/// The `<|…|>`-style markers of the text after the reply, before any prose, that name an end (not
/// the next turn's start): special tokens a model may write to end its turn.
fn turn_end_markers(after: &str, content: &ContentAnalysis) -> Vec<String> {
    let mut out = Vec::new();
    for seg in segmentize_markers(after) {
        let v = trim_ws(&seg.value);
        if seg.kind != SegmentKind::Marker {
            if v.is_empty() {
                continue;
            }
            break;
        }
        let special = is_special_token(v) || is_word_token(v);
        // An end, not the next turn's start: `end` / `eot` / `eos` in its name, or a closing form `<…|>`.
        let lower = v.to_lowercase();
        let ends = ["end", "eot", "eos"].iter().any(|w| lower.contains(w)) || (!v.starts_with("<|") && v.ends_with("|>"));
        let special = special && ends;
        if special && v != trim_ws(&content.end) && !out.iter().any(|m| m == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// The text the template writes after every message, whatever its role: what follows the reply text and
/// what follows the user text share a first token (MiniMax-M2's `[e~[`, Seed-OSS's `<seed:eos>`). It ends a
/// turn whatever it is called, so a model writes it to end its reply (rule R7 drops it). A token is marker-
/// shaped (letters and punctuation both), cut before the next turn's start, and not a marker already known.
fn message_terminator(after_reply: &str, after_user: &str, known: &[&str], turn_start: &str) -> Option<String> {
    let (r, u) = (trim_ws(after_reply), trim_ws(after_user));
    let common = &r[..super::diff::common_prefix_len(r, u)];
    let mut token = common.split(char::is_whitespace).next().unwrap_or_default();
    let ends_token = |rest: &str| rest.is_empty() || rest.starts_with(char::is_whitespace);
    if !ends_token(&r[token.len()..]) || !ends_token(&u[token.len()..]) {
        return None;
    }
    if let Some(p) = (!turn_start.is_empty()).then(|| token.find(turn_start)).flatten() {
        token = &token[..p];
    }
    // (A backslash is a template's escape written out, `\\n\\n`, not a token.)
    let marker_like = token.chars().any(char::is_alphanumeric) && token.chars().any(|c| !c.is_alphanumeric()) && !token.contains('\\');
    let is_known = known.iter().any(|k| !k.is_empty() && token.contains(k));
    (marker_like && !is_known).then(|| token.to_string())
}

/// No messages vs one user message (or, for templates that refuse an empty conversation, a
/// finished exchange vs the same plus a user message): the markers before the user text, skipping
/// leading end-of-turn markers of the previous turn (`reply_end`: the marker that ends an assistant
/// reply, whatever its name).
pub fn user_start(pr: &mut Prober, reply_end: &str) -> String {
    let a = Params::new(vec![]);
    let first = pr.compare("detect_user_start_marker", "user message added to an empty conversation", &a, |p| {
        p.messages = vec![user(USER_MSG)];
    });
    let first = first.map(|c| user_start_from(&c.diff.right, reply_end));
    // A system prompt printed only once there is a message shows up as prose before the marker;
    // then the start of a second user turn is the better witness.
    if first.as_ref().is_some_and(|s| !has_prose(s)) {
        return first.unwrap_or_default();
    }
    let a = Params::new(vec![user(USER_MSG_TWO), assistant_text(ASSISTANT_MSG)]);
    let second = pr.compare("detect_user_start_marker", "user message appended after an exchange", &a, |p| {
        p.messages.push(user(USER_MSG));
    });
    match (first, second.map(|c| user_start_from(&c.diff.right, reply_end))) {
        (Some(f), Some(s)) if !s.is_empty() && f.ends_with(&s) => s,
        (Some(f), _) => f,
        (None, s) => s.unwrap_or_default(),
    }
}

/// A text segment of more than a few words: not part of a role marker.
fn has_prose(s: &str) -> bool {
    segmentize_markers(s).iter().any(|g| g.kind == SegmentKind::Text && trim_ws(&g.value).split_whitespace().count() > 4)
}

/// The markers before the user text in the rendered user block.
fn user_start_from(block: &str, reply_end: &str) -> String {
    let mut block = block;
    if let Some(p) = block.find(ASSISTANT_MSG) {
        block = &block[p + ASSISTANT_MSG.len()..];
    }
    turn_start(block.find(USER_MSG).map(|p| &block[..p]).unwrap_or(block), reply_end)
}

/// The markers of `candidate` from the first one that does not look like the end of the previous
/// turn (a closing tag `</…>` / `[/…]`, `end`, `close`, `eot`, `eos` in its name, or the marker that
/// ends an assistant reply).
fn turn_start(candidate: &str, reply_end: &str) -> String {
    let mut out = String::new();
    let mut seen_marker = false;
    for seg in segmentize_markers(candidate) {
        let is_marker = seg.kind == SegmentKind::Marker;
        let lower = seg.value.to_ascii_lowercase();
        // Before the first kept marker, skip what looks like the end of the previous turn.
        let closes = lower.starts_with("</")
            || lower.starts_with("[/")
            || ["end", "close", "eot", "eos"].iter().any(|w| lower.contains(w))
            || (!reply_end.is_empty() && trim_ws(&seg.value) == reply_end);
        if !seen_marker && is_marker && closes {
            continue;
        }
        if !seen_marker && !is_marker && trim_ws(&seg.value).is_empty() {
            continue;
        }
        seen_marker |= is_marker;
        out.push_str(&seg.value);
    }
    trim_ws(&out).to_string()
}

/// A token spelled as words joined by `_` in angle brackets (`<end_of_turn>`): Gemma's convention
/// for special tokens, unlike an XML tag (`<answer>`, `</think>`), which is one word.
fn is_word_token(v: &str) -> bool {
    let Some(name) = v.strip_prefix('<').and_then(|r| r.strip_suffix('>')) else { return false };
    let words: Vec<&str> = name.split('_').collect();
    words.len() > 1 && words.iter().all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
}

/// End-of-message tokens the source names that no probe renders (Llama 3.1's `<|eom_id|>`, written
/// after a built-in tool call): special tokens with `eom` / `eot` / `eos` in their name, not already
/// in `known` (the turn ends found, the reasoning and content closers). A model ends its turn with
/// them too (rule R7 drops them).
pub fn named_turn_ends(source_tokens: &[String], known: &[&str]) -> Vec<String> {
    source_tokens
        .iter()
        .filter(|tok| {
            let lower = tok.to_lowercase();
            ["eom", "eot", "eos"].iter().any(|w| lower.contains(w)) && is_special_token(tok) && !known.contains(&tok.as_str())
        })
        .cloned()
        .collect()
}

/// A special-token-like marker: `<|…`, `…|>` or the full-width `<｜…`.
pub(super) fn is_special_token(v: &str) -> bool {
    v.len() > 4 && (v.starts_with("<|") || v.ends_with("|>") || v.starts_with("<｜"))
}
