//! Whole-text parse time per byte on adversarial repeated markers (issue #11 item 8).
//!
//! For every template in a directory (default `tests/fixtures/conformance/templates`), for each of its
//! markers (the analysis' preserved tokens, plus all of them in a row), parse 1 KB … 1 MB of that
//! marker repeated as one whole text and print the time per byte. The figure to watch is the ratio of
//! time per byte at 1 MB to that at 1 KB: flat (≈ 1) means linear; quadratic parsing shows as ≈ 1000.
//! A benchmark, not a test: `cargo run --profile bench --example parse_adversarial [DIR]`.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{generation_prompt, parse_output};
use chat_autoparser::{ChatTemplate, RenderOptions};
use std::time::Instant;

const SIZES: [usize; 4] = [1 << 10, 1 << 14, 1 << 17, 1 << 20];

/// Nanoseconds per byte of a whole-text parse of `unit` repeated to `size` bytes: best of 5 rounds,
/// each parsing about 1 MB in all (a small text many times), so that every size is timed alike.
///
/// Timing one parse per round misled on a loaded machine: a 1 KB parse fits in one scheduler time
/// slice and its best run is never preempted, while a 1 MB parse (≈ 0.1 s) always is, so wall-clock
/// time per byte rose 10–20× with size although CPU time per byte stayed flat (`perf stat`: 48 ns/B
/// at 16 KB, 40 ns/B at 1 MB, with 0.16–0.26 CPUs utilized).
fn ns_per_byte(a: &chat_autoparser::analysis::Analysis, gp: &str, options: &RequestOptions, unit: &str, size: usize) -> f64 {
    let text = unit.repeat(size.div_ceil(unit.len()));
    let reps = ((1usize << 20) / text.len()).max(1);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        for _ in 0..reps {
            let _ = std::hint::black_box(parse_output(a, gp, &text, options));
        }
        best = best.min(t0.elapsed().as_nanos() as f64 / (text.len() * reps) as f64);
    }
    best
}

const TOOL: &str = "get_weather";

/// Call openings that stop before the call is whole: up to the id (an id marker never closed), and up to
/// the first argument's name (a name never closed), in the analysed layout.
fn call_headers(a: &chat_autoparser::analysis::Analysis) -> Vec<String> {
    let (f, func, args, id) = (&a.tools.format, &a.tools.function, &a.tools.arguments, &a.tools.call_id);
    if f.section_start.is_empty() && f.per_call_start.is_empty() && func.name_prefix.is_empty() {
        return Vec::new();
    }
    let head = format!("{}{}{}{TOOL}{}", f.section_start, f.per_call_start, func.name_prefix, func.name_suffix);
    vec![format!("{head}{}", id.prefix), format!("{head}{}{}", args.start, args.name_prefix)]
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "tests/fixtures/conformance/templates".into());
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("template directory").flatten().map(|e| e.path()).collect();
    paths.sort();
    let (mut worst, mut worst_case) = (0f64, String::new());
    let mut stopped: Vec<String> = Vec::new();
    println!("{:<48} {:>7} {:>10} {:>10} {:>7}  marker", "template", "markers", "ns/B 1KB", "ns/B 1MB", "ratio");
    for path in paths {
        let name = path.file_name().unwrap_or_default().to_string_lossy().to_string();
        let Ok(source) = std::fs::read_to_string(&path) else { continue };
        let Ok(t) = ChatTemplate::new(&source, RenderOptions::default()) else { continue };
        let Ok(a) = t.analysis() else {
            println!("{name:<48} analysis failed");
            continue;
        };
        // One declared tool, so that the tool-call states run too (calls broken in their header, id or
        // first argument name are rolled back into content and must not be searched for again to the end).
        let options = RequestOptions { tools: vec![serde_json::json!({ "type": "function", "function": { "name": TOOL, "parameters": { "type": "object", "properties": { "city": { "type": "string" } } } } })], ..Default::default() };
        let gp = generation_prompt(&t, a, &options).unwrap_or_default();
        let mut units: Vec<String> = a.preserved_tokens.iter().filter(|m| !m.is_empty()).cloned().collect();
        units.push(units.concat());
        units.extend(call_headers(a));
        units.retain(|u| !u.is_empty());
        units.dedup();
        let (mut t_worst, mut t_case, mut small_big) = (0f64, String::new(), (0.0, 0.0));
        for unit in &units {
            // A size whose time per byte is already 50× the 1 KB one stops the series (a quadratic parse of
            // 1 MB would take minutes); the ratio reported is then the one reached so far, marked `stopped`.
            let mut per: Vec<f64> = Vec::new();
            for &s in &SIZES {
                per.push(ns_per_byte(a, &gp, &options, unit, s));
                if per[per.len() - 1] > 50.0 * per[0].max(1.0) {
                    stopped.push(format!("{name} {:?} at {s} bytes", unit.chars().take(40).collect::<String>()));
                    break;
                }
            }
            let ratio = per[per.len() - 1] / per[0].max(1e-3);
            if ratio > t_worst {
                (t_worst, t_case, small_big) = (ratio, unit.clone(), (per[0], per[per.len() - 1]));
            }
        }
        let shown: String = t_case.chars().take(40).collect();
        println!("{name:<48} {:>7} {:>10.1} {:>10.1} {:>7.2}  {shown:?}", units.len(), small_big.0, small_big.1, t_worst);
        if t_worst > worst {
            (worst, worst_case) = (t_worst, format!("{name} {shown:?}"));
        }
    }
    println!("worst 1MB/1KB time-per-byte ratio: {worst:.2} ({worst_case})");
    for s in &stopped {
        println!("stopped (superlinear): {s}");
    }
}
