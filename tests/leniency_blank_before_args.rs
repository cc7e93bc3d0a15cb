//! Rule R39: spaces or tabs between a call's name (or id) and `[ARGS]` in the Ministral / Mistral format are read
//! as the call; a name followed by anything else stays content. Whole and in chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

#[test]
fn a_blank_before_args_is_read_as_the_call() {
    let tool = json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}});
    let options = RequestOptions { tools: vec![tool], ..RequestOptions::default() };
    for template in ["unsloth-mistral-Devstral-Small-2507.jinja", "mistralai-Ministral-3-14B-Reasoning-2512.jinja"] {
        for out in ["[TOOL_CALLS]get_weather [ARGS]{\"location\": \"Paris\"}", "[TOOL_CALLS]get_weather \t [ARGS]{\"location\": \"Paris\"}"] {
            let (m, d) = parse_chunked(template, &options, out, &[1, 2, 3, 7]);
            assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"location": "Paris"}))], "{template}: {out:?} {d:?}");
            assert!(has(&d, "R39"), "{template}: {d:?}");
        }
        // A name, a blank, then prose: not a call, kept as written.
        let out = "[TOOL_CALLS]get_weather is what I would call";
        let (m, d) = parse_chunked(template, &options, out, &[1, 2, 3, 7]);
        assert!(m.tool_calls.is_empty() && m.content == out, "{template}: {m:?} {d:?}");
        assert!(!has(&d, "R39"), "{template}: {d:?}");
    }
}
