//! Native figures for BENCHMARKS.md (run by scripts/bench.sh, which then runs pkg-tests/bench.mjs
//! through the wasm build and writes the report): analysis per template, whole-text parse
//! throughput, 4-byte-chunk streaming vs one whole parse at 1K–8K for the four bench inputs, and the
//! heap a stream parser holds (its message included: it returns the whole message at the end). Writes target/bench-native.json and prints a summary.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{generation_prompt, StreamParser};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes, to measure what a stream parser holds.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The vendored reference corpus (see scripts/refresh-fixtures.sh).
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Median time of `f` over enough repetitions to fill ~`budget`.
fn time<F: FnMut()>(budget: Duration, mut f: F) -> f64 {
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().max(Duration::from_micros(1));
    let reps = (budget.as_secs_f64() / once.as_secs_f64()).clamp(3.0, 2000.0) as usize;
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

const FAMILIES: [(&str, &str); 4] = [
    ("qwen3-coder", "Qwen3-Coder.jinja"),
    ("hermes-2-pro", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"),
    ("gpt-oss", "openai-gpt-oss-120b.jinja"),
    ("qwen3.5-4b", "Qwen3.5-4B.jinja"),
];
const SIZES: [&str; 4] = ["1k", "2k", "4k", "8k"];

fn main() {
    let dir = fixtures().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("templates")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();

    // Analysis of every template, from source (compile + caps probe + analysis).
    let mut analysis = Vec::new();
    for name in &names {
        let src = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let ms = time(Duration::from_millis(150), || {
            if let Ok(t) = ChatTemplate::new(&src, RenderOptions::default()) {
                std::hint::black_box(t.analysis().expect("analysis"));
            }
        });
        analysis.push(json!({"template": name, "ms": ms}));
    }
    let mut ms: Vec<f64> = analysis.iter().map(|a| a["ms"].as_f64().unwrap_or(0.0)).collect();
    ms.sort_by(|a, b| a.total_cmp(b));
    let total: f64 = ms.iter().sum();
    println!(
        "analysis: {} templates, total {total:.1} ms, median {:.2} ms, min {:.2}, max {:.2}",
        ms.len(),
        ms[ms.len() / 2],
        ms[0],
        ms[ms.len() - 1]
    );

    // Parsing: whole text vs 4-byte chunks, and the heap held after the whole 8K stream.
    let mut parsing = Vec::new();
    // The request the bench outputs answer: one get_weather tool (tests/fixtures/bench/README.md).
    let tool = json!({"type": "function", "function": {"name": "get_weather", "description": "Current weather",
        "parameters": {"type": "object", "properties": {"location": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}});
    let options = RequestOptions { tools: vec![tool], ..RequestOptions::default() };
    for (family, template) in FAMILIES {
        let src = std::fs::read_to_string(dir.join(template)).unwrap_or_default();
        let Ok(t) = ChatTemplate::new(&src, RenderOptions::default()) else { continue };
        let a = t.analysis().expect("analysis").clone();
        for size in SIZES {
            let text = std::fs::read_to_string(fixtures().join(format!("bench/inputs/{family}-{size}.txt"))).unwrap_or_default();
            let chunks: Vec<&str> = {
                let mut v = Vec::new();
                let mut start = 0;
                for (i, _) in text.char_indices() {
                    if i - start >= 4 {
                        v.push(&text[start..i]);
                        start = i;
                    }
                }
                v.push(&text[start..]);
                v
            };
            // A parser as users get one: `ChatTemplate::stream_parser`, built once per template and options
            // (the request layer's parser cache, as the wasm binding and the CLI use it) and copied per parse.
            // Building one from the analysis with the low-level `StreamParser::new` (configurations, marker
            // respellings, per-tool readers) is timed on its own: `build_ms`.
            let gp = generation_prompt(&t, &a, &options).unwrap_or_default();
            let make = || t.stream_parser(&options).expect("parser");
            let build = time(Duration::from_millis(100), || {
                std::hint::black_box(StreamParser::new(&a, &gp, &options).expect("parser"));
            });
            let whole = time(Duration::from_millis(200), || {
                let mut p = make();
                std::hint::black_box(p.push(&text));
                std::hint::black_box(p.finish().ok());
            });
            let stream = time(Duration::from_millis(200), || {
                let mut p = make();
                for c in &chunks {
                    std::hint::black_box(p.push(c));
                }
                std::hint::black_box(p.finish().ok());
            });
            let before = LIVE.load(Ordering::Relaxed);
            let mut p = make();
            for c in &chunks {
                drop(p.push(c));
            }
            let held = LIVE.load(Ordering::Relaxed) - before;
            let msg = p.message().clone();
            drop(p);
            let ok = !msg.tool_calls.is_empty();
            let mbps = text.len() as f64 / 1e6 / (whole / 1e3);
            println!(
                "{family}-{size}: {} B, whole {whole:.3} ms ({mbps:.0} MB/s), stream/4B {stream:.3} ms (x{:.2}), parser holds {held} B{}",
                text.len(),
                stream / whole,
                if ok { "" } else { " (no tool call found!)" }
            );
            parsing.push(json!({"input": format!("{family}-{size}"), "bytes": text.len(), "whole_ms": whole,
                "stream4_ms": stream, "build_ms": build, "whole_mb_s": mbps, "held_bytes": held, "tool_call_found": ok}));
        }
    }
    let out: Value = json!({"analysis": analysis, "parsing": parsing});
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-native.json");
    let _ = std::fs::create_dir_all(path.parent().unwrap_or(&path));
    std::fs::write(&path, serde_json::to_string_pretty(&out).unwrap_or_default()).expect("write bench-native.json");
    println!("wrote {}", path.display());
}
