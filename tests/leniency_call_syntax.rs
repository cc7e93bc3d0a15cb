//! The call-syntax and bracket departures of issue #13 (README "Leniency", `parse::auto::call_syntax`):
//! pythonic calls inside a JSON-call template's markers (R20), JSON call objects inside a pythonic
//! template's (R18, and R21 when the section's `[ … ]` is left out), and a bare array of calls where
//! the template writes bare call objects (R21). Each output is parsed whole and in chunks of 1, 3
//! and 7 characters; all must agree. Undeclared names stay content, as for every call.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

/// `output` parsed whole and in chunks of 1, 3 and 7 characters, thinking off, with [`tools`].
fn parse(template: &str, output: &str) -> (Message, Vec<String>) {
    let options = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    parse_chunked(template, &options, output, &[1, 3, 7])
}

fn tools() -> Vec<Value> {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    vec![f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })), f("get_time", json!({ "tz": { "type": "string" } }))]
}

fn weather() -> Vec<(String, Value)> {
    vec![("get_weather".into(), json!({"city": "Paris"}))]
}

fn two() -> Vec<(String, Value)> {
    vec![("get_weather".into(), json!({"city": "Paris"})), ("get_time".into(), json!({}))]
}

/// `output` parses to `want` with no content left, and says `rule`.
fn reads(template: &str, output: &str, want: Vec<(String, Value)>, rule: &str) {
    let (m, d) = parse(template, output);
    assert_eq!((calls(&m), m.content.as_str()), (want, ""), "{template}: {output:?} ({d:?})");
    assert!(has(&d, rule), "{template}: {output:?} should say {rule}: {d:?}");
}

/// `output` is left in content as written, no call read.
fn stays_content(template: &str, output: &str) {
    let (m, _) = parse(template, output);
    assert!(m.tool_calls.is_empty() && m.content == output, "{template}: {output:?} → {m:?}");
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const HERMES: &str = "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja";
const NEMO: &str = "mistralai-Mistral-Nemo-Instruct-2407.jinja";
const APRIEL: &str = "Apriel-1.6-15b-Thinker-fixed.jinja";
const LFM25: &str = "LFM2.5-8B-A1B.jinja";
const LLAMA31: &str = "meta-llama-Llama-3.1-8B-Instruct.jinja";
const LLAMA32: &str = "meta-llama-Llama-3.2-3B-Instruct.jinja";

#[test]
fn r20_pythonic_calls_in_per_call_json_markers() {
    for tpl in [QWEN3, HERMES] {
        reads(tpl, "<tool_call>\nget_weather(city=\"Paris\")\n</tool_call>", weather(), "R20");
        reads(tpl, "<tool_call>get_weather(city='Paris')</tool_call>", weather(), "R20");
        reads(tpl, "<tool_call>\n[get_weather(city=\"Paris\"), get_time()]\n</tool_call>", two(), "R20");
        // Two blocks: read as the same blocks of JSON calls are (the text between them alike).
        let (m, d) = parse(tpl, "<tool_call>\nget_weather(city=\"Paris\")\n</tool_call>\n<tool_call>\nget_time()\n</tool_call>");
        let (j, _) = parse(tpl, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>");
        assert_eq!((calls(&m), &m.content), (two(), &j.content));
        assert!(has(&d, "R20"), "{d:?}");
        // Literal values typed as Python writes them.
        let (m, _) = parse(tpl, "<tool_call>get_weather(city='Paris', days=3)</tool_call>");
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris", "days": 3}))]);
        stays_content(tpl, "<tool_call>\nunknown_tool(city=\"Paris\")\n</tool_call>");
    }
    // Cut off inside the arguments: what was written is kept, the parse does not throw.
    let (m, _) = parse(QWEN3, "<tool_call>\nget_weather(city=\"Par");
    assert_eq!(m.tool_calls.len(), 1, "{m:?}");
    assert!(m.tool_calls[0].function.arguments.contains("Par"), "{m:?}");
    // Mixed in one block: a JSON object, then a pythonic call.
    reads(QWEN3, "<tool_call>\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, get_time()]\n</tool_call>", two(), "R20");
    // The canonical JSON call says nothing of R20.
    let (_, d) = parse(QWEN3, "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>");
    assert!(!has(&d, "R20"), "{d:?}");
}

#[test]
fn r20_pythonic_calls_in_an_array_section_of_json_calls() {
    reads(NEMO, "[TOOL_CALLS][get_weather(city=\"Paris\"), get_time()]", two(), "R20");
    reads(APRIEL, "<tool_calls>[get_weather(city=\"Paris\")]</tool_calls>", weather(), "R20");
    stays_content(NEMO, "[TOOL_CALLS][unknown_tool(city=\"Paris\")]");
}

#[test]
fn r18_r21_json_calls_in_a_pythonic_section_without_its_brackets() {
    let w = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let (m, d) = parse(LFM25, &format!("<|tool_call_start|>{w}<|tool_call_end|>"));
    assert_eq!((calls(&m), m.content.as_str()), (weather(), ""));
    assert!(has(&d, "R18") && has(&d, "R21"), "{d:?}");
    // With the brackets: R18 alone.
    let (m, d) = parse(LFM25, &format!("<|tool_call_start|>[{w}]<|tool_call_end|>"));
    assert_eq!((calls(&m), m.content.as_str()), (weather(), ""));
    assert!(has(&d, "R18") && !has(&d, "R21"), "{d:?}");
}

#[test]
fn r21_pythonic_section_without_its_brackets() {
    reads(LFM25, "<|tool_call_start|>get_weather(city=\"Paris\")<|tool_call_end|>", weather(), "R21");
    let (m, d) = parse(LFM25, "Sure.<|tool_call_start|>get_weather(city=\"Paris\"), get_time()<|tool_call_end|>");
    assert_eq!((calls(&m), m.content.as_str()), (two(), "Sure."));
    assert!(has(&d, "R21"), "{d:?}");
    // The canonical section says nothing of R21.
    let (m, d) = parse(LFM25, "<|tool_call_start|>[get_weather(city=\"Paris\"), get_time()]<|tool_call_end|>");
    assert_eq!(calls(&m), two());
    assert!(!has(&d, "R21"), "{d:?}");
    stays_content(LFM25, "<|tool_call_start|>unknown_tool(city=\"Paris\")<|tool_call_end|>");
}

#[test]
fn r21_bare_array_where_the_template_writes_bare_call_objects() {
    let w = r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#;
    let t = r#"{"name": "get_time", "parameters": {}}"#;
    for tpl in [LLAMA31, LLAMA32] {
        reads(tpl, &format!("[{w}, {t}]"), two(), "R21");
        reads(tpl, &format!("[\n  {w},\n  {t}\n]"), two(), "R21");
        reads(tpl, &format!("[{w}]"), weather(), "R21");
        // A bare pythonic list of declared tools (R20 inside R21).
        let (m, d) = parse(tpl, "[get_weather(city=\"Paris\"), get_time()]");
        assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
        assert!(has(&d, "R20") && has(&d, "R21"), "{d:?}");
        // Brackets in prose stay prose; so does a list of an undeclared function.
        let (m, _) = parse(tpl, "See [1] and [the docs](x).");
        assert_eq!((m.tool_calls.len(), m.content.as_str()), (0, "See [1] and [the docs](x)."));
        stays_content(tpl, "[unknown_tool(city=\"Paris\")]");
        // The canonical single object says nothing of R21.
        let (m, d) = parse(tpl, w);
        assert_eq!(calls(&m), weather());
        assert!(!has(&d, "R21"), "{d:?}");
    }
    // After a source token (R11 too).
    let (m, d) = parse(LLAMA31, &format!("<|python_tag|>[{w}, {t}]"));
    assert_eq!((calls(&m), m.content.as_str()), (two(), ""));
    assert!(has(&d, "R11") && has(&d, "R21"), "{d:?}");
}

#[test]
fn the_other_direction_of_r16_stays_as_it_was() {
    // One object where the template writes an array, an array where it writes one object (R16).
    reads(NEMO, r#"[TOOL_CALLS]{"name": "get_weather", "arguments": {"city": "Paris"}}"#, weather(), "R16");
    let w = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let t = r#"{"name": "get_time", "arguments": {}}"#;
    reads(QWEN3, &format!("<tool_call>\n[{w}, {t}]\n</tool_call>"), two(), "R16");
}

#[test]
fn r20_r21_in_the_fallback_of_templates_without_a_tool_format() {
    const LFM2: &str = "LFM2-8B-A1B.jinja";
    const GEMMA2: &str = "google-gemma-2-2b-it.jinja";
    let w = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    for out in [format!("<|tool_call_start|>{w}<|tool_call_end|>"), "<|tool_call_start|>get_weather(city=\"Paris\")<|tool_call_end|>".to_string()] {
        let (m, d) = parse(LFM2, &out);
        assert_eq!((calls(&m), m.content.as_str()), (weather(), ""), "{out:?}");
        assert!(has(&d, "R21") && has(&d, "R13"), "{d:?}");
    }
    // The canonical convention says nothing of R21.
    let (m, d) = parse(LFM2, "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>");
    assert_eq!(calls(&m), weather());
    assert!(!has(&d, "R21"), "{d:?}");
    // The `<tool_call>{json}</tool_call>` convention with a pythonic call in it.
    let (m, d) = parse(GEMMA2, "<tool_call>\nget_weather(city=\"Paris\")\n</tool_call>");
    assert_eq!((calls(&m), m.content.as_str()), (weather(), ""));
    assert!(has(&d, "R20") && has(&d, "R13"), "{d:?}");
    stays_content(GEMMA2, "<tool_call>\nunknown_tool(city=\"Paris\")\n</tool_call>");
}

#[test]
fn r20_r16_pythonic_calls_one_per_line_or_after_a_semicolon_in_one_json_call_block() {
    for sep in ["\n", "; ", ";\n"] {
        let out = format!("<tool_call>\nget_weather(city=\"Paris\"){sep}get_time()\n</tool_call>");
        reads(QWEN3, &out, two(), "R20");
        let (_, d) = parse(QWEN3, &out);
        assert!(has(&d, "R16"), "{sep:?}: {d:?}");
    }
    // A JSON call object after a pythonic one, alike.
    reads(QWEN3, "<tool_call>\nget_weather(city=\"Paris\")\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>", two(), "R16");
    // On the same line with only a space between them the block is not read as two calls.
    let (m, _) = parse(QWEN3, "<tool_call>\nget_weather(city=\"Paris\") get_time()\n</tool_call>");
    assert_eq!(m.tool_calls.len(), 1, "{m:?}");
    // An undeclared name on the next line is no call.
    let (m, _) = parse(QWEN3, "<tool_call>\nget_weather(city=\"Paris\")\nunknown_tool()\n</tool_call>");
    assert_eq!(calls(&m), weather());
    assert!(m.content.contains("unknown_tool()"), "{m:?}");
}
