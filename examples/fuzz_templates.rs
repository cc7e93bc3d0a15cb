//! The long template fuzz run (issue #11): hostile templates from tests/fuzz_support/template_gen.rs
//! (`{% generation %}` with non-ASCII text, deep nesting, growth through `namespace`), alone or
//! spliced after a tag of a real conformance template, each compiled, rendered and analysed. Every
//! run must end in a value or a template-kind error: a panic, an unexpected kind, or a run slower
//! than 2 s is a failure; a watchdog aborts with the input if one run takes 20 s (a hang).
//!
//! ```sh
//! nice cargo run --profile bench --example fuzz_templates -- 100000 [SEED]
//! ```

#[path = "../tests/fuzz_support/template_gen.rs"]
mod template_gen;
#[path = "../tests/parse_support/mod.rs"]
#[allow(dead_code)]
mod parse_support;

use parse_support::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn slow() -> Duration {
    Duration::from_millis(std::env::var("FUZZ_SLOW_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000))
}
const HANG: Duration = Duration::from_secs(20);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance/templates");
    let mut real: Vec<String> = std::fs::read_dir(dir)
        .expect("templates")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    real.sort();

    // Watchdog: the current input and when its run started (ms since t0; 0 = idle).
    let current = Arc::new(Mutex::new(String::new()));
    let started = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    {
        let (current, started) = (current.clone(), started.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let s = started.load(Ordering::Relaxed);
            if s != 0 && t0.elapsed().as_millis() as u64 - s > HANG.as_millis() as u64 {
                eprintln!("HANG (over {HANG:?}) on {:?}", current.lock().map(|c| c.clone()).unwrap_or_default());
                std::process::exit(2);
            }
        });
    }
    std::panic::set_hook(Box::new(|_| {}));

    let mut rng = Rng::new(seed);
    let (mut runs, mut spliced, mut slowest) = (0u64, 0u64, Duration::ZERO);
    let mut failures: Vec<String> = Vec::new();
    while runs < target && failures.len() < 20 {
        let fragment = template_gen::hostile_template(&mut |n| rng.below(n));
        let source = if rng.below(4) == 0 {
            spliced += 1;
            let base = &real[rng.below(real.len())];
            let tags: Vec<usize> = base.match_indices("%}").map(|(i, _)| i + 2).collect();
            let at = if tags.is_empty() { 0 } else { tags[rng.below(tags.len())] };
            format!("{}{fragment}{}", &base[..at], &base[at..])
        } else {
            fragment
        };
        if let Ok(mut c) = current.lock() {
            c.clone_from(&source);
        }
        let run_start = Instant::now();
        started.store((t0.elapsed().as_millis() as u64).max(1), Ordering::Relaxed);
        let result = catch_unwind(AssertUnwindSafe(|| template_gen::check_template(&source)));
        started.store(0, Ordering::Relaxed);
        let took = run_start.elapsed();
        slowest = slowest.max(took);
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{e} in {source:?}")),
            Err(_) => failures.push(format!("PANIC in {source:?}")),
        }
        if took > slow() {
            failures.push(format!("SLOW ({took:?}) {source:?}"));
        }
        runs += 1;
        if runs % 10_000 == 0 {
            eprintln!("  {runs} runs, {:.0?}, {} failures", t0.elapsed(), failures.len());
        }
    }
    for f in &failures {
        let f: String = f.chars().take(600).collect();
        println!("FAIL {f}");
    }
    println!(
        "fuzz_templates: {runs} runs ({spliced} spliced into real templates) in {:.1?}, seed {seed}, slowest {slowest:.0?}: {} failures (panic, unexpected error kind, slow or hang)",
        t0.elapsed(),
        failures.len()
    );
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
