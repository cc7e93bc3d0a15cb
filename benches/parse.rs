//! Parser benchmark over tests/fixtures/bench/inputs: one whole parse vs the same text streamed in 4-byte
//! chunks, at 1K/2K/4K/8K tokens. Targets: stream ≤ 1.5× whole parse; whole ≥ 100 MB/s on
//! content-heavy text. Uses llama.cpp's analysis of each template (analysis.jsonl) and its
//! fixed request (tools, generation prompt).
//!
//! `cargo bench --bench parse`

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/case_support/mod.rs"]
#[allow(dead_code)]
mod case_support;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::StreamParser;
use std::time::{Duration, Instant};

const INPUTS: [(&str, &str); 3] = [
    ("qwen3-coder", "Qwen3-Coder.jinja"),
    ("hermes-2-pro", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"),
    ("qwen3.5-4b", "Qwen3.5-4B.jinja"),
];

/// Best of `reps` runs (the least disturbed by the other processes sharing the machine).
fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let records = common::load_jsonl("analysis.jsonl");
    println!("{:<14} {:>5} {:>8} {:>11} {:>9} {:>13} {:>7}", "input", "size", "bytes", "whole (µs)", "MB/s", "stream4 (µs)", "ratio");
    for (stem, template) in INPUTS {
        let Some(record) = records.iter().find(|r| r["template"] == template) else { continue };
        let analysis = case_support::analysis_from_record(record);
        let inputs = &record["with_tools"]["inputs"];
        let options = RequestOptions {
            tools: inputs["tools"].as_array().cloned().unwrap_or_default(),
            parallel_tool_calls: true,
            ..RequestOptions::default()
        };
        let gp = record["with_tools"]["chat_params"]["generation_prompt"].as_str().unwrap_or("").to_string();
        for size in ["1k", "2k", "4k", "8k"] {
            let path = common::fixtures_dir().join(format!("bench/inputs/{stem}-{size}.txt"));
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let mut calls = 0;
            let whole = best(30, || {
                let mut p = StreamParser::new(&analysis, &gp, &options).expect("parser");
                std::hint::black_box(p.push(&text));
                std::hint::black_box(p.finish().expect("parses"));
                calls = p.message().tool_calls.len();
            });
            assert_eq!(calls, 1, "{stem}-{size}: expected one tool call");
            let chunks = chat_autoparser::testing::chunks(&text, 4);
            let stream = best(30, || {
                let mut p = StreamParser::new(&analysis, &gp, &options).expect("parser");
                for c in &chunks {
                    std::hint::black_box(p.push(c));
                }
                std::hint::black_box(p.finish().expect("parses"));
            });
            let mbs = text.len() as f64 / whole.as_secs_f64() / 1e6;
            let ratio = stream.as_secs_f64() / whole.as_secs_f64();
            println!(
                "{stem:<14} {size:>5} {:>8} {:>11.1} {mbs:>9.0} {:>13.1} {ratio:>7.2}",
                text.len(),
                whole.as_secs_f64() * 1e6,
                stream.as_secs_f64() * 1e6
            );
        }
    }
}
