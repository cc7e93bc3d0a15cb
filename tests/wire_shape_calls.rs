//! Templates that render a tool call only in the OpenAI wire shape — `content: null` and `arguments`
//! a JSON string — such as Ollama's DeepSeek-V3 template (`message['content'] is none`,
//! `'```json' + '\n' + tool['function']['arguments']`). The analysis sends its tool probes in that
//! shape once the probes' own shape (`content: ""`, object arguments) renders no call, and the request
//! layer sends a history's calls that way too. The template writes no section end after a single
//! call (`<｜tool▁calls▁end｜>` follows only a second one): the parser takes both.

mod common;

use chat_autoparser::analysis::ToolFormat;
use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, PartStatus, RenderOptions};
use serde_json::{json, Value};

const WIRE_ONLY: &str = "zoo/ollama-lib-deepseek-v3-671b.jinja";

fn template(path: &str) -> ChatTemplate {
    let source = std::fs::read_to_string(common::fixtures_dir().join(path)).expect("vendored template");
    ChatTemplate::new(&source, RenderOptions::default()).expect("compiles")
}

fn tools() -> Vec<Value> {
    let tool = |name: &str, arg: &str| {
        json!({ "type": "function", "function": { "name": name, "description": "",
            "parameters": { "type": "object", "properties": { arg: { "type": "string" } }, "required": [arg] } } })
    };
    vec![tool("get_weather", "location"), tool("search_web", "query")]
}

/// `output` parsed whole and streamed in several chunkings (all must agree): message and diagnostics.
fn parse(t: &ChatTemplate, output: &str) -> (Message, Vec<String>) {
    let options = RequestOptions { tools: tools(), parallel_tool_calls: true, ..Default::default() };
    let whole = t.parse_output(output, &options).expect("parses");
    let mut diagnostics = Vec::new();
    for size in [1, 2, 3, 5, 7, 13, output.len()] {
        let mut p = t.stream_parser(&options).expect("parser");
        for chunk in chat_autoparser::testing::chunks(output, size) {
            p.push(chunk);
        }
        p.finish().expect("never throws on model output");
        assert_eq!(p.message(), &whole, "chunks of {size} ≡ whole for {output:?}");
        diagnostics = p.diagnostics().iter().map(|d| d.message.clone()).collect();
    }
    (whole, diagnostics)
}

fn call(m: &Message, i: usize) -> (&str, Value) {
    let c = &m.tool_calls[i].function;
    (c.name.as_str(), serde_json::from_str(&c.arguments).expect("arguments are JSON"))
}

fn one_call(name: &str, args: &str) -> String {
    format!("<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>")
}

#[test]
fn the_analysis_probes_in_the_wire_shape_when_only_that_renders_a_call() {
    let t = template(WIRE_ONLY);
    let caps = t.caps();
    assert!(caps.supports_tool_calls && caps.supports_parallel_tool_calls, "{caps:?}");
    assert!(!caps.supports_object_arguments, "the template concatenates a string with the arguments");
    let a = t.analysis().unwrap();
    assert!(a.tools.requires_wire_shape);
    assert!(!a.content.requires_nonnull_content);
    let (f, func) = (&a.tools.format, &a.tools.function);
    assert_eq!(f.mode, ToolFormat::TagWithJson);
    assert_eq!((f.section_start.as_str(), f.section_end.as_str()), ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"));
    assert_eq!((f.per_call_start.as_str(), f.per_call_end.as_str()), ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"));
    assert_eq!((func.name_prefix.as_str(), func.name_suffix.as_str(), func.close.as_str()), ("function<｜tool▁sep｜>", "\n```json\n", "```"));
    let json = serde_json::to_value(a).unwrap();
    assert_eq!(json["tools"]["requiresWireShape"], true);
    // The template's own round trip now carries tool calls (sent with content null).
    assert_eq!(t.verify().verified.tool_calls, PartStatus::Ok);
}

#[test]
fn a_template_taking_the_probes_shape_keeps_it() {
    // The same layout with `arguments | tojson` and `message['tool_calls']`: no wire shape needed.
    let t = template("conformance/templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja");
    let a = t.analysis().unwrap();
    assert!(!a.tools.requires_wire_shape);
    assert!(serde_json::to_value(a).unwrap()["tools"].get("requiresWireShape").is_none());
    assert_eq!(a.tools.format.mode, ToolFormat::TagWithJson);
}

#[test]
fn one_call_as_the_template_writes_it_without_a_section_end() {
    let t = template(WIRE_ONLY);
    let out = format!("<｜tool▁calls▁begin｜>{}", one_call("get_weather", r#"{"location": "Tokyo"}"#));
    let (m, d) = parse(&t, &out);
    assert_eq!(m.tool_calls.len(), 1);
    assert_eq!(call(&m, 0), ("get_weather", json!({"location": "Tokyo"})));
    assert_eq!(m.content, "");
    // The template itself ends a single call this way: nothing to report.
    assert!(d.is_empty(), "{d:?}");
    // With the section end (as DeepSeek-V3 writes it): the same message.
    let (closed, d) = parse(&t, &format!("{out}<｜tool▁calls▁end｜>"));
    assert_eq!(closed, m);
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn two_calls_as_the_template_writes_them() {
    let t = template(WIRE_ONLY);
    let out = format!(
        "Let me check.<｜tool▁calls▁begin｜>{}\n{}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
        one_call("get_weather", r#"{"location": "Paris"}"#),
        one_call("search_web", r#"{"query": "AI"}"#)
    );
    let (m, _) = parse(&t, &out);
    assert_eq!(m.content, "Let me check.");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(call(&m, 0), ("get_weather", json!({"location": "Paris"})));
    assert_eq!(call(&m, 1), ("search_web", json!({"query": "AI"})));
}

#[test]
fn a_history_with_object_arguments_renders_for_a_template_taking_strings() {
    let t = template(WIRE_ONLY);
    let history = |content: Value| {
        vec![
            json!({ "role": "user", "content": "Weather in Paris?" }),
            json!({ "role": "assistant", "content": content, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "get_weather", "arguments": { "location": "Paris" } } }
            ] }),
            json!({ "role": "tool", "tool_call_id": "c1", "content": "sunny" }),
        ]
    };
    for content in [Value::Null, json!("")] {
        let options = RequestOptions { tools: tools(), messages: history(content.clone()), ..Default::default() };
        // Raw, `'…' + arguments` raises on an object; the request layer sends a JSON string.
        let prompt = chat_autoparser::request_prompt(t.template(), t.analysis().unwrap(), &options).expect("renders");
        assert!(prompt.contains("get_weather\n```json\n{\"location\":\"Paris\"}\n```"), "content {content}: {prompt:?}");
        let m = t.parse_output("It is sunny.", &options).expect("parses");
        assert_eq!(m.content, "It is sunny.");
    }
}
