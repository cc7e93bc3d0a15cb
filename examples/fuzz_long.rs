//! The long fuzz run: seeded random chunkings and mutations of every cases.jsonl input, the bench
//! inputs and the tool-call fallback's outputs (templates without a tool format, with tools), for
//! every parser, until N chunked runs are done. Each text is parsed whole and in random
//! chunkings (same message, deltas and error — no divergence), must not panic, and must pass the
//! accounting check (no silently dropped text); behind the public `StreamParser`, its calls' arguments
//! are valid JSON (issue #24's exit guarantees). Same checks as tests/fuzz_stream.rs and
//! tests/accounting.rs, just many more of them. Besides, one text in four of those is followed by
//! a corpus output with a tool call (conformance cases, real outputs) with one character deleted,
//! inserted or the output cut at a random position, parsed through the public `StreamParser` whole
//! and in chunks of 1, 2, 3 and 7 characters: the exit guarantees (issue #24: every call's
//! `arguments` valid JSON, never empty; deltas rebuild the message; same message and finish reason
//! in every chunking). Its own seeded sequence, so the first checks' texts stay those of the seed:
//!
//! ```sh
//! nice cargo run --profile bench --example fuzz_long -- 1000000 [SEED]
//! ```
//!
//! Prints progress every 100k runs and a final `fuzz_long: N chunked runs, …` line. Exits non-zero
//! on a divergence or a silent loss (no known-issue exemptions); a panic aborts with the offending input.

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::mutations::{all_stream_subjects, check_raw_subject, check_text, mutate_at, MUTATIONS};
use fuzz_support::*;
use std::sync::Mutex;
use std::time::Instant;

/// The input being checked, printed by the panic hook (the bench profile aborts on panic).
static CURRENT: Mutex<String> = Mutex::new(String::new());

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(c) = CURRENT.lock() {
            eprintln!("PANIC while checking {}", *c);
        }
        default_hook(info);
    }));

    let mut templates = Templates::default();
    let mut subjects = case_subjects(&mut templates);
    subjects.extend(bench_subjects(&mut templates, &["1k", "2k"]));
    subjects.extend(fallback_subjects(&mut templates));
    subjects.extend(departures::departure_subjects(&mut templates));
    let stream_subjects = all_stream_subjects();
    let mut rng = Rng::new(seed);
    let mut mutation_rng = Rng::new(seed ^ 0x5EED_0024);
    let (mut mutated, mut mutation_runs) = (0u64, 0u64);
    let t0 = Instant::now();
    let (mut runs, mut texts, mut bytes, mut reported) = (0u64, 0u64, 0u64, 0u64);
    let mut next_report = 100_000;
    let mut failures = Vec::new();
    while runs < target {
        let s = &subjects[rng.below(subjects.len())];
        // One text in four is the original, one has marker departures (rules R9–R12), the rest mutated.
        let text = match rng.below(4) {
            0 => s.text.clone(),
            1 => respell_subject(s, &mut rng),
            _ => mutate_subject(s, &mut rng),
        };
        if let Ok(mut c) = CURRENT.lock() {
            *c = format!("{}: {text:?}", s.label);
        }
        let n = 4;
        if let Err(e) = stream_equals_whole(s, &text, &mut rng, n) {
            failures.push(e);
        }
        match account(s, &text) {
            Accounting::Complete => {}
            Accounting::Reported(_) => reported += 1,
            Accounting::Silent(lost) => failures.push(format!("{}: SILENT loss {lost:?} in {text:?}", s.label)),
        }
        if let Err(e) = check_raw_subject(s, &text) {
            failures.push(format!("exit guarantee: {e}"));
        }
        if mutation_rng.below(4) == 0 && !stream_subjects.is_empty() {
            // A mutation class (delete / insert / truncate at a random position) of a corpus output.
            let s = &stream_subjects[mutation_rng.below(stream_subjects.len())];
            let m = MUTATIONS[mutation_rng.below(MUTATIONS.len())];
            let k = mutation_rng.below(s.output.chars().count() + 1);
            let text = mutate_at(&s.output, m, k);
            if let Ok(mut c) = CURRENT.lock() {
                *c = format!("{} [{m:?} at {k}]: {text:?}", s.label);
            }
            if let Err((f, why)) = check_text(s, &text, true) {
                failures.push(format!("{f:?} [{m:?} at {k}] {why}"));
            }
            mutated += 1;
            mutation_runs += 5;
        }
        runs += n as u64;
        texts += 1;
        bytes += text.len() as u64 * (n as u64 + 2);
        if runs >= next_report {
            eprintln!("  {runs} runs, {texts} texts, {:.0?}, {} failures", t0.elapsed(), failures.len());
            next_report += 100_000;
        }
        if failures.len() >= 20 {
            break;
        }
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    println!(
        "fuzz_long: {runs} chunked runs over {texts} texts ({} MB parsed) in {:.1?}, seed {seed}: {} failures \
         (divergence, panic, silent loss or a broken exit guarantee), {reported} losses reported by a diagnostic; \
         {mutated} mutated corpus outputs ({mutation_runs} public-API parses) checked for the exit guarantees",
        bytes / 1_000_000,
        t0.elapsed(),
        failures.len()
    );
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
