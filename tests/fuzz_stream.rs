//! Property test: a stream parse equals the whole-text parse over random chunkings, for every
//! parser (dedicated handlers and the generic parser), over every cases.jsonl input, the bench
//! inputs, and seeded random mutations of them (markers from the template's analysis inserted,
//! deleted or duplicated, truncation, corrupted JSON, stray special tokens, odd characters).
//! Bounded sample (seconds); the long run is `examples/fuzz_long.rs` (see BENCHMARKS.md).

mod fuzz_support;

use fuzz_support::*;

/// Print the failures and assert the floor: at most `known_auto` AutoParser failures (none
/// today), every other parser must have none.
fn report(name: &str, runs: usize, failures: &[String], floor: usize, known_auto: usize) {
    println!("{name}: {runs} chunked runs, {} failures", failures.len());
    for f in failures.iter().take(10) {
        println!("  FAIL {f}");
    }
    let (auto, other): (Vec<_>, Vec<_>) = failures.iter().partition(|f| f.split(':').next().is_some_and(|l| l.ends_with(" auto")));
    assert!(other.is_empty(), "{name}: {}", other.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
    assert!(auto.len() <= known_auto, "{name}: {} AutoParser failures (known {known_auto})", auto.len());
    assert!(runs >= floor, "{name}: only {runs} runs");
}

#[test]
fn cases_stream_equals_whole() {
    let subjects = case_subjects(&mut Templates::default());
    let (mut runs, mut failures) = (0, Vec::new());
    for (i, s) in subjects.iter().enumerate() {
        let mut rng = Rng::new(i as u64);
        match stream_equals_whole(s, &s.text, &mut rng, 12) {
            Ok(_) => runs += 12,
            Err(e) => failures.push(e),
        }
    }
    report("cases stream = whole", runs, &failures, 7980, 0);
}

#[test]
fn mutated_cases_stream_equals_whole() {
    let subjects = case_subjects(&mut Templates::default());
    let (mut runs, mut failures) = (0, Vec::new());
    for (i, s) in subjects.iter().enumerate() {
        let mut rng = Rng::new(1000 + i as u64);
        for _ in 0..10 {
            let text = mutate_subject(s, &mut rng);
            match stream_equals_whole(s, &text, &mut rng, 4) {
                Ok(_) => runs += 4,
                Err(e) => failures.push(e),
            }
        }
    }
    report("mutated cases stream = whole", runs, &failures, 26608, 0);
}

#[test]
fn bench_inputs_stream_equals_whole() {
    let subjects = bench_subjects(&mut Templates::default(), &["1k", "2k"]);
    let (mut runs, mut failures) = (0, Vec::new());
    for (i, s) in subjects.iter().enumerate() {
        let mut rng = Rng::new(7000 + i as u64);
        let texts = [s.text.clone(), mutate_subject(s, &mut rng), mutate_subject(s, &mut rng)];
        for text in &texts {
            match stream_equals_whole(s, text, &mut rng, 3) {
                Ok(_) => runs += 3,
                Err(e) => failures.push(e),
            }
        }
    }
    report("bench inputs stream = whole", runs, &failures, 144, 0);
}

#[test]
fn whitespace_after_a_call_survives_any_chunking() {
    use chat_autoparser::analysis::Handler;
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::testing::make_parser;
    // Found by fuzz_long: text after a call that arrived as `" and "`, `"more"` lost its space
    // (the whitespace held after the call was dropped on the switch back to content).
    for (handler, call) in [(Handler::Ministral3, "[TOOL_CALLS]f[ARGS]{\"a\":1}"), (Handler::FunctionaryV32, ">>>f\n{\"a\":1}")] {
        let make = || make_parser(handler, &RequestOptions::default(), "");
        let whole = run_chunks(make(), &[&format!("{call} and more")], false);
        let chunked = run_chunks(make(), &[call, " and ", "more"], false);
        assert_eq!(chunked.message, whole.message, "{handler:?}");
        assert!(whole.message.content.contains("and more"), "{handler:?}: {:?}", whole.message);
    }
}

#[test]
fn broken_call_arguments_are_the_same_at_every_split() {
    // Found by the mutations: a committed call whose JSON breaks after some argument text was read
    // lost that text in a whole-text parse (still pending) but not in a stream (already flushed).
    let subjects = case_subjects(&mut Templates::default());
    let texts = [
        ("case 96 (NousResearch-Hermes-2-Pro", "<tool_call>\n{\"name\": \"special_function\", \"arguments\": [\"arg1\"} 1}}</tool_call>"),
        ("case 57 (Cohere2MoE", "<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"special_function\", \"parameters\": </tool_call>\"arg1\": 1}}\n]<|END_ACTION|>"),
    ];
    let mut checked = 0;
    for (family, text) in texts {
        let s = subjects.iter().find(|s| s.label.contains(family) && s.label.ends_with(" auto")).expect(family);
        let whole = run_chunks((s.make)(), &[text], false);
        assert!(!whole.message.tool_calls.is_empty(), "{family}: {:?}", whole.message);
        // The arguments stop at the first character that cannot continue the JSON value (a
        // mismatched bracket, marker text), which goes to content.
        let args = &whole.message.tool_calls[0].function.arguments;
        assert!(!args.contains('}') && !args.contains('<'), "{family}: {args:?}");
        assert!(whole.message.content.contains("1}}"), "{family}: {:?}", whole.message);
        for (i, _) in text.char_indices().skip(1) {
            let run = run_chunks((s.make)(), &[&text[..i], &text[i..]], false);
            assert_eq!(run.message, whole.message, "{family}: split at {i}");
            checked += 1;
        }
    }
    assert!(checked > 100);
}
