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

/// `text` in pieces of `n` characters.
fn pieces(text: &str, n: usize) -> Vec<String> {
    text.chars().collect::<Vec<_>>().chunks(n).map(|c| c.iter().collect()).collect()
}

/// Parse `output` whole and in pieces of 1, 2, 3 and 5 characters (all must agree); the message and the
/// diagnostics of the whole parse.
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let run = |chunks: Vec<String>| {
        let mut p = t.stream_parser(options).expect("parser");
        for c in &chunks {
            p.push(c);
        }
        p.finish().expect("never throws on model output");
        (p.message().clone(), p.diagnostics().iter().map(|d| d.message.clone()).collect::<Vec<_>>())
    };
    let whole = run(vec![output.to_string()]);
    for n in [1, 2, 3, 5] {
        assert_eq!(run(pieces(output, n)).0, whole.0, "stream ≡ whole in pieces of {n} for {output:?}");
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

#[test]
fn r9_reasoning_opener_without_its_channel_word() {
    let on = RequestOptions { enable_thinking: Some(true), ..Default::default() };
    let (m, d) = parse(GEMMA4, &on, "<|channel>first thought<channel|><|channel>second<channel|>Final.");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("first thoughtsecond", "Final."));
    assert!(has(&d, "R9"), "{d:?}");
    // The full opener is still the opener (no diagnostic), and a stray token before it is dropped.
    let (m, d) = parse(GEMMA4, &on, "<|channel>thought\nhmm<channel|>ok");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("hmm", "ok"));
    assert!(!has(&d, "R9"), "{d:?}");
    let (m, _) = parse(GEMMA4, &on, "<|channel><|channel>thought\nhmm<channel|>ok");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("hmm", "ok"));
    // At the very end a bare opener may still become the full one: it stays text.
    let (m, _) = parse(GEMMA4, &on, "answer <|channel>");
    assert_eq!(m.content, "answer <|channel>");
}

#[test]
fn r9_ascii_spelling_of_a_fullwidth_end_of_turn_token() {
    let off = RequestOptions { enable_thinking: Some(false), extra_context: json!({ "thinking": false }).as_object().cloned().unwrap_or_default(), ..Default::default() };
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &off, "Hello.<|end▁of▁sentence|>");
    assert_eq!(m.content, "Hello.");
    assert!(has(&d, "R7") && has(&d, "R9"), "{d:?}");
}

#[test]
fn r9_closer_the_template_never_writes_by_its_token_convention() {
    let options = RequestOptions { tools: tools(&["f", "g"]), ..Default::default() };
    let output = "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\", \"arguments\": {}}][/TOOL_CALLS]";
    let (m, d) = parse("mistralai-Mistral-Nemo-Instruct-2407.jinja", &options, output);
    assert_eq!(calls(&m), vec![("f".into(), json!({"a": 1})), ("g".into(), json!({}))]);
    assert_eq!(m.content, "");
    assert!(has(&d, "R9"), "{d:?}");
}

#[test]
fn r11_source_token_before_a_call_is_part_of_the_call() {
    let options = RequestOptions { tools: tools(&["find_user"]), ..Default::default() };
    let llama = "meta-llama-Llama-3.1-8B-Instruct.jinja";
    let (m, d) = parse(llama, &options, "<|python_tag|>{\"name\": \"find_user\", \"parameters\": {\"zip\": 7}} Done.");
    assert_eq!(calls(&m), vec![("find_user".into(), json!({"zip": 7}))]);
    assert_eq!(m.content.trim(), "Done.");
    assert!(has(&d, "R11"), "{d:?}");
    // Not before a call: text as written.
    let (m, d) = parse(llama, &options, "a <|python_tag|> b");
    assert_eq!(m.content, "a <|python_tag|> b");
    assert!(!has(&d, "R11"), "{d:?}");
}

#[test]
fn r12_a_second_call_section_after_the_first_closed() {
    let options = RequestOptions { tools: tools(&["tool1", "tool2"]), enable_thinking: Some(false), extra_context: json!({ "thinking": false }).as_object().cloned().unwrap_or_default(), ..Default::default() };
    let section = |name: &str| format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{{}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>");
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &options, &format!("First.{}Second.{}", section("tool1"), section("tool2")));
    assert_eq!(calls(&m), vec![("tool1".into(), json!({})), ("tool2".into(), json!({}))]);
    assert_eq!(m.content, "First.Second.");
    assert_eq!(d.iter().filter(|d| d.contains("rule R12")).count(), 1, "{d:?}");
    // One section with both calls: no departure.
    let both = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>tool1<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁call▁begin｜>tool2<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &options, both);
    assert_eq!(calls(&m).len(), 2);
    assert!(!has(&d, "R12"), "{d:?}");
}

#[test]
fn r9_tool_call_markers_in_another_spelling_are_read_alike() {
    let options = RequestOptions { tools: tools(&["f", "g"]), enable_thinking: Some(false), extra_context: json!({ "thinking": false }).as_object().cloned().unwrap_or_default(), ..Default::default() };
    let ascii = "<|tool▁calls▁begin|><|tool▁call▁begin|>f<|tool▁sep|>{\"a\": 1}<|tool▁call▁end|><|tool▁calls▁end|>";
    let canonical = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &options, &format!("A{ascii}B{canonical}C"));
    assert_eq!(calls(&m), vec![("f".into(), json!({"a": 1})), ("g".into(), json!({}))]);
    assert_eq!(m.content, "ABC");
    assert_eq!(d.iter().filter(|d| d.contains("rule R9")).count(), 1, "{d:?}");
    // Spellings mixed: the section opener in a dialect whose call markers do not follow is a section
    // not closed (said so); the call in the template's spelling is still read.
    let mixed = "<|tool▁calls▁begin|><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>";
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &options, mixed);
    assert_eq!(calls(&m), vec![("f".into(), json!({}))]);
    assert!(d.iter().any(|d| d.contains("not closed")), "{d:?}");
}

#[test]
fn r51_a_stray_harmony_token_between_messages_is_dropped_with_its_rule() {
    let options = RequestOptions { enable_thinking: Some(false), ..Default::default() };
    let out = "<|channel|>analysis<|message|>Think.<|end|><|end|><|start|>assistant<|channel|>final<|message|>Hi";
    let (m, d) = parse("openai-gpt-oss-120b.jinja", &options, out);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Think.", "Hi"), "{d:?}");
    assert!(has(&d, "R51"), "{d:?}");
}
