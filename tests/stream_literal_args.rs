//! Literal tool-call arguments (`f(a='x', n=1)`, `f{a:<|"|>x<|"|>,n:1}`) with OUR analysis of the
//! templates that write them: every case's output split at every character and at random points
//! gives the whole-text result, every truncation streams without panic, and random texts made of
//! the format's own pieces are chunk-invariant. (tests/stream_equivalence.rs runs llama.cpp's
//! analysis, which has no literal arguments.)

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use case_support::{chunks, harness_mismatch, options_of, stream, Rng};
use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::generation_prompt;
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::expectations::Expectations;
use serde_json::json;

const TEMPLATES: [&str; 5] =
    ["google-gemma-4-31B-it.jinja", "google-gemma-4-31B-it-interleaved.jinja", "LFM2-8B-A1B.jinja", "LFM2.5-8B-A1B.jinja", "LFM2.5-Instruct.jinja"];

fn template(name: &str) -> ChatTemplate {
    let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
    ChatTemplate::new(&common::template_source(name), opts).expect("template compiles")
}

#[test]
fn analysis_finds_literal_arguments() {
    let gemma = template("google-gemma-4-31B-it.jinja");
    let a = &gemma.analysis().expect("analysis").tools;
    assert!(a.arguments.literal_values);
    assert_eq!((a.format.per_call_start.as_str(), a.function.name_prefix.as_str(), a.format.per_call_end.as_str()), ("<|tool_call>", "call:", "<tool_call|>"));
    assert_eq!((a.arguments.start.as_str(), a.arguments.end.as_str(), a.arguments.name_suffix.as_str()), ("{", "}", ":"));
    assert_eq!(a.arguments.string_delimiter, "<|\"|>");
    let lfm = template("LFM2.5-8B-A1B.jinja");
    let a = &lfm.analysis().expect("analysis").tools;
    assert!(a.arguments.literal_values);
    assert_eq!((a.format.section_start.as_str(), a.format.section_end.as_str()), ("<|tool_call_start|>[", "]<|tool_call_end|>"));
    assert_eq!((a.arguments.start.as_str(), a.arguments.end.as_str(), a.arguments.name_suffix.as_str()), ("(", ")", "="));
    // A tagged template is not read as literal.
    let qwen = template("Qwen3-Coder.jinja");
    assert!(!qwen.analysis().expect("analysis").tools.arguments.literal_values);
}

/// Chunk invariance is asserted outright; whether each case also passes the harness is a case of
/// `tests/expectations/literal_args_harness.jsonl` (`#id TEMPLATE`).
#[test]
fn cases_are_chunk_invariant_with_our_analysis() {
    let (mut cases, mut runs) = (0, 0);
    let mut expect = Expectations::load("literal_args_harness");
    for name in TEMPLATES {
        let t = template(name);
        let analysis = t.analysis().expect("analysis");
        for case in common::load_jsonl("cases.jsonl").into_iter().filter(|c| c["template"] == name) {
            let options = options_of(&case);
            let Ok(gp) = generation_prompt(&t, analysis, &options) else { continue };
            let input = case["input"].as_str().unwrap_or("");
            let whole = stream(analysis, &gp, &options, &[input]);
            assert_eq!(Message::from_deltas(&whole.2), whole.0, "case #{}: deltas do not rebuild", case["id"]);
            let verdict = match (&whole.1, harness_mismatch(&whole.0, &case["expected"])) {
                (None, None) => Ok(()),
                (err, diff) => Err(format!("{err:?} {diff:?}")),
            };
            expect.record(format!("#{} {name}", case["id"]), verdict);
            let mut splits = vec![input.char_indices().map(|(i, _)| i).collect::<Vec<_>>()];
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ case["id"].as_u64().unwrap_or(0));
            for _ in 0..20 {
                let mut cuts: Vec<usize> = (0..(rng.next() % 8)).map(|_| (rng.next() as usize) % (input.len() + 1)).collect();
                cuts.sort_unstable();
                splits.push(cuts);
            }
            for cuts in &splits {
                let got = stream(analysis, &gp, &options, &chunks(input, cuts));
                assert_eq!((&got.0, &got.1), (&whole.0, &whole.1), "case #{} split at {cuts:?}", case["id"]);
                assert_eq!(Message::from_deltas(&got.2), got.0, "case #{}: streamed deltas do not rebuild", case["id"]);
                runs += 1;
            }
            for (end, _) in input.char_indices() {
                let mut o = options.clone();
                for partial in [true, false] {
                    o.is_partial = partial;
                    let got = stream(analysis, &gp, &o, &chunks(&input[..end], &[end / 2]));
                    assert_eq!(Message::from_deltas(&got.2), got.0);
                }
            }
            cases += 1;
        }
    }
    let (passed, _) = expect.counts();
    println!("literal-argument families: {cases} cases ({passed} pass the harness), {runs} chunkings identical to the whole text");
    expect.finish();
}

#[test]
fn literal_soup_is_chunk_invariant() {
    let tools = vec![json!({"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"integer"},"s":{"type":"string"}}}}})];
    let mut runs = 0;
    for name in TEMPLATES {
        let t = template(name);
        let analysis = t.analysis().expect("analysis");
        let (f, a) = (&analysis.tools.format, &analysis.tools.arguments);
        let mut alphabet: Vec<String> = [&f.section_start, &f.section_end, &f.per_call_start, &f.per_call_end, &analysis.tools.function.name_prefix, &a.string_delimiter]
            .into_iter()
            .filter(|m| !m.is_empty())
            .cloned()
            .collect();
        for s in ["f", "x", "s", "(", ")", "{", "}", "[", "]", "=", ":", ",", "'", "\"", "1", "-2.5", "True", "None", "null", " ", "\\", "é", "<|", "hi"] {
            alphabet.push(s.to_string());
        }
        let mut rng = Rng(0xE703_7ED1_A0B4_28DB ^ name.len() as u64);
        for _ in 0..300 {
            let len = 1 + (rng.next() % 24) as usize;
            let text: String = (0..len).map(|_| alphabet[(rng.next() as usize) % alphabet.len()].as_str()).collect();
            let options = RequestOptions { tools: tools.clone(), is_partial: rng.next() % 4 == 0, ..RequestOptions::default() };
            let whole = stream(analysis, "", &options, &[&text]);
            let mut cuts: Vec<usize> = (0..4).map(|_| (rng.next() as usize) % (text.len() + 1)).collect();
            cuts.sort_unstable();
            for c in [text.char_indices().map(|(i, _)| i).collect(), cuts] {
                let got = stream(analysis, "", &options, &chunks(&text, &c));
                assert_eq!((&got.0, &got.1), (&whole.0, &whole.1), "{name}: {text:?} split at {c:?}");
                assert_eq!(Message::from_deltas(&got.2), got.0, "{name}: {text:?} deltas");
                runs += 1;
            }
        }
    }
    println!("literal soup: {runs} streams agree with their whole-text parse");
    assert!(runs >= 3000);
}
