//! Rule R49: in a literal argument syntax, a value spelled as another scalar type than its schema
//! declares is converted where the text written is the new value's own spelling, else kept as
//! written; JSON arguments are never converted. Over several templates (pythonic calls in the
//! template's markers, in the fallback's convention, as a departure inside JSON-call markers; Gemma's
//! delimited strings), whole and in chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn options(thinking: Option<bool>) -> RequestOptions {
    let params = json!({"type": "object", "properties": {
        "value": {"type": "integer"}, "ratio": {"type": "number"}, "enabled": {"type": "boolean"},
        "label": {"type": "string"}, "either": {"type": ["integer", "null"]}}});
    RequestOptions { tools: vec![json!({"type": "function", "function": {"name": "configure", "parameters": params}})], enable_thinking: thinking, ..RequestOptions::default() }
}

fn args(template: &str, out: &str, thinking: Option<bool>) -> (Value, Vec<String>) {
    let (m, d) = parse_chunked(template, &options(thinking), out, &[1, 2, 3, 7]);
    let c = calls(&m);
    assert_eq!(c.len(), 1, "{template}: {out:?} {m:?} {d:?}");
    (c[0].1.clone(), d)
}

fn count(d: &[String]) -> usize {
    d.iter().filter(|x| x.contains("rule R49")).count()
}

/// Pythonic calls: LFM2.5's own format, the fallback's convention for LFM2, and a pythonic call where
/// Qwen3 writes JSON in `<tool_call>` (rule R20).
const PYTHONIC: [(&str, &str, &str); 3] = [
    ("LFM2.5-Instruct.jinja", "<|tool_call_start|>[", "]<|tool_call_end|>"),
    ("LFM2-8B-A1B.jinja", "<|tool_call_start|>[", "]<|tool_call_end|>"),
    ("Qwen-Qwen3-0.6B.jinja", "<tool_call>\n", "\n</tool_call>"),
];

#[test]
fn exact_spellings_are_converted_to_the_schema_type() {
    for (template, open, close) in PYTHONIC {
        let out = format!("{open}configure(value='25', ratio=\"2.5\", enabled='true', label=5){close}");
        let (a, d) = args(template, &out, Some(false));
        assert_eq!(a, json!({"value": 25, "ratio": 2.5, "enabled": true, "label": "5"}), "{template}: {d:?}");
        assert_eq!(count(&d), 4, "{template}: {d:?}");
        let out = format!("{open}configure(label=True, enabled='False'){close}");
        let (a, d) = args(template, &out, Some(false));
        assert_eq!(a, json!({"label": "True", "enabled": false}), "{template}: {d:?}");
        assert_eq!(count(&d), 2, "{template}: {d:?}");
    }
    let out = "<|tool_call>call:configure{value:<|\"|>158348<|\"|>,label:<|\"|>x<|\"|>}<tool_call|>";
    let (a, d) = args("google-gemma-4-31B-it-interleaved.jinja", out, Some(false));
    assert_eq!(a, json!({"value": 158348, "label": "x"}), "{d:?}");
    assert_eq!(count(&d), 1, "{d:?}");
}

#[test]
fn anything_else_is_kept_as_written() {
    for (template, open, close) in PYTHONIC {
        // Not the value's own spelling, already the declared type, a schema of more than one type.
        let out = format!("{open}configure(value='025', ratio=' 2', enabled='yes', label='5', either='7'){close}");
        let (a, d) = args(template, &out, Some(false));
        assert_eq!(a, json!({"value": "025", "ratio": " 2", "enabled": "yes", "label": "5", "either": "7"}), "{template}: {d:?}");
        assert_eq!(count(&d), 0, "{template}: {d:?}");
        let out = format!("{open}configure(value=25, enabled=True){close}");
        let (a, d) = args(template, &out, Some(false));
        assert_eq!(a, json!({"value": 25, "enabled": true}), "{template}: {d:?}");
        assert_eq!(count(&d), 0, "{template}: {d:?}");
    }
}

#[test]
fn json_arguments_are_never_converted() {
    for template in ["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "Qwen-Qwen3-0.6B.jinja"] {
        let out = "<tool_call>\n{\"name\": \"configure\", \"arguments\": {\"value\": \"25\", \"label\": 5}}\n</tool_call>";
        let (a, d) = args(template, out, Some(false));
        assert_eq!(a, json!({"value": "25", "label": 5}), "{template}: {d:?}");
        assert_eq!(count(&d), 0, "{template}: {d:?}");
    }
}

#[test]
fn a_value_cut_off_while_held_goes_out_as_written() {
    let template = "LFM2.5-Instruct.jinja";
    let (m, d) = parse_chunked(template, &options(Some(false)), "<|tool_call_start|>[configure(value='2", &[1, 2, 3, 7]);
    assert_eq!(m.tool_calls.len(), 1, "{d:?}");
    let a: Value = serde_json::from_str(&m.tool_calls[0].function.arguments).expect("valid JSON");
    assert_eq!(a, json!({"value": "2"}), "{d:?}");
    assert!(has(&d, "R53") && count(&d) == 0, "{d:?}");
}
