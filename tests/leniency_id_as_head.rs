//! Rule R48: a template that writes the call's id where a name goes and no name at all (tools.14,
//! `analysis.tools.callId.pos` IN_NAME_PLACE). huggingface.js' copy of Kimi K2 Thinking writes
//! `<|tool_call_begin|>{{ tool_call['id'] }}<|tool_call_argument_begin|>…` where the official template writes
//! `functions.NAME:COUNTER`; Kimi models write ids that name the tool. The head is read as the call's id and
//! its name is the declared tool the head names as a delimited word; a head naming none (or two) stays
//! content. Over that template and two synthetic ones of the same shape with other markers (JSON arguments
//! in `[CALL]…[ARGS]…[/CALL]`, tagged arguments in `<tool_call>…</tool_call>`), with and without the per-call
//! markers, whole and in chunks of 1, 2, 3 and 7 characters (all agree).

mod common;
mod gbnf_support;

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::gbnf::ParsedGrammar;
use chat_autoparser::{build_grammar, ChatTemplate, CompiledParser, RenderOptions};
use common::leniency::{calls, has, parse_chunked_with};
use serde_json::{json, Value};

const KIMI: &str = "hfjs-moonshotai-Kimi-K2-Thinking.jinja";

/// `[CALLS][CALL]{{ id }}[ARGS]{json}[/CALL][/CALLS]`: the Kimi shape with other markers.
const BRACKETS: &str = r#"{%- if tools -%}<|system|>Tools: {{ tools | tojson }}<|end|>{%- endif -%}
{%- for m in messages -%}
{%- if m.role == 'user' -%}<|user|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|assistant|>{{ m.content }}
{%- if m.tool_calls -%}[CALLS]{%- for c in m.tool_calls -%}[CALL]{{ c.id }}[ARGS]{{ c.function.arguments | tojson }}[/CALL]{%- endfor -%}[/CALLS]{%- endif -%}<|end|>
{%- elif m.role == 'tool' -%}<|tool|>{{ m.tool_call_id }}: {{ m.content }}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"#;

/// `<tool_call>{{ id }}\n<arg_key>k</arg_key><arg_value>v</arg_value>\n</tool_call>`: tagged arguments after
/// the id (GLM's layout with the id for the name).
const TAGGED: &str = r#"{%- if tools -%}<|system|>Tools: {{ tools | tojson }}<|end|>{%- endif -%}
{%- for m in messages -%}
{%- if m.role == 'user' -%}<|user|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|assistant|>{{ m.content }}
{%- for c in m.tool_calls or [] -%}<tool_call>{{ c.id }}
{% for k, v in c.function.arguments.items() -%}<arg_key>{{ k }}</arg_key><arg_value>{{ v }}</arg_value>
{% endfor -%}</tool_call>{%- endfor -%}<|end|>
{%- elif m.role == 'tool' -%}<|tool|>{{ m.content }}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"#;

fn options(names: &[&str]) -> RequestOptions {
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}});
    RequestOptions { tools: names.iter().map(|n| tool(n)).collect(), ..RequestOptions::default() }
}

fn template(source: &str) -> ChatTemplate {
    ChatTemplate::new(source, RenderOptions::default()).expect("compiles")
}

fn kimi() -> ChatTemplate {
    template(&common::template_source(KIMI))
}

fn parse(t: &ChatTemplate, names: &[&str], output: &str) -> (Message, Vec<String>) {
    parse_chunked_with(t, &options(names), output, &[1, 2, 3, 7])
}

fn call(name: &str, city: &str) -> (String, Value) {
    (name.into(), json!({ "city": city }))
}

fn ids(m: &Message) -> Vec<&str> {
    m.tool_calls.iter().map(|c| c.id.as_str()).collect()
}

fn count(diags: &[String], rule: &str) -> usize {
    diags.iter().filter(|d| d.contains(&format!("rule {rule})"))).count()
}

#[test]
fn the_analysis_finds_the_call_layout_around_the_id() {
    for (t, start, name_suffix) in [(kimi(), "<|tool_call_begin|>", "<|tool_call_argument_begin|>"), (template(BRACKETS), "[CALL]", "[ARGS]")] {
        let a = t.analysis().unwrap();
        let tools = serde_json::to_value(&a.tools).unwrap();
        assert_eq!(tools["callId"]["pos"], "IN_NAME_PLACE", "{tools}");
        assert_eq!((tools["format"]["perCallStart"].as_str(), tools["function"]["nameSuffix"].as_str()), (Some(start), Some(name_suffix)), "{tools}");
        assert_eq!(tools["function"]["namePrefix"], "", "{tools}");
    }
    let a = template(TAGGED).analysis().unwrap().clone();
    assert_eq!(serde_json::to_value(&a.tools).unwrap()["callId"]["pos"], "IN_NAME_PLACE");
    // The official template writes the name: nothing changes there.
    let official = template(&common::template_source("Kimi-K2-Thinking.jinja"));
    assert_eq!(serde_json::to_value(&official.analysis().unwrap().tools).unwrap()["callId"]["pos"], "NONE");
}

#[test]
fn r48_kimi_heads_that_name_a_declared_tool_are_read() {
    let t = kimi();
    let (sec, open, args, close, end) = ("<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|tool_calls_section_end|>");
    for head in ["functions.get_weather:0", "get_weather:0", "call_get_weather_1", "get_weather"] {
        // With the per-call markers, and without them (R31 reads what they would have introduced).
        for (o, c) in [(open, close), ("", "")] {
            let out = format!(r#"Let me check.{sec}{o}{head}{args}{{"city": "Paris"}}{c}{end}"#);
            let (m, d) = parse(&t, &["get_weather", "get_time"], &out);
            assert_eq!((calls(&m), m.content.as_str()), (vec![call("get_weather", "Paris")], "Let me check."), "{out}: {d:?}");
            assert_eq!(ids(&m), vec![head], "{out}");
            assert_eq!(count(&d, "R48"), 1, "{out}: {d:?}");
            assert_eq!(has(&d, "R31"), o.is_empty(), "{out}: {d:?}");
        }
    }
    // Two calls, each head its own id.
    let out = format!(r#"{sec}{open}functions.get_weather:0{args}{{"city": "Paris"}}{close}{open}functions.get_time:1{args}{{"city": "Rome"}}{close}{end}"#);
    let (m, d) = parse(&t, &["get_weather", "get_time"], &out);
    assert_eq!(calls(&m), vec![call("get_weather", "Paris"), call("get_time", "Rome")], "{d:?}");
    assert_eq!(ids(&m), vec!["functions.get_weather:0", "functions.get_time:1"]);
    assert_eq!(count(&d, "R48"), 2, "{d:?}");
    // A declared name inside another's occurrence is that one's (`weather` in `get_weather`).
    let out = format!(r#"{sec}{open}functions.get_weather:0{args}{{"city": "Paris"}}{close}{end}"#);
    let (m, _) = parse(&t, &["weather", "get_weather"], &out);
    assert_eq!(calls(&m), vec![call("get_weather", "Paris")]);
}

#[test]
fn r48_the_real_output_of_mlx_swift_lm_is_read() {
    // tests/fixtures/real-outputs/mlx-swift-lm.jsonl, testKimiK2Parser: no per-call markers at all.
    let out = r#"<|tool_calls_section_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"location": "London"}<|tool_calls_section_end|>"#;
    let (m, d) = parse(&kimi(), &["get_weather"], out);
    assert_eq!(calls(&m), vec![("get_weather".to_string(), json!({"location": "London"}))], "{d:?}");
    assert_eq!((m.content.as_str(), ids(&m)), ("", vec!["functions.get_weather:0"]));
    assert!(has(&d, "R48") && has(&d, "R31"), "{d:?}");
}

#[test]
fn r48_a_head_naming_no_declared_tool_or_two_stays_content() {
    let t = kimi();
    for head in ["functions.search:0", "call00001", "get_weather_get_time", "functions.get_weatherX:0"] {
        for (o, c) in [("<|tool_call_begin|>", "<|tool_call_end|>"), ("", "")] {
            let out = format!(r#"Hi.<|tool_calls_section_begin|>{o}{head}<|tool_call_argument_begin|>{{"city": "Paris"}}{c}<|tool_calls_section_end|>"#);
            let (m, d) = parse(&t, &["get_weather", "get_time"], &out);
            assert!(m.tool_calls.is_empty(), "{out}: {m:?}");
            assert!(m.content.starts_with("Hi.") && m.content.contains(head), "{out}: {m:?}");
            assert!(!has(&d, "R48") && !has(&d, "R22"), "{out}: {d:?}");
        }
    }
}

#[test]
fn r48_other_markers_the_same_way() {
    let t = template(BRACKETS);
    for out in [
        r#"Sure.[CALLS][CALL]functions.get_weather:0[ARGS]{"city": "Paris"}[/CALL][/CALLS]"#,
        r#"Sure.[CALLS]functions.get_weather:0[ARGS]{"city": "Paris"}[/CALLS]"#,
        r#"Sure.[CALLS][CALL]call_get_weather_7[ARGS]{"city": "Paris"}[/CALL][/CALLS]"#,
    ] {
        let (m, d) = parse(&t, &["get_weather", "get_time"], out);
        assert_eq!((calls(&m), m.content.as_str()), (vec![call("get_weather", "Paris")], "Sure."), "{out}: {d:?}");
        assert_eq!(count(&d, "R48"), 1, "{out}: {d:?}");
    }
    let out = r#"Sure.[CALLS][CALL]call_abc[ARGS]{"city": "Paris"}[/CALL][/CALLS]"#;
    let (m, _) = parse(&t, &["get_weather"], out);
    assert!(m.tool_calls.is_empty() && m.content.contains("call_abc"), "{m:?}");

    let t = template(TAGGED);
    let out = "Sure.<tool_call>functions.get_weather:0\n<arg_key>city</arg_key><arg_value>Paris</arg_value>\n</tool_call>";
    let (m, d) = parse(&t, &["get_weather", "get_time"], out);
    assert_eq!((calls(&m), m.content.as_str()), (vec![call("get_weather", "Paris")], "Sure."), "{d:?}");
    assert_eq!((ids(&m), count(&d, "R48")), (vec!["functions.get_weather:0"], 1), "{d:?}");
    let out = "Sure.<tool_call>call_1\n<arg_key>city</arg_key><arg_value>Paris</arg_value>\n</tool_call>";
    let (m, _) = parse(&t, &["get_weather"], out);
    assert!(m.tool_calls.is_empty() && m.content.contains("call_1"), "{m:?}");
}

#[test]
fn r48_a_compiled_spec_reads_it_too() {
    let t = kimi();
    let spec = t.compile_parser(&Default::default()).unwrap().to_json();
    assert!(spec.contains(r#""pos":"IN_NAME_PLACE""#), "{spec}");
    let compiled = CompiledParser::from_json(&spec).unwrap();
    let out = r#"<|tool_calls_section_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_calls_section_end|>"#;
    let options = options(&["get_weather"]);
    for n in [1, 3, 7] {
        let run = |mut p: chat_autoparser::StreamParser| {
            for c in chat_autoparser::testing::chunks(out, n) {
                p.push(c);
            }
            p.finish().unwrap();
            (p.message().clone(), p.diagnostics().to_vec())
        };
        let (a, b) = (run(t.stream_parser(&options).unwrap()), run(compiled.stream_parser(&options).unwrap()));
        assert_eq!(calls(&a.0), vec![call("get_weather", "Paris")]);
        assert_eq!(a, b, "chunks of {n}");
    }
}

#[test]
fn r48_the_grammar_lets_the_head_name_the_tool_inside_an_id() {
    let t = kimi();
    let g = build_grammar(t.analysis().unwrap(), &options(&["get_weather"])).unwrap();
    let parsed = ParsedGrammar::parse(&g.gbnf).unwrap();
    let call = |head: &str| format!(r#"<|tool_calls_section_begin|><|tool_call_begin|>{head}<|tool_call_argument_begin|>{{"city": "Paris"}}<|tool_call_end|><|tool_calls_section_end|>"#);
    for head in ["functions.get_weather:0", "get_weather", "call_get_weather_1"] {
        assert!(gbnf_support::accepts(&parsed, &call(head)), "{head}: {}", gbnf_support::rejection(&parsed, &call(head)));
    }
    for head in ["functions.get_weatherX:0", "call00001", "get weather"] {
        assert!(!gbnf_support::accepts(&parsed, &call(head)), "{head}");
    }
}

#[test]
fn r48_a_head_never_runs_over_another_call_marker() {
    // No marker after the head: the section's end ends it, and the call without its arguments is content.
    let out = "Hi.<|tool_calls_section_begin|>functions.get_weather:0<|tool_calls_section_end|>";
    let (m, _) = parse(&kimi(), &["get_weather"], out);
    assert!(m.tool_calls.is_empty(), "{m:?}");
    assert!(m.content.contains("functions.get_weather:0"), "{m:?}");
}
