//! Issue #11 item 11: `arguments` is always valid JSON. A typed (non-string) tagged parameter whose
//! value does not parse as JSON (`3 days`, `N/A` for an integer) becomes a JSON string with a
//! diagnostic; a valid one stays typed. Streaming in 1-byte chunks gives the same message.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions, StreamParser};
use serde_json::{json, Value};

fn qwen3_coder() -> ChatTemplate {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance/templates/Qwen3-Coder.jinja")).unwrap();
    ChatTemplate::new(&src, RenderOptions::default()).unwrap()
}

fn options() -> RequestOptions {
    let tool = json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}});
    RequestOptions { tools: vec![tool], ..RequestOptions::default() }
}

#[test]
fn typed_values_that_are_not_json_become_strings_with_a_diagnostic() {
    let t = qwen3_coder();
    let opts = options();
    let gp = t.generation_prompt(&opts).unwrap();
    for (value, expect) in [("3", json!(3)), ("3 days", json!("3 days")), ("N/A", json!("N/A")), ("[1, 2", json!("[1, 2")), ("True", json!(true))] {
        let text = format!("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n{value}\n</parameter>\n</function>\n</tool_call>");
        let run = |chunk: usize| {
            let mut p = StreamParser::new(t.analysis().unwrap(), &gp, &opts).unwrap();
            let chars: Vec<char> = text.chars().collect();
            for c in chars.chunks(chunk) {
                p.push(&c.iter().collect::<String>());
            }
            p.finish().unwrap();
            (p.message().clone(), p.diagnostics().len())
        };
        let (whole, diags) = run(usize::MAX);
        let (streamed, _) = run(1);
        assert_eq!(whole, streamed, "{value}");
        let call = whole.tool_calls.first().unwrap_or_else(|| panic!("{value}: no call in {whole:?}"));
        let args: Value = serde_json::from_str(&call.function.arguments).unwrap_or_else(|e| panic!("{value}: {e}: {}", call.function.arguments));
        assert_eq!(args, json!({"city": "Paris", "days": expect}), "{value}");
        assert_eq!(diags > 0, expect.is_string(), "{value}: {diags} diagnostics");
    }
}
