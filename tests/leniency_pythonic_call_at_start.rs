//! Where a call may start × its syntax: a pythonic call of a declared tool written without its `[ ]`
//! list and without any of the template's call markers, at the start of the reply's content (after
//! reasoning), alone on its line, after one special-token-shaped word the template does not write as
//! a marker (`<|python_tag|>get_weather(…)`, read as part of the call, rule R11). Rules R28 (no
//! markers) and R20 (pythonic syntax) composed; whole and in chunks of 1, 2, 3 and 7 characters.
//! Without the word the call stays content: it is not told from prose or code that starts alike.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "days": {"type": "integer"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], ..RequestOptions::default() }
}

/// Templates of three tool formats: bare JSON objects (Llama 3.2, whose source has no `<|python_tag|>`;
/// Llama 3.1, whose source has it), `<tool_call>` markers (Hermes 2 Pro), and a reasoning template
/// with `<tool_call>` markers (Qwen3).
const TEMPLATES: [&str; 4] = [
    "meta-llama-Llama-3.2-3B-Instruct.jinja",
    "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
    "Qwen-Qwen3-0.6B.jinja",
];

#[test]
fn a_list_less_pythonic_call_at_the_start_is_read() {
    let weather = vec![("get_weather".to_string(), json!({"location": "Paris", "days": 2}))];
    for template in TEMPLATES {
        for out in [
            "<|python_tag|>get_weather(location=\"Paris\", days=2)",
            "  <|python_tag|>get_weather(location='Paris', days=2)\n",
            "<|tool|>get_weather(location=\"Paris\", days=2)",
        ] {
            let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), weather, "{template}: {out:?} {d:?}");
            assert!(m.content.trim().is_empty(), "{template}: {out:?} {m:?}");
            assert!(has(&d, "R20") && has(&d, "R28"), "{template}: {out:?} {d:?}");
            assert!(has(&d, "R11"), "{template}: {out:?} {d:?}");
        }
    }
    // After reasoning, the content's start is the place.
    let (m, d) = parse_chunked("Qwen-Qwen3-0.6B.jinja", &options(), "<think>\nweather?\n</think>\n\n<|python_tag|>get_weather(location=\"Paris\", days=2)", &[1, 2, 3, 7]);
    assert_eq!((calls(&m), m.reasoning_content.trim()), (weather, "weather?"), "{d:?}");
}

#[test]
fn anything_else_stays_content() {
    for template in TEMPLATES {
        for out in [
            // Without a token before it (llama-stack's and vLLM's pythonic readers refuse it too).
            "get_weather(location=\"Paris\", days=2)",
            "  get_weather(location='Paris')\n",
            // Prose after the call on its line, before it, or a name that is not a call.
            "<|python_tag|>get_weather(location=\"Paris\") is what I would call",
            "get_weather(location=\"Paris\") is what I would call",
            "Sure: get_weather(location=\"Paris\")",
            "get_weather is the tool for that",
            // An undeclared name, a call cut off, arguments that do not parse.
            "<|python_tag|>get_forecast(location=\"Paris\")",
            "<|python_tag|>get_weather(location=\"Paris\"",
            "<|python_tag|>get_weather(location=\"Paris)",
            // A call that is not at the start of the content.
            "Let me check.\n<|python_tag|>get_weather(location=\"Paris\")",
            "getaway",
        ] {
            let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
            assert!(m.tool_calls.is_empty() && m.content == out, "{template}: {out:?} {m:?} {d:?}");
        }
    }
}

#[test]
fn a_partial_reply_holds_only_what_may_still_be_a_call() {
    let template = "meta-llama-Llama-3.2-3B-Instruct.jinja";
    let partial = RequestOptions { is_partial: true, ..options() };
    // A word that no tool's name begins with goes out at once; a declared name's beginning is held.
    let (m, _) = parse_chunked(template, &partial, "Hello", &[1, 2, 3]);
    assert_eq!(m.content, "Hello");
    let (m, _) = parse_chunked(template, &partial, "get_wea", &[1, 2, 3]);
    assert_eq!(m.content, "get_wea");
    let (m, _) = parse_chunked(template, &partial, "<|python_tag|>get_wea", &[1, 2, 3]);
    assert_eq!(m.content, "");
}

#[test]
fn calls_without_ids_get_generated_ones_without_a_repeated_id_diagnostic() {
    // Neither call writes an id: each gets a generated one, and no id is reported as repeated (rule R46
    // is about ids the model wrote).
    let out = "[get_weather(location=\"Paris\"), get_time(location=\"Rome\")]";
    let (m, d) = parse_chunked("meta-llama-Llama-3.2-3B-Instruct.jinja", &options(), out, &[1, 7]);
    assert_eq!(m.tool_calls.len(), 2, "{d:?}");
    assert!(!has(&d, "R46"), "{d:?}");
    assert!(m.tool_calls.iter().all(|c| !c.id.is_empty()) && m.tool_calls[0].id != m.tool_calls[1].id, "{m:?}");
}
