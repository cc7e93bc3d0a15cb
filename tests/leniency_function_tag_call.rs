//! Rule R42: `<function=NAME>{JSON arguments}`, with or without `</function>`, alone on its line, in
//! templates that write their calls another way (bare JSON, JSON in `<tool_call>` markers, tagged
//! arguments): read as a call when it is whole — a declared name, one JSON object that parses, nothing
//! else on its line; anything else stays content as written. Whole and in chunks of 1, 2, 3 and 7.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], enable_thinking: Some(false), ..RequestOptions::default() }
}

const TEMPLATES: [&str; 4] = [
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "meta-llama-Llama-3.2-3B-Instruct.jinja",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
    "Qwen-Qwen3-0.6B.jinja",
];

#[test]
fn a_whole_function_tag_call_is_read() {
    for template in TEMPLATES {
        for out in [
            "<function=get_weather>{\"city\": \"Paris\"}</function>",
            "<function=get_weather>{\"city\": \"Paris\"}",
            "Let me check.\n<function=get_weather>{\"city\": \"Paris\"}</function>\n",
        ] {
            let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))], "{template}: {out:?} {d:?}");
            assert_eq!(m.content.trim(), if out.starts_with("Let") { "Let me check." } else { "" }, "{template}: {out:?}");
            assert!(has(&d, "R42"), "{template}: {out:?} {d:?}");
        }
    }
}

#[test]
fn anything_else_stays_content() {
    for template in TEMPLATES {
        for out in [
            "<function=get_forecast>{\"city\": \"Paris\"}</function>",
            "<function=get_weather>{\"city\": }</function>",
            "<function=get_weather>{\"city\": \"Paris\"}</function> and more",
            "<function=get_weather>city=Paris</function>",
            "Say <function=get_weather>{\"city\": \"Paris\"}</function>",
            "<function=get_weather>{\"city\": \"Par",
        ] {
            let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
            assert!(m.tool_calls.is_empty() && m.content == out, "{template}: {out:?} {m:?} {d:?}");
        }
    }
}
