//! Headed segments: a reply written as several segments, each headed by the same tokens and a word
//! that names what follows — `<|im_start|>assistant/think\n…<|im_end|>\n<|im_start|>assistant\n…`,
//! `<|open|>think<|sep|>…<|close|>think<|sep|><|open|>response<|sep|>…`, a call segment
//! `<|im_start|>assistant -> tool/function_call\n[…]`. Read off the renders, never off names: the
//! answer alone, the answer after reasoning, a call. Adding reasoning adds a whole segment before the
//! answer, whose own header is written again: the two headers share their start and end and differ
//! by a word; the text between the reasoning and the answer is the reasoning's end followed by the
//! answer's header. Renders here are not recorded (the recorded comparisons are llama.cpp's).

use super::diff::{common_prefix_len, common_suffix_len, trim_ws};
use super::probe::*;
use crate::findings::{HeadedSegments, ToolFormat, ToolsAnalysis};
use serde_json::Value;

/// Longest header word accepted (real ones are a word or two).
const MAX_WORD: usize = 48;

/// The segment structure, when the template writes one, and the one-call reply's body (the call
/// segment's text between its header and its end). `calls`: the template renders tool calls (then the
/// call reply must be a segment of its own, or this is not the structure).
pub fn analyze(pr: &mut Prober, calls: bool) -> Option<(HeadedSegments, String)> {
    let params = |messages: Vec<Value>| Params::with_tools(messages);
    let bare = pr.render(&params(vec![user(USER_MSG)])).ok()?;
    let reply = |pr: &mut Prober, m: Value| -> Option<String> {
        let out = pr.render(&params(vec![user(USER_MSG), m])).ok()?;
        out.strip_prefix(bare.as_str()).map(str::to_string)
    };
    let text = reply(pr, assistant_text(ASSISTANT_MSG))?;
    let reasoned = reply(pr, assistant(ASSISTANT_MSG.into(), Some(THINKING), None))?;
    let (pre_c, after_c) = text.split_once(ASSISTANT_MSG)?;
    let r = reasoned.find(THINKING)?;
    let m = reasoned.find(ASSISTANT_MSG).filter(|&m| m > r)?;
    let pre_r = &reasoned[..r];
    let gap = &reasoned[r + THINKING.len()..m];
    let mut p = common_prefix_len(pre_r, pre_c);
    // Not inside a word both headers continue (`thought` / `text` share `t`).
    let word_char = |s: &str, i: usize| s[i..].chars().next().is_some_and(char::is_alphanumeric);
    while p > 0 && word_char(pre_r, p) && word_char(pre_c, p) && pre_c[..p].chars().next_back().is_some_and(char::is_alphanumeric) {
        p = pre_c[..p].char_indices().next_back().map_or(0, |(i, _)| i);
    }
    let s = common_suffix_len(&pre_r[p..], &pre_c[p..]);
    let header_end = &pre_c[pre_c.len() - s..];
    let (word_r, word_c) = (&pre_r[p..pre_r.len() - s], &pre_c[p..pre_c.len() - s]);
    if header_end.is_empty() || !plausible_word(word_r, header_end) || word_r.is_empty() || !plausible_word(word_c, header_end) {
        return None;
    }
    // The header's start: the shortest marker ending the common part that the answer's header, written
    // again after the reasoning, starts with.
    let answer_tail = format!("{word_c}{header_end}");
    let (i, header_start) = pre_c[..p]
        .char_indices()
        .rev()
        .map(|(i, _)| (i, &pre_c[i..p]))
        .find(|(_, h)| h.starts_with(['<', '[']) && gap.ends_with(&format!("{h}{answer_tail}")))?;
    // The word follows whole tokens: `<|START_` + `THINKING` + `|>` is one token's spelling, not a header.
    if header_start.rfind(['<', '[']) > header_start.rfind(['>', ']']) {
        return None;
    }
    let raw_close = &gap[..gap.len() - header_start.len() - answer_tail.len()];
    let close_r = trim_ws(raw_close);
    let between = raw_close.rsplit_once(close_r).map_or("", |(_, b)| b);
    if !marker_like(close_r) {
        return None;
    }
    let turn_prefix = &pre_c[..i];
    let word_in_end = trim_ws(word_r);
    let (end_open, end_close, end_names_word) = match close_r.split_once(word_in_end) {
        Some((a, b)) if !word_in_end.is_empty() && !a.is_empty() => (a.to_string(), b.to_string(), true),
        _ => (close_r.to_string(), String::new(), false),
    };
    let mut seg = HeadedSegments {
        header_start: header_start.to_string(),
        header_end: header_end.to_string(),
        reasoning_word: word_r.to_string(),
        content_word: word_c.to_string(),
        calls_word: None,
        end_open,
        end_close,
        end_names_word,
        between: between.to_string(),
        turn_end: String::new(),
    };
    let after_c = trim_ws(after_c);
    let close_c = seg.close(word_c);
    seg.turn_end = trim_ws(after_c.strip_prefix(close_c.as_str())?).to_string();
    let mut body = String::new();
    if calls {
        let call = reply(pr, assistant_calls(vec![first_call()]))?;
        let (word, b) = calls_word(&seg, &call, turn_prefix)?;
        seg.calls_word = Some(word);
        body = b;
    }
    Some((seg, body))
}

/// The call segment's word: the call reply is the turn's opening, a header naming no tool, a body
/// holding the call and the segment's end.
fn calls_word(seg: &HeadedSegments, call: &str, turn_prefix: &str) -> Option<(String, String)> {
    let rest = call.strip_prefix(turn_prefix)?.strip_prefix(seg.header_start.as_str())?;
    let (word, body) = rest.split_once(seg.header_end.as_str())?;
    if !plausible_word(word, &seg.header_end) || word.contains(FUN_FIRST) || word == seg.content_word || word == seg.reasoning_word {
        return None;
    }
    let end = seg.close(word);
    let (body, after) = body.rsplit_once(end.as_str())?;
    (body.contains(FUN_FIRST) && trim_ws(after) == seg.turn_end).then(|| (word.to_string(), body.to_string()))
}

/// A header word: short, on one line, without the header's end.
fn plausible_word(w: &str, header_end: &str) -> bool {
    w.len() <= MAX_WORD && !w.contains('\n') && !w.contains(header_end) && !w.contains(['<', '[', '|'])
}

/// A marker, not text: `<|im_end|>`, `[/INST]`.
fn marker_like(s: &str) -> bool {
    s.len() > 2 && s.starts_with(['<', '[']) && s.ends_with(['>', ']'])
}

/// The call segment's body is read by the tool format alone: the tool analysis took the segment's
/// header (` -> tool/function_call\n`) for a section opener and its end for a section closer. Where
/// that leaves a tagged call without its opener (the header's tokens were taken for the call's), the
/// call's own markers are read off the one-call body (`<|open|>call tool="` NAME `"<|sep|>{…}<|close|>call<|sep|>`).
pub fn strip_header_from_tools(seg: &HeadedSegments, body: &str, t: &mut ToolsAnalysis) {
    let Some(word) = seg.calls_word.as_deref() else { return };
    let (open, close) = (seg.open(word), seg.close(word));
    for m in [&mut t.format.section_start, &mut t.format.per_call_start] {
        let tm = trim_ws(m);
        if !tm.is_empty() && open.contains(tm) {
            m.clear();
        }
    }
    for m in [&mut t.format.section_end, &mut t.format.per_call_end] {
        let tm = trim_ws(m);
        if !tm.is_empty() && (close.contains(tm) || seg.turn_end.contains(tm)) {
            m.clear();
        }
    }
    let unopened = [&t.format.section_start, &t.format.per_call_start, &t.function.name_prefix].iter().all(|m| trim_ws(m).is_empty());
    if t.format.mode != ToolFormat::TagWithJson || !unopened {
        return;
    }
    let Some((prefix, rest)) = body.split_once(FUN_FIRST) else { return };
    let Some((suffix, args)) = rest.split_once('{') else { return };
    let json_end = json_object_len(&format!("{{{args}"));
    let (prefix, close_m) = (prefix.trim_start(), json_end.and_then(|n| args.get(n.saturating_sub(1)..)).map_or("", trim_ws));
    if prefix.starts_with(['<', '[']) && !suffix.contains('\n') {
        t.function.name_prefix = prefix.to_string();
        t.function.name_suffix = suffix.to_string();
        t.function.close = close_m.to_string();
    }
}

/// The length of the JSON object `s` starts with.
fn json_object_len(s: &str) -> Option<usize> {
    let mut values = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    match values.next() {
        Some(Ok(Value::Object(_))) => Some(values.byte_offset()),
        _ => None,
    }
}
