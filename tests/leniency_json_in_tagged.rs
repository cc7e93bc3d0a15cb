//! JSON where the template writes tagged arguments (issue #13, README "Leniency",
//! `src/parse/auto/json_in_tagged.rs`): a JSON object after a tagged call's name is its arguments
//! (R26), a JSON call object right after a tagged call's opener is the call (R23). Each output is
//! parsed whole and in chunks of 1, 2, 3 and 7 characters; all must agree. Broken JSON stays
//! content with a diagnostic, as it does in a JSON template.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn parse(template: &str, output: &str) -> (Message, Vec<String>) {
    let options = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    parse_chunked(template, &options, output, &[1, 2, 3, 7])
}

fn tools() -> Vec<Value> {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    vec![f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })), f("get_time", json!({ "tz": { "type": "string" } }))]
}

fn weather() -> Vec<(String, Value)> {
    vec![("get_weather".into(), json!({"city": "Paris", "days": 3}))]
}

/// `output` parses to `want` with `content` left, and says `rule`.
fn reads(template: &str, output: &str, want: Vec<(String, Value)>, content: &str, rule: &str) {
    let (m, d) = parse(template, output);
    assert_eq!((calls(&m), m.content.as_str()), (want, content), "{template}: {output:?} ({d:?})");
    assert!(has(&d, rule), "{template}: {output:?} should say {rule}: {d:?}");
}

/// `output` is left in content as written, no call read, with a diagnostic.
fn stays_content(template: &str, output: &str) {
    let (m, d) = parse(template, output);
    assert!(m.tool_calls.is_empty() && m.content == output, "{template}: {output:?} → {m:?}");
    assert!(!d.is_empty(), "{template}: {output:?} says why");
}

const QWEN3_CODER: &str = "Qwen3-Coder.jinja";
const GLM46: &str = "GLM-4.6.jinja";
const DSV32: &str = "deepseek-ai-DeepSeek-V3.2.jinja";
const MINIMAX_M2: &str = "MiniMax-M2.jinja";

const ARGS: &str = r#"{"city": "Paris", "days": 3}"#;

#[test]
fn r26_json_object_as_a_tagged_calls_arguments() {
    reads(QWEN3_CODER, &format!("<tool_call>\n<function=get_weather>\n{ARGS}\n</function>\n</tool_call>"), weather(), "", "R26");
    reads(QWEN3_CODER, &format!("<tool_call>\n<function=get_weather>{ARGS}</function>\n</tool_call>"), weather(), "", "R26");
    reads(GLM46, &format!("<tool_call>get_weather\n{ARGS}</tool_call>"), weather(), "", "R26");
    reads(DSV32, &format!("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{ARGS}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"), weather(), "", "R26");
    reads(MINIMAX_M2, &format!("<minimax:tool_call>\n<invoke name=\"get_weather\">\n{ARGS}\n</invoke>\n</minimax:tool_call>"), weather(), "", "R26");
    // Content before the call stays content.
    reads(QWEN3_CODER, &format!("Let me check.\n<tool_call>\n<function=get_weather>\n{ARGS}\n</function>\n</tool_call>"), weather(), "Let me check.\n", "R26");
}

#[test]
fn r26_canonical_tagged_arguments_are_unchanged() {
    let (m, d) = parse(QWEN3_CODER, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>");
    assert_eq!(calls(&m), weather());
    assert!(!has(&d, "R26") && !has(&d, "R23"), "{d:?}");
    // No arguments at all: still an empty object.
    let (m, d) = parse(GLM46, "<tool_call>get_time</tool_call>");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({}))]);
    assert!(!has(&d, "R26"), "{d:?}");
}

#[test]
fn r26_broken_json_body_stays_content() {
    stays_content(QWEN3_CODER, "<tool_call>\n<function=get_weather>\n{\"city\": }\n</function>\n</tool_call>");
    stays_content(DSV32, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\"city\" \"Paris\"}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>");
}

#[test]
fn r23_json_call_object_in_tagged_call_markers() {
    let call = r#"{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}"#;
    reads(GLM46, &format!("<tool_call>{call}</tool_call>"), weather(), "", "R23");
    reads(GLM46, &format!("<tool_call>\n{call}\n</tool_call>"), weather(), "", "R23");
    reads(GLM46, &format!("<tool_call>{}</tool_call>", call.replace("arguments", "parameters")), weather(), "", "R23");
    reads(QWEN3_CODER, &format!("<tool_call>\n{call}\n</tool_call>"), weather(), "", "R23");
    // Two calls, each in its own markers.
    let (m, d) = parse(GLM46, &format!("<tool_call>{call}</tool_call>\n<tool_call>{{\"name\": \"get_time\", \"arguments\": {{}}}}</tool_call>"));
    assert_eq!(calls(&m), vec![weather()[0].clone(), ("get_time".into(), json!({}))], "{d:?}");
}

#[test]
fn r23_broken_or_unknown_json_call_stays_content() {
    stays_content(GLM46, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": }}</tool_call>");
    stays_content(QWEN3_CODER, "<tool_call>\n{\"name\": \"nope nope\", \"arguments\": {}}\n</tool_call>");
}
