//! The guarantees checked where calls leave the parser (`parse::exit`, issue #24): every call's
//! `arguments` is valid JSON and never `""`, fixed by appended deltas (the deltas still rebuild the
//! message); a call cut off inside its arguments is closed and ends the parse with `finishReason`
//! `"length"` and a diagnostic.
//!
//! The mutation test parses a deterministic sample of the corpus outputs with a tool call, each with
//! one character deleted, one inserted, or cut off (tests/fuzz_support/mutations.rs); the whole sweep
//! is `examples/mutation_census.rs` (BENCHMARKS.md has its figures).

mod fuzz_support;

use chat_autoparser::api::{Delta, Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use fuzz_support::common;
use fuzz_support::mutations::*;
use serde_json::json;

fn tools() -> Vec<serde_json::Value> {
    vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": { "city": { "type": "string" }, "days": { "type": "integer" } } } } })]
}

/// Parse `output` for `template`: deltas, message, diagnostics, finish reason; the same message
/// one character at a time.
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Vec<Delta>, Message, Vec<String>, Option<&'static str>) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let run = |chunks: Vec<&str>| {
        let mut p = t.stream_parser(options).expect("parser");
        let mut deltas = Vec::new();
        for c in chunks {
            deltas.extend(p.push(c));
        }
        deltas.extend(p.finish().expect("not strict: never throws"));
        let diagnostics = p.diagnostics().iter().map(|d| d.message.clone()).collect();
        (deltas, p.message().clone(), diagnostics, p.finish_reason())
    };
    let whole = run(vec![output]);
    let chars = run(output.char_indices().map(|(i, c)| &output[i..i + c.len_utf8()]).collect());
    assert_eq!((&whole.1, whole.3), (&chars.1, chars.3), "stream ≡ whole for {output:?}");
    assert_eq!(Message::from_deltas(&whole.0), whole.1, "deltas rebuild the message");
    whole
}

#[test]
fn a_cut_off_json_call_is_closed_by_an_appended_delta() {
    let options = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    let (deltas, m, d, reason) = parse("Qwen-Qwen3-0.6B.jinja", &options, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par");
    assert_eq!(m.tool_calls[0].function.arguments, r#"{"city": "Par"}"#);
    assert_eq!(reason, Some("length"));
    assert_eq!(deltas.last(), Some(&Delta::ToolCall { index: 0, id: None, name: None, arguments: Some("\"}".into()) }));
    assert!(d.iter().any(|d| d.contains("cut off by the end of the output") && d.contains("appending `\"}`")), "{d:?}");
}

#[test]
fn a_dangling_key_gets_null_and_a_half_literal_is_finished() {
    let options = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    let (_, m, _, reason) = parse("Qwen-Qwen3-0.6B.jinja", &options, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":");
    assert_eq!((m.tool_calls[0].function.arguments.as_str(), reason), (r#"{"city":null}"#, Some("length")));
    let (_, m, _, _) = parse("Qwen-Qwen3-0.6B.jinja", &options, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 3, \"x\": tr");
    assert_eq!(m.tool_calls[0].function.arguments, r#"{"days": 3, "x": true}"#);
}

#[test]
fn a_tagged_call_cut_off_between_its_parameters_ends_with_length() {
    let options = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    let output = "<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n<parameter=";
    let (_, m, d, reason) = parse("Qwen3.5-4B.jinja", &options, output);
    assert_eq!((m.tool_calls[0].function.arguments.as_str(), reason), (r#"{"days":3}"#, Some("length")), "{d:?}");
    let t = ChatTemplate::new(&common::template_source("Qwen3.5-4B.jinja"), RenderOptions::default()).unwrap();
    let mut p = t.stream_parser(&RequestOptions { strict: true, ..options }).unwrap();
    p.push(output);
    let e = p.finish().unwrap_err();
    assert_eq!(e.offset(), Some(output.len()));
    // The closing delta came before the error: the message the deltas build is valid.
    assert!(p.take_failed_deltas().iter().any(|d| matches!(d, Delta::ToolCall { arguments: Some(a), .. } if a == "}")));
}

#[test]
fn literal_arguments_that_break_end_the_call_with_valid_json() {
    let tools = vec![json!({ "type": "function", "function": { "name": "f", "parameters": { "type": "object", "properties": { "x": {}, "y": {} } } } })];
    let options = RequestOptions { tools, ..Default::default() };
    for (output, args) in [
        ("<|tool_call_start|>[f(x=b'z')]<|tool_call_end|>", r#"{"x":"b"}"#),
        ("<|tool_call_start|>[f(x=, y=1)]<|tool_call_end|>", r#"{"x":null}"#),
        ("<|tool_call_start|>[f(x=[\"a\" \"b\"])]<|tool_call_end|>", r#"{"x":["a" ]}"#),
        ("<|tool_call_start|>[f(x='a\\db')]<|tool_call_end|>", r#"{"x":"a\\db"}"#),
    ] {
        let (_, m, d, _) = parse("LFM2-8B-A1B.jinja", &options, output);
        assert_eq!(m.tool_calls.first().map(|c| c.function.arguments.as_str()), Some(args), "{output:?}: {d:?}");
    }
}

#[test]
fn corpus_outputs_need_no_closing() {
    for s in all_stream_subjects() {
        let Some(p) = parse_chunks(&s, &[&s.output]) else { continue };
        assert!(bad_arguments(&p.message).is_none(), "{}", s.label);
        let analysis = s.template.analysis().unwrap();
        let mut sp = chat_autoparser::StreamParser::new(analysis, &s.gp, &s.options).unwrap();
        sp.push(&s.output);
        let _ = sp.finish();
        let exit: Vec<&str> = sp.diagnostics().iter().map(|d| d.message.as_str()).filter(|m| m.contains("closed to valid JSON")).collect();
        assert!(exit.is_empty(), "{}: {exit:?}", s.label);
    }
}

/// A deterministic sample: for every corpus output, each mutation class at two positions (spread by
/// a hash of the label), the second also streamed in chunks of 1, 2, 3 and 7 characters.
#[test]
fn mutated_corpus_outputs_keep_the_exit_guarantees() {
    let subjects = all_stream_subjects();
    assert!(subjects.len() > 500, "corpus subjects: {}", subjects.len());
    let (mut texts, mut failures) = (0, Vec::new());
    for s in &subjects {
        let n = s.output.chars().count();
        let seed = s.label.bytes().fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        for (j, m) in MUTATIONS.into_iter().enumerate() {
            for (r, stream) in [(seed, false), (seed / 7 + j * 13, true)] {
                let k = (r + j) % (n + 1);
                let text = mutate_at(&s.output, m, k);
                texts += 1;
                if let Err((_, why)) = check_text(s, &text, stream) {
                    failures.push(format!("[{m:?} at {k}] {why}"));
                }
            }
        }
    }
    println!("exit guarantees: {} outputs, {texts} mutated texts, {} failures", subjects.len(), failures.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}
