//! Generation prompts computed by rendering (parse::prompt) against llama.cpp's: the 40 checks of
//! generation-prompt-cases.jsonl and every case's `prompt_side.generation_prompt`.
//!
//! `cargo test --test conformance_generation_prompt -- --nocapture` prints counts and misses.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use chat_autoparser::generation_prompt;
use chat_autoparser::{ChatTemplate, RenderOptions};
use case_support::{analyses, options_of};
use common::expectations::Expectations;
use serde_json::Value;
use std::collections::HashMap;

/// The data was made on 2026-11-22 (templates calling `strftime_now` show that date).
const DATA_DAY: f64 = 1_795_348_800.0;

fn templates() -> HashMap<String, ChatTemplate> {
    let mut out = HashMap::new();
    for r in common::load_jsonl("analysis.jsonl") {
        let name = r["template"].as_str().unwrap_or("").to_string();
        let options = RenderOptions { now: Some(DATA_DAY), ..RenderOptions::default() };
        if let Ok(t) = ChatTemplate::new(&common::template_source(&name), options) {
            out.insert(name, t);
        }
    }
    out
}

/// Checks every row against `suite`'s expectations (ids from `id_of`) and prints `label: pass/total`.
fn check(suite: &str, label: &str, rows: &[Value], id_of: impl Fn(&Value) -> String, expected_key: impl Fn(&Value) -> &Value) {
    let (analyses, templates) = (analyses(), templates());
    let mut expect = Expectations::load(suite);
    for row in rows {
        let name = row["template"].as_str().unwrap_or("");
        let (Some(a), Some(t)) = (analyses.get(name), templates.get(name)) else { continue };
        let expected = expected_key(row).as_str().unwrap_or("");
        let outcome = match generation_prompt(t, a, &options_of(row)) {
            Ok(gp) if gp == expected => Ok(()),
            Ok(gp) => Err(format!("[{}]: {gp:?} != {expected:?}", row["handler"])),
            Err(e) => Err(format!("[{}]: error {e}", row["handler"])),
        };
        expect.record(id_of(row), outcome);
    }
    let (pass, total) = expect.counts();
    println!("{label}: {pass}/{total}");
    expect.finish();
}

/// generation-prompt-cases.jsonl rows are named by template and test source line.
fn line_id(r: &Value) -> String {
    format!("{} line {}", r["template"].as_str().unwrap_or(""), r["test_source_line"])
}

#[test]
fn generation_prompt_cases() {
    let rows = common::load_jsonl("generation-prompt-cases.jsonl");
    let auto: Vec<Value> = rows.iter().filter(|r| r["handler"] == "autoparser").cloned().collect();
    let other: Vec<Value> = rows.iter().filter(|r| r["handler"] != "autoparser").cloned().collect();
    check("generation_prompt_cases_autoparser", "generation-prompt cases, autoparser", &auto, line_id, |r| &r["expected_generation_prompt"]);
    check(
        "generation_prompt_cases_dedicated",
        "generation-prompt cases, dedicated handlers (llama.cpp analysis; their prompts are handler-built)",
        &other,
        line_id,
        |r| &r["expected_generation_prompt"],
    );
}

#[test]
fn case_generation_prompts() {
    let rows = common::load_jsonl("cases.jsonl");
    let auto: Vec<Value> = rows.iter().filter(|r| r["handler"] == "autoparser").cloned().collect();
    let id = |r: &Value| format!("#{} {}", r["id"], r["template"].as_str().unwrap_or(""));
    check("case_generation_prompts", "cases' generation prompts, autoparser", &auto, id, |r| &r["prompt_side"]["generation_prompt"]);
}
