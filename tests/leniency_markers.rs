//! The marker leniency rules R8–R12 (README "Leniency"): markers the model writes differently from the
//! template's rendering. One small output each on a reference template: the message, the diagnostic
//! naming the rule, and the same message in every chunking.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;

fn tools(names: &[&str]) -> Vec<serde_json::Value> {
    names.iter().map(|n| json!({ "type": "function", "function": { "name": n, "parameters": { "type": "object", "properties": {} } } })).collect()
}

fn split_every(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + n).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Parse `output` whole and in chunks of 1, 2, 3 and 5 bytes (all must agree); the message and the
/// diagnostics of the whole parse.
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let run = |chunks: Vec<&str>| {
        let mut p = t.stream_parser(options).expect("parser");
        for c in chunks {
            p.push(c);
        }
        p.finish().expect("never throws on model output");
        (p.message().clone(), p.diagnostics().iter().map(|d| d.message.clone()).collect::<Vec<_>>())
    };
    let whole = run(vec![output]);
    for n in [1, 2, 3, 5] {
        assert_eq!(run(split_every(output, n)).0, whole.0, "stream ≡ whole in chunks of {n} for {output:?}");
    }
    whole
}

fn has(diags: &[String], rule: &str) -> bool {
    diags.iter().any(|d| d.contains(&format!("rule {rule}")))
}

fn calls(m: &Message) -> Vec<(String, serde_json::Value)> {
    m.tool_calls.iter().map(|c| (c.function.name.clone(), serde_json::from_str(&c.function.arguments).unwrap_or_default())).collect()
}

const GEMMA4: &str = "google-gemma-4-31B-it.jinja";
const COHERE2: &str = "Cohere2MoE.jinja";

#[test]
fn r8_missing_comma_between_calls_of_an_array() {
    let options = RequestOptions { tools: tools(&["a", "b"]), enable_thinking: Some(false), ..Default::default() };
    let output = "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}{\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"x\": 1}}]<|END_ACTION|>";
    let (m, d) = parse(COHERE2, &options, output);
    assert_eq!(calls(&m), vec![("a".into(), json!({})), ("b".into(), json!({"x": 1}))]);
    assert!(has(&d, "R8"), "{d:?}");
}

#[test]
fn r10_repeated_call_end_marker_is_dropped() {
    let options = RequestOptions { tools: tools(&["get_weather"]), enable_thinking: Some(false), ..Default::default() };
    let call = "<|tool_call>call:get_weather{location:<|\"|>Paris<|\"|>}<tool_call|>";
    for (tail, content) in [("<tool_call|>", ""), ("<tool_call|><tool_call|>Done.", "Done."), (" <tool_call|>\nDone.", "Done.")] {
        let (m, d) = parse(GEMMA4, &options, &format!("{call}{tail}"));
        assert_eq!(calls(&m), vec![("get_weather".into(), json!({"location": "Paris"}))], "{tail:?}");
        assert_eq!(m.content.trim(), content, "{tail:?}");
        assert!(has(&d, "R10"), "{d:?}");
    }
    // Not repeated: no diagnostic, the text after the call is content.
    let (m, d) = parse(GEMMA4, &options, &format!("{call}Done <tool_call"));
    assert_eq!(m.content, "Done <tool_call");
    assert!(!has(&d, "R10"), "{d:?}");
}
