//! Phase 2 — content markers (C1): does the template wrap the assistant's text in markers?
//!
//! Two comparisons from the same text-only turn: text vs a tool call (the text is the whole
//! difference when unwrapped), and text vs reasoning with empty content (what remains around the
//! text once reasoning markers are cut off).

use super::diff::trim_ws;
use super::pattern::{get, lit, opt, seq, tag, P};
use super::probe::*;
use super::types::{ContentAnalysis, ContentMode, ReasoningAnalysis, ReasoningMode};
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
