//! Phase 1 — reasoning markers (reasoning.1–3).
//!
//! reasoning.1 adds `reasoning_content` to a finished assistant turn and looks for markers around it; reasoning.2
//! flips `enable_thinking` on the generation prompt (a template that opens or closes a thinking
//! block there reveals its tags even if it never prints past reasoning); reasoning.3 compares reasoning with
//! text content against reasoning with tool calls (templates that only keep reasoning next to tool
//! calls).

use super::diff::{prune_whitespace_segments, segmentize_markers, trim_ws, SegmentKind};
use super::pattern::{get, last_marker_to_end, lit, opt, seq, star_not, tag, P};
use super::probe::*;
use crate::findings::{ReasoningAnalysis, ReasoningMode};
use serde_json::{json, Value};

/// `<marker> THINKING <marker>` (both tags) — the stricter reading, tried first.
fn wrapped(with_rest: bool) -> P {
    let mut v = vec![tag("pre", seq(vec![P::Marker, P::Space])), lit(THINKING)];
    if with_rest {
        v.push(tag("post", seq(vec![P::Space, P::Marker, P::Space])));
        v.push(P::Rest);
    } else {
        v.push(P::Space);
        v.push(tag("post", seq(vec![P::Marker, P::Space])));
    }
    seq(v)
}

/// `THINKING <marker>?` (reasoning closed by a delimiter only).
fn delimited(with_rest: bool) -> P {
    let mut v = vec![lit(THINKING), P::Space, opt(tag("post", seq(vec![P::Marker, P::Space])))];
    if with_rest {
        v.push(P::Rest);
    }
    seq(v)
}

pub fn analyze(pr: &mut Prober, supports_tool_calls: bool) -> ReasoningAnalysis {
    let mut r = ReasoningAnalysis::default();
    compare_reasoning_presence(pr, &mut r);
    compare_thinking_enabled(pr, &mut r);
    if supports_tool_calls {
        compare_reasoning_scope(pr, &mut r);
    }
    r
}

/// reasoning.1: the same assistant turn with and without `reasoning_content`.
fn compare_reasoning_presence(pr: &mut Prober, r: &mut ReasoningAnalysis) {
    let a = Params::new(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)]);
    let Some(cmp) = pr.compare("compare_reasoning_presence", "assistant turn gains reasoning_content", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant(ASSISTANT_MSG.into(), Some(THINKING), None)];
    }) else {
        return;
    };
    if !cmp.diff.right.contains(THINKING) {
        return;
    }
    let found = wrapped(true).parse_anywhere(&cmp.output_b).or_else(|| delimited(true).parse_anywhere(&cmp.output_b));
    if let Some(t) = found {
        let (pre, post) = (get(&t, "pre"), get(&t, "post"));
        if !post.is_empty() {
            r.mode = ReasoningMode::TagBased;
            r.end = post;
            if !pre.is_empty() {
                r.start = pre;
            } else {
                // `<|channel>thought\n THINKING <channel|>`: a marker plus channel name opens the block.
                r.start = channel_start(&cmp.output_b);
            }
        }
    }
}

/// reasoning.2: generation prompt with `enable_thinking` false vs true.
fn compare_thinking_enabled(pr: &mut Prober, r: &mut ReasoningAnalysis) {
    let mut a = Params::new(vec![user(USER_MSG)]);
    a.add_generation_prompt = true;
    a.enable_thinking = false;
    let Some(cmp) = pr.compare("compare_thinking_enabled", "enable_thinking false -> true", &a, |p| p.enable_thinking = true) else {
        return;
    };
    let d = &cmp.diff;
    let (lt, rt) = (trim_ws(&d.left), trim_ws(&d.right));
    if lt.is_empty() && !d.right.is_empty() {
        // Thinking on appends an opening tag to the prompt.
        if !rt.is_empty() && cmp.output_b.ends_with(rt) && r.start.is_empty() {
            r.start = d.right.clone();
            r.mode = ReasoningMode::TagBased;
        }
    } else if rt.is_empty() && !d.left.is_empty() {
        // Thinking off appends a closing tag (often an empty `<think></think>` pair).
        // (The prompt may end in whitespace after the closing tag: `<think>\n\n</think>\n\n`.)
        let closes = |out: &str| out.ends_with(lt) || trim_ws(out).ends_with(lt);
        if !lt.is_empty() && closes(&cmp.output_a) && r.end.is_empty() {
            // The whole empty block can be the difference (`<think>\n\n</think>`, where the prompt
            // of thinking on opens nothing): its two markers are the opener and the closer.
            let pair = prune_whitespace_segments(segmentize_markers(lt));
            if pair.len() == 2 && pair.iter().all(|s| s.kind == SegmentKind::Marker) {
                // The blank inside the block is shared between the two markers (`<think>\n` and
                // `\n</think>`), and what follows the closer stays with it, as reasoning.1 finds them.
                let (open, close) = (&pair[0].value, &pair[1].value);
                let inner = lt.strip_prefix(open.as_str()).and_then(|s| s.strip_suffix(close.as_str())).unwrap_or("");
                let half = inner.char_indices().nth(inner.chars().count().div_ceil(2)).map_or(inner.len(), |(i, _)| i);
                let after = d.left.find(lt).map_or("", |p| &d.left[p + lt.len()..]);
                if r.start.is_empty() {
                    r.start = format!("{open}{}", &inner[..half]);
                }
                r.end = format!("{}{close}{after}", &inner[half..]);
                r.mode = ReasoningMode::TagBased;
                return;
            }
            let seg = prune_whitespace_segments(segmentize_markers(trim_ws(&cmp.output_a)));
            if seg.len() >= 2 && seg[seg.len() - 1].value == lt && seg[seg.len() - 2].kind == SegmentKind::Marker {
                r.start = seg[seg.len() - 2].value.clone();
            }
            r.end = if cmp.output_a.ends_with(lt) { d.left.clone() } else { lt.to_string() };
            r.mode = ReasoningMode::TagBased;
        }
    } else if !lt.is_empty() && !rt.is_empty() {
        // Both sides changed (e.g. the system prompt mentions the thinking mode): anchor on the tail
        // of one prompt and look for a marker pair appended after it in the other.
        for (base, extended) in [(&cmp.output_b, &cmp.output_a), (&cmp.output_a, &cmp.output_b)] {
            let mut cut = base.len().saturating_sub(64);
            while !base.is_char_boundary(cut) {
                cut += 1;
            }
            let anchor = &base[cut..];
            let Some(pos) = extended.rfind(anchor) else { continue };
            let after = pos + anchor.len();
            if after >= extended.len() {
                continue;
            }
            let extra = trim_ws(&extended[after..]);
            if extra.is_empty() {
                continue;
            }
            let seg = prune_whitespace_segments(segmentize_markers(extra));
            if seg.len() == 2 && seg.iter().all(|s| s.kind == SegmentKind::Marker) {
                if r.start.is_empty() {
                    r.start = seg[0].value.clone();
                }
                if r.end.is_empty() {
                    r.end = seg[1].value.clone();
                }
                r.mode = ReasoningMode::TagBased;
                break;
            }
        }
    }
    if r.mode == ReasoningMode::None && r.start.is_empty() && !r.end.is_empty() {
        r.mode = ReasoningMode::TagBased;
    }
}

/// A start marker followed by a one-word channel name right before the reasoning
/// (`<|channel>thought\n`): the marker alone is not a `<marker> THINKING` wrapper, but marker and
/// name together open the block.
fn channel_start(render: &str) -> String {
    let Some(before) = render.find(THINKING).and_then(|p| render.get(..p)) else { return String::new() };
    let last = seq(vec![star_not(last_marker_to_end()), tag("m", last_marker_to_end())]);
    let Some(m) = last.parse(before).map(|t| get(&t, "m")) else { return String::new() };
    let name = m.get(m.find(['>', ']']).map_or(0, |p| p + 1)..).unwrap_or("");
    let word = trim_ws(name);
    let one_word = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic());
    if one_word { m } else { String::new() }
}

/// reasoning.3: reasoning next to text content vs reasoning next to a tool call.
fn compare_reasoning_scope(pr: &mut Prober, r: &mut ReasoningAnalysis) {
    let a = Params::with_tools(vec![user(USER_MSG), assistant(ASSISTANT_MSG.into(), Some(THINKING), None)]);
    let call = tool_call(FUN_FIRST, json!({ARG_FIRST: "VVVV", ARG_SECOND: "XXXX"}), CALL_ID_001);
    let Some(cmp) = pr.compare("compare_reasoning_scope", "text content replaced by a tool call, reasoning kept", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant(Value::Null, Some(THINKING), Some(vec![call]))];
    }) else {
        return;
    };
    if cmp.output_a.contains(THINKING) || !cmp.output_b.contains(THINKING) {
        return;
    }
    r.mode = ReasoningMode::ToolsOnly;
    if let Some(t) = wrapped(false).parse_anywhere(&cmp.output_b) {
        r.start = get(&t, "pre");
        r.end = get(&t, "post");
    } else if let Some(t) = delimited(false).parse_anywhere(&cmp.output_b) {
        r.end = get(&t, "post");
        r.start = channel_start(&cmp.output_b);
    } else {
        r.mode = ReasoningMode::None;
    }
}
