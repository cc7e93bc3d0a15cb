//! The general mechanisms behind the zoo's round-trip fixes (issue #26), each on a small synthetic
//! template: what the analysis reads, and the template's own output parsed back whole and in chunks.

mod common;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{verify_template, ChatTemplate, RenderOptions};
use common::leniency::{calls, parse_chunked_with};
use serde_json::json;

fn template(source: &str) -> ChatTemplate {
    ChatTemplate::new(source, RenderOptions::default()).expect("compiles")
}

fn options() -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: vec![tool("get_weather"), tool("get_time")], ..Default::default() }
}

/// `output` parsed whole and in chunks of 1, 2 and 5 characters (all must agree): the message.
fn parse(t: &ChatTemplate, output: &str) -> Message {
    parse_chunked_with(t, &options(), output, &[1, 2, 5]).0
}

/// tools.12: the template writes ` || ` between two `<tool_call>` blocks.
const SEPARATED_CALLS: &str = r#"{%- for message in messages %}<|im_start|>{{ message.role }}
{{ message.content or '' }}
{%- if message.tool_calls %}{% for tc in message.tool_calls %}{% if not loop.first %} || {% endif %}<tool_call>{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}</tool_call>{% endfor %}{% endif %}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"#;

#[test]
fn a_separator_between_marked_calls_is_layout() {
    let t = template(SEPARATED_CALLS);
    assert_eq!(t.analysis().unwrap().tools.format.call_separator.trim(), "||");
    let call = |name: &str, city: &str| format!(r#"<tool_call>{{"name": "{name}", "arguments": {{"city": "{city}"}}}}</tool_call>"#);
    let m = parse(&t, &format!("{} || {}", call("get_weather", "Paris"), call("get_time", "Tokyo")));
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"})), ("get_time".into(), json!({"city": "Tokyo"}))]);
    assert_eq!(m.content, "");
    // Not followed by a call, the separator's text is content.
    let m = parse(&t, &format!("{} || done", call("get_weather", "Paris")));
    assert_eq!((calls(&m).len(), m.content.as_str()), (1, " || done"));
    assert!(verify_template(&t).ok);
}

/// The whole OpenAI call object inside `<tool_call>`: the name and arguments under `function`.
const OPENAI_CALL_OBJECTS: &str = r#"{%- for message in messages %}<|im_start|>{{ message.role }}
{{ message.content or '' }}
{%- if message.tool_calls %}{% for tc in message.tool_calls %}
<tool_call>
{{ tc | tojson }}
</tool_call>{% endfor %}{% endif %}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"#;

#[test]
fn a_whole_openai_call_object_is_read_under_its_function_field() {
    let t = template(OPENAI_CALL_OBJECTS);
    let f = &t.analysis().unwrap().tools.format;
    assert_eq!((f.function_field.as_str(), f.name_field.as_str(), f.args_field.as_str()), ("function", "function.name", "function.arguments"));
    assert_eq!(f.parameter_order, ["id", "function.name", "function.arguments"]);
    let call = |id: &str, name: &str, city: &str| {
        format!("<tool_call>\n{{\"id\": \"{id}\", \"type\": \"function\", \"function\": {{\"name\": \"{name}\", \"arguments\": {{\"city\": \"{city}\"}}}}}}\n</tool_call>")
    };
    let m = parse(&t, &format!("{}{}", call("c1", "get_weather", "Paris"), call("c2", "get_time", "Tokyo")));
    assert_eq!(calls(&m), vec![("get_weather".into(), json!({"city": "Paris"})), ("get_time".into(), json!({"city": "Tokyo"}))]);
    assert_eq!(m.content, "");
    assert!(verify_template(&t).ok);
    // The grammar nests the name and arguments as the template does.
    let grammar = t.grammar(&options()).expect("grammar").gbnf;
    assert!(grammar.contains(r#""\"function\"" space ":" space "{" space "\"name\"""#), "{grammar}");
}

/// Without a generation prompt the template closes the conversation with a literal end token: the two
/// renders part inside `<|` (`<|end_of_text|>` / `<|start_header_id|>`).
const LITERAL_END_WITHOUT_PROMPT: &str = "{% for message in messages %}<|start_header_id|>{{ message.role }}<|end_header_id|>\n\n\
{{ message.content | trim }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n\
{% else %}<|end_of_text|>{% endif %}";

#[test]
fn the_generation_prompt_never_starts_inside_a_token() {
    let t = template(LITERAL_END_WITHOUT_PROMPT);
    let options = RequestOptions { messages: vec![json!({"role": "user", "content": "Hi"})], ..Default::default() };
    assert_eq!(t.generation_prompt(&options).unwrap(), "<|start_header_id|>assistant<|end_header_id|>\n\n");
    let m = parse(&t, "Sunny in Paris.");
    assert_eq!(m.content, "Sunny in Paris.");
    assert!(verify_template(&t).ok);
}
