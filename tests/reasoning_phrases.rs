//! Rule R43: reasoning markers that are plain phrases the template's thinking-on instructions teach in
//! quotes (reasoning.7, `analysis.reasoning.phrases`: Granite 3.2's `'Here is my thought process:'`
//! … `'Here is my response:'`). With thinking on the text between them is reasoning, in the phrases'
//! own words or with contractions (`Here's`); only a pair counts; with thinking off they are content.
//! Whole and in chunks of 1, 2, 3 and 7 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::leniency::{has, parse_chunked};
use serde_json::json;

const GRANITE_32: &str = "ollama-lib-granite3.2-8b.jinja";

fn thinking(on: bool) -> RequestOptions {
    let mut options = RequestOptions { enable_thinking: Some(on), ..RequestOptions::default() };
    options.extra_context.insert("thinking".into(), json!(on));
    options
}

#[test]
fn the_phrases_are_found_in_what_thinking_on_adds() {
    let t = ChatTemplate::new(&common::template_source(GRANITE_32), RenderOptions::default()).expect("compiles");
    let r = &t.analysis().expect("analyses").reasoning;
    assert_eq!(r.phrases, vec!["Here is my thought process:".to_string(), "Here is my response:".to_string()]);
    // A template whose instructions quote no phrase, or that has tags: none.
    for other in ["chujiezheng-chatml.jinja", "Qwen-Qwen3-0.6B.jinja"] {
        let t = ChatTemplate::new(&common::template_source(other), RenderOptions::default()).expect("compiles");
        assert!(t.analysis().expect("analyses").reasoning.phrases.is_empty(), "{other}");
    }
}

#[test]
fn text_between_the_phrases_is_reasoning_with_thinking_on() {
    let cases = [
        ("Here is my thought process:\n\nThink think\nHere is my response:\n\nrespond respond", "", "Think think", "respond respond"),
        ("Here's my thought process:\n\nThink think\nHere's my response:\n\nrespond respond", "", "Think think", "respond respond"),
        ("something before Here is my thought process: Think think Here\u{2019}s my response: respond respond", "something before ", "Think think", "respond respond"),
    ];
    for (out, before, reasoning, after) in cases {
        let (m, d) = parse_chunked(GRANITE_32, &thinking(true), out, &[1, 2, 3, 7]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), (reasoning, format!("{before}{after}").as_str()), "{out:?} {d:?}");
        assert!(has(&d, "R43"), "{d:?}");
    }
}

#[test]
fn only_a_pair_counts_and_thinking_off_reads_none() {
    for out in ["Here is my thought process:\n\nrespond respond", "Think think Here is my response: respond respond", "Think think respond respond"] {
        let (m, d) = parse_chunked(GRANITE_32, &thinking(true), out, &[1, 2, 3, 7]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", out), "{d:?}");
    }
    let out = "Here is my thought process:\n\nThink think\nHere is my response:\n\nrespond respond";
    let (m, d) = parse_chunked(GRANITE_32, &thinking(false), out, &[1, 2, 3, 7]);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", out), "{d:?}");
    assert!(!has(&d, "R43"), "{d:?}");
}

#[test]
fn the_phrases_flow_into_the_parser_spec() {
    let t = ChatTemplate::new(&common::template_source(GRANITE_32), RenderOptions::default()).expect("compiles");
    let spec = t.compile_parser(&Default::default()).expect("spec").to_json();
    assert!(spec.contains(r#""phrases":["Here is my thought process:","Here is my response:"]"#), "{spec}");
    let compiled = chat_autoparser::CompiledParser::from_json(&spec).expect("reads back");
    let out = "Here is my thought process: Think think Here's my response: respond respond";
    let options = thinking(true);
    let m = compiled.parse_output(out, &options).expect("parses");
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("Think think", "respond respond"));
}
