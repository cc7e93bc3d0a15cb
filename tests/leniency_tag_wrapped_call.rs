//! Rule R29 (README "Leniency"): a whole call wrapped in one of the template's role tags
//! (`<user>get_weather<arg_key>…</arg_value></user>` where Laguna's template writes
//! `<tool_call>…</tool_call>` and its user turn is `<user>…</user>`). Read only whole and only for a
//! declared tool; anything else stays content, as written. Every output is parsed whole and in chunks
//! of 1, 3 and 7 characters, all alike; the accounting of these outputs runs in `fuzz_departures`.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

const LAGUNA: &str = "ollama-laguna_v2_chat_template.jinja";

fn opts() -> RequestOptions {
    let f = |name: &str, props: Value| json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } });
    let tools = vec![f("get_weather", json!({ "city": { "type": "string" }, "days": { "type": "integer" } })), f("read", json!({ "path": { "type": "string" } }))];
    RequestOptions { tools, enable_thinking: Some(false), ..Default::default() }
}

#[test]
fn r29_a_whole_call_in_a_role_tag_pair_is_read_as_the_call() {
    let tagged = "Checking.\n<user>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</user>";
    let json_call = "Checking.<assistant>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</assistant>";
    for out in [tagged, json_call] {
        let (m, d) = parse_chunked(LAGUNA, &opts(), out, &[1, 3, 7]);
        assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"city": "Paris", "days": 3}))], "{out:?}");
        assert!(has(&d, "R29"), "{out:?}: {d:?}");
        // The same message as the call in the template's own markers, which says nothing.
        let own = out.replace("user>", "tool_call>").replace("assistant>", "tool_call>");
        let (c, d) = parse_chunked(LAGUNA, &opts(), &own, &[]);
        assert_eq!((calls(&m), &m.content), (calls(&c), &c.content), "{out:?}");
        assert!(!has(&d, "R29"), "{d:?}");
    }
}

#[test]
fn r29_anything_but_a_whole_call_of_a_declared_tool_stays_content() {
    for out in [
        // Not a call, a call of a tool the request did not declare, one that is not closed there, and
        // text after the call inside the tags: all content, as written.
        "<user>hello</user>",
        "<user>lookup\n<arg_key>q</arg_key>\n<arg_value>x</arg_value>\n</user>",
        "<user>read the file please</user>",
        "<user>read\n<arg_key>path</arg_key>\n<arg_value>/tmp/a</arg_value>\nthen more</user>",
        "<user>read\n<arg_key>path</arg_key>\n<arg_value>/tmp/a</arg_value>\n",
        "Then the user said <user>\nwhat about read?\n</user> and left.",
    ] {
        let (m, d) = parse_chunked(LAGUNA, &opts(), out, &[1, 3, 7]);
        assert!(m.tool_calls.is_empty(), "{out:?}: {:?}", calls(&m));
        assert_eq!(m.content, out);
        assert!(!has(&d, "R29"), "{out:?}: {d:?}");
    }
    // A tag that is no role marker of the template (`<tools>` wraps Qwen3's tool definitions, which a
    // model may echo) wraps no call. (A call object alone on a line would be read by rule R28 wherever
    // it stands; an echoed definition is no call.)
    let out = "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"read\", \"description\": \"Read a file\", \"parameters\": {\"type\": \"object\"}}}\n</tools>";
    let (m, _) = parse_chunked("Qwen-Qwen3-0.6B.jinja", &opts(), out, &[1, 3, 7]);
    assert!(m.tool_calls.is_empty() && m.content == out, "{m:?}");
}
