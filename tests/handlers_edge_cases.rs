//! Edge cases of the dedicated handlers: malformed harmony headers, missing `<|message|>`, stray
//! special tokens, stop markers, truncation; Ministral and Functionary malformed names, call ids,
//! raw code. Every case is also checked in many chunkings.

mod common;
mod parse_support;

use chat_autoparser::analysis::Handler;
use chat_autoparser::api::{Delta, ReasoningFormat, RequestOptions, ToolCall};
use chat_autoparser::testing::{make_parser, FunctionaryParser, HarmonyParser};
use chat_autoparser::testing::OutputParser;
use parse_support::*;

fn harmony() -> Box<dyn OutputParser> {
    Box::new(HarmonyParser::new(ReasoningFormat::Auto, false))
}

fn ministral() -> Box<dyn OutputParser> {
    make_parser(Handler::Ministral3, &RequestOptions::default(), "")
}

const FUNC_GP: &str = "<|start_header_id|>assistant<|end_header_id|>\n\n>>>";

fn functionary() -> Box<dyn OutputParser> {
    make_parser(Handler::FunctionaryV32, &RequestOptions::default(), FUNC_GP)
}

/// Diagnostics of a whole-text parse.
fn diagnostics(mut p: Box<dyn OutputParser>, text: &str, partial: bool) -> Vec<String> {
    let mut out = Vec::new();
    p.push(text, &mut out);
    let _ = p.finish(partial, &mut out);
    p.diagnostics().iter().map(|d| format!("{}: {}", d.offset, d.message)).collect()
}

#[test]
fn harmony_malformed_header_keeps_text() {
    let text = "<|start|>assistant<|channel|>final oops\nHello there<|end|>";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!(run.message.content, "<|channel|>final oops\nHello there");
    let d = diagnostics(harmony(), text, false);
    assert!(d.iter().any(|d| d.contains("malformed harmony header")), "{d:?}");
}

#[test]
fn harmony_missing_message_marker_keeps_text() {
    let text = "<|start|>assistant<|channel|>final Hi<|end|><|start|>assistant<|channel|>final<|message|>ok";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!(run.message.content, "<|channel|>final Hiok");
    let d = diagnostics(harmony(), text, false);
    assert!(d.iter().any(|d| d.contains("without <|message|>")), "{d:?}");
    // Output that ends inside a header: content if complete, nothing yet if partial.
    let cut = "<|start|>assistant<|channel|>fin";
    assert_eq!(parse_every_way(&harmony, cut, false).message.content, "<|channel|>fin");
    assert_eq!(parse_every_way(&harmony, cut, true).message.content, "");
}

#[test]
fn harmony_stray_tokens_in_content_are_text() {
    let text = "<|channel|>final<|message|>Use <|foo|> or <|im_end|> and <|message|> literally<|return|>";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!(run.message.content, "Use <|foo|> or <|im_end|> and <|message|> literally");
    let mut p = harmony();
    let mut out = Vec::new();
    p.push(text, &mut out);
    assert!(p.stopped());
}

#[test]
fn harmony_stop_and_text_after_it() {
    let text = "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": [1, 2]}<|call|>junk";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!(run.message.tool_calls, vec![ToolCall::new("", "f", "{\"a\": [1, 2]}")]);
    assert_eq!(run.message.content, "");
    let d = diagnostics(harmony(), text, false);
    assert!(d.iter().any(|d| d.contains("after a harmony stop")), "{d:?}");
}

#[test]
fn harmony_calls_of_a_parallel_turn_each_end_with_call() {
    // `<|call|>` ends a message; a further call message after it is read, junk is not.
    let text = "<|channel|>analysis<|message|>Two lookups.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|><|start|>assistant<|channel|>commentary to=functions.g<|message|>{}<|call|>";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!(run.message.reasoning_content, "Two lookups.");
    let names: Vec<&str> = run.message.tool_calls.iter().map(|c| c.function.name.as_str()).collect();
    assert_eq!(names, ["f", "g"]);
    assert!(diagnostics(harmony(), text, false).is_empty());
}

#[test]
fn harmony_tool_arguments_whole_by_default_streamed_on_request() {
    // By default the call goes out once its body is whole and valid JSON, arguments in one delta;
    // with `streamArguments` it goes out at its header and the body streams.
    for (stream, arg_deltas) in [(false, 1), (true, 2)] {
        let mut p = HarmonyParser::new(ReasoningFormat::Auto, false).stream_arguments(stream);
        let mut out = Vec::new();
        for c in ["<|start|>assistant to=functions.get", "_w<|channel|>commentary<|mess", "age|>{\"lo", "c\": \"Paris\"}"] {
            p.push(c, &mut out);
        }
        p.finish(false, &mut out).unwrap();
        assert_eq!(out.first(), Some(&Delta::ToolCall { index: 0, id: None, name: Some("get_w".into()), arguments: None }));
        let n = out.iter().filter(|d| matches!(d, Delta::ToolCall { arguments: Some(_), .. })).count();
        assert_eq!(n, arg_deltas, "stream {stream}: {out:?}");
    }
}

#[test]
fn harmony_truncated_arguments_error_unless_partial() {
    let text = "<|channel|>commentary to=functions.f<|message|>{\"a\": ";
    let full = parse_every_way(&harmony, text, false);
    assert!(full.error.unwrap().contains("tool call 0"));
    let partial = parse_every_way(&harmony, text, true);
    assert_eq!((partial.error, partial.message.tool_calls[0].function.arguments.as_str()), (None, "{\"a\": "));
}

#[test]
fn harmony_text_outside_messages_and_builtin_recipients() {
    let text = "plain text<|start|>assistant<|channel|>analysis<|message|>t<|end|>\n<|start|>assistant to=browser.search<|channel|>commentary<|message|>{\"q\":1}<|call|>";
    let run = parse_every_way(&harmony, text, false);
    assert_eq!((run.message.content.as_str(), run.message.reasoning_content.as_str()), ("plain text", "t"));
    assert!(run.message.tool_calls.is_empty());
    let d = diagnostics(harmony(), text, false);
    assert!(d.iter().any(|d| d.contains("browser.search")), "{d:?}");
}

#[test]
fn ministral_call_id_parallel_calls_and_malformed_names() {
    let text = "Hi[TOOL_CALLS]f[CALL_ID]abc123[ARGS]{\"x\": \"[TOOL_CALLS]\"} [TOOL_CALLS]g[ARGS]{}";
    let run = parse_every_way(&ministral, text, false);
    assert_eq!(run.message.content, "Hi");
    assert_eq!(run.message.tool_calls, vec![ToolCall::new("abc123", "f", "{\"x\": \"[TOOL_CALLS]\"}"), ToolCall::new("", "g", "{}")]);
    let bad = "Note: [TOOL_CALLS] is how I call tools.";
    let run = parse_every_way(&ministral, bad, false);
    assert_eq!((run.message.content.as_str(), run.message.tool_calls.len()), (bad, 0));
    let truncated = parse_every_way(&ministral, "[TOOL_CALLS]f[ARGS]{\"a\":", false);
    assert!(truncated.error.is_some());
}

#[test]
fn functionary_content_calls_and_python() {
    let text = format!("{FUNC_GP}all\nSure. Example:\n>>> print(1)\n>>>get\n{{\"a\": 1}}\n>>>python\nprint(\"hi\")\n<|eot_id|>");
    let run = parse_every_way(&functionary, &text, false);
    assert_eq!(run.message.content, "Sure. Example:\n>>> print(1)\n");
    assert_eq!(
        run.message.tool_calls,
        vec![ToolCall::new("", "get", "{\"a\": 1}"), ToolCall::new("", "python", "{\"code\": \"print(\\\"hi\\\")\\n\"}")]
    );
    let mut p = functionary();
    let mut out = Vec::new();
    p.push(&text, &mut out);
    assert!(p.stopped());
}

#[test]
fn functionary_without_generation_prompt() {
    let make = || -> Box<dyn OutputParser> { Box::new(FunctionaryParser::new(ReasoningFormat::Auto, false, "")) };
    assert_eq!(parse_every_way(&make, "Hello world", false).message.content, "Hello world");
    assert_eq!(parse_every_way(&make, "f\n{}", false).message.tool_calls, vec![ToolCall::new("", "f", "{}")]);
}

#[test]
fn random_marker_soup_never_panics_and_is_chunk_invariant() {
    let pieces: [&[&str]; 3] = [
        &["<|start|>", "assistant", "<|channel|>", "analysis", "final", " to=functions.f", "<|message|>", "<|end|>", "<|call|>", "<|constrain|>", "{", "}", "\n", "é", "<|", "x"],
        &["[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "f", "{", "}", "\"", "\\", " ", "é", "["],
        &[">>>", "all", "\n", "f", "python", "{", "}", "\"", "<|eot_id|>", " ", "é", ">"],
    ];
    let makers: [&dyn Fn() -> Box<dyn OutputParser>; 3] = [&harmony, &ministral, &functionary];
    let mut rng = Rng::new(7);
    let mut runs = 0;
    for (alphabet, make) in pieces.iter().zip(makers) {
        for _ in 0..200 {
            let text: String = (0..rng.below(30)).map(|_| alphabet[rng.below(alphabet.len())]).collect();
            for partial in [true, false] {
                parse_every_way(make, &text, partial);
                runs += 1;
            }
        }
    }
    println!("marker soup: {runs} inputs, each in 33 chunkings");
    assert_eq!(runs, 1200);
}

#[test]
fn long_outputs_parse_in_one_pass() {
    // Thousands of calls in one chunk: each step scans only to its first marker (no quadratic rescans).
    let calls = "[TOOL_CALLS]f[ARGS]{\"a\": 1}".repeat(3000);
    let start = std::time::Instant::now();
    let run = run_chunks(ministral(), &[&calls], false);
    assert_eq!(run.message.tool_calls.len(), 3000);
    let body = "word <| ".repeat(20000);
    let text = format!("<|channel|>final<|message|>{body}<|return|>");
    let run = run_chunks(harmony(), &[&text], false);
    assert_eq!(run.message.content, body);
    println!("long outputs parsed in {:?}", start.elapsed());
}

#[test]
fn harmony_partial_plain_text_after_the_prompt_is_content() {
    // Issue #11 item 12: after the prompt's `<|start|>assistant`, plain text waited as a header that
    // could never form, so a partial parse showed no content at all.
    use chat_autoparser::{generation_prompt, parse_output};
    use chat_autoparser::{ChatTemplate, RenderOptions};
    let t = ChatTemplate::new(&common::template_source("openai-gpt-oss-120b.jinja"), RenderOptions::default()).unwrap();
    let a = t.analysis().expect("analysis");
    let partial = RequestOptions { is_partial: true, ..RequestOptions::default() };
    let gp = generation_prompt(&t, a, &partial).unwrap();
    assert_eq!(parse_output(a, &gp, "Hello world", &partial).unwrap().content, "Hello world");
    let whole = parse_output(a, &gp, "Hello world", &RequestOptions::default()).unwrap();
    assert_eq!(whole.content, "Hello world");
    // A header still being written stays held back.
    let m = parse_output(a, &gp, "<|channel|>analysis<|message|>thinking", &partial).unwrap();
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("thinking", ""));
    let m = parse_output(a, &gp, " to=functions.get", &partial).unwrap();
    assert_eq!(m.content, "");
}

/// Issue #11 item 11 in the dedicated formats: a call whose JSON arguments are broken is content, all
/// of it, with a diagnostic, and takes no call index; with `streamArguments` it has gone out already
/// and ends with a diagnostic (its arguments invalid), the rest of its text content.
fn streamed(handler: Handler, gp: &'static str) -> impl Fn() -> Box<dyn OutputParser> {
    move || make_parser(handler, &RequestOptions { stream_arguments: true, ..RequestOptions::default() }, gp)
}

/// (message, diagnostics) of `text` parsed every way by `make`.
fn broken_run(make: &dyn Fn() -> Box<dyn OutputParser>, text: &str) -> (chat_autoparser::api::Message, Vec<String>) {
    let run = parse_every_way(make, text, false);
    assert_eq!(run.error, None, "{text:?}");
    (run.message, diagnostics(make(), text, false))
}

#[test]
fn ministral_broken_json_call_is_content() {
    for (args, why) in [("{\"a\": }", "expected value"), ("{\"a\": [1}", "cannot continue"), ("hello", "do not start with"), ("{\"a\": 1 2}", "expected `,`"), ("{\"a\": 1", "cannot continue")] {
        let text = format!("Hi[TOOL_CALLS]f[ARGS]{args}[TOOL_CALLS]g[ARGS]{{}}");
        let (m, d) = broken_run(&ministral, &text);
        // The next call is index 0 (its message position), the broken one content up to where it broke.
        assert_eq!(m.tool_calls, vec![ToolCall::new("", "g", "{}")], "{args}");
        assert!(m.content.starts_with(&format!("Hi[TOOL_CALLS]f[ARGS]{args}")), "{args}: {:?}", m.content);
        assert!(d.iter().any(|d| d.contains("not valid JSON") && d.contains(why) && d.contains("kept as content")), "{args}: {d:?}");
        // Streamed: the call went out with what it had, and ends; nothing is lost.
        let (s, d) = broken_run(&streamed(Handler::Ministral3, ""), &text);
        assert_eq!(s.tool_calls.len(), 2, "{args}: {s:?}");
        assert_eq!(s.tool_calls[1], ToolCall::new("", "g", "{}"));
        assert!(d.iter().any(|d| d.contains("streamArguments")), "{args}: {d:?}");
    }
    // Broken at the very end (not the start of any JSON value): content, no error; cut off: an error.
    let (m, _) = broken_run(&ministral, "[TOOL_CALLS]f[ARGS]{\"a\": 1 2");
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("[TOOL_CALLS]f[ARGS]{\"a\": 1 2", 0));
    let cut = parse_every_way(&ministral, "[TOOL_CALLS]f[ARGS]{\"a\": 1", false);
    assert_eq!((cut.error.is_some(), cut.message.tool_calls[0].function.arguments.as_str()), (true, "{\"a\": 1"));
}

#[test]
fn ministral_arguments_whole_by_default_streamed_on_request() {
    let chunks = ["[TOOL_CALLS]f[ARGS]{\"a\"", ": \"x", "y\"}"];
    for (stream, arg_deltas) in [(false, 1), (true, 3)] {
        let make = move || make_parser(Handler::Ministral3, &RequestOptions { stream_arguments: stream, ..RequestOptions::default() }, "");
        let run = run_chunks(make(), &chunks, false);
        assert_eq!(run.message.tool_calls, vec![ToolCall::new("", "f", "{\"a\": \"xy\"}")]);
        let n = run.deltas.iter().filter(|d| matches!(d, Delta::ToolCall { arguments: Some(_), .. })).count();
        assert_eq!(n, arg_deltas, "stream {stream}: {:?}", run.deltas);
    }
}

#[test]
fn functionary_broken_json_call_is_content() {
    let text = format!("{FUNC_GP}get\n{{\"a\": }}\n>>>all\nok\n>>>put\n{{\"b\": 2}}");
    let (m, d) = broken_run(&functionary, &text);
    assert_eq!(m.tool_calls, vec![ToolCall::new("", "put", "{\"b\": 2}")]);
    assert_eq!(m.content, "get\n{\"a\": }\nok\n");
    assert!(d.iter().any(|d| d.contains("not valid JSON") && d.contains("kept as content")), "{d:?}");
    // An explicit recipient keeps its `>>>` with the call's text; raw code is still a call.
    let text = format!("{FUNC_GP}all\nHi\n>>>get\n{{\"a\": [1}}]\n>>>python\nprint(1)");
    let (m, _) = broken_run(&functionary, &text);
    assert_eq!(m.content, "Hi\n>>>get\n{\"a\": [1}]\n");
    assert_eq!(m.tool_calls, vec![ToolCall::new("", "python", "{\"code\": \"print(1)\"}")]);
    let (s, d) = broken_run(&streamed(Handler::FunctionaryV32, FUNC_GP), &text);
    assert_eq!(s.tool_calls[0].function.name, "get");
    assert_eq!(s.content, "Hi\n}]\n");
    assert!(d.iter().any(|d| d.contains("streamArguments")), "{d:?}");
}

#[test]
fn harmony_broken_json_call_is_content() {
    let text = "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": }<|call|>";
    let (m, d) = broken_run(&harmony, text);
    assert!(m.tool_calls.is_empty());
    assert_eq!(m.content, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": }");
    assert!(d.iter().any(|d| d.contains("not valid JSON") && d.contains("kept as content")), "{d:?}");
    // A valid call after a broken one is call 0; without `<|call|>` (servers strip it) a whole body is a call.
    let two = "<|start|>assistant to=functions.f<|channel|>commentary<|message|>{\"a\" 1}<|end|><|start|>assistant to=functions.g<|channel|>commentary<|message|>{\"b\": 2}";
    let (m, _) = broken_run(&harmony, two);
    assert_eq!(m.tool_calls, vec![ToolCall::new("", "g", "{\"b\": 2}")]);
    assert_eq!(m.content, " to=functions.f<|channel|>commentary<|message|>{\"a\" 1}");
    let stream = || -> Box<dyn OutputParser> { Box::new(HarmonyParser::new(ReasoningFormat::Auto, false).stream_arguments(true)) };
    let (s, d) = broken_run(&stream, two);
    assert_eq!(s.tool_calls, vec![ToolCall::new("", "f", "{\"a\" 1}"), ToolCall::new("", "g", "{\"b\": 2}")]);
    assert!(d.iter().any(|d| d.contains("streamArguments")), "{d:?}");
}
