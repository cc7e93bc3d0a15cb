//! Rule R40: a section end marker that begins with the call list's `]` (`]<|tool_call_end|>`), of which
//! the model wrote only the `]`: the list is closed, and so is the section; what follows is content.
//! Over the LFM2 family (its own format, and the fallback's convention for a template without one),
//! whole and in chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], ..RequestOptions::default() }
}

const TEMPLATES: [&str; 3] = ["LFM2-8B-A1B.jinja", "LFM2.5-8B-A1B.jinja", "LFM2.5-Instruct.jinja"];

#[test]
fn the_list_closer_alone_ends_the_section() {
    for template in TEMPLATES {
        let out = "<|tool_call_start|>[get_weather(city=\"Paris\")]Checking the weather.";
        let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris"}))], "{template}: {d:?}");
        assert_eq!(m.content, "Checking the weather.", "{template}: {d:?}");
        assert!(has(&d, "R40"), "{template}: {d:?}");
        // At the end of the output too.
        let (m, d) = parse_chunked(template, &options(), "<|tool_call_start|>[get_weather(city=\"Oslo\"), get_time(city=\"Rome\")]", &[1, 2, 3, 7]);
        assert_eq!(calls(&m).len(), 2, "{template}: {d:?}");
        assert_eq!(m.content, "", "{template}: {d:?}");
        assert!(has(&d, "R40"), "{template}: {d:?}");
    }
}

#[test]
fn the_whole_end_marker_is_no_departure() {
    for template in TEMPLATES {
        let out = "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>Checking.";
        let (m, d) = parse_chunked(template, &options(), out, &[1, 2, 3, 7]);
        assert_eq!((calls(&m).len(), m.content.as_str()), (1, "Checking."), "{template}: {d:?}");
        assert!(!has(&d, "R40"), "{template}: {d:?}");
    }
}
