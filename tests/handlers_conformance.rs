//! cases.jsonl cases that llama.cpp routes to the GPT-OSS, Functionary v3.2 and Ministral 3 handlers:
//! the handler must be detected from the template source, the whole-text parse must match the
//! expectation (harness rules), every chunking must give the same message, and every truncation must
//! parse without panicking.

mod common;
mod parse_support;

use chat_autoparser::analysis::Handler;
use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions};
use chat_autoparser::analysis::detect_handler;
use chat_autoparser::testing::make_parser;
use parse_support::*;
use common::expectations::Expectations;
use serde_json::Value;

const HANDLERS: [&str; 3] = ["GPT-OSS", "Functionary v3.2", "Ministral/Magistral Large 3"];

struct Case {
    id: i64,
    handler: Handler,
    template: String,
    options: RequestOptions,
    /// The generation prompt (the start of `text`).
    gp: String,
    text: String,
    expected: Value,
}

fn cases() -> Vec<Case> {
    common::load_jsonl("cases.jsonl")
        .into_iter()
        .filter(|c| HANDLERS.contains(&c["handler"].as_str().unwrap_or("")))
        .map(|c| {
            let options = RequestOptions {
                tools: c["tools"].as_array().cloned().unwrap_or_default(),
                reasoning_format: serde_json::from_value::<ReasoningFormat>(c["reasoning_format"].clone()).unwrap(),
                json_schema: Some(c["json_schema"].clone()).filter(|v| !v.is_null()),
                is_partial: c["is_partial"].as_bool().unwrap(),
                enable_thinking: c["enable_thinking"].as_bool().unwrap(),
                parallel_tool_calls: c["parallel_tool_calls"].as_bool().unwrap(),
                ..RequestOptions::default()
            };
            let gp = c["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
            Case {
                id: c["id"].as_i64().unwrap(),
                handler: serde_json::from_value(c["handler"].clone()).unwrap(),
                template: c["template"].as_str().unwrap().to_string(),
                text: format!("{gp}{}", c["input"].as_str().unwrap()),
                gp: gp.to_string(),
                options,
                expected: c["expected"].clone(),
            }
        })
        .collect()
}

fn parse(case: &Case, gp: &str, chunks: &[&str]) -> Run {
    run_chunks(make_parser(case.handler, &case.options, gp), chunks, case.options.is_partial)
}

#[test]
fn handlers_are_detected_from_template_source() {
    let mut checked = std::collections::BTreeSet::new();
    for l in common::load_jsonl("analysis.jsonl") {
        let name = l["template"].as_str().unwrap();
        let want: Handler = serde_json::from_value(l["production_handler_with_tools"].clone()).unwrap_or_default();
        let got = detect_handler(&common::template_source(name));
        assert_eq!(got, want, "{name}");
        checked.insert(name.to_string());
    }
    println!("handler detection: {} templates agree", checked.len());
}

#[test]
fn whole_text_matches_expected() {
    let cases = cases();
    let mut expect = Expectations::load("handler_cases");
    for case in &cases {
        assert_eq!(detect_handler(&common::template_source(&case.template)), case.handler, "case {}", case.id);
        let gp = &case.gp;
        let run = parse(case, gp, &[&case.text]);
        let id = format!("#{} {}", case.id, case.template);
        match (harness_diff(&run.message, &case.expected), &run.error) {
            (None, None) => {
                if std::env::var_os("SHOW").is_some() {
                    println!("case {}: {}", case.id, serde_json::to_string(&run.message).unwrap());
                }
                expect.record(id, Ok(()));
            }
            (diff, err) => expect.record(id, Err(format!("{diff:?} {err:?}"))),
        }
    }
    let (pass, total) = expect.counts();
    println!("handler cases: {pass}/{total} pass");
    expect.finish();
}

#[test]
fn every_chunking_gives_the_whole_text_message() {
    let cases = cases();
    let mut runs = 0;
    for case in &cases {
        let gp = &case.gp;
        let whole = parse(case, gp, &[&case.text]);
        let mut chunkings = vec![char_chunks(&case.text)];
        let mut rng = Rng::new(case.id as u64);
        for max in [2, 3, 5, 8, 13, 40] {
            for _ in 0..6 {
                chunkings.push(random_chunks(&case.text, &mut rng, max));
            }
        }
        for chunks in &chunkings {
            let run = parse(case, gp, chunks);
            assert_eq!(run.message, whole.message, "case {} chunks {chunks:?}", case.id);
            assert_eq!(run.error, whole.error, "case {} chunks {chunks:?}", case.id);
            assert_eq!(coalesce(&run.deltas), coalesce(&whole.deltas), "case {} chunks {chunks:?}", case.id);
            assert_eq!(Message::from_deltas(&coalesce(&run.deltas)), run.message);
            runs += 1;
        }
    }
    println!("stream equivalence: {runs} chunked runs over {} cases", cases.len());
    assert!(runs >= 34 * 37);
}

#[test]
fn every_truncation_streams_without_panic() {
    let cases = cases();
    let mut runs = 0;
    for case in &cases {
        let gp = &case.gp;
        for (i, _) in case.text.char_indices().skip(1) {
            let prefix = &case.text[..i];
            for partial in [true, false] {
                let mut options = case.options.clone();
                options.is_partial = partial;
                let chunks = char_chunks(prefix);
                let streamed = run_chunks(make_parser(case.handler, &options, gp), &chunks, partial);
                let whole = run_chunks(make_parser(case.handler, &options, gp), &[prefix], partial);
                assert_eq!(streamed.message, whole.message, "case {} prefix {prefix:?}", case.id);
                runs += 1;
            }
        }
    }
    println!("truncations: {runs} prefix runs");
    assert!(runs > 1000);
}
