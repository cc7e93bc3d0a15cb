//! Shared by the parser tests: llama.cpp's analysis records as our `Analysis`, cases as requests,
//! and the harness comparison rules of cases.jsonl.
#![allow(dead_code)]

use chat_autoparser::analysis::Analysis;
use chat_autoparser::api::{Delta, Message, RequestOptions};
use chat_autoparser::StreamParser;
use serde_json::Value;
use std::collections::HashMap;

use super::common::camel;

/// Every case of cases.jsonl through OUR analysis and OUR generation prompt (the end-to-end path):
/// `f(case, template name, analysis, generation prompt, options, input)`; cases whose prompt does
/// not render are skipped.
pub fn each_case_end_to_end(mut f: impl FnMut(&Value, &str, &Analysis, &str, &RequestOptions, &str)) {
    let mut templates = HashMap::new();
    for case in super::common::load_jsonl("cases.jsonl") {
        let name = case["template"].as_str().unwrap_or("");
        let t = our_template(&mut templates, name);
        let options = options_of(&case);
        let analysis = t.analysis().expect("analysis");
        let Ok(gp) = chat_autoparser::generation_prompt(t, analysis, &options) else { continue };
        f(&case, name, analysis, &gp, &options, case["input"].as_str().unwrap_or(""));
    }
}

/// A shared template compiled once per test run (the end-to-end tests' clock: 2026-11-22).
pub fn our_template<'a>(cache: &'a mut HashMap<String, chat_autoparser::ChatTemplate>, name: &str) -> &'a chat_autoparser::ChatTemplate {
    cache.entry(name.to_string()).or_insert_with(|| {
        let opts = chat_autoparser::RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
        chat_autoparser::ChatTemplate::new(&super::common::template_source(name), opts).expect("shared templates compile")
    })
}

fn camel_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (camel(k), camel_keys(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(camel_keys).collect()),
        other => other.clone(),
    }
}

/// Overlay `top` onto `base` (objects merged key by key).
pub fn merge(base: &mut Value, top: Value) {
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

/// [`analysis_from_record`] with llama.cpp's production `handler` when it is one of the three
/// dedicated ones (which our analysis detects too).
pub fn analysis_with_handler(record: &Value, handler: &str) -> Analysis {
    let mut a = analysis_from_record(record);
    if let Ok(h) = serde_json::from_value(Value::String(handler.to_string())) {
        a.handler = h;
    }
    a
}

/// template name → analysis.
pub fn analyses() -> HashMap<String, Analysis> {
    super::common::load_jsonl("analysis.jsonl")
        .iter()
        .map(|r| (r["template"].as_str().unwrap_or("").to_string(), analysis_from_record(r)))
        .collect()
}

mod options;
pub use options::case_request_options;

/// The request options of a case, strict: llama.cpp's cases expect an error where the output ends
/// inside a tool call.
pub fn options_of(case: &Value) -> RequestOptions {
    let mut options = case_request_options(case).expect("case options convert");
    options.strict = true;
    options
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
        // Ids: the case's where it gives one; otherwise ours is generated and only has to be there.
        if a.function.name != en || (!ei.is_empty() && a.id != ei) || a.id.is_empty() {
            return Some(format!("call {:?}/{:?} != {:?}/{:?}", a.function.name, a.id, en, ei));
        }
        if norm_args(&a.function.arguments) != norm_args(ea) {
            return Some(format!("args {:?} != {:?}", a.function.arguments, ea));
        }
    }
    None
}

/// Small deterministic PRNG (xorshift64*), seeded per case.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Split `text` at the given char-boundary cut points.
pub fn chunks<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut prev = 0;
    for &c in cuts {
        if c > prev && c < text.len() && text.is_char_boundary(c) {
            out.push(&text[prev..c]);
            prev = c;
        }
    }
    out.push(&text[prev..]);
    out
}

pub type Outcome = (Message, Option<String>, Vec<Delta>);

pub fn stream(analysis: &Analysis, gp: &str, options: &RequestOptions, parts: &[&str]) -> Outcome {
    drain(&mut StreamParser::new(analysis, gp, options).expect("parser builds"), parts)
}

/// `parts` pushed into `p`, then finished: its message, error and every delta.
pub fn drain(p: &mut StreamParser, parts: &[&str]) -> Outcome {
    let mut deltas = Vec::new();
    for part in parts {
        deltas.extend(p.push(part));
    }
    let err = match p.finish() {
        Ok(d) => {
            deltas.extend(d);
            None
        }
        Err(e) => {
            deltas.extend(p.take_failed_deltas());
            Some(e.to_string())
        }
    };
    (p.message().clone(), err, deltas)
}
