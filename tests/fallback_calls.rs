//! The tool-call fallback (rule R13): a request with tools whose template renders no tool calls.
//! Calls are read in the conventions of `analysis::fallback_formats` — markers the template source
//! names, `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`, `<tool_call>{json}</tool_call>`, bare JSON
//! objects and pythonic lists at the start of a line — only when they name a declared tool, never
//! inside a code fence, and the same in every chunking. Every accepted call adds a diagnostic.

mod common;
#[allow(dead_code)]
mod fuzz_support;

use chat_autoparser::api::{Message, RequestOptions};
use fuzz_support::{account, fallback_subjects, mutate_subject, stream_equals_whole, Accounting, Rng, Templates};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Value};

fn template(name: &str) -> ChatTemplate {
    ChatTemplate::new(&common::template_source(name), RenderOptions::default()).unwrap()
}

fn options(thinking: bool) -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], enable_thinking: Some(thinking), ..RequestOptions::default() }
}

/// The message and diagnostics of `output`, parsed whole; every chunking of 1, 2, 3 and 7 bytes
/// must give the same message.
fn parse(t: &ChatTemplate, o: &RequestOptions, output: &str) -> (Message, Vec<String>) {
    let run = |chunks: Vec<&str>| {
        let mut p = t.stream_parser(o).unwrap();
        for c in chunks {
            p.push(c);
        }
        p.finish().unwrap();
        // A repeated diagnostic is one entry with a count: list it once per occurrence.
        (p.message().clone(), p.diagnostics().iter().flat_map(|d| std::iter::repeat_n(d.message.clone(), d.count)).collect::<Vec<_>>())
    };
    let whole = run(vec![output]);
    for n in [1, 2, 3, 7] {
        assert_eq!(run(chat_autoparser::testing::chunks(output, n)).0, whole.0, "chunks of {n} differ on {output:?}");
    }
    whole
}

fn calls(m: &Message) -> Vec<(String, Value)> {
    m.tool_calls.iter().map(|c| (c.function.name.clone(), serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null))).collect()
}

fn fallback_diags(d: &[String]) -> usize {
    d.iter().filter(|m| m.contains("rule R13")).count()
}

#[test]
fn json_calls_in_tool_call_tags_and_bare() {
    let t = template("HuggingFaceTB-SmolLM3-3B.jinja");
    assert!(t.analysis().unwrap().tools.fallback_markers.is_empty(), "this template names no call markers");
    let o = options(false);
    let (m, d) = parse(&t, &o, "Checking.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>");
    assert_eq!(m.content.trim(), "Checking.");
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"}))]);
    assert_eq!(fallback_diags(&d), 1, "{d:?}");

    // A bare call object at the start of the output or of a line; `parameters` for `arguments` too.
    let (m, d) = parse(&t, &o, "{\"name\": \"get_time\", \"parameters\": {\"city\": \"Oslo\"}}");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({"city": "Oslo"}))]);
    assert!(d.iter().any(|x| x.contains("\"parameters\"")), "{d:?}");
    assert_eq!(m.content.trim(), "");
    let (m, _) = parse(&t, &o, "Sure:\n{\"name\": \"get_time\", \"arguments\": {}}");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({}))]);

    // The OpenAI wrapper is accepted, with a diagnostic.
    let (m, d) = parse(&t, &o, "<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"get_time\", \"arguments\": {\"city\": \"Rome\"}}}</tool_call>");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({"city": "Rome"}))]);
    assert!(d.iter().any(|x| x.contains("wrapper")), "{d:?}");
}

#[test]
fn pythonic_calls_in_tokens_and_bare_lists() {
    let t = template("HuggingFaceTB-SmolLM3-3B.jinja");
    let o = options(false);
    let (m, d) = parse(&t, &o, "<|tool_call_start|>[get_weather(city=\"Paris\"), get_time(city='Rome')]<|tool_call_end|>");
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"})), ("get_time".into(), json!({"city": "Rome"}))]);
    assert_eq!(fallback_diags(&d), 2, "{d:?}");
    let (m, _) = parse(&t, &o, "[get_time(city=\"Oslo\")]");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({"city": "Oslo"}))]);
}

#[test]
fn undeclared_names_fences_and_mid_line_text_stay_content() {
    let t = template("HuggingFaceTB-SmolLM3-3B.jinja");
    let o = options(false);
    for text in [
        // Not a declared tool: the block stays content, with a diagnostic.
        "<tool_call>{\"name\": \"launch_rockets\", \"arguments\": {}}</tool_call>",
        "[launch_rockets(n=3)]",
        "<|tool_call_start|>[launch_rockets(n=3)]<|tool_call_end|>",
        // Inside a code fence: an example, not a call.
        "Write it like this:\n```\n<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n```\nDone.",
        // Bare JSON and lists count only at the start of a line.
        "The object {\"name\": \"get_time\", \"arguments\": {}} is an example; so is [get_time(city=\"x\")].",
        // Ordinary JSON and markdown.
        "{\"city\": \"Paris\", \"temp\": 21}\n[link text](https://example.com)",
    ] {
        let (m, d) = parse(&t, &o, text);
        assert!(m.tool_calls.is_empty(), "{text:?} gave calls {:?}", m.tool_calls);
        // (The prompt's `</think>\n` leaves its newline in content: trimmed.)
        assert_eq!(m.content.trim_start(), text, "{text:?}");
        assert_eq!(fallback_diags(&d), 0, "{d:?}");
        if text.contains("launch_rockets") {
            assert!(!d.is_empty(), "an undeclared call says why it stays content");
        }
    }
    // After the fence closes, calls are read again.
    let (m, _) = parse(&t, &o, "```\nx\n```\n<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({}))]);
}

#[test]
fn reasoning_as_analysed_then_calls() {
    // The transformers SmolLM3 case: reasoning, then a `<tool_call>` block.
    let t = template("HuggingFaceTB-SmolLM3-3B.jinja");
    let o = options(true);
    let (m, _) = parse(&t, &o, "<think>\nI should check.\n</think>\n\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>");
    assert_eq!(m.reasoning_content.trim(), "I should check.");
    assert_eq!(m.content.trim(), "");
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"}))]);
    // A call the model only thinks about stays reasoning.
    let (m, _) = parse(&t, &o, "<think>maybe <tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call></think>No call.");
    assert!(m.tool_calls.is_empty());
    assert_eq!(m.content, "No call.");
}

#[test]
fn no_tools_no_fallback() {
    let t = template("HuggingFaceTB-SmolLM3-3B.jinja");
    let o = RequestOptions { enable_thinking: Some(false), ..RequestOptions::default() };
    let text = "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>";
    let (m, _) = parse(&t, &o, text);
    assert!(m.tool_calls.is_empty());
    assert_eq!(m.content.trim_start(), text);
}

#[test]
fn mined_markers_drive_parser_and_grammar() {
    // The template lists its tools between `<|tool_list_start|>` / `<|tool_list_end|>` and never
    // renders calls: the fallback reads the family's `<|tool_call_start|>` pythonic lists, and the
    // grammar constrains to them.
    let t = template("LFM2-8B-A1B.jinja");
    let a = t.analysis().unwrap();
    assert_eq!(a.tools.fallback_markers.len(), 1);
    assert_eq!(a.tools.fallback_markers[0].start, "<|tool_call_start|>");
    let o = options(false);
    let (m, d) = parse(&t, &o, "Let me check.<|tool_call_start|>[get_time(city=\"Paris\")]<|tool_call_end|>");
    assert_eq!(m.content, "Let me check.");
    assert_eq!(calls(&m), vec![("get_time".into(), json!({"city": "Paris"}))]);
    assert!(d.iter().any(|x| x.contains("<|tool_call_start|> tokens (rule R13)")), "{d:?}");
    let g = t.grammar(&o).unwrap();
    assert!(g.lazy && g.triggers.iter().any(|tr| tr.value == "<|tool_call_start|>"), "{:?}", g.triggers);
    assert!(g.gbnf.contains("get_time"));
    // A template that names nothing and does not show the tools gets no grammar.
    let g = template("HuggingFaceTB-SmolLM3-3B.jinja").grammar(&o).unwrap();
    assert!(g.gbnf.is_empty());
}

/// The fuzz subjects of the fallback (templates without a tool format, with tools): each output and
/// 20 mutations of it, parsed whole and in 4 random chunkings (same message), none silently losing
/// text.
#[test]
fn fallback_outputs_survive_mutation_and_chunking() {
    let mut templates = Templates::default();
    let subjects = fallback_subjects(&mut templates);
    assert!(subjects.len() >= 32, "{} subjects", subjects.len());
    let mut rng = Rng::new(13);
    let (mut texts, mut failures) = (0, Vec::new());
    for s in &subjects {
        let mut all = vec![s.text.clone()];
        all.extend((0..20).map(|_| mutate_subject(s, &mut rng)));
        for text in all {
            texts += 1;
            if let Err(e) = stream_equals_whole(s, &text, &mut rng, 4) {
                failures.push(e);
            }
            if let Accounting::Silent(lost) = account(s, &text) {
                failures.push(format!("{}: SILENT loss {lost:?} in {text:?}", s.label));
            }
        }
    }
    println!("fallback fuzz: {texts} texts, {} failures", failures.len());
    assert!(failures.is_empty(), "{:#?}", &failures[..failures.len().min(5)]);
}
