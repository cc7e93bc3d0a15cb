//! Rule R25 (README "Leniency"): in a request without tools, the template's tool-call opener inside
//! open reasoning ends the reasoning as a call would (rule R1's decision), and the markup stays
//! content (no tools, no calls). Each output whole and in pieces of 1 and 3 characters.

mod common;

use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions, ToolChoice};
use common::leniency::{has, parse_chunked};
use serde_json::json;

/// `output` parsed whole and in chunks of 1 and 3 characters (all must agree).
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    parse_chunked(template, options, output, &[1, 3])
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const NEMOTRON3: &str = "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja";
const KIMI_K2_THINKING: &str = "Kimi-K2-Thinking.jinja";

fn opened(prompt: &str) -> RequestOptions {
    RequestOptions { generation_prompt: Some(prompt.into()), ..Default::default() }
}

const QWEN_CALL: &str = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

#[test]
fn per_call_opener_ends_open_reasoning_without_tools() {
    let options = opened("<|im_start|>assistant\n<think>\n");
    let (m, d) = parse(QWEN3, &options, &format!("Let me look{QWEN_CALL}"));
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Let me look", QWEN_CALL));
    assert!(m.tool_calls.is_empty(), "{m:?}");
    assert!(has(&d, "R25"), "{d:?}");
    assert!(!has(&d, "R1"), "{d:?}");
}

#[test]
fn an_end_marker_after_the_opener_keeps_it_reasoning() {
    let options = opened("<|im_start|>assistant\n<think>\n");
    let (m, d) = parse(QWEN3, &options, &format!("Maybe {QWEN_CALL} no.</think>Done."));
    assert_eq!(m.reasoning_content, format!("Maybe {QWEN_CALL} no."));
    assert_eq!(m.content, "Done.");
    assert!(!has(&d, "R25"), "{d:?}");
}

#[test]
fn tagged_call_opener_and_a_partial_one() {
    let options = opened("<|im_start|>assistant\n<think>\n");
    let call = "<tool_call><function=get_weather><parameter=location>NYC</parameter></function></tool_call>";
    let (m, d) = parse(NEMOTRON3, &options, &format!("I need to check{call}"));
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("I need to check", call));
    assert!(has(&d, "R25"), "{d:?}");
    // A `<` that does not begin the opener stays reasoning.
    let (m, _) = parse(NEMOTRON3, &options, "reasoning<<tool_call>data");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("reasoning<", "<tool_call>data"));
    // No opener: reasoning that never closes stays reasoning, no diagnostic.
    let (m, d) = parse(NEMOTRON3, &options, "still thinking <tool_ call");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("still thinking <tool_ call", ""));
    assert!(!has(&d, "R25"), "{d:?}");
}

#[test]
fn section_opener_where_reasoning_ends_at_calls() {
    // Kimi-K2-Thinking renders reasoning only before calls: the opener ends it at once, and what
    // follows (a later end marker too) is content, nothing dropped.
    let options = RequestOptions::default();
    let (m, d) = parse(KIMI_K2_THINKING, &options, "<think>reasoning<|tool_calls_section_begin|>tool_call_data");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("reasoning", "<|tool_calls_section_begin|>tool_call_data"));
    assert!(has(&d, "R25"), "{d:?}");
    let (m, _) = parse(KIMI_K2_THINKING, &options, "<think>r<|tool_calls_section_begin|>x</think>y");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("r", "<|tool_calls_section_begin|>x</think>y"));
}

#[test]
fn tool_choice_none_reads_no_calls_either() {
    let tools = vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": {} } } })];
    let options = RequestOptions { tools, tool_choice: ToolChoice::None, ..opened("<|im_start|>assistant\n<think>\n") };
    let (m, d) = parse(QWEN3, &options, &format!("Hmm{QWEN_CALL}"));
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str(), m.tool_calls.len()), ("Hmm", QWEN_CALL, 0));
    assert!(has(&d, "R25"), "{d:?}");
}

#[test]
fn closed_reasoning_or_no_extraction_is_untouched() {
    let options = opened("<|im_start|>assistant\n<think>\n");
    let (m, d) = parse(QWEN3, &options, &format!("Done.</think>\n\n{QWEN_CALL}"));
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Done.", QWEN_CALL));
    assert!(!has(&d, "R25"), "{d:?}");
    let raw = RequestOptions { reasoning_format: ReasoningFormat::None, ..options };
    let (m, d) = parse(QWEN3, &raw, &format!("Hmm{QWEN_CALL}"));
    assert_eq!(m.content, format!("<think>\nHmm{QWEN_CALL}"));
    assert!(!has(&d, "R25"), "{d:?}");
}
