//! Property test: a stream parse equals the whole-text parse over random chunkings, for every
//! parser (dedicated handlers and the generic parser), over every cases.jsonl input, the bench
//! inputs, and seeded random mutations of them (markers from the template's analysis inserted,
//! deleted or duplicated, truncation, corrupted JSON, stray special tokens, odd characters).
//! Bounded sample (seconds); the long run is `examples/fuzz_long.rs` (see BENCHMARKS.md).

mod fuzz_support;

use fuzz_support::common::expectations::Expectations;
use fuzz_support::*;

/// Prints the figure and checks every subject (`LABEL`) against `tests/expectations/<suite>.jsonl`:
/// every subject must run and agree, so a subject that stops running or diverges fails by name.
fn report(name: &str, suite: &str, runs: usize, outcomes: Vec<(String, Result<(), String>)>) {
    let mut expect = Expectations::load(suite);
    let failures = outcomes.iter().filter(|(_, o)| o.is_err()).count();
    println!("{name}: {runs} chunked runs, {failures} failures");
    for (label, outcome) in outcomes {
        expect.record(label, outcome);
    }
    expect.finish();
}

/// Runs `check` on every subject with its own seeded Rng; (chunked runs, outcome per subject).
fn run_subjects(subjects: &[Subject], seed: u64, check: impl Fn(&Subject, &mut Rng) -> (usize, Result<(), String>)) -> (usize, Vec<(String, Result<(), String>)>) {
    let (mut runs, mut outcomes) = (0, Vec::new());
    for (i, s) in subjects.iter().enumerate() {
        let (n, outcome) = check(s, &mut Rng::new(seed + i as u64));
        runs += n;
        outcomes.push((s.label.clone(), outcome));
    }
    (runs, outcomes)
}

/// `n` chunkings of each text (made in turn, so each mutation sees the Rng the chunkings left).
fn check_texts(s: &Subject, rng: &mut Rng, texts: usize, n: usize, mut text: impl FnMut(&Subject, &mut Rng, usize) -> String) -> (usize, Result<(), String>) {
    let (mut runs, mut outcome) = (0, Ok(()));
    for k in 0..texts {
        let t = text(s, rng, k);
        match stream_equals_whole(s, &t, rng, n) {
            Ok(_) => runs += n,
            Err(e) => outcome = outcome.and(Err(e)),
        }
    }
    (runs, outcome)
}

#[test]
fn cases_stream_equals_whole() {
    let subjects = case_subjects(&mut Templates::default());
    let (runs, outcomes) = run_subjects(&subjects, 0, |s, rng| check_texts(s, rng, 1, 12, |s, _, _| s.text.clone()));
    report("cases stream = whole", "fuzz_cases", runs, outcomes);
}

#[test]
fn mutated_cases_stream_equals_whole() {
    let subjects = case_subjects(&mut Templates::default());
    let (runs, outcomes) = run_subjects(&subjects, 1000, |s, rng| check_texts(s, rng, 10, 4, |s, rng, _| mutate_subject(s, rng)));
    report("mutated cases stream = whole", "fuzz_mutated_cases", runs, outcomes);
}

#[test]
fn bench_inputs_stream_equals_whole() {
    let subjects = bench_subjects(&mut Templates::default(), &["1k", "2k"]);
    // The unmutated text and two mutations, made up front (as the texts were before).
    let (runs, outcomes) = run_subjects(&subjects, 7000, |s, rng| {
        let texts = [s.text.clone(), mutate_subject(s, rng), mutate_subject(s, rng)];
        check_texts(s, rng, 3, 3, |_, _, k| texts[k].clone())
    });
    report("bench inputs stream = whole", "fuzz_bench_inputs", runs, outcomes);
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
        // A JSON call goes out only once its arguments are whole and valid (issue #11 item 11): the
        // broken one stays in content, all of it, markers included, with a diagnostic.
        assert!(whole.message.tool_calls.is_empty(), "{family}: {:?}", whole.message);
        assert!(whole.message.content.contains("\"special_function\"") && whole.message.content.contains("1}}"), "{family}: {:?}", whole.message);
        for (i, _) in text.char_indices().skip(1) {
            let run = run_chunks((s.make)(), &[&text[..i], &text[i..]], false);
            assert_eq!(run.message, whole.message, "{family}: split at {i}");
            checked += 1;
        }
    }
    assert!(checked > 100);
}
