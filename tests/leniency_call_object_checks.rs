//! A JSON call's object must be whole and its arguments an object, or the call is no call:
//! - rule R23: a JSON call object inside a tagged call's markers goes out only once the object is
//!   closed; `{"name": "f", "arguments": {}</tool_call>` (its final brace missing) stays content;
//! - rule R37: arguments that are valid JSON but not an object (`[]`, `"x"`, `3`) keep the call as
//!   content; a JSON-encoded object string is still decoded (rule R17).
//! Whole and in chunks of 1, 2, 3 and 7 characters, over more than one template.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

fn options(name: &str) -> RequestOptions {
    let tool = json!({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}});
    RequestOptions { tools: vec![tool], enable_thinking: Some(false), ..RequestOptions::default() }
}

#[test]
fn a_call_object_without_its_closing_brace_in_tagged_markers_stays_content() {
    for template in ["hfjs-Qwen-Qwen3.5-4B.jinja", "GLM-4.6.jinja", "Qwen3-Coder.jinja"] {
        let out = r#"<tool_call>{"name":"lookup","arguments":{}</tool_call>"#;
        let (m, d) = parse_chunked(template, &options("lookup"), out, &[1, 2, 3, 7]);
        assert!(m.tool_calls.is_empty(), "{template}: {m:?} {d:?}");
        assert_eq!(m.content.trim(), out, "{template}: {d:?}");
        assert!(has(&d, "R23"), "{template}: {d:?}");
        // Closed, it is the call (and text after it is content).
        let out = r#"<tool_call>{"name":"lookup","arguments":{"q":1}}</tool_call>"#;
        let (m, d) = parse_chunked(template, &options("lookup"), out, &[1, 2, 3, 7]);
        assert_eq!(calls(&m), vec![("lookup".to_string(), json!({"q": 1}))], "{template}: {d:?}");
    }
}

#[test]
fn arguments_that_are_not_an_object_keep_the_call_as_content() {
    for template in ["huggingface-qwen2_5.jinja", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "hfjs-Qwen-Qwen3.5-4B.jinja"] {
        for args in ["[]", "[1, 2]", "\"plain\"", "3", "true", "null"] {
            let out = format!(r#"<tool_call>{{"name":"lookup","arguments":{args}}}</tool_call>"#);
            let (m, d) = parse_chunked(template, &options("lookup"), &out, &[1, 2, 3, 7]);
            assert!(m.tool_calls.is_empty(), "{template} {args}: {m:?} {d:?}");
            assert_eq!(m.content.trim(), out, "{template}: {d:?}");
            assert!(has(&d, "R37"), "{template} {args}: {d:?}");
        }
        // A JSON-encoded object is still decoded (rule R17), an object is the call's arguments.
        for (args, want) in [(r#""{\"q\":1}""#, json!({"q": 1})), ("{}", json!({}))] {
            let out = format!(r#"<tool_call>{{"name":"lookup","arguments":{args}}}</tool_call>"#);
            let (m, d) = parse_chunked(template, &options("lookup"), &out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), vec![("lookup".to_string(), want)], "{template} {args}: {d:?}");
            assert!(!has(&d, "R37"), "{template}: {d:?}");
        }
    }
}
