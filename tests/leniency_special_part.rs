//! Rule R33 (README "Leniency"): tool-call markers written without their special-token part, as text
//! decoded with special tokens skipped reads (`<function_calls><invoke name="f">` for DeepSeek
//! V3.2's `<｜DSML｜function_calls><｜DSML｜invoke name="f">`). The call section is read in that
//! spelling; every output is parsed whole and in chunks of 1, 3 and 7 characters, all alike. The
//! accounting of these outputs runs in `fuzz_departures` (`fuzz_support/departures.rs`).

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

const V32: &str = "deepseek-ai-DeepSeek-V3.2.jinja";
const V4: &str = "deepseek-ai-DeepSeek-V4.jinja";

fn opts() -> RequestOptions {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    let tools = vec![f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })), f("get_time", json!({}))];
    RequestOptions { tools, enable_thinking: Some(false), ..Default::default() }
}

#[test]
fn r33_markers_without_their_special_token_part_are_read_as_the_markers() {
    let call = "<invoke name=\"get_weather\">\n<parameter name=\"city\" string=\"true\">Paris</parameter>\n<parameter name=\"days\" string=\"false\">3</parameter>\n</invoke>";
    for (template, section) in [(V32, "function_calls"), (V4, "tool_calls")] {
        let out = format!("Checking.\n\n<{section}>\n{call}\n<invoke name=\"get_time\">\n</invoke>\n</{section}>");
        let (m, d) = parse_chunked(template, &opts(), &out, &[1, 3, 7]);
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris", "days": 3})), ("get_time".to_string(), json!({}))], "{template}");
        assert!(has(&d, "R33"), "{template}: {d:?}");
        // The same message as the template's own spelling gives.
        let canonical = out.replace('<', "<｜DSML｜").replace("<｜DSML｜/", "</｜DSML｜");
        let (c, _) = parse_chunked(template, &opts(), &canonical, &[]);
        assert_eq!((calls(&m), &m.content), (calls(&c), &c.content), "{template}");
        assert_eq!(m.content, "Checking.\n\n", "{template}");
    }
    // The template's own spelling says nothing.
    let out = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_time\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let (m, d) = parse_chunked(V32, &opts(), out, &[1, 3, 7]);
    assert_eq!(calls(&m), vec![("get_time".to_string(), json!({}))]);
    assert!(!has(&d, "R33"), "{d:?}");
}

#[test]
fn r33_text_that_only_looks_like_the_markers_stays_content() {
    // No call follows the opener: the text is content, as written.
    for out in ["Wrap calls in <function_calls> tags.", "<function_calls>\nnot a call\n</function_calls> done"] {
        let (m, _) = parse_chunked(V32, &opts(), out, &[1, 3, 7]);
        assert!(m.tool_calls.is_empty(), "{out:?}");
        assert_eq!(m.content, out);
    }
    // A template whose markers have no special-token part has no such spelling.
    let out = "<function_calls>\n<invoke name=\"get_time\">\n</invoke>\n</function_calls>";
    let (m, d) = parse_chunked("Qwen-Qwen3-0.6B.jinja", &opts(), out, &[1, 3, 7]);
    assert!(m.tool_calls.is_empty() && m.content == out && !has(&d, "R33"), "{m:?} {d:?}");
}
