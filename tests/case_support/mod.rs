//! Shared by the parser tests: llama.cpp's analysis records as our `Analysis`, cases as requests,
//! and the harness comparison rules of cases.jsonl.
#![allow(dead_code)]

use chat_autoparser::analysis::types::Analysis;
use chat_autoparser::api::{Message, RequestOptions};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// snake_case → camelCase.
fn camel(key: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in key.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (camel(k), camel_keys(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(camel_keys).collect()),
        other => other.clone(),
    }
}

/// Overlay `top` onto `base` (objects merged key by key).
fn merge(base: &mut Value, top: Value) {
    match (base, top) {
        (Value::Object(b), Value::Object(t)) => {
            for (k, v) in t {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, top) => *slot = top,
    }
}

/// One analysis.jsonl record as our `Analysis` (handler forced to `autoparser`: the record is the
/// differential analysis even for templates llama.cpp routes to a dedicated handler).
pub fn analysis_from_record(record: &Value) -> Analysis {
    let mut base = serde_json::to_value(Analysis::default()).expect("serializable");
    let mut top = camel_keys(&record["analysis"]);
    if let Value::Object(m) = &mut top {
        m.insert("caps".into(), camel_keys(&record["caps"]));
    }
    merge(&mut base, top);
    serde_json::from_value(base).expect("analysis record converts")
}

/// template name → analysis.
pub fn analyses() -> HashMap<String, Analysis> {
    super::common::load_jsonl("analysis.jsonl")
        .iter()
        .map(|r| (r["template"].as_str().unwrap_or("").to_string(), analysis_from_record(r)))
        .collect()
}

/// The request options of a case.
pub fn options_of(case: &Value) -> RequestOptions {
    let mut o = Map::new();
    for (ours, theirs) in [
        ("tools", "tools"),
        ("messages", "messages"),
        ("addGenerationPrompt", "add_generation_prompt"),
        ("continueFinalMessage", "continue_final_message"),
        ("enableThinking", "enable_thinking"),
        ("reasoningFormat", "reasoning_format"),
        ("parallelToolCalls", "parallel_tool_calls"),
        ("toolChoice", "tool_choice"),
        ("jsonSchema", "json_schema"),
        ("isPartial", "is_partial"),
    ] {
        if let Some(v) = case.get(theirs) {
            o.insert(ours.into(), v.clone());
        }
    }
    serde_json::from_value(Value::Object(o)).expect("case options convert")
}

fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'))
}

fn norm_args(s: &str) -> Option<Value> {
    serde_json::from_str(s).ok()
}

/// Compare under cases.jsonl's `match_harness_rules`. Returns a reason on mismatch.
pub fn harness_mismatch(actual: &Message, expected: &Value) -> Option<String> {
    let exp_content = expected["content"].as_str().unwrap_or("");
    let exp_reasoning = expected["reasoning_content"].as_str().unwrap_or("");
    if trim(&actual.content) != trim(exp_content) {
        return Some(format!("content {:?} != {:?}", actual.content, exp_content));
    }
    if trim(&actual.reasoning_content) != trim(exp_reasoning) {
        return Some(format!("reasoning {:?} != {:?}", actual.reasoning_content, exp_reasoning));
    }
    let exp_calls = expected["tool_calls"].as_array().cloned().unwrap_or_default();
    if exp_calls.len() != actual.tool_calls.len() {
        return Some(format!("{} tool calls != {} ({:?})", actual.tool_calls.len(), exp_calls.len(), actual.tool_calls));
    }
    for (a, e) in actual.tool_calls.iter().zip(&exp_calls) {
        let (en, ea, ei) = (e["name"].as_str().unwrap_or(""), e["arguments"].as_str().unwrap_or(""), e["id"].as_str().unwrap_or(""));
        if a.function.name != en || a.id != ei {
            return Some(format!("call {:?}/{:?} != {:?}/{:?}", a.function.name, a.id, en, ei));
        }
        if norm_args(&a.function.arguments) != norm_args(ea) {
            return Some(format!("args {:?} != {:?}", a.function.arguments, ea));
        }
    }
    None
}
