//! The leniency rules (README "Leniency"), one small output each on a reference template: what the
//! message becomes, the diagnostic naming the rule, and the same result one character at a time.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;

fn tools() -> Vec<serde_json::Value> {
    vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": { "city": { "type": "string" } } } } })]
}

/// Parse `output` whole and one char at a time (they must agree); the message, the diagnostics and
/// the finish reason.
fn parse(template: &str, options: &RequestOptions, output: &str) -> (Message, Vec<String>, Option<&'static str>) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let run = |chunks: Vec<&str>| {
        let mut p = t.stream_parser(options).expect("parser");
        for c in chunks {
            p.push(c);
        }
        p.finish().expect("never throws on model output");
        (p.message().clone(), p.diagnostics().iter().map(|d| d.message.clone()).collect::<Vec<_>>(), p.finish_reason())
    };
    let whole = run(vec![output]);
    let chars = run(output.char_indices().map(|(i, c)| &output[i..i + c.len_utf8()]).collect());
    assert_eq!(whole.0, chars.0, "stream ≡ whole for {output:?}");
    whole
}

fn has(diags: &[String], rule: &str) -> bool {
    diags.iter().any(|d| d.contains(&format!("rule {rule}")))
}

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";

#[test]
fn r1_call_in_open_reasoning_ends_it_unless_reasoning_closes_later() {
    let options = RequestOptions { tools: tools(), generation_prompt: Some("<|im_start|>assistant\n<think>\n".into()), ..Default::default() };
    let call = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let (m, d, _) = parse(QWEN3, &options, &format!("Let me look{call}"));
    assert_eq!((m.reasoning_content.as_str(), m.tool_calls.len()), ("Let me look", 1));
    assert!(has(&d, "R1"), "{d:?}");
    // Closed later: the call was something the model thought about.
    let (m, d, _) = parse(QWEN3, &options, &format!("Maybe {call} no.</think>Done."));
    assert!(m.tool_calls.is_empty() && m.reasoning_content.contains("get_weather") && m.content == "Done.", "{m:?}");
    assert!(!has(&d, "R1"));
}

#[test]
fn r2_repeated_opener_is_dropped_but_an_empty_repeated_block_keeps_it() {
    let options = RequestOptions { generation_prompt: Some("<|im_start|>assistant\n<think>\n".into()), ..Default::default() };
    let (m, d, _) = parse(QWEN3, &options, "<think>\nHmm.</think>Hi");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Hmm.", "Hi"));
    assert!(has(&d, "R2"), "{d:?}");
    let (m, _, _) = parse(QWEN3, &options, "<think>\n\n</think>Hi");
    assert_eq!(m.reasoning_content.trim(), "<think>");
}

#[test]
fn r4_stray_end_marker_is_content_text() {
    let off = RequestOptions { enable_thinking: Some(false), ..Default::default() };
    let (m, d, _) = parse(QWEN3, &off, "a</think>b</think>");
    assert_eq!(m.content, "a</think>b</think>");
    assert!(has(&d, "R4"), "{d:?}");
    // Thinking on: mid-text it is text, at the very end it is dropped (said so).
    let on = RequestOptions { enable_thinking: Some(true), ..Default::default() };
    let (m, d, _) = parse(QWEN3, &on, "<think>r</think>x</think>y</think>");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("r", "x</think>y"));
    assert!(d.iter().any(|d| d.contains("at the end of the output dropped")), "{d:?}");
}

#[test]
fn r5_reasoning_without_its_opener() {
    let on = RequestOptions { enable_thinking: Some(true), ..Default::default() };
    let (m, d, _) = parse(QWEN3, &on, "thinking</think>answer");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("thinking", "answer"));
    assert!(has(&d, "R5"), "{d:?}");
    // The opener written later: what came before it is content.
    let (m, _, _) = parse(QWEN3, &on, "Text <think>r</think> more");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("r", "Text  more"));
    // No end marker: plain content.
    let (m, _, _) = parse(QWEN3, &on, "just an answer");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "just an answer"));
}

#[test]
fn r7_end_of_turn_token_is_dropped() {
    let (m, d, _) = parse(QWEN3, &RequestOptions::default(), "Hello.<|im_end|>");
    assert_eq!(m.content, "Hello.");
    assert!(has(&d, "R7"), "{d:?}");
    // An end-of-message token the source names but no probe renders (Llama 3.1's `<|eom_id|>`).
    let (m, d, _) = parse("meta-llama-Llama-3.1-8B-Instruct.jinja", &RequestOptions::default(), "Hello.<|eom_id|>");
    assert_eq!(m.content, "Hello.");
    assert!(has(&d, "R7"), "{d:?}");
    // Gemma's tokens are words joined by `_` (`<end_of_turn>`), not `<|…|>`.
    let (m, d, _) = parse("google-gemma-2-2b-it.jinja", &RequestOptions::default(), "Hello.<end_of_turn>");
    assert_eq!(m.content, "Hello.");
    assert!(has(&d, "R7"), "{d:?}");
}

#[test]
fn r7_a_turn_end_of_any_shape_is_what_the_template_writes_after_every_message() {
    // Neither a `<|…|>` token nor named "end": the template writes it after the user's text and after the
    // reply's alike, and the analysis reads it off those renders (MiniMax-M2's `[e~[`, Seed-OSS's `<seed:eos>`).
    for (template, end) in [("MiniMax-M2.jinja", "[e~["), ("ByteDance-Seed-OSS.jinja", "<seed:eos>")] {
        let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
        assert!(t.analysis().unwrap().turn_end.iter().any(|m| m == end), "{template}: {:?}", t.analysis().unwrap().turn_end);
        // (Both open reasoning in the generation prompt: the reply closes it first.)
        let close = t.analysis().unwrap().reasoning.end.trim().to_string();
        let (m, d, _) = parse(template, &RequestOptions::default(), &format!("r{close}Hello.{end}"));
        assert_eq!(m.content.trim(), "Hello.", "{template}");
        assert!(has(&d, "R7"), "{template}: {d:?}");
    }
    // The tokenizer's EOS token, given as a render option (the JS API takes it from a tokenizer_config.json):
    // Mistral Nemo's template writes `{{ eos_token }}` after a reply, which the probes render empty.
    let options = RenderOptions { eos_token: Some("</s>".into()), ..RenderOptions::default() };
    let t = ChatTemplate::new(&common::template_source("mistralai-Mistral-Nemo-Instruct-2407.jinja"), options).expect("compiles");
    assert_eq!(t.analysis().unwrap().turn_end, ["</s>"]);
    for size in [1, 2, 3, 7, usize::MAX] {
        let mut p = t.stream_parser(&RequestOptions::default()).expect("parser");
        let text = "Hello.</s>";
        for c in text.chars().collect::<Vec<_>>().chunks(size.min(text.len())) {
            p.push(&c.iter().collect::<String>());
        }
        p.finish().unwrap();
        assert_eq!(p.message().content, "Hello.", "chunks of {size}");
        assert!(p.diagnostics().iter().any(|d| d.message.contains("rule R7")), "{:?}", p.diagnostics());
    }
    let plain = ChatTemplate::new(&common::template_source("mistralai-Mistral-Nemo-Instruct-2407.jinja"), RenderOptions::default()).unwrap();
    assert!(plain.analysis().unwrap().turn_end.is_empty(), "without an EOS token the analysis has none");

    // A header every turn starts with is not an end (`### Instruction:` / `### Response:` share `###`).
    for template in ["llama-cpp-python-ObsidianChatHandler.jinja", "ollama-magicoder-26.jinja", "NousResearch-zephyr.jinja"] {
        let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
        assert!(t.analysis().unwrap().turn_end.is_empty(), "{template}: {:?}", t.analysis().unwrap().turn_end);
    }
}

#[test]
fn cut_off_call_ends_with_finish_reason_length_and_strict_errors() {
    let output = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par";
    let lenient = RequestOptions { tools: tools(), enable_thinking: Some(false), ..Default::default() };
    let (m, d, reason) = parse(QWEN3, &lenient, output);
    assert_eq!((m.tool_calls.len(), reason), (1, Some("length")));
    assert!(d.iter().any(|d| d.contains("inside a tool call")), "{d:?}");
    let t = ChatTemplate::new(&common::template_source(QWEN3), RenderOptions::default()).unwrap();
    let mut p = t.stream_parser(&RequestOptions { strict: true, ..lenient }).unwrap();
    p.push(output);
    assert!(p.finish().is_err());
}

#[test]
fn enable_thinking_not_given_means_the_template_default_and_generation_prompt_overrides() {
    let t = ChatTemplate::new(&common::template_source("Qwen-QwQ-32B.jinja"), RenderOptions::default()).unwrap();
    let rendered = t.render(&json!({ "messages": [{ "role": "user", "content": "Hello" }], "add_generation_prompt": true })).unwrap();
    let gp = t.generation_prompt(&RequestOptions::default()).unwrap();
    assert!(rendered.ends_with(&gp), "{gp:?} is how render() ends: {rendered:?}");
    let given = RequestOptions { generation_prompt: Some("<|im_start|>assistant\n<think>\n".into()), ..Default::default() };
    assert_eq!(t.generation_prompt(&given).unwrap(), "<|im_start|>assistant\n<think>\n");
}
