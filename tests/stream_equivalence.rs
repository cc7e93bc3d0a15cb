//! Chunk invariance: any split of a case's output into chunks gives exactly the whole-text result,
//! the deltas rebuild the message, and every truncation streams without panicking.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use chat_autoparser::analysis::Analysis;
use chat_autoparser::api::{Delta, Message, RequestOptions};
use chat_autoparser::StreamParser;
use case_support::{analyses, chunks, options_of, stream, Outcome, Rng};
use chat_autoparser::generation_prompt;
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::expectations::Expectations;
use std::collections::HashMap;

const DEDICATED: [&str; 3] = ["GPT-OSS", "Functionary v3.2", "Ministral/Magistral Large 3"];

/// Every case that runs is a case of `tests/expectations/stream_equivalence.jsonl` (`#id TEMPLATE`), so a
/// case that stops running or stops agreeing fails by name.
#[test]
fn random_splits_match_whole_text() {
    let analyses = analyses();
    let mut expect = Expectations::load("stream_equivalence");
    let mut runs = 0;
    for case in common::load_jsonl("cases.jsonl") {
        if DEDICATED.iter().any(|d| case["handler"] == *d) {
            continue;
        }
        let Some(analysis) = analyses.get(case["template"].as_str().unwrap_or("")) else { continue };
        let options = options_of(&case);
        let gp = case["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
        let input = case["input"].as_str().unwrap_or("");
        let whole = stream(analysis, gp, &options, &[input]);
        let outcome = random_splits_agree(&case, analysis, gp, &options, input, &whole);
        runs += outcome.as_ref().map_or(0, |n| *n);
        expect.record(format!("#{} {}", case["id"], case["template"].as_str().unwrap_or("")), outcome.map(|_| ()));
    }
    let (_, cases) = expect.counts();
    println!("stream equivalence: {cases} cases, {runs} chunkings, all identical to the whole-text parse");
    expect.finish();
}

/// The whole-text deltas rebuild the message, and one char at a time and 20 random chunkings of
/// `input` give `whole`; returns the runs made, or the first disagreement.
fn random_splits_agree(case: &serde_json::Value, analysis: &Analysis, gp: &str, options: &RequestOptions, input: &str, whole: &Outcome) -> Result<usize, String> {
    if Message::from_deltas(&whole.2) != whole.0 {
        return Err(format!("case #{}: deltas do not rebuild the message", case["id"]));
    }
    let one_char: Vec<usize> = input.char_indices().map(|(i, _)| i).collect();
    let mut splits = vec![one_char];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ case["id"].as_u64().unwrap_or(0));
    for _ in 0..20 {
        let n = (rng.next() % 8) as usize;
        let mut cuts: Vec<usize> = (0..n).map(|_| (rng.next() as usize) % (input.len() + 1)).collect();
        cuts.sort_unstable();
        splits.push(cuts);
    }
    for cuts in &splits {
        let got = stream(analysis, gp, options, &chunks(input, cuts));
        if (&got.0, &got.1) != (&whole.0, &whole.1) {
            return Err(format!("split at {cuts:?}: {:?} != whole {:?}", (&got.0, &got.1), (&whole.0, &whole.1)));
        }
        if Message::from_deltas(&got.2) != got.0 {
            return Err(format!("split at {cuts:?}: streamed deltas do not rebuild the message"));
        }
    }
    Ok(splits.len())
}

/// The same with OUR analysis and OUR generation prompt (the end-to-end path), for every case —
/// dedicated handlers included — so formats the general analysis learns stay chunk-invariant
/// (`tests/expectations/stream_equivalence_our_analysis.jsonl`).
#[test]
fn random_splits_match_whole_text_with_our_analysis() {
    let mut templates: HashMap<String, ChatTemplate> = HashMap::new();
    let mut expect = Expectations::load("stream_equivalence_our_analysis");
    let mut runs = 0;
    for case in common::load_jsonl("cases.jsonl") {
        let name = case["template"].as_str().unwrap_or("").to_string();
        let t = templates.entry(name.clone()).or_insert_with(|| {
            let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).expect("reference templates compile")
        });
        let options = options_of(&case);
        let analysis = t.analysis().expect("analysis");
        let Ok(gp) = generation_prompt(t, analysis, &options) else { continue };
        let input = case["input"].as_str().unwrap_or("");
        let whole = stream(analysis, &gp, &options, &[input]);
        let outcome = random_splits_agree(&case, analysis, &gp, &options, input, &whole);
        runs += outcome.as_ref().map_or(0, |n| *n);
        expect.record(format!("#{} {name}", case["id"]), outcome.map(|_| ()));
    }
    let (_, cases) = expect.counts();
    println!("stream equivalence (our analysis): {cases} cases, {runs} chunkings");
    expect.finish();
}

#[test]
fn every_truncation_streams_without_panic() {
    let analyses = analyses();
    let mut runs = 0;
    for case in common::load_jsonl("cases.jsonl") {
        let Some(analysis) = analyses.get(case["template"].as_str().unwrap_or("")) else { continue };
        let mut options = options_of(&case);
        let gp = case["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
        let input = case["input"].as_str().unwrap_or("");
        for (end, _) in input.char_indices() {
            for partial in [true, false] {
                options.is_partial = partial;
                let got = stream(analysis, gp, &options, &chunks(&input[..end], &[end / 2]));
                assert_eq!(Message::from_deltas(&got.2), got.0);
                runs += 1;
            }
        }
    }
    println!("truncations: {runs} streams, no panic");
    assert!(runs > 10_000);
}

#[test]
fn marker_split_across_chunks_and_eos_inside_marker() {
    let analyses = analyses();
    let a = &analyses["Qwen3-Coder.jinja"];
    let tools: Vec<serde_json::Value> = serde_json::from_str(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"integer"},"s":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let options = RequestOptions { tools, ..RequestOptions::default() };
    let text = "Hi <tool_call>\n<function=f>\n<parameter=x>\n5\n</parameter>\n<parameter=s>\na \"q\"\n</parameter>\n</function>\n</tool_call>";
    let whole = stream(a, "", &options, &[text]);
    assert_eq!(whole.0.content.trim(), "Hi");
    assert_eq!(whole.0.tool_calls.len(), 1);
    let args: serde_json::Value = serde_json::from_str(&whole.0.tool_calls[0].function.arguments).unwrap();
    assert_eq!(args, serde_json::json!({"x": 5, "s": "a \"q\""}));
    // Split inside `<tool_call>`: nothing of the marker leaks into content.
    let first = {
        let mut p = StreamParser::new(a, "", &options).unwrap();
        p.push("Hi <tool_")
    };
    assert_eq!(first, vec![Delta::Content("Hi ".into())]);
    // EOS inside a marker: the held-back text is content at the end.
    let eos = stream(a, "", &options, &["Hi <tool_"]);
    assert_eq!(eos.0.content, "Hi <tool_");
    // EOS inside a call: with `strict`, an error naming the call's offset, deltas first.
    let options = RequestOptions { strict: true, ..options };
    let cut = stream(a, "", &options, &["Hi <tool_call>\n<function=f>\n<parameter=x>\n5"]);
    assert_eq!(cut.0.tool_calls.len(), 1);
    assert!(cut.1.is_some_and(|e| e.contains("at byte 3")));
}


/// Random texts assembled from each template's own markers (plus JSON and tagged-argument
/// fragments): whole, one char at a time and randomly split must agree, and nothing panics.
#[test]
fn marker_soup_is_chunk_invariant() {
    let tools: Vec<serde_json::Value> = serde_json::from_str(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"integer"},"s":{"type":"string"}}}}},
            {"type":"function","function":{"name":"f_long","parameters":{"type":"object","properties":{}}}}]"#,
    )
    .unwrap();
    let mut runs = 0;
    for (name, analysis) in analyses() {
        let t = &analysis.tools;
        let mut alphabet: Vec<String> = [
            &analysis.reasoning.start, &analysis.reasoning.end, &analysis.content.start, &analysis.content.end,
            &t.format.section_start, &t.format.section_end, &t.format.per_call_start, &t.format.per_call_end,
            &t.function.name_prefix, &t.function.name_suffix, &t.function.close, &t.arguments.name_prefix,
            &t.arguments.name_suffix, &t.arguments.value_prefix, &t.arguments.value_suffix, &t.call_id.prefix, &t.call_id.suffix,
        ]
        .into_iter()
        .filter(|m| !m.is_empty())
        .cloned()
        .collect();
        for s in ["f", "f_long", "x", "s", "{", "}", "[", "]", "\"", "'", ":", ",", "1", " ", "\n", "é", "True", "\\", "name", "arguments", "<", "hi"] {
            alphabet.push(s.to_string());
        }
        let mut rng = Rng(0xE703_7ED1_A0B4_28DB ^ name.len() as u64);
        for _ in 0..200 {
            let len = 1 + (rng.next() % 24) as usize;
            let text: String = (0..len).map(|_| alphabet[(rng.next() as usize) % alphabet.len()].as_str()).collect();
            let partial = rng.next() % 4 == 0;
            let options = RequestOptions { tools: tools.clone(), is_partial: partial, ..RequestOptions::default() };
            let whole = stream(&analysis, "", &options, &[&text]);
            let one_char: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let mut cuts: Vec<usize> = (0..4).map(|_| (rng.next() as usize) % (text.len() + 1)).collect();
            cuts.sort_unstable();
            for c in [one_char, cuts] {
                let got = stream(&analysis, "", &options, &chunks(&text, &c));
                assert_eq!((&got.0, &got.1), (&whole.0, &whole.1), "{name}: {text:?} split at {c:?}");
                assert_eq!(Message::from_deltas(&got.2), got.0, "{name}: {text:?} deltas");
                runs += 1;
            }
        }
    }
    println!("marker soup: {runs} streams agree with their whole-text parse");
    assert!(runs > 10_000);
}

/// Reasoning markers met in content (Gemma 4): a re-opened block goes to reasoning, a stray end
/// marker and a repeated start-marker head are dropped, in every chunking.
#[test]
fn reasoning_markers_in_content() {
    let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
    let t = ChatTemplate::new(&common::template_source("google-gemma-4-31B-it.jinja"), opts).unwrap();
    let options = RequestOptions { enable_thinking: Some(true), ..RequestOptions::default() };
    let input = "<|channel><|channel>thought\nA<channel|>Hi<|channel><|channel>thought\nB<channel|> there<channel|>";
    let whole = stream(t.analysis().expect("analysis"), "", &options, &[input]);
    assert_eq!((whole.0.content.as_str(), whole.0.reasoning_content.as_str()), ("Hi there", "AB"));
    let case = serde_json::json!({ "id": 0 });
    assert!(random_splits_agree(&case, t.analysis().expect("analysis"), "", &options, input, &whole).unwrap() > 1);
}

/// A request with one tool, `f(x: integer)`.
fn one_tool_f() -> RequestOptions {
    let tools = serde_json::from_str(r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"integer"}}}}}]"#).unwrap();
    RequestOptions { tools, ..RequestOptions::default() }
}

/// The 512-byte limit on an argument name is decided on the text position, not on how much is
/// buffered: a name closed just before, at or after the limit gives the same message in one piece
/// as split right past the limit (where the closing marker is not buffered yet).
#[test]
fn argument_name_limit_is_chunk_invariant() {
    let options = one_tool_f();
    let analyses = analyses();
    for name in ["Qwen3-Coder.jinja", "google-gemma-4-31B-it.jinja", "LFM2.5-Instruct.jinja"] {
        let analysis = &analyses[name];
        let t = &analysis.tools;
        let (f, a) = (&t.function, &t.arguments);
        let head = format!("{}{}{}f{}{}{}", t.format.section_start, t.format.per_call_start, f.name_prefix, f.name_suffix, a.start, a.name_prefix);
        for len in [500, 511, 512, 513, 520, 600] {
            let text = format!("{head}{}{}{}1{}{}{}{}{}", "x".repeat(len), a.name_suffix, a.value_prefix, a.value_suffix, a.end, f.close, t.format.per_call_end, t.format.section_end);
            let whole = stream(analysis, "", &options, &[&text]);
            for cut in [head.len() + 513, head.len() + 530, head.len() + len] {
                let got = stream(analysis, "", &options, &chunks(&text, &[cut]));
                assert_eq!((&got.0, &got.1), (&whole.0, &whole.1), "{name}: name of {len} bytes split at {cut}");
            }
        }
    }
}

/// The same for a call id (Mistral `[CALL_ID]…[ARGS]`) and a call counter (Kimi K2
/// `functions.f:0`): accepted or refused alike whole and split right past the limit.
#[test]
fn call_id_and_counter_limits_are_chunk_invariant() {
    let options = one_tool_f();
    let analyses = analyses();
    for len in [500, 512, 513, 520, 600] {
        let texts = [
            ("Mistral-Small-3.2-24B-Instruct-2506.jinja", "[TOOL_CALLS]f[CALL_ID]".to_string(), format!("{}[ARGS]{{\"x\":1}}", "a".repeat(len))),
            (
                "moonshotai-Kimi-K2.jinja",
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:".to_string(),
                format!("{}<|tool_call_argument_begin|>{{\"x\":1}}<|tool_call_end|><|tool_calls_section_end|>", "7".repeat(len)),
            ),
        ];
        for (name, head, tail) in texts {
            let analysis = &analyses[name];
            let text = format!("{head}{tail}");
            let whole = stream(analysis, "", &options, &[&text]);
            for cut in [head.len() + 513, head.len() + 530, head.len() + len] {
                let got = stream(analysis, "", &options, &chunks(&text, &[cut]));
                assert_eq!((&got.0, &got.1), (&whole.0, &whole.1), "{name}: id of {len} bytes split at {cut}");
            }
        }
    }
}
