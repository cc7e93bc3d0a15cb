//! Whitespace between blocks is the template's layout, not message text: between tool calls and
//! after the last one (Qwen3 writes `</tool_call>\n<tool_call>`), between a reasoning block and a
//! call, and right after a reasoning opener (`<think>\n`). A message of reasoning and calls alone
//! has empty content, exactly (not merely after trimming). Whitespace followed by text stays content
//! with it. Whole and in chunks of 1 and 3 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, parse_chunked};
use serde_json::json;

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], enable_thinking: Some(false), ..Default::default() }
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const QWEN3_CODER: &str = "Qwen3-Coder.jinja";
const JSON_CALL: &str = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const TAGGED_CALL: &str = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";

#[test]
fn calls_alone_leave_no_content() {
    for (template, call) in [(QWEN3, JSON_CALL), (QWEN3_CODER, TAGGED_CALL)] {
        for output in [format!("{call}\n{call}"), format!("{call}\n\n{call}\n"), format!("{call}{call}  \n")] {
            let (m, d) = parse_chunked(template, &options(), &output, &[1, 3]);
            assert_eq!(calls(&m).len(), 2, "{template}: {output:?}");
            assert_eq!(m.content, "", "{template}: {output:?} ({d:?})");
        }
    }
}

#[test]
fn whitespace_before_text_stays_content() {
    let (m, _) = parse_chunked(QWEN3, &options(), &format!("Checking.\n{JSON_CALL}\nDone."), &[1, 3]);
    assert_eq!(calls(&m).len(), 1);
    assert_eq!(m.content, "Checking.\n\nDone.");
}

const R1_DISTILL: &str = "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja";

#[test]
fn blanks_around_a_reasoning_block_are_layout() {
    // The prompt opens `<think>\n` (thinking on); the model closes it and calls.
    let thinking = RequestOptions { enable_thinking: Some(true), ..options() };
    let call = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let (m, d) = parse_chunked(R1_DISTILL, &thinking, &format!("Let me think.\n</think>\n\n{call}"), &[1, 3]);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str(), calls(&m).len()), ("Let me think.\n", "", 1), "{d:?}");
    // Text after the block keeps its blank.
    let (m, _) = parse_chunked(R1_DISTILL, &thinking, "Let me think.\n</think>\n\nSunny.", &[1, 3]);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Let me think.\n", "\n\nSunny."));
    // A block the model opens: the blank after its opener is not reasoning either.
    let (m, _) = parse_chunked(QWEN3, &thinking, "<think>\n\nPlan.</think>Sunny.", &[1, 3]);
    assert_eq!(m.reasoning_content, "Plan.");
}
