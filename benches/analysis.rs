//! Analysis time per template, natively: `cargo bench --bench analysis`.
//! Reference: llama.cpp takes 1.5–62 ms per template, ≈684 ms for its 59 templates.

use chat_autoparser::analysis::analyze_template;
use chat_autoparser::{ChatTemplate, RenderOptions};
use std::time::Instant;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance/templates");
    let mut names: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(d) => d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jinja")).collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            return;
        }
    };
    names.sort();
    let runs = 5;
    let mut total = 0.0;
    for path in &names {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let Ok(t) = ChatTemplate::new(&src, RenderOptions::default()) else { continue };
        // Best of `runs`, each on a fresh template (caps are probed once per template).
        let mut best = f64::MAX;
        let mut diffs = 0;
        for _ in 0..runs {
            let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap_or_else(|_| unreachable!());
            let start = Instant::now();
            let a = analyze_template(&t);
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
            diffs = a.diffs.len();
        }
        drop(t);
        total += best;
        println!("{:>8.2} ms  {:>2} comparisons  {}", best, diffs, path.file_name().unwrap_or_default().to_string_lossy());
    }
    println!("{total:>8.2} ms  total for {} templates", names.len());
}
