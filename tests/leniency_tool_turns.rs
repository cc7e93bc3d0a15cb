//! Leniency around tool turns and schema-less values (README "Leniency"): the call turn's closing
//! token (R7), the tool-result wrapper quoted in an answer (R15), a schema-less tagged value that is
//! JSON (R14), and reasoning without its opener in the dedicated Ministral format (R5). Each output
//! is parsed whole and in every chunking of 1, 3 and 7 bytes; all must agree.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Value};

/// `output` parsed whole and in several chunkings (all must agree): the message and diagnostics.
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let run = |size: usize| {
        let mut p = t.stream_parser(options).expect("parser");
        for chunk in chat_autoparser::testing::chunks(output, size) {
            p.push(chunk);
        }
        p.finish().expect("never throws on model output");
        (p.message().clone(), p.diagnostics().iter().map(|d| d.message.clone()).collect::<Vec<_>>())
    };
    let whole = run(output.len().max(1));
    for size in [1, 3, 7] {
        assert_eq!(run(size).0, whole.0, "chunks of {size} ≡ whole for {output:?}");
    }
    whole
}

fn has(diags: &[String], rule: &str) -> bool {
    diags.iter().any(|d| d.contains(&format!("rule {rule}")))
}

fn open_tool(name: &str) -> Value {
    json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": {} } } })
}

fn args(m: &Message, i: usize) -> Value {
    serde_json::from_str(&m.tool_calls[i].function.arguments).expect("arguments are JSON")
}

#[test]
fn r7_what_the_template_writes_after_a_call_ends_the_turn() {
    let a = ChatTemplate::new(&common::template_source("google-gemma-4-31B-it.jinja"), RenderOptions::default()).unwrap().analysis().unwrap().clone();
    assert!(a.turn_end.iter().any(|m| m == "<|tool_response>"), "{:?}", a.turn_end);
    let options = RequestOptions { tools: vec![open_tool("get_weather")], enable_thinking: Some(false), ..Default::default() };
    let call = r#"<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>"#;
    let (m, d) = parse("google-gemma-4-31B-it.jinja", &options, &format!("{call}<|tool_response>Done."));
    assert_eq!((m.tool_calls.len(), m.content.as_str()), (1, "Done."));
    assert_eq!(args(&m, 0), json!({"location": "Paris"}));
    assert!(has(&d, "R7"), "{d:?}");
}

#[test]
fn r15_tool_result_wrapper_markers_are_dropped_and_their_text_kept() {
    let options = RequestOptions { enable_thinking: Some(false), extra_context: json!({"thinking": false}).as_object().cloned().unwrap_or_default(), ..Default::default() };
    let out = "Results: <｜tool▁output▁begin｜>Paris: 22°C<｜tool▁output▁end｜> and <｜tool▁output▁begin｜><｜tool▁output▁end｜>.";
    let (m, d) = parse("deepseek-ai-DeepSeek-V3.1.jinja", &options, out);
    assert_eq!(m.content, "Results: Paris: 22°C and .");
    assert_eq!(d.iter().filter(|d| d.contains("rule R15")).count(), 4, "{d:?}");
    // Qwen3 renders tool results as <tool_response>…</tool_response>.
    let (m, d) = parse("Qwen-Qwen3-0.6B.jinja", &RequestOptions { enable_thinking: Some(false), ..Default::default() }, "It says <tool_response>\nsunny\n</tool_response> today.");
    assert_eq!(m.content, "It says \nsunny\n today.");
    assert!(has(&d, "R15"), "{d:?}");
    // Without such markers nothing changes.
    let (m, d) = parse("Qwen-Qwen3-0.6B.jinja", &RequestOptions { enable_thinking: Some(false), ..Default::default() }, "<tool_responses> stays");
    assert_eq!(m.content, "<tool_responses> stays");
    assert!(!has(&d, "R15"), "{d:?}");
}

#[test]
fn r14_schemaless_tagged_value_that_is_a_whole_json_object_or_array_stays_json() {
    let tools = vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": { "note": { "type": "string" } } } } })];
    let options = RequestOptions { tools, ..Default::default() };
    let call = |name: &str, value: &str| format!("<tool_call>\n<function=get_weather>\n<parameter={name}>\n{value}\n</parameter>\n</function>\n</tool_call>");
    let coder = "Qwen3-Coder.jinja";
    let (m, d) = parse(coder, &options, &call("locations", r#"[{"country": "France", "city": "Paris"}]"#));
    assert_eq!(args(&m, 0), json!({"locations": [{"country": "France", "city": "Paris"}]}));
    assert!(has(&d, "R14"), "{d:?}");
    let (m, _) = parse(coder, &options, &call("meta", r#"{"a": {"b": [1, 2]}}"#));
    assert_eq!(args(&m, 0), json!({"meta": {"a": {"b": [1, 2]}}}));
    // Only a whole object or array: anything else is the string it was written as.
    for raw in ["[1, 2] and more", "{not json}", "5", "true", "null", "  spaced  ", ""] {
        let (m, d) = parse(coder, &options, &call("x", raw));
        assert_eq!(args(&m, 0), json!({ "x": raw }), "{raw:?}");
        assert!(!has(&d, "R14"), "{raw:?}: {d:?}");
    }
    // A declared string parameter keeps even a JSON-looking value as text.
    let (m, d) = parse(coder, &options, &call("note", "[1, 2]"));
    assert_eq!(args(&m, 0), json!({"note": "[1, 2]"}));
    assert!(!has(&d, "R14"));
}

#[test]
fn r14_cut_off_schemaless_value_is_the_string_it_began() {
    let options = RequestOptions { tools: vec![open_tool("f")], ..Default::default() };
    let (m, _) = parse("Qwen3-Coder.jinja", &options, "<tool_call>\n<function=f>\n<parameter=x>\n[1, 2");
    assert_eq!(m.tool_calls.len(), 1);
    assert!(m.tool_calls[0].function.arguments.contains("[1, 2"), "{:?}", m.tool_calls[0].function.arguments);
}

#[test]
fn r5_in_the_ministral_format() {
    let ministral = "mistralai-Ministral-3-14B-Reasoning-2512.jinja";
    let on = RequestOptions { tools: vec![open_tool("test")], enable_thinking: Some(true), ..Default::default() };
    let (m, d) = parse(ministral, &on, "let me think[/THINK][TOOL_CALLS]test[ARGS]{}");
    assert_eq!((m.reasoning_content.as_str(), m.tool_calls.len()), ("let me think", 1));
    assert!(has(&d, "R5"), "{d:?}");
    // A call or an opener first, or no end marker: content.
    let (m, d) = parse(ministral, &on, "Sure[TOOL_CALLS]test[ARGS]{} and [/THINK]");
    assert_eq!((m.reasoning_content.as_str(), m.tool_calls.len()), ("", 1));
    assert!(!has(&d, "R5"), "{d:?}");
    let (m, _) = parse(ministral, &on, "Text [THINK]r[/THINK] more");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("r", "Text  more"));
    let (m, _) = parse(ministral, &on, "thinking[/THInot end tag");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "thinking[/THInot end tag"));
    // Thinking not requested: no guess.
    let (m, _) = parse(ministral, &RequestOptions::default(), "a[/THINK]b");
    assert_eq!(m.content, "a[/THINK]b");
    // A prompt that opened reasoning says so itself.
    let gp = RequestOptions { generation_prompt: Some("[/INST][THINK]".into()), ..on };
    let (m, _) = parse(ministral, &gp, "thinking[/THInot end tag");
    assert_eq!(m.reasoning_content, "thinking[/THInot end tag");
}
