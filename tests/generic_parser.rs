//! The generic (template-free) parser: reasoning and tool-call markers, code-block awareness,
//! holdback across chunks, malformed and truncated calls.

mod parse_support;

use chat_autoparser::api::{Delta, ReasoningFormat, ToolCall};
use chat_autoparser::testing::{GenericConfig, GenericParser};
use chat_autoparser::testing::OutputParser;
use parse_support::*;

fn default_parser() -> Box<dyn OutputParser> {
    Box::new(GenericParser::new(GenericConfig::default()))
}

#[test]
fn reasoning_content_and_tool_call() {
    let text = "<think>plan</think>Hello <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
    let run = parse_every_way(&default_parser, text, false);
    assert_eq!(run.message.reasoning_content, "plan");
    assert_eq!(run.message.content, "Hello ");
    assert_eq!(run.message.tool_calls, vec![ToolCall::new("", "f", "{\"a\":1}")]);
    assert_eq!(run.error, None);
}

#[test]
fn holdback_emits_everything_that_cannot_start_a_marker() {
    let mut p = default_parser();
    let mut out = Vec::new();
    p.push("a <th", &mut out);
    assert_eq!(out, vec![Delta::Content("a ".into())]);
    p.push("x", &mut out);
    assert_eq!(out.last(), Some(&Delta::Content("<thx".into())));
    p.push("<tool_", &mut out);
    p.push("call>{\"name\":\"g\",\"arguments\":{}}</tool_c", &mut out);
    assert!(!out.iter().any(|d| matches!(d, Delta::ToolCall { .. })), "call not complete yet");
    p.push("all>", &mut out);
    assert!(matches!(out.last(), Some(Delta::ToolCall { name: Some(n), .. }) if n == "g"));
}

#[test]
fn markers_inside_code_blocks_are_content() {
    let text = "Example:\n```xml\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n<think>no</think>\n```\nNow <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>";
    let run = parse_every_way(&default_parser, text, false);
    assert!(run.message.content.contains("<tool_call>{\"name\": \"f\""), "{:?}", run.message.content);
    assert!(run.message.content.contains("<think>no</think>"));
    assert_eq!(run.message.reasoning_content, "");
    assert_eq!(run.message.tool_calls.len(), 1);
    assert_eq!(run.message.tool_calls[0].function.name, "g");
}

#[test]
fn inline_backticks_do_not_open_a_code_block() {
    let text = "Use ``` fences. <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    let run = parse_every_way(&default_parser, text, false);
    assert_eq!(run.message.tool_calls.len(), 1);
}

#[test]
fn non_json_tool_body_is_content_with_diagnostic() {
    let text = "a<tool_call>not json</tool_call>b";
    let mut p = default_parser();
    let mut out = Vec::new();
    p.push(text, &mut out);
    p.finish(false, &mut out).unwrap();
    let m = chat_autoparser::api::Message::from_deltas(&out);
    assert_eq!(m.content, text);
    assert!(m.tool_calls.is_empty());
    assert_eq!(p.diagnostics().len(), 1);
    assert_eq!(p.diagnostics()[0].offset, 1);
}

#[test]
fn truncated_tool_call_is_an_error_unless_partial() {
    let text = "x <tool_call>{\"name\": \"f\", \"argu";
    let partial = parse_every_way(&default_parser, text, true);
    assert_eq!((partial.message.content.as_str(), partial.error), ("x ", None));
    let full = parse_every_way(&default_parser, text, false);
    let err = full.error.expect("error");
    assert!(err.contains("tool call"), "{err}");
    assert_eq!(full.message.content, text, "text is kept");
    // A complete JSON body without its end marker is still a call.
    let closed = parse_every_way(&default_parser, "<tool_call>{\"name\": \"f\", \"arguments\": {}}", false);
    assert_eq!((closed.message.tool_calls.len(), closed.error), (1, None));
}

#[test]
fn configurable_markers_json_end_and_arrays() {
    let make = bracket_parser;
    let text = "[THINK]hm[/THINK]ok[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"s\": \"]}\"}, \"id\": \"c1\"}, {\"function\": {\"name\": \"b\", \"parameters\": \"{}\"}}] done";
    let run = parse_every_way(&make, text, false);
    assert_eq!(run.message.reasoning_content, "hm");
    assert_eq!(run.message.content, "ok done");
    assert_eq!(
        run.message.tool_calls,
        vec![ToolCall::new("c1", "a", "{\"s\":\"]}\"}"), ToolCall::new("", "b", "{}")]
    );
}

#[test]
fn reasoning_options() {
    let open = || -> Box<dyn OutputParser> {
        Box::new(GenericParser::new(GenericConfig { start_in_reasoning: true, ..GenericConfig::default() }))
    };
    let run = parse_every_way(&open, "deep</think>answer", false);
    assert_eq!((run.message.reasoning_content.as_str(), run.message.content.as_str()), ("deep", "answer"));
    let none = || -> Box<dyn OutputParser> {
        Box::new(GenericParser::new(GenericConfig { reasoning: ReasoningFormat::None, ..GenericConfig::default() }))
    };
    let run = parse_every_way(&none, "<think>deep</think>answer", false);
    assert_eq!((run.message.reasoning_content.as_str(), run.message.content.as_str()), ("", "<think>deep</think>answer"));
}

#[test]
fn json_response_fence_is_unwrapped() {
    let make = || -> Box<dyn OutputParser> {
        Box::new(GenericParser::new(GenericConfig { json_response: true, ..GenericConfig::default() }))
    };
    let run = parse_every_way(&make, "<think>x</think>```json\n{\"a\": 1}\n```", false);
    assert_eq!(run.message.content, "{\"a\": 1}");
}

fn bracket_parser() -> Box<dyn OutputParser> {
    Box::new(GenericParser::new(GenericConfig {
        reasoning_markers: vec![("[THINK]".into(), "[/THINK]".into())],
        tool_call_markers: vec![("[TOOL_CALLS]".into(), String::new())],
        ..GenericConfig::default()
    }))
}

#[test]
fn marker_without_json_keeps_its_whitespace() {
    let run = parse_every_way(&bracket_parser, "a [TOOL_CALLS]  hello", false);
    assert_eq!((run.message.content.as_str(), run.message.tool_calls.len()), ("a [TOOL_CALLS]  hello", 0));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rng = Rng::new(42);
    let alphabet = ["<think>", "</think>", "<tool_call>", "</tool_call>", "```", "\n", "{", "}", "\"", "é", "<", "/", "a", " "];
    let brackets = ["[THINK]", "[/THINK]", "[TOOL_CALLS]", "[", "{", "}", "]", "\"", "\\", " ", "\n", "```", "x"];
    let mut runs = 0;
    for _ in 0..300 {
        let text: String = (0..rng.below(40)).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        let text2: String = (0..rng.below(40)).map(|_| brackets[rng.below(brackets.len())]).collect();
        for partial in [true, false] {
            parse_every_way(&default_parser, &text, partial);
            parse_every_way(&bracket_parser, &text2, partial);
            runs += 2;
        }
    }
    println!("generic soup: {runs} inputs, each in 33 chunkings");
    assert_eq!(runs, 1200);
}
