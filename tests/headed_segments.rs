//! Headed segments (rule R36): a reply written as several segments, each headed by the same tokens and a
//! word naming what follows — reasoning, the answer, the calls — is read off the renders and parsed by the
//! header's word, whole and streamed in any chunking. The templates are synthetic (tests/fixtures/synthetic/
//! README.md): one writes a role suffix after the turn token (`<|im_start|>assistant/think\n`, `… -> tool/function_call\n`),
//! the other a channel word between two tokens (`<|open|>think<|sep|>…<|close|>think<|sep|>`).

mod common;

use chat_autoparser::api::{RequestOptions, ToolChoice};
use chat_autoparser::gbnf::check_grammar;
use chat_autoparser::{build_grammar, verify_template, ChatTemplate, CompiledParser, RenderOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

const ROLE_SUFFIX: &str = "segments-role-suffix.jinja";
const CHANNEL_WORDS: &str = "segments-channel-words.jinja";
const SIZES: [usize; 4] = [1, 2, 3, 7];

fn options() -> RequestOptions {
    let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
    RequestOptions { tools: tools.as_array().unwrap().clone(), parallel_tool_calls: true, ..RequestOptions::default() }
}

fn template(name: &str) -> ChatTemplate {
    ChatTemplate::new(&common::template_source(name), RenderOptions::default()).unwrap()
}

#[test]
fn the_analysis_reads_the_headers_and_their_words() {
    let t = template(ROLE_SUFFIX);
    let a = t.analysis().unwrap();
    assert_eq!(serde_json::to_value(a.handler).unwrap(), "headed segments");
    let s = a.segments.as_ref().expect("segments");
    assert_eq!((s.header_start.as_str(), s.header_end.as_str(), s.end_open.as_str(), s.end_names_word), ("<|im_start|>assistant", "\n", "<|im_end|>", false));
    assert_eq!((s.reasoning_word.as_str(), s.content_word.as_str(), s.calls_word.as_deref()), ("/think", "", Some(" -> tool/function_call")));
    // The call segment's header is not a section opener of the body.
    assert_eq!(a.tools.format.section_start, "");

    let t = template(CHANNEL_WORDS);
    let a = t.analysis().unwrap();
    let s = a.segments.as_ref().expect("segments");
    assert_eq!((s.header_start.as_str(), s.header_end.as_str()), ("<|open|>", "<|sep|>"));
    assert_eq!((s.reasoning_word.as_str(), s.content_word.as_str(), s.calls_word.as_deref()), ("think", "response", Some("tools")));
    assert_eq!((s.close("think"), s.turn_end.as_str()), ("<|close|>think<|sep|>".to_string(), "<|close|>message<|sep|><|end_of_msg|>"));
    // The call's own markers, read off the body (the header's tokens are not the call's opener).
    assert_eq!((a.tools.function.name_prefix.as_str(), a.tools.function.name_suffix.as_str(), a.tools.function.close.as_str()), ("<|open|>call tool=\"", "\"<|sep|>", "<|close|>call<|sep|>"));
}

#[test]
fn role_suffix_segments_go_by_their_word() {
    // The generation prompt ends with `<|im_start|>assistant`: the output starts with the first word.
    let out = "/think\nLet me check.<|im_end|>\n<|im_start|>assistant\nChecking.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}]<|im_end|>";
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), out, &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Let me check.", "Checking."));
    assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "Paris"})), ("get_weather".to_string(), json!({"city": "Oslo"}))]);
    assert!(diags.is_empty(), "the canonical form needs no leniency: {diags:?}");
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), "\nJust an answer.<|im_end|>", &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "Just an answer."));
    assert!(diags.is_empty(), "{diags:?}");
    // The prompt opened the reasoning segment (`enable_thinking`), or the answer's.
    let thinking = RequestOptions { enable_thinking: Some(true), ..options() };
    let (m, _) = parse_chunked(ROLE_SUFFIX, &thinking, "Hmm.<|im_end|>\n<|im_start|>assistant\nSunny.<|im_end|>", &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Hmm.", "Sunny."));
    let direct = RequestOptions { enable_thinking: Some(false), ..options() };
    let (m, _) = parse_chunked(ROLE_SUFFIX, &direct, "Sunny.<|im_end|>", &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "Sunny."));
}

#[test]
fn channel_word_segments_go_by_their_word() {
    let out = "Let me check.<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"get_weather\"<|sep|>{\"city\": \"Paris\"}<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>";
    let (m, diags) = parse_chunked(CHANNEL_WORDS, &options(), out, &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Let me check.", "Checking."));
    assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "Paris"}))]);
    assert!(diags.is_empty(), "{diags:?}");
    let direct = RequestOptions { enable_thinking: Some(false), ..options() };
    let (m, _) = parse_chunked(CHANNEL_WORDS, &direct, "Sunny.<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>", &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "Sunny."));
}

#[test]
fn departures_keep_every_byte_with_a_diagnostic() {
    // A word that names no part: its header and body are content.
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), "/plan\nStep one.<|im_end|>", &SIZES);
    assert_eq!(m.content, "/plan\nStep one.");
    assert!(has(&diags, "R36"), "{diags:?}");
    // A segment that runs into the next header.
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), "/think\nA<|im_start|>assistant\nB<|im_end|>", &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("A", "B"));
    assert!(has(&diags, "R36"), "{diags:?}");
    // A call segment that holds no call.
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), " -> tool/function_call\nnot a call<|im_end|>", &SIZES);
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("not a call", 0));
    assert!(has(&diags, "R36"), "{diags:?}");
    // A header cut off, text after the last segment.
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), "/thi", &SIZES);
    assert_eq!(m.content, "/thi");
    assert!(has(&diags, "R36"), "{diags:?}");
    let (m, diags) = parse_chunked(ROLE_SUFFIX, &options(), "\nA<|im_end|>\nB", &SIZES);
    assert_eq!(m.content, "A\nB");
    assert!(has(&diags, "R36"), "{diags:?}");
    // A call segment cut off whole is read at the end of the output.
    let (m, _) = parse_chunked(ROLE_SUFFIX, &options(), " -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]", &SIZES);
    assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "Rome"}))]);
}

#[test]
fn the_templates_round_trip() {
    for name in [ROLE_SUFFIX, CHANNEL_WORDS] {
        let report = verify_template(&template(name));
        let failed: Vec<String> = report.results.iter().filter(|r| !r.ok).map(|r| format!("{}: {:?}", r.name, r.error)).collect();
        assert!(report.ok, "{name}: {failed:?}");
        let names: Vec<&str> = report.results.iter().filter(|r| r.skipped.is_none()).map(|r| r.name.as_str()).collect();
        for part in ["text", "reasoning", "tool_call", "parallel_tool_calls"] {
            assert!(names.contains(&part), "{name}: {part} not round-tripped ({names:?})");
        }
    }
}

#[test]
fn a_continued_message_is_written_as_segments() {
    let t = template(ROLE_SUFFIX);
    let messages = vec![json!({"role": "user", "content": "Hi"}), json!({"role": "assistant", "reasoning_content": "R", "content": "C"})];
    let o = RequestOptions { messages, continue_final_message: "auto".into(), ..options() };
    assert!(t.generation_prompt(&o).unwrap().ends_with("<|im_start|>assistant/think\nR<|im_end|>\n<|im_start|>assistant\nC"));
    let (m, diags) = {
        let mut p = t.stream_parser(&o).unwrap();
        p.push(" and more.<|im_end|>");
        p.finish().unwrap();
        (p.message().clone(), p.diagnostics().to_vec())
    };
    assert!(m.content.ends_with(" and more."), "{m:?}");
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn a_compiled_spec_parses_as_the_template() {
    let out = "/think\nR<|im_end|>\n<|im_start|>assistant\nC<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|im_end|>";
    let t = template(ROLE_SUFFIX);
    let spec = t.compile_parser(&Default::default()).unwrap().to_json();
    let compiled = CompiledParser::from_json(&spec).unwrap();
    for n in [0, 1, 3] {
        let chunks = if n == 0 { vec![out] } else { chat_autoparser::testing::chunks(out, n) };
        let run = |mut p: chat_autoparser::StreamParser| {
            for c in &chunks {
                p.push(c);
            }
            p.finish().unwrap();
            p.message().clone()
        };
        assert_eq!(run(t.stream_parser(&options()).unwrap()), run(compiled.stream_parser(&options()).unwrap()), "chunks of {n}");
    }
}

#[test]
fn the_grammar_writes_a_call_segment() {
    let mut o = options();
    o.tool_choice = ToolChoice::Required;
    let t = template(ROLE_SUFFIX);
    let g = build_grammar(t.analysis().unwrap(), &o).unwrap();
    for text in [
        " -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|im_end|>",
        "/think\nHmm.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|im_end|>",
    ] {
        assert!(check_grammar(&g.gbnf, text).unwrap().accepted, "{text}\n{}", g.gbnf);
    }
    assert!(!check_grammar(&g.gbnf, "\nhi<|im_end|>").unwrap().accepted);
    let t = template(CHANNEL_WORDS);
    let g = build_grammar(t.analysis().unwrap(), &o).unwrap();
    let text = "<|open|>tools<|sep|><|open|>call tool=\"get_weather\"<|sep|>{\"city\": \"Paris\"}<|close|>call<|sep|><|close|>tools<|sep|>";
    assert!(check_grammar(&g.gbnf, text).unwrap().accepted, "{text}\n{}", g.gbnf);
}

#[test]
fn hostile_segment_soup_never_panics_and_keeps_its_text() {
    for out in ["<|im_start|>".repeat(300), "<|im_start|>assistant".repeat(300), "<|im_end|>\n".repeat(300), " -> tool/function_call\n".repeat(200), format!("/think\n{}", "<|im_start|>assistant/think\n".repeat(200))] {
        let (m, _) = parse_chunked(ROLE_SUFFIX, &options(), &out, &[7]);
        assert!(m.content.len() + m.reasoning_content.len() <= out.len());
    }
    for out in ["<|open|>".repeat(300), "<|close|>think<|sep|>".repeat(200), "<|sep|>".repeat(300)] {
        parse_chunked(CHANNEL_WORDS, &options(), &out, &[7]);
    }
}

/// Linear: a soup four times as long takes about four times as long to parse in 7-byte chunks (a path
/// that re-reads what it holds would take sixteen). Ratios within one run hold on a loaded machine.
#[test]
fn segment_soup_parses_in_linear_time() {
    let t = template(ROLE_SUFFIX);
    let parse_time = |text: &str| -> std::time::Duration {
        let start = std::time::Instant::now();
        let mut p = t.stream_parser(&options()).unwrap();
        for c in chat_autoparser::testing::chunks(text, 7) {
            p.push(c);
        }
        let _ = p.finish();
        start.elapsed()
    };
    let soups: [(&str, fn(usize) -> String); 4] = [
        ("a long call segment", |n| format!(" -> tool/function_call\n[{}", "{\"name\": \"get_weather\"}, ".repeat(n))),
        ("blank runs between segments", |n| format!("\nA<|im_end|>{}x", " \n".repeat(n * 20))),
        ("headers without words", |n| "<|im_start|>assistant".repeat(n)),
        ("ends without segments", |n| "<|im_end|>".repeat(n)),
    ];
    for (what, soup) in &soups {
        let (quarter, whole) = (soup(2_000), soup(8_000));
        let (tq, tw) = (parse_time(&quarter).max(std::time::Duration::from_micros(50)), parse_time(&whole));
        let ratio = tw.as_secs_f64() / tq.as_secs_f64();
        assert!(ratio < 9.0, "{what}: {tw:?} is {ratio:.1}x a quarter's {tq:?}: not linear");
    }
}
