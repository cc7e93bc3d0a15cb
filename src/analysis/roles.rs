//! Role markers: the text that opens an assistant turn and a user turn.

use super::diff::{segmentize_markers, trim_ws, SegmentKind};
use super::probe::*;
use super::types::ReasoningAnalysis;

/// A user turn vs the same plus an assistant reply: what precedes the reply text, minus any
/// reasoning markers the template inserts there.
pub fn assistant_start(pr: &mut Prober, reasoning: &ReasoningAnalysis) -> String {
    let a = Params::new(vec![user(USER_MSG)]);
    let Some(cmp) = pr.compare("detect_assistant_start_marker", "assistant reply appended", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)];
    }) else {
        return String::new();
    };
    let block = &cmp.diff.right;
    let mut start = block.find(ASSISTANT_MSG).map(|p| &block[..p]).unwrap_or(block);
    for tag in [&reasoning.start, &reasoning.end] {
        let tag = trim_ws(tag);
        if let Some(p) = (!tag.is_empty()).then(|| start.find(tag)).flatten() {
            start = &start[..p];
        }
    }
    trim_ws(start).to_string()
}

/// No messages vs one user message (or, for templates that refuse an empty conversation, a
/// finished exchange vs the same plus a user message): the markers before the user text, skipping
/// leading end-of-turn markers of the previous turn.
pub fn user_start(pr: &mut Prober) -> String {
    let a = Params::new(vec![]);
    let cmp = match pr.compare("detect_user_start_marker", "user message added to an empty conversation", &a, |p| {
        p.messages = vec![user(USER_MSG)];
    }) {
        Some(c) => c,
        None => {
            let a = Params::new(vec![user(USER_MSG_TWO), assistant_text(ASSISTANT_MSG)]);
            let Some(c) = pr.compare("detect_user_start_marker", "user message appended after an exchange", &a, |p| {
                p.messages.push(user(USER_MSG));
            }) else {
                return String::new();
            };
            c
        }
    };
    let mut block = cmp.diff.right.as_str();
    if let Some(p) = block.find(ASSISTANT_MSG) {
        block = &block[p + ASSISTANT_MSG.len()..];
    }
    let candidate = block.find(USER_MSG).map(|p| &block[..p]).unwrap_or(block);
    let mut out = String::new();
    let mut seen_marker = false;
    for seg in segmentize_markers(candidate) {
        let is_marker = seg.kind == SegmentKind::Marker;
        let lower = seg.value.to_ascii_lowercase();
        // Before the first kept marker, skip what looks like the end of the previous turn.
        if !seen_marker && is_marker && (lower.contains("end") || lower.contains("close")) {
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
