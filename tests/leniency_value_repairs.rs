//! Values other engines read that strict JSON or the template's syntax refuses:
//! - rule R44: a number that overflows a double (`{"score": 1e10000}`) in a structured value or in a
//!   call's JSON arguments is kept as the string the model wrote (`"1e10000"`), the rest read as JSON;
//! - rule R45: an argument name written inside the call syntax's string delimiter, closed or not
//!   (Gemma 4's `{<|"|>flag:true}`), is read as the name.
//! Whole and in chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn options(properties: Value) -> RequestOptions {
    let tool = json!({"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": properties}}});
    RequestOptions { tools: vec![tool], enable_thinking: Some(false), ..RequestOptions::default() }
}

#[test]
fn a_number_overflowing_a_double_is_kept_as_its_string() {
    let cases = [
        ("hfjs-Qwen-Qwen3.5-4B.jinja", "<tool_call><function=lookup><parameter=metadata>{\"score\":1e10000, \"n\": 2}</parameter></function></tool_call>"),
        ("huggingface-qwen2_5.jinja", "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"metadata\": {\"score\":1e10000, \"n\": 2}}}\n</tool_call>"),
        ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "<tool_call>\n{\"arguments\": {\"metadata\": {\"score\":1e10000, \"n\": 2}}, \"name\": \"lookup\"}\n</tool_call>"),
    ];
    for (template, out) in cases {
        let (m, d) = parse_chunked(template, &options(json!({})), out, &[1, 2, 3, 7]);
        assert_eq!(calls(&m), vec![("lookup".to_string(), json!({"metadata": {"score": "1e10000", "n": 2}}))], "{template}: {d:?}");
        assert!(has(&d, "R44"), "{template}: {d:?}");
    }
}

#[test]
fn a_name_in_the_string_delimiter_is_the_name() {
    for template in ["ollama-gemma4_e2b_chat_template.jinja", "google-gemma-4-31B-it.jinja"] {
        for out in ["<|tool_call>call:lookup{<|\"|>flag:true}<tool_call|>", "<|tool_call>call:lookup{<|\"|>flag<|\"|>:true}<tool_call|>"] {
            let (m, d) = parse_chunked(template, &options(json!({"flag": {"type": "boolean"}})), out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), vec![("lookup".to_string(), json!({"flag": true}))], "{template}: {out:?} {d:?}");
            assert!(has(&d, "R45"), "{template}: {d:?}");
        }
        // The canonical form: no rule.
        let (m, d) = parse_chunked(template, &options(json!({"flag": {"type": "boolean"}})), "<|tool_call>call:lookup{flag:true}<tool_call|>", &[1, 3]);
        assert_eq!(calls(&m), vec![("lookup".to_string(), json!({"flag": true}))], "{template}: {d:?}");
        assert!(!has(&d, "R45"), "{template}: {d:?}");
    }
}
