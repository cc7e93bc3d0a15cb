//! Rules R28 and R34 (README "Leniency"): a JSON call with none of the template's call markers, in a
//! template that HAS a marked tool format — an object or an array of them at the start of a line
//! (R28), or a ```` ```json ```` fenced call that is the whole output (R34) — is read as a call when
//! every object names a declared tool; anything else stays content as written. Whole text and every
//! chunking agree, and no letter of the output is lost.

mod common;
#[allow(dead_code)]
mod fuzz_support;

use chat_autoparser::api::{Message, RequestOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const QWEN3_CODER: &str = "Qwen3-Coder.jinja";
const NEMO: &str = "mistralai-Mistral-Nemo-Instruct-2407.jinja";
const DEEPSEEK_V31: &str = "deepseek-ai-DeepSeek-V3.1.jinja";
const COMMAND_R_PLUS: &str = "CohereForAI-c4ai-command-r-plus-tool_use.jinja";

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], enable_thinking: Some(false), ..RequestOptions::default() }
}

/// Parsed whole and in chunks of 1, 2, 3 and 7 characters (all agree); every letter accounted for.
fn parse(template: &str, output: &str) -> (Message, Vec<String>) {
    let (m, d) = parse_chunked(template, &options(), output, &[1, 2, 3, 7]);
    // The template's own call markers (and Command R+'s name key) the tests write are consumed.
    let markers = ["[TOOL_CALLS]", "<tool_call>", "</tool_call>", "Action:", "tool_name"].map(String::from);
    let lost = fuzz_support::lost_letters(output, &markers, &m);
    assert!(lost.is_empty(), "{template}: {output:?} lost {lost:?} in {m:?}");
    (m, d)
}

fn weather(city: &str) -> (String, Value) {
    ("get_weather".into(), json!({ "city": city }))
}

#[test]
fn a_bare_call_object_at_the_start_of_a_line_is_a_call() {
    for template in [QWEN3, QWEN3_CODER, NEMO, DEEPSEEK_V31] {
        let (m, d) = parse(template, r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#);
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{template}");
        assert!(has(&d, "R28"), "{template}: {d:?}");

        let (m, d) = parse(template, "Let me check.\n{\"name\":\"get_weather\",\"parameters\":{\"city\":\"Oslo\"}}");
        assert_eq!((calls(&m), m.content.trim()), (vec![weather("Oslo")], "Let me check."), "{template}");
        assert!(has(&d, "R28"), "{template}: {d:?}");
    }
}

#[test]
fn a_bare_array_of_calls_is_read_whole() {
    // Mistral Nemo's `[TOOL_CALLS]` left out (decoded with special tokens skipped), ids kept.
    let out = r#"[{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abc123def"}, {"name": "get_time", "arguments": {"city": "Rome"}, "id": "xyz987uvw"}]"#;
    let (m, d) = parse(NEMO, out);
    assert_eq!(calls(&m), vec![weather("Paris"), ("get_time".into(), json!({"city": "Rome"}))]);
    assert_eq!(m.tool_calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["abc123def", "xyz987uvw"]);
    assert_eq!(m.content, "");
    assert!(has(&d, "R28"), "{d:?}");
    // With its marker the same list is the template's own layout: no departure.
    let (m, d) = parse(NEMO, &format!("[TOOL_CALLS]{out}"));
    assert_eq!(m.tool_calls.len(), 2);
    assert!(!has(&d, "R28"), "{d:?}");
}

#[test]
fn a_fenced_call_that_is_the_whole_output_is_a_call() {
    for template in [DEEPSEEK_V31, QWEN3, NEMO] {
        let (m, d) = parse(template, "```json\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Hangzhou\"}}\n```\n");
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Hangzhou")], ""), "{template}");
        assert!(has(&d, "R34"), "{template}: {d:?}");
    }
    // Where the template writes JSON calls, in its own call object: Command R+'s without `Action:`.
    let (m, d) = parse(COMMAND_R_PLUS, "```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}]\n```");
    assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Oslo")], ""));
    assert!(has(&d, "R34"), "{d:?}");
    // Command R+'s own section (`Action:\n```json`) is its layout, not a departure.
    let (m, d) = parse(COMMAND_R_PLUS, "Action:\n```json\n[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]\n```");
    assert_eq!(calls(&m), vec![weather("Paris")]);
    assert!(!has(&d, "R34") && !has(&d, "R28"), "{d:?}");
}

#[test]
fn json_that_is_not_a_declared_call_stays_content() {
    let texts = [
        // A tool the request did not declare (said in a diagnostic).
        r#"{"name": "send_email", "arguments": {"to": "bob"}}"#,
        // JSON that is no call object, or not only one.
        r#"{"city": "Paris", "days": 3}"#,
        r#"{"name": "get_weather", "arguments": {"city": "Paris"}, "extra": "kept"}"#,
        "[{\"name\": \"get_weather\", \"arguments\": {}}, {\"name\": \"send_email\", \"arguments\": {}}]",
        // Broken JSON, and a call cut off by the end of the output.
        r#"{"name": "get_weather", "arguments": {"city": }}"#,
        r#"{"name": "get_weather", "arguments": {"city": "Par"#,
        // Not at the start of a line.
        r#"The call is {"name": "get_weather", "arguments": {"city": "Paris"}} here."#,
        // In a code block of prose, and a fenced call followed by more text.
        "An example:\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nThat is all.",
        "```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nThat is the call.",
        // A call object nested in another JSON value.
        "{\"result\":\n  {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}}",
    ];
    for template in [QWEN3, NEMO] {
        for text in texts {
            let (m, d) = parse(template, text);
            assert!(m.tool_calls.is_empty(), "{template}: {text:?} gave {m:?}");
            assert_eq!(m.content, text, "{template}");
            let undeclared = text.contains("send_email");
            assert_eq!(has(&d, "R28"), undeclared, "{template}: {text:?}: {d:?}");
        }
    }
}

#[test]
fn the_template_s_markers_after_a_rejected_candidate_are_read_as_always() {
    // The candidate ends at `<`: the template's own call that follows is read.
    let out = "{ <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let (m, d) = parse(QWEN3, out);
    assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], "{ "));
    assert!(!has(&d, "R28"), "{d:?}");
    // A template marker inside a JSON string of a rejected candidate is read too, as without R28.
    let out = "{\"note\": \"<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
    let (m, _) = parse(QWEN3, out);
    assert_eq!(calls(&m), vec![("get_time".into(), json!({}))]);
    assert_eq!(m.content, "{\"note\": \"");
}

#[test]
fn candidates_are_checked_in_linear_time() {
    use chat_autoparser::{ChatTemplate, RenderOptions};
    use std::time::{Duration, Instant};
    let t = ChatTemplate::new(&common::template_source(QWEN3), RenderOptions::default()).unwrap();
    let soups: [(&str, usize); 5] = [
        ("\n{", 20_000),
        ("{\"a\": ", 20_000),
        ("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"x\"}}\n", 5_000),
        ("{\"name\": \"get_weather\", \"arguments\": {}},\n  ", 5_000),
        ("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"<tool_call>\"}, \"x\": 1}\n", 5_000),
    ];
    let time = |soup: &str| {
        let t0 = Instant::now();
        let mut p = t.stream_parser(&options()).unwrap();
        for chunk in soup.as_bytes().chunks(64) {
            p.push(std::str::from_utf8(chunk).unwrap());
        }
        p.finish().unwrap();
        t0.elapsed()
    };
    for (i, (unit, n)) in soups.iter().enumerate() {
        // The array soup opens with `[`; the others are the unit repeated.
        let make = |k: usize| if i == 3 { format!("[{}", unit.repeat(k)) } else { unit.repeat(k) };
        // Linear: four times the text takes about four times as long (quadratic would be sixteen). A ratio
        // measured in one run holds on a loaded machine where an absolute bound does not.
        let (small, large) = (make(n / 4), make(*n));
        let (ts, tl) = (time(&small).max(Duration::from_micros(50)), time(&large));
        let ratio = tl.as_secs_f64() / ts.as_secs_f64();
        println!("{} bytes of {:?}…: {tl:?} ({ratio:.1}× the time of a quarter of it)", large.len(), &large[..12]);
        assert!(ratio < 9.0, "{} bytes of {:?}…: {tl:?}, {ratio:.1}× a quarter's {ts:?}: not linear", large.len(), &large[..12]);
        assert!(tl < Duration::from_secs(30), "{} bytes of {:?}…: {tl:?}", large.len(), &large[..12]);
    }
}
