//! The call-form departures of issue #13 in the JSON and pythonic call paths (README "Leniency"):
//! separators between calls, an array for one object and the reverse, several objects in one call
//! block (R16), arguments as a JSON-encoded string (R17), Python literals (R19), keys in another order,
//! and the schema typing of tagged values. Each output is parsed whole and in chunkings of 1, 3 and
//! 7 characters; all must agree.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    parse_chunked(template, options, output, &[1, 3, 7])
}

fn tools() -> Vec<Value> {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    vec![f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })), f("get_time", json!({ "tz": { "type": "string" } }))]
}

fn opts() -> RequestOptions {
    RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() }
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const LLAMA31: &str = "meta-llama-Llama-3.1-8B-Instruct.jinja";
const NEMO: &str = "mistralai-Mistral-Nemo-Instruct-2407.jinja";
const LFM2: &str = "LFM2-8B-A1B.jinja";

fn two() -> Vec<(String, Value)> {
    vec![("get_weather".into(), json!({"city": "Paris"})), ("get_time".into(), json!({}))]
}

#[test]
fn r16_several_calls_in_one_call_block_separated_by_newline_semicolon_or_in_an_array() {
    let w = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let t = r#"{"name": "get_time", "arguments": {}}"#;
    for (sep, what) in [("\n", "same call block"), ("; ", "`;`"), (", ", "")] {
        let (m, d) = parse(QWEN3, &opts(), &format!("<tool_call>\n{w}{sep}{t}\n</tool_call>"));
        assert_eq!((calls(&m), m.content.as_str()), (two(), ""), "{sep:?}");
        assert!(what.is_empty() || d.iter().any(|x| x.contains(what) && x.contains("rule R16")), "{sep:?}: {d:?}");
    }
    let (m, d) = parse(QWEN3, &opts(), &format!("<tool_call>\n[{w}, {t}]\n</tool_call>"));
    assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
    assert!(has(&d, "R16"), "{d:?}");
    // Bare JSON calls (Llama 3.1): `;`, `,` and newlines between them.
    let w = r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#;
    let t = r#"{"name": "get_time", "parameters": {}}"#;
    for sep in ["; ", ", ", "\n"] {
        let (m, _) = parse(LLAMA31, &opts(), &format!("{w}{sep}{t}"));
        assert_eq!((calls(&m), m.content.as_str()), (two(), ""), "{sep:?}");
    }
    // A `;` that no call follows is text.
    let (m, _) = parse(QWEN3, &opts(), &format!("<tool_call>\n{}\n</tool_call>; done", r#"{"name": "get_time", "arguments": {}}"#));
    assert_eq!((m.tool_calls.len(), m.content.as_str()), (1, "; done"));
}

#[test]
fn r16_one_object_where_the_template_writes_an_array() {
    let (m, d) = parse(NEMO, &opts(), r#"[TOOL_CALLS]{"name": "get_weather", "arguments": {"city": "Paris"}}"#);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))]);
    assert!(has(&d, "R16"), "{d:?}");
    // The canonical array says nothing.
    let (m, d) = parse(NEMO, &opts(), r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]"#);
    assert_eq!(calls(&m), two());
    assert!(!has(&d, "R16"), "{d:?}");
}

#[test]
fn r17_arguments_as_a_json_encoded_string_are_decoded() {
    let (m, d) = parse(QWEN3, &opts(), "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}\n</tool_call>");
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))]);
    assert!(has(&d, "R17"), "{d:?}");
    let (m, d) = parse(LLAMA31, &opts(), "{\"name\": \"get_weather\", \"parameters\": \"{\\\"city\\\": \\\"Paris\\\"}\"}");
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))]);
    assert!(has(&d, "R17"), "{d:?}");
    // A string that is not an encoded object is no call's arguments (rule R37): the call stays content.
    let out = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"Paris\"}\n</tool_call>";
    let (m, d) = parse(QWEN3, &opts(), out);
    assert!(m.tool_calls.is_empty() && m.content == out, "{m:?}");
    assert!(!has(&d, "R17") && has(&d, "R37"), "{d:?}");
    // Cut off inside the string: what was written is kept.
    let (m, _) = parse(QWEN3, &opts(), "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Par");
    assert!(m.tool_calls[0].function.arguments.contains("Par"), "{m:?}");
}

#[test]
fn python_literals_and_key_order_in_json_calls() {
    let want = vec![("get_weather".to_string(), json!({"city": "Paris", "days": null}))];
    let (m, d) = parse(QWEN3, &opts(), "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': None}}\n</tool_call>");
    assert_eq!(calls(&m), want);
    assert!(has(&d, "R19"), "{d:?}");
    let (_, d) = parse(QWEN3, &opts(), "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": null}}\n</tool_call>");
    assert!(!has(&d, "R19"), "{d:?}");
    let (m, _) = parse(NEMO, &opts(), "[TOOL_CALLS][{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': None}}]");
    assert_eq!(calls(&m), want);
    let (m, _) = parse(QWEN3, &opts(), "<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}, \"name\": \"get_weather\"}\n</tool_call>");
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))]);
    let (m, _) = parse(LLAMA31, &opts(), r#"{"parameters": {"city": "Paris"}, "name": "get_weather"}"#);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))]);
}

#[test]
fn pythonic_calls_with_python_literals_and_newline_separators() {
    let (m, _) = parse(LFM2, &opts(), "<|tool_call_start|>[get_weather(city='Paris', days=None), get_time()]<|tool_call_end|>");
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris", "days": null})), ("get_time".to_string(), json!({}))]);
    let (m, _) = parse(LFM2, &opts(), "<|tool_call_start|>[get_weather(city=\"Paris\")\nget_time()]<|tool_call_end|>");
    assert_eq!(calls(&m), two());
}

#[test]
fn tagged_values_are_typed_by_the_schema() {
    let props = json!({
        "s": { "type": "string" }, "i": { "type": "integer" }, "b": { "type": "boolean" }, "o": { "type": "object" },
        "a": { "type": "array" }, "n": { "type": "null" }, "u": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
        "us": { "anyOf": [{ "type": "integer" }, { "type": "string" }] },
        // A string that admits null: `null` is null, anything else (even `nullx`, `nu`) the string written.
        "sn": { "anyOf": [{ "type": "null" }, { "type": "string" }] }, "sn2": { "type": ["string", "null"] }, "sn3": { "type": ["string", "null"] }
    });
    let tools = vec![json!({ "type": "function", "function": { "name": "f", "parameters": { "type": "object", "properties": props } } })];
    let options = RequestOptions { tools, ..Default::default() };
    let p = |k: &str, v: &str| format!("<parameter={k}>\n{v}\n</parameter>\n");
    let body: String = [("s", "5"), ("i", "29"), ("b", "true"), ("o", r#"{"k": 1}"#), ("a", "[1, 2]"), ("n", "null"), ("u", "7"), ("us", "x"), ("sn", "null"), ("sn2", "nullx"), ("sn3", "nu")].iter().map(|(k, v)| p(k, v)).collect();
    let (m, _) = parse("Qwen3-Coder.jinja", &options, &format!("<tool_call>\n<function=f>\n{body}</function>\n</tool_call>"));
    let want = json!({ "s": "5", "i": 29, "b": true, "o": {"k": 1}, "a": [1, 2], "n": null, "u": 7, "us": "x", "sn": null, "sn2": "nullx", "sn3": "nu" });
    assert_eq!(calls(&m), vec![("f".to_string(), want)]);
}

#[test]
fn r16_semicolon_between_pythonic_calls() {
    let (m, d) = parse(LFM2, &opts(), "<|tool_call_start|>[get_weather(city=\"Paris\"); get_time()]<|tool_call_end|>");
    assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
    assert!(has(&d, "R16"), "{d:?}");
}

#[test]
fn r18_json_call_objects_where_the_template_writes_pythonic_calls() {
    let out = r#"<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]<|tool_call_end|>"#;
    let (m, d) = parse(LFM2, &opts(), out);
    assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
    assert!(has(&d, "R18"), "{d:?}");
    // An undeclared name in it stays content, as for a pythonic call.
    let (m, _) = parse(LFM2, &opts(), r#"<|tool_call_start|>[{"name": "nope", "arguments": {}}]<|tool_call_end|>"#);
    assert!(m.tool_calls.is_empty() && m.content.contains("nope"), "{m:?}");
}

#[test]
fn r17_string_arguments_of_a_call_that_breaks_after_them_read_alike_at_every_split() {
    // Found by the long fuzz run: the call object breaks (`]`) right after its string arguments.
    let out = r#"{"name": "get_weather", "parameters": "{\"city\": \"Paris\"}"]; {"name": "get_time", "parameters": {}}"#;
    let t = ChatTemplate::new(&common::template_source(LLAMA31), RenderOptions::default()).unwrap();
    let run = |chunks: &[&str]| {
        let mut p = t.stream_parser(&opts()).unwrap();
        for c in chunks {
            p.push(c);
        }
        p.finish().unwrap();
        p.message().clone()
    };
    let whole = run(&[out]);
    for i in (1..out.len()).filter(|&i| out.is_char_boundary(i)) {
        assert_eq!(run(&[&out[..i], &out[i..]]), whole, "split at {i}");
    }
}

#[test]
fn r16_several_literal_calls_in_one_call_block() {
    // Gemma 4 writes one call per `<|tool_call>…<tool_call|>`; models also write two in one block.
    let out = "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}call:get_time{}<tool_call|>";
    let (m, d) = parse("google-gemma-4-31B-it.jinja", &opts(), out);
    assert_eq!(calls(&m), two());
    assert!(has(&d, "R16"), "{d:?}");
    assert_eq!(m.content.as_str(), "");
    // An undeclared name after the first call is no call: the text stays content.
    let (m, _) = parse("google-gemma-4-31B-it.jinja", &opts(), "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}call:nope{}<tool_call|>");
    assert_eq!(calls(&m).len(), 1);
    assert!(m.content.contains("call:nope{}"), "{m:?}");
}

#[test]
fn r27_a_call_without_its_opener_after_the_section_opener_is_read_from_its_name() {
    const V31: &str = "deepseek-ai-DeepSeek-V3.1.jinja";
    let o = RequestOptions { extra_context: json!({ "thinking": false }).as_object().cloned().unwrap_or_default(), ..opts() };
    let (begin, call, sep, end, close) = ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>");
    // The first call without `<｜tool▁call▁begin｜>`, the second with it.
    let out = format!(r#"{begin}get_weather{sep}{{"city": "Paris"}}{end}{call}get_time{sep}{{}}{end}{close}"#);
    let (m, d) = parse(V31, &o, &out);
    assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
    assert!(has(&d, "R31"), "{d:?}");
    // The canonical layout says nothing.
    let (m, d) = parse(V31, &o, &format!(r#"{begin}{call}get_weather{sep}{{"city": "Paris"}}{end}{close}"#));
    assert_eq!(m.tool_calls.len(), 1);
    assert!(!has(&d, "R31"), "{d:?}");
    // No declared name after the section opener: no call, and the opener stays in the content.
    let out = format!(r#"{begin}lookup{sep}{{"city": "Paris"}}{end}"#);
    let (m, d) = parse(V31, &o, &out);
    assert_eq!((m.tool_calls.len(), m.content.as_str()), (0, out.as_str()));
    assert!(!has(&d, "R31") && d.iter().any(|x| x.contains("section not closed")), "{d:?}");
}

#[test]
fn r31_a_call_without_its_closer_before_the_section_closer_is_read() {
    let weather = || vec![("get_weather".to_string(), json!({"city": "Paris"}))];
    // Kimi K2: the per-call closer left out, alone or together with the per-call opener.
    let (begin, call, args, end, close) = ("<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|tool_calls_section_end|>");
    for opener in [call, ""] {
        let out = format!(r#"{begin}{opener}functions.get_weather:0{args}{{"city": "Paris"}}{close}"#);
        let (m, d) = parse("Kimi-K2-Thinking.jinja", &opts(), &out);
        assert_eq!((calls(&m), m.content.as_str()), (weather(), ""), "{out}: {d:?}");
        assert!(d.iter().any(|x| x.contains("left out before the section's end marker (rule R31)")), "{d:?}");
    }
    // DeepSeek V3.1: the same departure in another format.
    const V31: &str = "deepseek-ai-DeepSeek-V3.1.jinja";
    let o = RequestOptions { extra_context: json!({ "thinking": false }).as_object().cloned().unwrap_or_default(), ..opts() };
    let out = r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁calls▁end｜>"#;
    let (m, d) = parse(V31, &o, out);
    assert_eq!((calls(&m), m.content.as_str()), (weather(), ""), "{d:?}");
    assert!(has(&d, "R31"), "{d:?}");
    // The canonical layout says nothing of it.
    let out = format!(r#"{begin}{call}functions.get_weather:0{args}{{"city": "Paris"}}{end}{close}"#);
    let (m, d) = parse("Kimi-K2-Thinking.jinja", &opts(), &out);
    assert_eq!(calls(&m), weather());
    assert!(!has(&d, "R31"), "{d:?}");
}
