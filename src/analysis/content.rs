//! Phase 2 — content markers (content.1): does the template wrap the assistant's text in markers?
//!
//! Two comparisons from the same text-only turn: text vs a tool call (the text is the whole
//! difference when unwrapped), and text vs reasoning with empty content (what remains around the
//! text once reasoning markers are cut off).

use super::diff::{calculate_diff_split, segmentize_markers, trim_ws, SegmentKind};
use super::pattern::{get, lit, opt, seq, tag, P};
use super::probe::*;
use crate::findings::{Analysis, ContentAnalysis, ContentMode, ReasoningAnalysis, ReasoningMode};
use serde_json::json;

pub fn analyze(pr: &mut Prober, reasoning: &ReasoningAnalysis) -> ContentAnalysis {
    let mut c = ContentAnalysis::default();
    let a = Params::with_tools(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)]);
    let call = tool_call("test_func", json!({"arg1": "value1"}), CALL_ID_001);
    let with_tools = pr.compare("analyze_content", "text content replaced by a tool call", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant_calls(vec![call])];
    });
    let with_reasoning = pr.compare("analyze_content", "text content replaced by reasoning with empty content", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant("".into(), Some(THINKING), None)];
    });
    let (Some(tools), Some(reas)) = (with_tools, with_reasoning) else {
        return c;
    };
    let (dt, dr) = (&tools.diff, &reas.diff);

    let mut plain = false;
    if trim_ws(&dt.left) == ASSISTANT_MSG {
        // The text alone (perhaps followed by an end-of-turn marker) is the whole difference.
        let bare = seq(vec![P::Space, lit(&dr.left), P::Space, opt(P::Marker), P::Space, P::End]);
        if bare.parse(&dr.left).is_some() {
            plain = true;
        } else if reasoning.mode != ReasoningMode::None && !reasoning.end.is_empty() {
            let after_reasoning = seq(vec![lit(&reasoning.end), P::Space, lit(ASSISTANT_MSG)]);
            plain = after_reasoning.parse_anywhere(&dr.left).is_some();
        }
    }
    if !plain {
        let mut rdiff = dr.left.as_str();
        if let Some(p) = (!reasoning.end.is_empty()).then(|| rdiff.find(&reasoning.end)).flatten() {
            rdiff = &rdiff[p + reasoning.end.len()..];
        }
        // The longer of the two differences holds more of the wrapper.
        let pure = if rdiff.len() > dt.left.len() { rdiff } else { dt.left.as_str() };
        let wrapped = seq(vec![
            tag("pre", seq(vec![P::Marker, P::Space])),
            lit(ASSISTANT_MSG),
            P::Space,
            tag("post", seq(vec![P::Marker, P::Space])),
            P::Rest,
        ]);
        if let Some(t) = wrapped.parse_anywhere(pure) {
            c.start = get(&t, "pre");
            c.end = get(&t, "post");
        }
    }
    if !c.start.is_empty() || !c.end.is_empty() {
        c.mode = ContentMode::AlwaysWrapped;
    }
    c
}

/// content.2, when content.1 found no wrapper: the reply as the template frames it, read from a user turn vs the
/// same plus the reply (every other probe shares the assistant header, so content.1 cannot see what sits
/// in it). A wrapper is a pair of markers glued to both ends of the reply text, where the header
/// before the text is all markers from the turn opener the user's header starts with, and the
/// opening one is not in the user's header:
/// `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>TEXT<|END_OF_TURN_TOKEN|>` frames the text with
/// `<|CHATBOT_TOKEN|>`…`<|END_OF_TURN_TOKEN|>`, `…<|CHATBOT_TOKEN|><|START_RESPONSE|>TEXT<|END_RESPONSE|>`
/// with the response markers. A header with a role name (`<|im_start|>assistant\n`), a lone role
/// token (`<｜Assistant｜>TEXT`), one every role shares (`<|end_of_role|>TEXT`) or a previous turn's end
/// (`<|end|><|assistant|>TEXT`) opens a turn, not the content.
pub fn wrapper_around_reply(pr: &mut Prober, a: &mut Analysis) {
    if a.content.mode != ContentMode::Plain {
        return;
    }
    if let Some((start, end)) = reply_frame(pr, &a.user_start) {
        pr.diagnostics.push(format!("content: the reply is framed by {start}…{end} inside the assistant turn; read as a content wrapper"));
        a.content.mode = ContentMode::AlwaysWrapped;
        a.preserve_tokens(&[&start, &end]);
        // As roles.rs does for a wrapper content.1 found: the wrapper's end is no turn end.
        a.turn_end.retain(|m| *m != end);
        a.content.start = start;
        a.content.end = end;
    }
}

fn reply_frame(pr: &mut Prober, user_start: &str) -> Option<(String, String)> {
    let turn_opener = segmentize_markers(user_start).into_iter().next().filter(|s| s.kind == SegmentKind::Marker)?.value;
    let a = Params::new(vec![user(USER_MSG)]);
    let mut b = a.clone();
    b.messages.push(assistant_text(ASSISTANT_MSG));
    let (ra, rb) = (pr.render(&a).ok()?, pr.render(&b).ok()?);
    // The reply's turn as the second render adds it (its opener may fall in the shared prefix).
    let block = calculate_diff_split(&ra, &rb).right;
    let at = rb.rfind(ASSISTANT_MSG)?;
    let in_block = block.find(ASSISTANT_MSG)?;
    let head = segmentize_markers(&rb[..at]);
    let open = head.last().filter(|s| s.kind == SegmentKind::Marker)?;
    if !block[..in_block].ends_with(&open.value) || user_start.contains(&open.value) {
        return None;
    }
    // The markers before it, back to the turn opener, with no text between.
    let header = head.iter().rev().skip(1).take_while(|s| s.kind == SegmentKind::Marker);
    if !header.into_iter().any(|s| s.value == turn_opener) {
        return None;
    }
    let close = segmentize_markers(&rb[at + ASSISTANT_MSG.len()..]).into_iter().next().filter(|s| s.kind == SegmentKind::Marker)?;
    Some((open.value.clone(), close.value))
}
