//! Calls of a tool the request did not declare (rule R22, README "Leniency"): read as calls where the
//! template's own layout delimits the name (a JSON call object's `"name"`, a name suffix marker, a
//! numbered header's counter, a literal call's `(` / `{`, the arguments' first marker after a call
//! opener), with a diagnostic naming the rule and the name. Anywhere else — no delimiter, a malformed
//! name, another call syntax, the fallback of a template without a tool format, a request without
//! tools — the text stays content as before. Each output is parsed whole and in chunks of 1, 2, 3
//! and 7 characters; all must agree.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn tools() -> Vec<Value> {
    let props = json!({ "city": { "type": "string" }, "days": { "type": "integer" } });
    vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": props } } })]
}

fn parse_with(template: &str, tools: Vec<Value>, output: &str) -> (Message, Vec<String>) {
    let options = RequestOptions { tools, enable_thinking: Some(false), ..Default::default() };
    parse_chunked(template, &options, output, &[1, 2, 3, 7])
}

fn parse(template: &str, output: &str) -> (Message, Vec<String>) {
    parse_with(template, tools(), output)
}

/// `output` reads as the one call `(name, args)`, no content left, with the R22 diagnostic naming it.
fn reads(template: &str, output: &str, name: &str, args: Value) {
    let (m, d) = parse(template, output);
    assert_eq!((calls(&m), m.content.as_str()), (vec![(name.to_string(), args)], ""), "{template}: {output:?} ({d:?})");
    assert!(has(&d, "R22") && d.iter().any(|x| x.contains(&format!("{name:?}"))), "{template}: {output:?} should say R22 and the name: {d:?}");
}

/// `output` stays content as written, no call and no R22 diagnostic.
fn stays_content(template: &str, tools: Vec<Value>, output: &str) {
    let (m, d) = parse_with(template, tools, output);
    assert!(m.tool_calls.is_empty() && m.content == output, "{template}: {output:?} → {m:?}");
    assert!(!has(&d, "R22"), "{d:?}");
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const QWEN3_CODER: &str = "Qwen3-Coder.jinja";
const GLM46: &str = "GLM-4.6.jinja";
const DEEPSEEK31: &str = "deepseek-ai-DeepSeek-V3.1.jinja";
const DEEPSEEK32: &str = "deepseek-ai-DeepSeek-V3.2.jinja";
const GEMMA4: &str = "google-gemma-4-31B-it.jinja";
const LFM25: &str = "LFM2.5-8B-A1B.jinja";
const KIMI_K2: &str = "moonshotai-Kimi-K2.jinja";
const LLAMA31: &str = "meta-llama-Llama-3.1-8B-Instruct.jinja";
const SMOLLM3: &str = "HuggingFaceTB-SmolLM3-3B.jinja";

#[test]
fn json_call_objects_by_their_name_string() {
    reads(QWEN3, "<tool_call>\n{\"name\": \"lookup_stock\", \"arguments\": {\"ticker\": \"AAPL\"}}\n</tool_call>", "lookup_stock", json!({"ticker": "AAPL"}));
    reads(QWEN3, "<tool_call>\n{\"name\": \"mcp.files.read\", \"arguments\": {}}\n</tool_call>", "mcp.files.read", json!({}));
    // A declared call next to it reads as always; only the undeclared one says R22.
    let (m, d) = parse(QWEN3, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"nope\", \"arguments\": {}}\n</tool_call>");
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"})), ("nope".into(), json!({}))]);
    assert_eq!(d.iter().filter(|x| x.contains("rule R22")).count(), 1, "{d:?}");
    // A name that is no tool name stays content.
    for bad in ["two words", "", "a/b", "x:y"] {
        stays_content(QWEN3, tools(), &format!("<tool_call>\n{{\"name\": \"{bad}\", \"arguments\": {{}}}}\n</tool_call>"));
    }
    stays_content(QWEN3, tools(), &format!("<tool_call>\n{{\"name\": \"{}\", \"arguments\": {{}}}}\n</tool_call>", "n".repeat(65)));
    // Bare call objects with no marker (Llama 3.1): only the name tells a call from a JSON answer.
    stays_content(LLAMA31, tools(), "{\"name\": \"John\", \"parameters\": {}}");
}

#[test]
fn tagged_calls_by_their_name_markers() {
    // No schema: a tagged value stays the string it was written as, a whole JSON object stays JSON (R14).
    reads(QWEN3_CODER, "<tool_call>\n<function=lookup>\n<parameter=n>\n5\n</parameter>\n<parameter=q>\n{\"a\": 1}\n</parameter>\n</function>\n</tool_call>", "lookup", json!({"n": "5", "q": {"a": 1}}));
    reads(GLM46, "<tool_call>lookup\n<arg_key>n</arg_key>\n<arg_value>5</arg_value>\n</tool_call>", "lookup", json!({"n": "5"}));
    reads(DEEPSEEK31, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>lookup<｜tool▁sep｜>{\"x\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "lookup", json!({"x": 1}));
    reads(DEEPSEEK32, "<｜DSML｜function_calls> <｜DSML｜invoke name=\"lookup\"> <｜DSML｜parameter name=\"q\" string=\"true\">v</｜DSML｜parameter> </｜DSML｜invoke> </｜DSML｜function_calls>", "lookup", json!({"q": "v"}));
    // Not a tool name before the marker: content, as before.
    stays_content(QWEN3_CODER, tools(), "<tool_call>\n<function=look up>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>");
    // No arguments marker after the name: it is not delimited (a misspelt declared name as much as another tool).
    let (m, d) = parse(GLM46, "<tool_call>get_weatherX</tool_call>");
    assert!(m.tool_calls.is_empty() && !has(&d, "R22"), "{m:?} {d:?}");
}

#[test]
fn literal_calls_by_their_arguments_opening() {
    reads(GEMMA4, "<|tool_call>call:lookup{q:<|\"|>v<|\"|>}<tool_call|>", "lookup", json!({"q": "v"}));
    reads(LFM25, "<|tool_call_start|>[lookup(q=\"v\", n=5)]<|tool_call_end|>", "lookup", json!({"q": "v", "n": 5}));
    // Another call in the same block (rule R16) is read for declared names only.
    let (m, _) = parse(GEMMA4, "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}call:nope{}<tool_call|>");
    assert_eq!(calls(&m).len(), 1);
    assert!(m.content.contains("call:nope{}"), "{m:?}");
}

#[test]
fn numbered_headers_by_their_counter() {
    let out = "<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup:0<|tool_call_argument_begin|>{\"q\": \"v\"}<|tool_call_end|><|tool_calls_section_end|>";
    reads(KIMI_K2, out, "lookup", json!({"q": "v"}));
    let (m, _) = parse(KIMI_K2, out);
    assert_eq!(m.tool_calls[0].id, "functions.lookup:0");
}

#[test]
fn another_call_syntax_keeps_declared_names() {
    // A pythonic call where Qwen3 writes JSON (rule R20) and a JSON object where LFM2.5 writes
    // pythonic calls (rule R18): departures, read for declared names only.
    stays_content(QWEN3, tools(), "<tool_call>\nlookup(q=\"v\")\n</tool_call>");
    let (m, d) = parse(LFM25, "<|tool_call_start|>[{\"name\": \"lookup\", \"arguments\": {}}]<|tool_call_end|>");
    assert!(m.tool_calls.is_empty() && !has(&d, "R22"), "{m:?} {d:?}");
}

#[test]
fn the_fallback_keeps_declared_names() {
    // SmolLM3 renders no tool calls: the fallback (rule R13) reads calls of declared tools only.
    let (m, d) = parse(SMOLLM3, "<tool_call>{\"name\": \"lookup\", \"arguments\": {}}</tool_call>");
    assert!(m.tool_calls.is_empty() && !has(&d, "R22"), "{m:?} {d:?}");
    assert_eq!(m.content, "<tool_call>{\"name\": \"lookup\", \"arguments\": {}}</tool_call>");
    let (m, _) = parse(SMOLLM3, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>");
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({}))]);
}

#[test]
fn no_tools_no_calls() {
    for (tpl, out) in [
        (QWEN3, "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {}}\n</tool_call>"),
        (QWEN3_CODER, "<tool_call>\n<function=lookup>\n</function>\n</tool_call>"),
        (GEMMA4, "<|tool_call>call:lookup{}<tool_call|>"),
    ] {
        let (m, d) = parse_with(tpl, Vec::new(), out);
        assert!(m.tool_calls.is_empty() && !has(&d, "R22"), "{tpl}: {m:?} {d:?}");
    }
}
