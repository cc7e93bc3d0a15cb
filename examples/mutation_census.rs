//! Every corpus output with a tool call (conformance cases, real outputs), with one character
//! deleted, one inserted and the output cut, at every position (or every `STEP`th): how many parses
//! give a call whose `arguments` is not valid JSON (or `""`), a stream/whole divergence, or deltas
//! that do not rebuild the message (tests/fuzz_support/mutations.rs holds the checks). `--stream`
//! also parses each text in chunks of 1, 2, 3 and 7 characters; `--stream-arguments` sets
//! `streamArguments: true` on every request.
//!
//! ```sh
//! nice cargo run --profile bench --example mutation_census -- [STEP] [--stream] [--stream-arguments] [--show N]
//! ```

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::mutations::*;
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let step: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let stream = args.iter().any(|a| a == "--stream");
    let show: usize = args.iter().position(|a| a == "--show").and_then(|i| args.get(i + 1)).and_then(|a| a.parse().ok()).unwrap_or(10);
    let t0 = Instant::now();
    let mut subjects = all_stream_subjects();
    if args.iter().any(|a| a == "--stream-arguments") {
        subjects.iter_mut().for_each(|s| s.options.stream_arguments = true);
    }
    let (mut texts, mut failures) = (0u64, BTreeMap::<(Failure, &str), u64>::new());
    let mut shown = 0;
    for s in &subjects {
        let n = s.output.chars().count();
        for m in MUTATIONS {
            for k in (0..=n).step_by(step) {
                let text = mutate_at(&s.output, m, k);
                texts += 1;
                if let Err((f, why)) = check_text(s, &text, stream) {
                    *failures.entry((f, mutation_name(m))).or_default() += 1;
                    if shown < show {
                        shown += 1;
                        println!("{f:?} [{m:?} at {k}] {why}");
                    }
                }
            }
        }
    }
    for ((f, m), n) in &failures {
        println!("  {f:?} after {m}: {n}");
    }
    let total: u64 = failures.values().sum();
    println!(
        "mutation_census: {} outputs, {texts} mutated texts (step {step}{}), {total} failures in {:.1?}",
        subjects.len(),
        if stream { ", chunkings 1/2/3/7" } else { ", whole only" },
        t0.elapsed()
    );
}

fn mutation_name(m: Mutation) -> &'static str {
    match m {
        Mutation::Delete => "delete",
        Mutation::Insert => "insert",
        Mutation::Truncate => "truncate",
    }
}
