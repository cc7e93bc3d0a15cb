//! Departures composed along their dimensions (issue #24, README "Leniency"): combinations no single
//! rule wrote, read because each dimension is implemented once —
//! - the call's place (no markers, R28) with its syntax (pythonic, R20): `[get_weather(city="Paris")]`
//!   alone on its line where the template writes JSON calls in markers;
//! - the name without the template's decoration (R35): `get_weather:0` for `functions.get_weather:0`,
//!   a header without its counter, `function<｜tool▁sep｜>` or `call:` left out;
//! - blanks inside a section marker that holds the list's bracket (R9): `<|tool_call_start|> [`.
//!
//! Each over several templates, whole and in chunks of 1, 2, 3 and 7 characters (all agree), with
//! every letter of the output accounted for and one diagnostic per departure.

mod common;
#[allow(dead_code)]
mod fuzz_support;

use chat_autoparser::api::{Message, RequestOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], enable_thinking: Some(false), ..RequestOptions::default() }
}

/// Parsed whole and in chunks (all agree); no letter lost once `markers` (consumed) are removed.
fn parse(template: &str, output: &str, markers: &[&str]) -> (Message, Vec<String>) {
    let (m, d) = parse_chunked(template, &options(), output, &[1, 2, 3, 7]);
    let markers: Vec<String> = markers.iter().map(|m| m.to_string()).collect();
    let lost = fuzz_support::lost_letters(output, &markers, &m);
    assert!(lost.is_empty(), "{template}: {output:?} lost {lost:?} in {m:?}");
    (m, d)
}

fn weather(city: &str) -> (String, Value) {
    ("get_weather".into(), json!({ "city": city }))
}

fn count(diags: &[String], rule: &str) -> usize {
    diags.iter().filter(|d| d.contains(&format!("rule {rule})"))).count()
}

/// Templates that write JSON calls in markers (or tagged calls), none of which shows here.
const MARKED: [&str; 5] = [
    "Qwen-Qwen3-0.6B.jinja",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
    "deepseek-ai-DeepSeek-V3.1.jinja",
    "Qwen3-Coder.jinja",
];

#[test]
fn a_pythonic_call_list_without_markers_is_read() {
    for template in MARKED {
        let (m, d) = parse(template, r#"[get_weather(city="Paris")]"#, &[]);
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{template}: {d:?}");
        assert_eq!((count(&d, "R28"), count(&d, "R20")), (1, 1), "{template}: {d:?}");

        let (m, d) = parse(template, "[get_weather(city='Oslo'), get_time(city=\"Rome\")]\n", &[]);
        assert_eq!(calls(&m), vec![weather("Oslo"), ("get_time".into(), json!({"city": "Rome"}))], "{template}: {d:?}");
        assert_eq!(m.content.trim(), "", "{template}");
        assert!(has(&d, "R28") && has(&d, "R20"), "{template}: {d:?}");

        let (m, d) = parse(template, "Let me check.\n[get_weather(city=\"Paris\", days=3)]\n[get_time(city=\"Rome\")]", &[]);
        assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris", "days": 3})), ("get_time".into(), json!({"city": "Rome"}))], "{template}");
        assert_eq!(m.content.trim(), "Let me check.", "{template}");
        assert_eq!(count(&d, "R28"), 2, "{template}: {d:?}");
    }
}

#[test]
fn a_pythonic_call_that_is_not_whole_or_not_alone_stays_content() {
    for template in MARKED {
        for out in [
            // In prose, or followed by more on its line: an example, not a call.
            "Call [get_weather(city=\"Paris\")] now.",
            "[get_weather(city=\"Paris\")] is a list.",
            // Not keyword arguments, not declared, not closed, a broken value.
            "[get_weather(\"Paris\")]",
            "[search(city=\"Paris\")]",
            "[get_weather(city=\"Paris\")",
            "[get_weather(city=\"Paris\"]",
            "[get_weather(city=Paris Texas)]",
        ] {
            let (m, d) = parse(template, out, &[]);
            assert_eq!((m.tool_calls.len(), m.content.as_str()), (0, out), "{template}: {out:?} {d:?}");
            assert!(!has(&d, "R28"), "{template}: {out:?} {d:?}");
        }
    }
}

#[test]
fn a_call_name_without_its_prefix_is_read() {
    let kimi = ["moonshotai-Kimi-K2.jinja", "Kimi-K2-Thinking.jinja"];
    for template in kimi {
        let out = r#"<|tool_calls_section_begin|><|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>"#;
        let markers = ["<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|tool_calls_section_end|>"];
        let (m, d) = parse(template, out, &markers);
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{template}: {d:?}");
        // The numbered header is still the id, as the template writes it.
        assert_eq!(m.tool_calls[0].id, "functions.get_weather:0");
        assert_eq!(count(&d, "R35"), 1, "{template}: {d:?}");

        // The counter left out instead: the id is generated.
        let out = r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>"#;
        let (m, d) = parse(template, out, &[&markers[..], &["functions."]].concat());
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Oslo")], ""), "{template}: {d:?}");
        assert_eq!(count(&d, "R35"), 1, "{template}: {d:?}");

        // Not a declared name there: the section is not a call, as before.
        let out = "<|tool_calls_section_begin|><|tool_call_begin|>hello there<|tool_call_end|><|tool_calls_section_end|>";
        let (m, d) = parse(template, out, &[]);
        assert!(m.tool_calls.is_empty() && !has(&d, "R35"), "{template}: {m:?} {d:?}");
    }

    // DeepSeek R1's `function<｜tool▁sep｜>` and Gemma 4's `call:` left out.
    let out = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let markers = ["<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>", "```json", "```"];
    let (m, d) = parse("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", out, &markers);
    assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{d:?}");
    assert_eq!(count(&d, "R35"), 1, "{d:?}");
    for template in ["google-gemma-4-31B-it.jinja", "google-gemma-4-31B-it-interleaved.jinja"] {
        let out = r#"<|tool_call>get_weather{city:<|"|>Paris<|"|>}<tool_call|>"#;
        let (m, d) = parse(template, out, &["<|tool_call>", "<tool_call|>", "<|\"|>"]);
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{template}: {d:?}");
        assert_eq!(count(&d, "R35"), 1, "{template}: {d:?}");
    }
}

#[test]
fn blanks_between_a_section_opener_and_its_list_are_another_spelling() {
    // LFM2.5's own format, and the fallback's convention of two LFM templates that render no calls.
    for template in ["LFM2.5-8B-A1B.jinja", "LFM2-8B-A1B.jinja", "LFM2.5-Instruct.jinja"] {
        let markers = ["<|tool_call_start|>", "<|tool_call_end|>"];
        let (m, d) = parse(template, r#"<|tool_call_start|> [get_weather(city="Paris")]<|tool_call_end|>"#, &markers);
        assert_eq!((calls(&m), m.content.as_str()), (vec![weather("Paris")], ""), "{template}: {d:?}");
        assert_eq!(count(&d, "R9"), 1, "{template}: {d:?}");

        let out = "<|tool_call_start|>\n[get_weather(city=\"Paris\"), get_time(city=\"Rome\")]\n<|tool_call_end|>";
        let (m, d) = parse(template, out, &markers);
        assert_eq!(calls(&m), vec![weather("Paris"), ("get_time".into(), json!({"city": "Rome"}))], "{template}: {d:?}");
        assert_eq!(m.content, "", "{template}");
        assert_eq!(count(&d, "R9"), 2, "{template}: {d:?}");
    }
}
