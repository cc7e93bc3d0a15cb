//! What the template renders after an assistant's tool calls and around a tool message.
//!
//! - The call turn's closing special tokens: after the last call the template ends the turn with
//!   its end-of-turn token (`<|im_end|>`) or with a token that hands the turn to the tool (Gemma 4's
//!   `<|tool_response>`). A model writes it to end its turn, like the end-of-turn token after text,
//!   so it joins `Analysis::turn_end` (dropped by the parser, rule R7).
//! - The tool-result wrapper: the markers right around a tool message's text
//!   (`<｜tool▁output▁begin｜>`…`<｜tool▁output▁end｜>`, `<tool_response>`…`</tool_response>`) that the
//!   template prints only for tool messages. A model that writes them in its answer is quoting a tool
//!   result; the parser drops the markers and keeps their text as content (rule R15).
//!
//! Plain renders (not recorded as comparisons: these steps are ours, not llama.cpp's).

use super::diff::{segmentize_markers, trim_ws, SegmentKind};
use super::probe::*;
use super::roles::is_special_token;
use serde_json::json;

/// The text of the probe tool result.
const TOOL_RESULT: &str = "T_TOOL_RESULT sunny END_T";

/// Special tokens after the last call of a call-only assistant turn (before any prose or the next
/// turn's start, `turn_starts`), that are none of `known` (markers the analysis already gave a
/// meaning, or part of one).
pub fn call_turn_end(pr: &mut Prober, known: &[String], turn_starts: &[&str]) -> Vec<String> {
    let Ok(r) = pr.render(&Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call()])])) else {
        return Vec::new();
    };
    // The last argument value of the probe call; what follows is the call's own closing text, then
    // the turn's end.
    let Some(p) = r.rfind("YYYY") else { return Vec::new() };
    let mut out: Vec<String> = Vec::new();
    for seg in segmentize_markers(&r[p + "YYYY".len()..]) {
        let v = trim_ws(&seg.value);
        if seg.kind == SegmentKind::Text {
            // Punctuation closing the arguments (`"}}`, `')]`) is still the call; prose is not.
            if v.chars().any(char::is_alphanumeric) {
                break;
            }
            continue;
        }
        if turn_starts.iter().any(|t| !t.is_empty() && t.starts_with(v)) {
            break;
        }
        if is_special_token(v) && !known.iter().any(|k| k.contains(v)) && !out.iter().any(|m| m == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// Markers the template prints right around a tool message's text (whitespace apart) and nowhere
/// in the same conversation without the tool message (ending with the calls, or going on with a
/// user turn), none of `known` or part of one.
pub fn tool_result_markers(pr: &mut Prober, known: &[String]) -> Vec<String> {
    let calls = vec![user(USER_MSG), assistant_calls(vec![first_call()])];
    let Ok(mut base) = pr.render(&Params::with_tools(calls.clone())) else { return Vec::new() };
    let mut went_on = calls.clone();
    went_on.push(user(USER_MSG_TWO));
    if let Ok(r) = pr.render(&Params::with_tools(went_on)) {
        base.push_str(&r);
    }
    let mut with_result = calls;
    with_result.push(json!({"role": "tool", "tool_call_id": CALL_ID_001, "name": FUN_FIRST, "content": TOOL_RESULT}));
    let Ok(r) = pr.render(&Params::with_tools(with_result)) else { return Vec::new() };
    let Some(at) = r.rfind(TOOL_RESULT) else { return Vec::new() };
    let base_markers: Vec<String> = segmentize_markers(&base).into_iter().filter(|s| s.kind == SegmentKind::Marker).map(|s| s.value).collect();
    let before = segmentize_markers(&r[..at]);
    let after = segmentize_markers(&r[at + TOOL_RESULT.len()..]);
    let adjacent = before.iter().rev().take_while(|s| s.kind == SegmentKind::Marker || trim_ws(&s.value).is_empty());
    let adjacent_after = after.iter().take_while(|s| s.kind == SegmentKind::Marker || trim_ws(&s.value).is_empty());
    let mut out: Vec<String> = Vec::new();
    let mut heads: Vec<&str> = adjacent.filter(|s| s.kind == SegmentKind::Marker).map(|s| s.value.as_str()).collect();
    heads.reverse();
    let tails = adjacent_after.filter(|s| s.kind == SegmentKind::Marker).map(|s| s.value.as_str());
    for m in heads.into_iter().chain(tails) {
        // A tag or token (`<tool_response>`, `[TOOL_RESULTS]`), not bracketed text.
        let tag_like = m.len() >= 3 && !m.contains(char::is_whitespace) && m.chars().any(char::is_alphabetic);
        if tag_like && !base_markers.iter().any(|b| b == m) && !known.iter().any(|k| k.contains(m)) && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    out
}
