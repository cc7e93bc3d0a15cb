//! Rule R41: a call of the code-interpreter tool written as raw code, as the template writes such a call
//! (`<|python_tag|>code<|eom_id|>`, a DeepSeek call whose arguments are a ```` ```python ```` fence: the
//! analysis' `tools.rawCodeCall`), or as the body of a message to that tool in an addressed-messages
//! template. The code becomes the arguments as a JSON string. Whole and in chunks of 1, 2, 3 and 7
//! characters; text that merely mentions python stays content.

mod common;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::{json, Value};

const SIZES: &[usize] = &[1, 2, 3, 7];

fn weather() -> Value {
    json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}})
}

fn python(params: Value) -> Value {
    json!({"type": "function", "function": {"name": "python", "parameters": params}})
}

fn options(tools: Vec<Value>) -> RequestOptions {
    RequestOptions { tools, ..RequestOptions::default() }
}

/// Each template, and how its model writes `print(1)` as a call after some text.
const CASES: [(&str, &str); 4] = [
    ("MeetKai-v3-llama3.1.jinja", "Let me run it<|python_tag|>x = 'a'\nprint(x)<|eom_id|>"),
    ("MeetKai-r1_distilled_llama.jinja", "Let me run it<|python_tag|>x = 'a'\nprint(x)<|eom_id|>"),
    ("MeetKai-r1.jinja", "Let me run it<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>python\n```python\nx = 'a'\nprint(x)\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"),
    ("hfjs-meetkai-functionary-medium-v2.2.jinja", "all\n<|content|>Let me run it\n<|from|>assistant\n<|recipient|>python\n<|content|>x = 'a'\nprint(x)<|stop|>"),
];

#[test]
fn raw_code_is_a_call_of_the_code_interpreter() {
    let o = options(vec![weather(), python(json!({"type": "object", "properties": {"code": {"type": "string"}}}))]);
    for (template, out) in CASES {
        let (m, d) = parse_chunked(template, &o, out, SIZES);
        assert_eq!(calls(&m), vec![("python".to_string(), json!({"code": "x = 'a'\nprint(x)"}))], "{template}: {d:?}");
        assert_eq!(m.content.trim(), "Let me run it", "{template}: {d:?}");
        assert!(has(&d, "R41"), "{template}: {d:?}");
    }
}

#[test]
fn the_code_goes_under_the_tools_one_string_parameter_else_under_code() {
    let named = options(vec![python(json!({"type": "object", "properties": {"script": {"type": "string"}}, "required": ["script"]}))]);
    let none = options(vec![python(json!({"type": "object", "properties": {}}))]);
    for (template, out) in CASES {
        let (m, d) = parse_chunked(template, &named, out, SIZES);
        assert_eq!(calls(&m), vec![("python".to_string(), json!({"script": "x = 'a'\nprint(x)"}))], "{template}: {d:?}");
        let (m, d) = parse_chunked(template, &none, out, SIZES);
        assert_eq!(calls(&m), vec![("python".to_string(), json!({"code": "x = 'a'\nprint(x)"}))], "{template}: {d:?}");
    }
}

#[test]
fn without_the_tool_declared_raw_code_stays_as_before() {
    let o = options(vec![weather()]);
    for (template, out) in CASES {
        let (m, d) = parse_chunked(template, &o, out, SIZES);
        assert!(m.tool_calls.is_empty(), "{template}: {m:?}");
        assert!(m.content.contains("print(x)"), "{template}: {m:?}");
        assert!(!has(&d, "R41"), "{template}: {d:?}");
    }
}

#[test]
fn text_that_mentions_python_stays_content() {
    let o = options(vec![weather(), python(json!({"type": "object", "properties": {"code": {"type": "string"}}}))]);
    for template in ["MeetKai-v3-llama3.1.jinja", "MeetKai-r1.jinja"] {
        for out in ["I like python.", "Use python:\n```python\nprint(1)\n```\nthen <|python", "python_tag is a token"] {
            let (m, d) = parse_chunked(template, &o, out, SIZES);
            assert!(m.tool_calls.is_empty() && m.content == out, "{template}: {out:?} {m:?} {d:?}");
            assert!(!has(&d, "R41"), "{template}: {d:?}");
        }
    }
    // An ordinary call of the same template is read as before, a raw-code call after it too.
    let out = "<function=get_weather>{\"location\": \"Paris\"}</function><|python_tag|>print(1)<|eom_id|>";
    let (m, d) = parse_chunked("MeetKai-v3-llama3.1.jinja", &o, out, SIZES);
    let want = vec![("get_weather".to_string(), json!({"location": "Paris"})), ("python".to_string(), json!({"code": "print(1)"}))];
    assert_eq!(calls(&m), want, "{d:?}");
}

#[test]
fn code_cut_off_by_the_end_of_the_output_is_the_call_so_far() {
    let o = options(vec![python(json!({"type": "object", "properties": {"code": {"type": "string"}}}))]);
    let (m, d) = parse_chunked("MeetKai-v3-llama3.1.jinja", &o, "<|python_tag|>print(1)", SIZES);
    assert_eq!(calls(&m), vec![("python".to_string(), json!({"code": "print(1)"}))], "{d:?}");
    assert_eq!(m.content, "");
}

#[test]
fn the_analysis_reads_how_the_template_writes_a_raw_code_call() {
    let found = |name: &str| {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions::default()).expect("compiles");
        t.analysis().expect("analysis").tools.raw_code_call.clone().map(|r| (r.name, r.start, r.end))
    };
    assert_eq!(found("MeetKai-v3-llama3.1.jinja"), Some(("python".into(), "<|python_tag|>".into(), "<|eom_id|>".into())));
    let r1 = found("MeetKai-r1.jinja").expect("found");
    assert_eq!((r1.1.as_str(), r1.2.as_str()), ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>python\n```python\n", "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"));
    // Every call written alike (the name apart), or no code-interpreter name in the source: nothing.
    assert_eq!(found("hfjs-meetkai-functionary-medium-v2.2.jinja"), None);
    assert_eq!(found("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"), None);
}

#[test]
fn a_compiled_parser_spec_reads_it_too() {
    let t = ChatTemplate::new(&common::template_source("MeetKai-r1.jinja"), RenderOptions::default()).expect("compiles");
    let spec = t.compile_parser(&Default::default()).expect("spec").to_json();
    assert!(spec.contains("\"rawCodeCall\""), "{spec}");
    let compiled = chat_autoparser::CompiledParser::from_json(&spec).expect("reads back");
    let o = options(vec![python(json!({"type": "object", "properties": {"code": {"type": "string"}}}))]);
    let mut p = compiled.stream_parser(&o).expect("parser");
    p.push(CASES[2].1);
    p.finish().expect("finishes");
    assert_eq!(calls(p.message()), vec![("python".to_string(), json!({"code": "x = 'a'\nprint(x)"}))]);
}
