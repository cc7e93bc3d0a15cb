//! Rule R38: a call whose only argument is `properties` holding an object (LFM2's
//! `get_weather(properties={"location": "Tokyo"})`) is read as that object's arguments when the
//! declared tool has no `properties` parameter and the object's keys are parameters it declares (or
//! it declares none). An arguments-encoding step: pythonic, JSON and tagged calls alike. Whole and in
//! chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn options(properties: Value) -> RequestOptions {
    let tool = json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": properties}}});
    RequestOptions { tools: vec![tool], enable_thinking: Some(false), ..RequestOptions::default() }
}

fn declared() -> Value {
    json!({"location": {"type": "string"}, "unit": {"type": "string"}})
}

/// One output per call syntax: the template and the call with `args` (a JSON object's text) as its
/// only argument `properties`.
fn outputs(inner: &str) -> Vec<(&'static str, String)> {
    vec![
        ("LFM2.5-Instruct.jinja", format!("<|tool_call_start|>[get_weather(properties={inner})]<|tool_call_end|>")),
        ("huggingface-qwen2_5.jinja", format!("<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"properties\": {inner}}}}}\n</tool_call>")),
        ("Qwen3.5-4B.jinja", format!("<tool_call>\n<function=get_weather>\n<parameter=properties>\n{inner}\n</parameter>\n</function>\n</tool_call>")),
    ]
}

#[test]
fn a_sole_properties_object_is_the_arguments() {
    for props in [declared(), json!({})] {
        for (template, out) in outputs(r#"{"location": "Tokyo", "unit": "celsius"}"#) {
            let (m, d) = parse_chunked(template, &options(props.clone()), &out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"location": "Tokyo", "unit": "celsius"}))], "{template}: {out:?} {d:?}");
            assert!(has(&d, "R38"), "{template}: {d:?}");
        }
    }
}

#[test]
fn a_properties_argument_the_tool_declares_or_keys_it_does_not_stay_as_written() {
    // The tool declares `properties`: an argument like any other.
    let props = json!({"properties": {"type": "object"}});
    for (template, out) in outputs(r#"{"location": "Tokyo"}"#) {
        let (m, d) = parse_chunked(template, &options(props.clone()), &out, &[1, 2, 3, 7]);
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"properties": {"location": "Tokyo"}}))], "{template}: {d:?}");
        assert!(!has(&d, "R38"), "{template}: {d:?}");
    }
    // Keys the tool does not declare: kept under the wrapper.
    for (template, out) in outputs(r#"{"city": "Tokyo"}"#) {
        let (m, d) = parse_chunked(template, &options(declared()), &out, &[1, 2, 3, 7]);
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"properties": {"city": "Tokyo"}}))], "{template}: {d:?}");
        assert!(!has(&d, "R38"), "{template}: {d:?}");
    }
    // Not the only argument: kept.
    let out = r#"<|tool_call_start|>[get_weather(properties={"location": "Tokyo"}, unit="celsius")]<|tool_call_end|>"#;
    let (m, d) = parse_chunked("LFM2.5-Instruct.jinja", &options(declared()), out, &[1, 2, 3, 7]);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"properties": {"location": "Tokyo"}, "unit": "celsius"}))], "{d:?}");
    assert!(!has(&d, "R38"), "{d:?}");
}
