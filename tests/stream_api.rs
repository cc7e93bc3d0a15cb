//! The streaming API's contract: delta shapes, diagnostics, partial vs final, poisoning.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use chat_autoparser::api::{Delta, RequestOptions};
use chat_autoparser::{parse_output, StreamParser};
use chat_autoparser::ErrorKind;
use case_support::analyses;
use serde_json::json;

fn tools() -> Vec<serde_json::Value> {
    vec![json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"location": {"type": "string"}, "days": {"type": "integer"}}}}})]
}

fn feed(p: &mut StreamParser, text: &str) -> Vec<Delta> {
    text.chars().flat_map(|c| p.push(&c.to_string())).collect()
}

#[test]
fn first_tool_delta_carries_id_and_complete_name() {
    let a = &analyses()["Mistral-Small-3.2-24B-Instruct-2506.jinja"];
    // JSON arguments go out once whole and valid (issue #11 item 11: a broken call is never emitted),
    // in one delta, the JSON the model wrote; with `streamArguments` they stream in pieces as written.
    // (Tagged arguments stream value by value either way.)
    for stream_arguments in [false, true] {
        let options = RequestOptions { tools: tools(), stream_arguments, ..RequestOptions::default() };
        let mut p = StreamParser::new(a, "", &options).unwrap();
        let mut d = feed(&mut p, r#"Sure.[TOOL_CALLS]get_weather[CALL_ID]abc123[ARGS]{"location": "Paris"}"#);
        d.extend(p.finish().unwrap());
        let first_call = d.iter().find(|d| matches!(d, Delta::ToolCall { .. })).unwrap();
        assert_eq!(
            first_call,
            &Delta::ToolCall { index: 0, id: Some("abc123".into()), name: Some("get_weather".into()), arguments: None }
        );
        let args: String = d.iter().filter_map(|d| match d { Delta::ToolCall { arguments: Some(a), .. } => Some(a.as_str()), _ => None }).collect();
        assert_eq!(args, r#"{"location": "Paris"}"#);
        let pieces = d.iter().filter(|d| matches!(d, Delta::ToolCall { arguments: Some(_), .. })).count();
        assert!(if stream_arguments { pieces > 5 } else { pieces == 1 }, "stream {stream_arguments}: {pieces}");
        assert_eq!(p.message().content, "Sure.");
    }
}

#[test]
fn streamed_json_call_that_breaks_ends_with_a_diagnostic() {
    // Issue #11's reproduction: `{"city": }` is not JSON. By default the call stays content, markers
    // included; with `streamArguments` it went out at its name and ends where it broke.
    let a = &analyses()["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"];
    let text = r#"Hi <tool_call>{"name": "get_weather", "arguments": {"location": }}</tool_call>"#;
    let held = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let mut p = StreamParser::new(a, "", &held).unwrap();
    feed(&mut p, text);
    p.finish().unwrap();
    assert!(p.message().tool_calls.is_empty());
    assert_eq!(p.message().content, text);
    assert!(p.diagnostics().iter().any(|d| d.message.contains("not valid JSON (expected value") && d.message.contains("kept as content")));
    let streamed = RequestOptions { stream_arguments: true, ..held };
    let mut p = StreamParser::new(a, "", &streamed).unwrap();
    let d = feed(&mut p, text);
    p.finish().unwrap();
    let m = p.message();
    assert_eq!((m.tool_calls.len(), m.tool_calls[0].function.arguments.as_str()), (1, r#"{"location": }"#));
    assert_eq!(m.content, "Hi }</tool_call>");
    assert!(d.iter().filter(|d| matches!(d, Delta::ToolCall { arguments: Some(_), .. })).count() > 5);
    assert!(p.diagnostics().iter().any(|d| d.message.contains("streamArguments")), "{:?}", p.diagnostics());
}

#[test]
fn tagged_arguments_become_json_progressively() {
    let a = &analyses()["Qwen3-Coder.jinja"];
    let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let mut p = StreamParser::new(a, "", &options).unwrap();
    let text = "<tool_call>\n<function=get_weather>\n<parameter=location>\nNew \"York\"\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    let mut seen = Vec::new();
    for c in text.chars() {
        p.push(&c.to_string());
        if let Some(call) = p.message().tool_calls.first() {
            seen.push(call.function.arguments.clone());
        }
    }
    p.finish().unwrap();
    let args = &p.message().tool_calls[0].function.arguments;
    assert_eq!(serde_json::from_str::<serde_json::Value>(args).unwrap(), json!({"location": "New \"York\"", "days": 3}));
    // The string value streamed before its closing tag arrived.
    assert!(seen.iter().any(|s| s == r#"{"location":"New \"Yo"#), "{seen:?}");
}

#[test]
fn json_id_after_arguments_arrives_in_a_later_delta() {
    let a = &analyses()["mistralai-Mistral-Nemo-Instruct-2407.jinja"];
    let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let m = parse_output(a, "", r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 2}, "id": "123456789"}]"#, &options).unwrap();
    assert_eq!(m.tool_calls[0].id, "123456789");
    assert_eq!(m.tool_calls[0].function.arguments, r#"{"days": 2}"#);
}

#[test]
fn malformed_calls_stay_content_with_a_diagnostic() {
    let a = &analyses()["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"];
    let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let mut p = StreamParser::new(a, "", &options).unwrap();
    // Not a tool name (a declared one, or any well-formed one, rule R22): no call.
    let text = "A <tool_call>\n{\"name\": \"no pe\", \"arguments\": {}}</tool_call> B";
    feed(&mut p, text);
    p.finish().unwrap();
    assert_eq!(p.message().content, text);
    assert!(p.message().tool_calls.is_empty());
    assert_eq!(p.diagnostics().len(), 1);
    assert_eq!(p.diagnostics()[0].offset, 29, "{:?}", p.diagnostics());
}

#[test]
fn truncated_call_errors_only_when_final_and_poisons() {
    let a = &analyses()["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"];
    let text = "Hi\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": ";
    let partial = RequestOptions { tools: tools(), is_partial: true, ..RequestOptions::default() };
    let m = parse_output(a, "", text, &partial).unwrap();
    assert_eq!(m.tool_calls[0].function.name, "get_weather");
    // Not strict (the default): the cut-off call ends the parse, marked "length", never an error.
    let lenient = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let mut p = StreamParser::new(a, "", &lenient).unwrap();
    p.push(text);
    p.finish().unwrap();
    assert_eq!(p.finish_reason(), Some("length"));
    assert_eq!(p.message().tool_calls[0].function.name, "get_weather");
    assert!(p.diagnostics().iter().any(|d| d.offset == 3 && d.message.contains("inside a tool call")), "{:?}", p.diagnostics());
    let final_ = RequestOptions { tools: tools(), strict: true, ..RequestOptions::default() };
    let mut p = StreamParser::new(a, "", &final_).unwrap();
    p.push(text);
    let e = p.finish().unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Parse, Some(3)));
    assert_eq!(p.finish().unwrap_err(), e);
    assert!(p.push("more").is_empty());
    assert_eq!(p.message().tool_calls.len(), 1);
}

#[test]
fn reasoning_format_none_keeps_markers_in_content() {
    let a = &analyses()["Qwen3.5-4B.jinja"];
    let gp = "<|im_start|>assistant\n<think>\n";
    let none = RequestOptions { reasoning_format: chat_autoparser::api::ReasoningFormat::None, ..RequestOptions::default() };
    let m = parse_output(a, gp, "hmm\n</think>\n\nHi", &none).unwrap();
    assert_eq!((m.content.as_str(), m.reasoning_content.as_str()), ("<think>\nhmm\n</think>\n\nHi", ""));
    let m = parse_output(a, gp, "hmm\n</think>\n\nHi", &RequestOptions::default()).unwrap();
    assert_eq!((m.content.as_str(), m.reasoning_content.as_str()), ("Hi", "hmm"));
}

/// A synthetic TAG_WITH_JSON layout with the call id at `pos`.
fn id_layout(pos: &str, prefix: &str, suffix: &str, name_suffix: &str) -> chat_autoparser::analysis::Analysis {
    let mut a = chat_autoparser::analysis::Analysis::default();
    a.tools.format.mode = chat_autoparser::analysis::ToolFormat::TagWithJson;
    a.tools.format.per_call_start = "<call>".into();
    a.tools.format.per_call_end = "</call>".into();
    a.tools.function.name_suffix = name_suffix.into();
    a.tools.call_id.pos = serde_json::from_value(json!(pos)).unwrap();
    a.tools.call_id.prefix = prefix.into();
    a.tools.call_id.suffix = suffix.into();
    a
}

#[test]
fn call_ids_in_all_three_positions() {
    let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let cases = [
        (id_layout("PRE_FUNC_NAME", "id=", ";", "[ARGS]"), r#"<call>id=c1;get_weather[ARGS]{"days": 1}</call>"#),
        (id_layout("BETWEEN_FUNC_AND_ARGS", "[ID]", "[ARGS]", ""), r#"<call>get_weather[ID]c1[ARGS]{"days": 1}</call>"#),
        (id_layout("POST_ARGS", "[ID]", "", "[ARGS]"), r#"<call>get_weather[ARGS]{"days": 1}[ID]c1</call>"#),
    ];
    for (a, text) in cases {
        let m = parse_output(&a, "", text, &options).unwrap();
        assert_eq!(m.tool_calls.len(), 1, "{text}");
        let c = &m.tool_calls[0];
        assert_eq!((c.id.as_str(), c.function.name.as_str(), c.function.arguments.as_str()), ("c1", "get_weather", r#"{"days": 1}"#), "{text}");
        assert!(m.content.is_empty(), "{text}: {:?}", m.content);
    }
}

#[test]
fn python_dict_arguments_are_normalized() {
    let a = &analyses()["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"];
    let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
    let m = parse_output(a, "", "<tool_call>\n{'name': 'get_weather', 'arguments': {'location': 'it\\'s \"x\"', 'ok': True}}</tool_call>", &options).unwrap();
    let args: serde_json::Value = serde_json::from_str(&m.tool_calls[0].function.arguments).unwrap();
    assert_eq!(args, json!({"location": "it's \"x\"", "ok": true}));
}

/// Issue #11 item 8: a stray marker repeated n times is one diagnostic with `count` n (and the offsets
/// of its first and last occurrence), in whole text and in any chunking alike; the JSON shape gains
/// `count` / `lastOffset` only when repeated. Different problems in between start a new entry.
#[test]
fn repeated_diagnostics_are_counted_not_listed() {
    let a = &analyses()["Qwen-Qwen3-0.6B.jinja"];
    // `Hi` is reasoning closed by the first `</think>`; the next 1000 are stray (kept as content, rule
    // R4); the last one, at the very end, is dropped (another message).
    let text = format!("Hi</think>{}x</think>", "</think>".repeat(1000));
    let run = |chunks: &[&str]| {
        let mut p = StreamParser::new(a, "", &RequestOptions::default()).unwrap();
        for c in chunks {
            p.push(c);
        }
        p.finish().unwrap();
        (p.message().clone(), p.diagnostics().to_vec())
    };
    let (m, d) = run(&[&text]);
    assert!(m.content == format!("{}x", "</think>".repeat(1000)), "every stray marker kept as content");
    // R5 (reasoning without its start marker), R4 ×1000, the dropped last marker.
    assert_eq!(d.len(), 3, "{:?}", &d[..d.len().min(6)]);
    assert_eq!((d[1].offset, d[1].count, d[1].last_offset), (10, 1000, Some(10 + 999 * 8)), "{d:?}");
    assert_eq!((d[2].offset, d[2].count, d[2].last_offset), (8011, 1, None), "{d:?}");
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json[1]["count"], 1000);
    assert_eq!(json[1]["lastOffset"], 10 + 999 * 8);
    assert!(json[2].get("count").is_none() && json[2].get("lastOffset").is_none(), "{json}");
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let chunks: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert!(run(&chunks) == (m, d), "one character at a time");
}

#[test]
fn recycled_delta_strings_change_no_delta() {
    // The JS binding hands each push's delta string back to the parser (`StreamParser::recycle`) to be
    // written into next time: the deltas and the message must be those of a plain `push`.
    let inputs = [
        ("Qwen3.5-4B.jinja", "qwen3.5-4b"),
        ("Qwen3-Coder.jinja", "qwen3-coder"),
        ("openai-gpt-oss-120b.jinja", "gpt-oss"),
        ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "hermes-2-pro"),
    ];
    for (template, input) in inputs {
        let a = &analyses()[template];
        let path = format!("{}/tests/fixtures/bench/inputs/{input}-1k.txt", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let chars: Vec<char> = text.chars().collect();
        let chunks: Vec<String> = chars.chunks(3).map(|c| c.iter().collect()).collect();
        let options = RequestOptions { tools: tools(), ..RequestOptions::default() };
        let (mut plain, mut recycling) = (StreamParser::new(a, "", &options).unwrap(), StreamParser::new(a, "", &options).unwrap());
        let (mut want, mut got, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for chunk in &chunks {
            want.extend(plain.push(chunk));
            if let Some(Delta::Content(s) | Delta::Reasoning(s)) = scratch.pop() {
                recycling.recycle(s);
            }
            scratch.clear();
            recycling.push_into(chunk, &mut scratch);
            got.extend(scratch.iter().cloned());
        }
        want.extend(plain.finish().unwrap());
        got.extend(recycling.finish().unwrap());
        assert_eq!(got, want, "{template}");
        assert_eq!(recycling.message(), plain.message(), "{template}");
        assert!(want.len() > 100, "{template}: {} deltas", want.len());
    }
}
