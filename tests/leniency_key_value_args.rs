//! Rule R24 (README "Leniency"): a tagged call's arguments written as `key=value` pairs after its name
//! (`<tool_call>multiply a=12 b=34</tool_call>` where GLM writes `<arg_key>`/`<arg_value>` markers),
//! each value typed as a tagged value is. Every output is parsed whole and in chunks of 1, 3 and 7
//! characters, all alike; the accounting of these outputs runs in `fuzz_departures`.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

const GLM47: &str = "node-llama-cpp-glm4_7flash.jinja";
const QWEN3_CODER: &str = "Qwen3-Coder.jinja";

fn opts() -> RequestOptions {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    let tools = vec![
        f("multiply", json!({ "a": { "type": "number" }, "b": { "type": "number" } })),
        f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })),
    ];
    RequestOptions { tools, enable_thinking: Some(false), ..Default::default() }
}

#[test]
fn r24_key_value_pairs_after_a_tagged_calls_name_are_its_arguments() {
    let (m, d) = parse_chunked(GLM47, &opts(), "<tool_call>multiply a=12234585 b=48838483920</tool_call>", &[1, 3, 7]);
    assert_eq!(calls(&m), vec![("multiply".to_string(), json!({"a": 12234585, "b": 48838483920u64}))]);
    assert_eq!(m.content, "");
    assert!(has(&d, "R24"), "{d:?}");
    // Typed by the schema: a string parameter keeps `5` as "5"; quotes hold spaces; an argument the
    // schema does not declare is a string unless a whole JSON object or array (rule R14); newlines
    // between pairs.
    let out = "Let me check.<tool_call>get_weather city=5 days=3\nunit='deg C' extra={\"a\":1} note=7\n</tool_call>";
    let (m, d) = parse_chunked(GLM47, &opts(), out, &[1, 3, 7]);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "5", "days": 3, "unit": "deg C", "extra": {"a": 1}, "note": "7"}))]);
    assert_eq!(m.content, "Let me check.");
    assert!(has(&d, "R24") && has(&d, "R14"), "{d:?}");
    // The same in another tagged layout (`<function=f>` … `</function>`).
    let out = "<tool_call>\n<function=get_weather>\ncity=\"New York\" days=2\n</function>\n</tool_call>";
    let (m, d) = parse_chunked(QWEN3_CODER, &opts(), out, &[1, 3, 7]);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "New York", "days": 2}))]);
    assert!(has(&d, "R24"), "{d:?}");
}

#[test]
fn r24_anything_but_whole_pairs_up_to_the_closing_marker_is_read_as_before() {
    // Words that are not pairs, or text between the pairs and the closing marker: not arguments,
    // and nothing of the text is lost (it stays content, as before this rule).
    for out in ["<tool_call>multiply the numbers</tool_call>", "<tool_call>multiply a=1 b=2 please</tool_call>", "<tool_call>multiply a= b=2</tool_call>"] {
        let (m, d) = parse_chunked(GLM47, &opts(), out, &[1, 3, 7]);
        assert!(!has(&d, "R24"), "{out:?}: {d:?}");
        let args: Vec<Value> = calls(&m).into_iter().map(|c| c.1).collect();
        assert!(args.iter().all(|a| a == &json!({})), "{out:?}: {args:?}");
        let tail = out.trim_start_matches("<tool_call>multiply");
        assert!(m.content.contains(tail.trim_end_matches("</tool_call>").trim()), "{out:?}: {:?}", m.content);
    }
    // The template's own argument markers say nothing.
    let out = "<tool_call>multiply<arg_key>a</arg_key><arg_value>2</arg_value></tool_call>";
    let (m, d) = parse_chunked(GLM47, &opts(), out, &[1, 3, 7]);
    assert_eq!(calls(&m), vec![("multiply".to_string(), json!({"a": 2}))]);
    assert!(!has(&d, "R24"), "{d:?}");
}
