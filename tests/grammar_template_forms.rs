//! Grammars accept what the template itself writes (issue #26 item 4), one test per form the zoo showed
//! the grammar refusing (tests/zoo_grammars.rs checks every template): each builds the grammar from an
//! analysis with the finding and without it, and checks that the finding is what makes the template's
//! text accepted, while the canonical JSON form stays accepted and wrong texts stay rejected.

use chat_autoparser::analysis::{Analysis, FixedField, Handler, ToolFormat};
use chat_autoparser::api::RequestOptions;
use chat_autoparser::build_grammar;
use chat_autoparser::gbnf::ParsedGrammar;
use serde_json::{json, Value};

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}}),
        json!({"type": "function", "function": {"name": "create_event", "parameters": {"type": "object",
            "properties": {"title": {"type": "string"}, "attendees": {"type": "array", "items": {"type": "string"}},
                "options": {"type": "object", "properties": {"remind": {"type": "boolean"}, "minutes": {"type": "integer"}}}},
            "required": ["title"]}}}),
    ]
}

fn accepts(a: &Analysis, parallel: bool, text: &str) -> bool {
    let options = RequestOptions { tools: tools(), parallel_tool_calls: parallel, ..Default::default() };
    let g = build_grammar(a, &options).expect("grammar");
    let parsed = ParsedGrammar::parse(&g.gbnf).expect("grammar parses");
    parsed.check(text).map(|r| r.accepted).unwrap_or(false)
}

fn analysis(mode: ToolFormat) -> Analysis {
    let mut a = Analysis { handler: Handler::Autoparser, ..Default::default() };
    a.tools.format.mode = mode;
    a
}

/// `<tool_call>\n{"name": …, "arguments": {…}}</tool_call>`, JSON-native.
fn json_native() -> Analysis {
    let mut a = analysis(ToolFormat::JsonNative);
    let f = &mut a.tools.format;
    (f.per_call_start, f.per_call_end) = ("<tool_call>\n".into(), "</tool_call>".into());
    f.parameter_order = vec!["name".into(), "arguments".into()];
    a
}

#[test]
fn python_dict_arguments_where_the_template_prints_a_dict() {
    let text = "<tool_call>\n{\"name\": \"create_event\", \"arguments\": {'title': 'Standup', 'attendees': ['ana', \"it's\"], 'options': {'remind': True, 'minutes': 10}}}\n</tool_call>";
    let canonical = "<tool_call>\n{\"name\": \"create_event\", \"arguments\": {\"title\": \"Standup\", \"options\": {\"remind\": true}}}</tool_call>";
    let mut a = json_native();
    assert!(!accepts(&a, false, text), "JSON arguments only without the finding");
    a.tools.format.uses_python_dicts = true;
    assert!(accepts(&a, false, text));
    assert!(accepts(&a, false, canonical), "the JSON form stays accepted");
    // The schema still holds: a required argument, declared keys, typed values.
    assert!(!accepts(&a, false, "<tool_call>\n{\"name\": \"create_event\", \"arguments\": {'attendees': []}}</tool_call>"));
    assert!(!accepts(&a, false, "<tool_call>\n{\"name\": \"create_event\", \"arguments\": {'title': 'x', 'other': 1}}</tool_call>"));
    assert!(!accepts(&a, false, "<tool_call>\n{\"name\": \"create_event\", \"arguments\": {'title': 'x', 'options': {'remind': 'yes'}}}</tool_call>"));
    assert!(!accepts(&a, false, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {'location': 'Paris', 'unit': 'kelvin'}}</tool_call>"));
}

/// `<tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>`.
fn qwen_coder() -> Analysis {
    let mut a = analysis(ToolFormat::TagWithTagged);
    let t = &mut a.tools;
    (t.format.per_call_start, t.format.per_call_end) = ("<tool_call>\n".into(), "</tool_call>".into());
    (t.function.name_prefix, t.function.name_suffix, t.function.close) = ("<function=".into(), ">\n".into(), "</function>".into());
    (t.arguments.name_prefix, t.arguments.name_suffix, t.arguments.value_suffix) = ("<parameter=".into(), ">\n".into(), "\n</parameter>\n".into());
    a
}

#[test]
fn python_repr_tagged_values_where_the_template_prints_str_of_them() {
    let call = |attendees: &str, options: &str| {
        format!("<tool_call>\n<function=create_event>\n<parameter=title>\nStandup\n</parameter>\n<parameter=attendees>\n{attendees}\n</parameter>\n<parameter=options>\n{options}\n</parameter>\n</function>\n</tool_call>")
    };
    let text = call("['ana', 'bo']", "{'remind': True, 'minutes': 10}");
    let mut a = qwen_coder();
    assert!(!accepts(&a, false, &text), "JSON values only without the finding");
    a.tools.arguments.python_repr_values = true;
    assert!(accepts(&a, false, &text));
    assert!(accepts(&a, false, &call("[\"ana\"]", "{\"remind\": true}")), "the JSON form stays accepted");
    assert!(!accepts(&a, false, &call("['ana', 1]", "{}")), "items keep their type");
    assert!(!accepts(&a, false, &call("[]", "{'remind': None}")), "properties keep their type");
}

/// DeepSeek's sectioned calls, JSON arguments in a fence.
fn deepseek() -> Analysis {
    let mut a = analysis(ToolFormat::TagWithJson);
    let t = &mut a.tools;
    (t.format.section_start, t.format.section_end) = ("<｜tool▁calls▁begin｜>".into(), "<｜tool▁calls▁end｜>".into());
    (t.format.per_call_start, t.format.per_call_end) = ("<｜tool▁call▁begin｜>".into(), "<｜tool▁call▁end｜>".into());
    (t.function.name_prefix, t.function.name_suffix, t.function.close) = ("function<｜tool▁sep｜>".into(), "\n```json\n".into(), "```".into());
    a
}

#[test]
fn a_section_end_the_template_writes_only_after_a_second_call_is_optional() {
    let call = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\":\"Paris\"}\n```<｜tool▁call▁end｜>";
    let lone = format!("<｜tool▁calls▁begin｜>{call}");
    let mut a = deepseek();
    assert!(!accepts(&a, false, &lone));
    a.tools.format.section_end_optional = true;
    assert!(accepts(&a, false, &lone));
    assert!(accepts(&a, true, &format!("{lone}\n{call}<｜tool▁calls▁end｜>")), "the section end is still allowed");
    assert!(!accepts(&a, false, &format!("<｜tool▁calls▁begin｜>{}", call.replace("```<", "<"))), "the call's own closer is not");
}

#[test]
fn a_per_call_end_written_only_after_the_last_call_closes_the_calls_once() {
    let call = |city: &str| format!("<tool_call>\n<function=get_weather>\n<parameter=location>\n{city}\n</parameter>\n</function>\n</tool_call>");
    let mut a = qwen_coder();
    (a.tools.format.per_call_start, a.tools.format.per_call_end) = ("<tool_call>\n".into(), "<|im_end|>".into());
    a.tools.function.close = "</function>\n</tool_call>".into();
    let two = format!("{}\n\n{}<|im_end|>", call("Paris"), call("Tokyo"));
    assert!(!accepts(&a, true, &two));
    a.tools.format.per_call_end_last_only = true;
    assert!(accepts(&a, true, &two));
    assert!(accepts(&a, false, &format!("{}<|im_end|>", call("Paris"))));
    assert!(!accepts(&a, true, &format!("{}<|im_end|>{}<|im_end|>", call("Paris"), call("Tokyo"))), "not between the calls");
    assert!(!accepts(&a, false, &call("Paris")), "still after the last");
}

#[test]
fn literal_calls_joined_by_the_templates_separator() {
    let mut a = analysis(ToolFormat::TagWithTagged);
    let t = &mut a.tools;
    (t.format.section_start, t.format.section_end) = ("<|tool_call_start|>\n```python\n".into(), "```\n<|tool_call_end|>".into());
    (t.arguments.start, t.arguments.end, t.arguments.name_suffix, t.arguments.separator) = ("(".into(), ")".into(), "=".into(), ",".into());
    (t.arguments.literal_values, t.arguments.string_delimiter) = (true, "\"".into());
    let text = "<|tool_call_start|>\n```python\nget_weather(location=\"Paris\",unit=\"celsius\")\nget_weather(location=\"Tokyo\")\n```\n<|tool_call_end|>";
    assert!(!accepts(&a, true, text), "a comma between the calls without the finding");
    a.tools.format.call_separator = "\n".into();
    assert!(accepts(&a, true, text));
    assert!(!accepts(&a, true, &text.replace(")\nget", ")get")), "the separator is required");
    a.tools.format.call_separator = ", ".into();
    assert!(accepts(&a, true, &text.replace(")\nget", "), get")));
}

#[test]
fn fixed_fields_of_the_call_object_in_the_templates_order() {
    let mut a = analysis(ToolFormat::JsonNative);
    let f = &mut a.tools.format;
    f.per_call_start = "<|act|>\n".into();
    (f.id_field, f.parameter_order) = ("id".into(), vec!["id".into(), "name".into(), "arguments".into()]);
    let text = "<|act|>\n{\"id\":\"call00001\",\"type\":\"tool\",\"name\":\"get_weather\",\"arguments\":{\"location\": \"Paris\"}}";
    assert!(!accepts(&a, false, text));
    a.tools.format.fixed_fields = vec![FixedField { key: "type".into(), value: "\"tool\"".into(), before: "name".into() }];
    assert!(accepts(&a, false, text));
    assert!(accepts(&a, false, "<|act|>\n{\"name\":\"get_weather\",\"arguments\":{\"location\": \"Paris\"}}"), "optional, as the id");
    assert!(!accepts(&a, false, &text.replace("\"tool\"", "\"other\"")), "its one value");
    assert!(!accepts(&a, false, "<|act|>\n{\"name\":\"get_weather\",\"type\":\"tool\",\"arguments\":{\"location\": \"Paris\"}}"), "in its place");
}

#[test]
fn a_harmony_call_message_may_end_as_every_message_does() {
    let a = Analysis { handler: Handler::GptOss, ..Default::default() };
    let call = " to=functions.get_weather<|channel|>commentary json<|message|>{\"location\": \"Paris\"}";
    for end in ["<|call|>", "<|end|>", ""] {
        assert!(accepts(&a, false, &format!("{call}{end}")), "{end}");
    }
    assert!(!accepts(&a, false, &format!("{call}<|return|>")));
}
