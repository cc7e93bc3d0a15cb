//! The minimised reproduction of every difference class the differential fuzzer (examples/jinja_diff,
//! issue #27) found between our renderer and Python Jinja2 in transformers' environment, one case per
//! class or more, with Python's output or error recorded by scripts/jinja_parity_cases.py
//! (tests/fixtures/jinja_parity.json). Each must render byte for byte, or fail where Python raises.
//! Differences we keep are listed with their reasons in tests/expectations/jinja_diff_known.json.

use chat_autoparser::{render_template, RenderOptions};
use serde_json::Value;

/// 2024-07-26 12:00:00 UTC, the reference clock of `strftime_now`.
const REFERENCE_NOW: f64 = 1_721_995_200.0;

/// Python prints an iterator with its memory address; ours with a constant one.
fn without_addresses(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(p) = rest.find(" at 0x") {
        out.push_str(&rest[..p + 6]);
        rest = rest[p + 6..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out + rest
}

#[test]
fn renders_as_python_jinja2_on_every_fixed_difference_class() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/jinja_parity.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = Vec::new();
    let mut class = String::new();
    for case in &cases {
        if let Some(c) = case["class"].as_str().filter(|c| !c.is_empty()) {
            class = c.to_string();
        }
        let template = case["template"].as_str().unwrap();
        let ours = render_template(template, &case["context"], RenderOptions { now: Some(REFERENCE_NOW), ..Default::default() });
        let agrees = match (case.get("ok").and_then(Value::as_str), &ours) {
            (Some(want), Ok(got)) => without_addresses(want) == without_addresses(got),
            (None, Err(_)) => true,
            _ => false,
        };
        if !agrees {
            failures.push(format!("{class}: {template:?}\n  python: {}\n  ours:   {ours:?}", case.get("ok").unwrap_or(&case["error"])));
        }
    }
    println!("jinja parity: {} / {}", cases.len() - failures.len(), cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
