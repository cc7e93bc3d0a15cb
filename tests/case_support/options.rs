//! A cases.jsonl case (llama.cpp's snake_case request fields) as our request options. Its own file,
//! free of test-only helpers, so that examples (`response_template_dump`) include it with `#[path]`.

use chat_autoparser::api::RequestOptions;
use serde_json::{Map, Value};

/// The case's request fields as [`RequestOptions`] (everything else at our defaults).
pub fn case_request_options(case: &Value) -> Result<RequestOptions, String> {
    let mut o = Map::new();
    for (ours, theirs) in [
        ("tools", "tools"),
        ("messages", "messages"),
        ("addGenerationPrompt", "add_generation_prompt"),
        ("continueFinalMessage", "continue_final_message"),
        ("enableThinking", "enable_thinking"),
        ("reasoningFormat", "reasoning_format"),
        ("parallelToolCalls", "parallel_tool_calls"),
        ("toolChoice", "tool_choice"),
        ("jsonSchema", "json_schema"),
        ("isPartial", "is_partial"),
    ] {
        if let Some(v) = case.get(theirs) {
            o.insert(ours.into(), v.clone());
        }
    }
    serde_json::from_value(Value::Object(o)).map_err(|e| format!("case options: {e}"))
}
