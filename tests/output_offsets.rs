//! Diagnostics and errors give byte offsets in the model output, for every format alike: the part
//! of the generation prompt a parser reads first (its prefill) is not counted.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;

fn truncated_call_offset(source: &str, output: &str) -> (usize, Vec<usize>) {
    let t = ChatTemplate::new(source, RenderOptions::default()).expect("compiles");
    let tools = vec![json!({ "type": "function", "function": { "name": "f", "parameters": { "type": "object", "properties": {} } } })];
    let options = RequestOptions { tools, ..Default::default() };
    assert!(!t.generation_prompt(&options).expect("prompt").is_empty(), "the prompt is read first");
    let mut p = t.stream_parser(&options).expect("parser");
    p.push(output);
    let err = p.finish().expect_err("output ends inside a tool call");
    (err.offset().expect("offset"), p.diagnostics().iter().map(|d| d.offset).collect())
}

#[test]
fn offsets_count_from_the_start_of_the_output() {
    let harmony = "{% for m in messages %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|start|>assistant{% endif %}{# <|channel|> <|call|> #}";
    let output = "<|channel|>final<|message|>Hi<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": ";
    let at = output.find("{\"a\"").unwrap();
    let (offset, diags) = truncated_call_offset(harmony, output);
    assert_eq!(offset, at);
    assert!(diags.contains(&at), "{diags:?}");
}
