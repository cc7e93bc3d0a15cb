//! Differential template analysis: render a template with controlled variations, diff the
//! outputs, and read off how its model writes reasoning, content and tool calls.
//!
//! Entry point: [`analyze_template`]. Phases: reasoning (reasoning.1–3, `reasoning.rs`), content (content.1,
//! `content.rs`), tools (tools.1–2 `tools.rs`, tools.3–7 `tool_markers.rs`, tools.8 `call_layout.rs`, tools.9–12 `call_extras.rs`, tools.13 `raw_code.rs`, tools.14 `id_as_name.rs`), role
//! markers (`roles.rs`), a reply written as messages headed by their recipient (`addressed.rs`), then
//! the preserved-token union and the late phases that read what the
//! common probes cannot: a content wrapper inside the assistant header (content.2, `content.rs`),
//! reasoning tags no render shows (reasoning.4–6, `unrendered_reasoning.rs`); then the source-keyed
//! [`workarounds`] and, for a template without a tool format, the tool-call markers its source
//! names ([`fallback`]). Every comparison of the llama.cpp-compatible phases is kept in
//! `Analysis.diffs` (checked in order against llama.cpp's record); tools.8–11, content.2 and reasoning.4–5 render their
//! own probes without recording them, and say in `diagnostics` when they change the analysis.

mod addressed;
mod call_extras;
mod call_layout;
mod content;
mod diff;
mod detect;
mod fallback;
mod id_as_name;
mod literal_args;
mod pattern;
mod probe;
mod raw_code;
mod reasoning;
mod roles;
mod segments;
mod source_tokens;
mod tool_markers;
mod tool_turns;
mod tools;

mod unrendered_reasoning;
mod workarounds;

use diff::trim_ws;
pub use diff::{after_common_suffix, calculate_diff_split, common_prefix_len, common_suffix_len, segmentize_markers, until_common_prefix, DiffSplit, Segment, SegmentKind};
pub use detect::detect_handler;
pub use fallback::{fallback_formats, fallback_grammar_applies, CallBody, FallbackFormat, FallbackMarker};
pub use crate::findings::*;

use crate::template::Template;

/// Analyze a template, with capabilities from the template's own probe ([`ChatTemplate::caps`]).
/// Never panics; a template that cannot be fully analysed yields `analysis_complete == false` and
/// the reasons in `diagnostics`.
pub fn analyze_template(t: &Template) -> Analysis {
    analyze_template_with_caps(t, t.caps())
}

/// [`analyze_template`] with explicit capabilities: tool analysis runs only if
/// `supports_tool_calls`, the one-vs-two-calls probes only if `supports_parallel_tool_calls`.
pub fn analyze_template_with_caps(t: &Template, caps: &Caps) -> Analysis {
    let mut pr = probe::Prober::new(t);
    if caps.supports_tool_calls {
        pr.decide_call_shape();
    }
    let reasoning = reasoning::analyze(&mut pr, caps.supports_tool_calls);
    let content = content::analyze(&mut pr, &reasoning);
    // The tool phases' one-vs-two-calls probes: tools.14 may find what the capability probe cannot see.
    let mut parallel = caps.supports_parallel_tool_calls;
    let mut tools = if caps.supports_tool_calls {
        tools::analyze(&mut pr, &reasoning, &mut parallel)
    } else {
        ToolsAnalysis::default()
    };
    let mut content = content;
    content.requires_nonnull_content = pr.requires_nonnull_content;
    tools.requires_wire_shape = pr.wire_shape;
    let (assistant_start, turn_end, reply_end) = roles::assistant_start(&mut pr, &reasoning, &content);
    let user_start = roles::user_start(&mut pr, &reply_end);
    tools::drop_reply_end(&mut tools, &reply_end);
    if caps.supports_tool_calls {
        literal_args::analyze(&mut pr, &mut tools, parallel);
        call_layout::refine(&mut pr, &mut tools);
        call_extras::analyze(&mut pr, &mut tools, parallel);
        if tools.format.mode != ToolFormat::None {
            tools.raw_code_call = raw_code::analyze(&mut pr, t.source());
        }
    }
    let mut handler = detect::detect_handler(t.source());
    let found = if caps.supports_tool_calls && handler == Handler::Autoparser { addressed::analyze(&mut pr, &tools, caps.supports_parallel_tool_calls) } else { None };
    let mut reasoning = reasoning;
    if let Some((m, body)) = &found {
        addressed::fix_body_name_markers(body, &mut tools);
        addressed::reasoning_as_message(m, &mut reasoning);
        handler = Handler::Addressed;
    }
    let messages = found.map(|(m, _)| m);
    let segments = if handler == Handler::Autoparser { segments::analyze(&mut pr, caps.supports_tool_calls) } else { None };
    if let Some((seg, body)) = &segments {
        segments::strip_header_from_tools(seg, body, &mut tools);
    }
    let segments = segments.map(|(seg, _)| seg);
    if segments.is_some() {
        // Reasoning and the answer are segments (`Analysis.segments`), not marker pairs: what the marker
        // comparisons took for their markers are pieces of the headers. The mode says the template
        // reasons; the segment's header and end are its markers.
        reasoning = ReasoningAnalysis { mode: ReasoningMode::TagBased, ..ReasoningAnalysis::default() };
        content = ContentAnalysis { requires_nonnull_content: content.requires_nonnull_content, ..ContentAnalysis::default() };
    }
    let handler = detect::with_read_structure(handler, segments.is_some());
    let mut a = Analysis {
        handler,
        messages,
        segments,
        caps: caps.clone(),
        user_start,
        assistant_start,
        turn_end,
        reasoning,
        content,
        tools,
        ..Default::default()
    };
    a.preserved_tokens = collect_preserved_tokens(&a);
    if let Some(m) = a.messages.clone() {
        // The reasoning "start" is a header (` to=self<|message|>`), not a token.
        let header = trim_ws(&a.reasoning.start).to_string();
        a.preserved_tokens.retain(|t| *t != header);
        let tokens: Vec<&str> = [trim_ws(&m.message_start), trim_ws(&m.header_end)].into_iter().chain(m.message_ends.iter().map(String::as_str)).collect();
        a.preserve_tokens(&tokens);
    }
    if let Some(seg) = a.segments.clone() {
        let words = [Some(&seg.reasoning_word), Some(&seg.content_word), seg.calls_word.as_ref()];
        let closes: Vec<String> = words.iter().flatten().map(|w| seg.close(w)).collect();
        let tokens: Vec<&str> = [trim_ws(&seg.header_start), trim_ws(&seg.header_end)].into_iter().chain(closes.iter().map(|c| trim_ws(c))).filter(|t| t.starts_with(['<', '['])).collect();
        a.preserve_tokens(&tokens);
    }
    a.content_label = roles::content_label(&mut pr);
    // Late phases add their tokens after the union.
    content::wrapper_around_reply(&mut pr, &mut a);
    unrendered_reasoning::analyze(&mut pr, &mut a);
    if caps.supports_tool_calls {
        let known: Vec<String> = a.preserved_tokens.iter().chain(&a.turn_end).cloned().collect();
        for m in tool_turns::call_turn_end(&mut pr, &known, &[&a.user_start, &a.assistant_start]) {
            a.turn_end.push(m);
        }
        let known: Vec<String> = known.into_iter().chain(a.turn_end.iter().cloned()).collect();
        a.tool_result_markers = tool_turns::tool_result_markers(&mut pr, &known);
    }
    a.source_tokens = source_tokens::source_tokens(t.source());
    let known: Vec<&str> = a.turn_end.iter().map(String::as_str).chain([diff::trim_ws(&a.content.end), diff::trim_ws(&a.reasoning.end)]).collect();
    let named = roles::named_turn_ends(&a.source_tokens, &known);
    a.turn_end.extend(named);
    // The tokenizer's end-of-sequence token, when the template was given one (a tokenizer_config.json's
    // `eos_token`): a model, or a server that decodes special tokens, writes it as text to end its reply.
    // The probes render with `eos_token` empty, so no render shows it.
    if let Some(eos) = t.options().eos_token.as_deref().map(diff::trim_ws).filter(|e| !e.is_empty() && !a.turn_end.iter().any(|m| m == e)) {
        let known = [&a.content.start, &a.content.end, &a.reasoning.start, &a.reasoning.end];
        if !known.iter().any(|m| diff::trim_ws(m) == eos) {
            a.turn_end.push(eos.to_string());
        }
    }
    a.workarounds = workarounds::apply(t.source(), &mut a);
    if a.tools.format.mode == ToolFormat::None && a.handler == Handler::Autoparser {
        // No rendered tool calls: the parser falls back on markers the source names (rule R13).
        // (Their tokens are preserved by the format, with the grammar built on them.)
        a.tools.fallback_markers = fallback::mine_markers(t.source());
    }
    a.analysis_complete = !pr.incomplete;
    a.diffs = pr.diffs;
    a.diagnostics = pr.diagnostics;
    a
}

/// Union of all non-empty markers, trimmed, first occurrence first.
fn collect_preserved_tokens(a: &Analysis) -> Vec<String> {
    let t = &a.tools;
    // Literal-argument punctuation (`(`, `=`, `, `) is ordinary text, not a token.
    let literal = |m: &String| if t.arguments.literal_values { String::new() } else { m.clone() };
    let all = [
        &a.reasoning.start,
        &a.reasoning.end,
        &a.content.start,
        &a.content.end,
        &t.format.section_start,
        &t.format.section_end,
        &t.format.per_call_start,
        &t.format.per_call_end,
        &t.function.name_prefix,
        &t.function.name_suffix,
        &t.function.close,
        &literal(&t.arguments.start),
        &literal(&t.arguments.end),
        &t.arguments.name_prefix,
        &literal(&t.arguments.name_suffix),
        &literal(&t.arguments.separator),
        &t.arguments.value_prefix,
        &t.arguments.value_suffix,
        // A quote character is text; a delimiter token (`<|"|>`) is a token.
        &if t.arguments.string_delimiter.chars().count() > 1 { t.arguments.string_delimiter.clone() } else { String::new() },
        &t.call_id.prefix,
        &t.call_id.suffix,
    ];
    let mut out: Vec<String> = Vec::new();
    for tok in all {
        let tok = diff::trim_ws(tok);
        if !tok.is_empty() && !out.iter().any(|x| x == tok) {
            out.push(tok.to_string());
        }
    }
    out
}
