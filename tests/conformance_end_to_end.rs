//! The user's path end to end: template source → OUR analysis (handler detection included) → OUR
//! generation prompt → parse, for every case of cases.jsonl, compared by the harness rules.
//!
//! `cargo test --test conformance_end_to_end -- --nocapture` prints the counts and every failure.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use case_support::{harness_mismatch, options_of};
use chat_autoparser::{generation_prompt, StreamParser};
use chat_autoparser::{ChatTemplate, RenderOptions};
use std::collections::{BTreeMap, HashMap};

/// Run every case; returns per-handler (pass, total), failures, and generation-prompt agreement.
fn run_all() -> (BTreeMap<String, (usize, usize)>, Vec<String>, (usize, usize)) {
    let mut templates: HashMap<String, ChatTemplate> = HashMap::new();
    let mut by_handler: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut gp_same = (0, 0);
    for case in common::load_jsonl("cases.jsonl") {
        let name = case["template"].as_str().unwrap_or("").to_string();
        let t = templates.entry(name.clone()).or_insert_with(|| {
            // The cases were rendered on the day the data was made (2026-11-22).
            let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).expect("shared templates compile")
        });
        let handler = case["handler"].as_str().unwrap_or("").to_string();
        let entry = by_handler.entry(handler).or_default();
        entry.1 += 1;
        let options = options_of(&case);
        let analysis = t.analysis();
        let verdict = match generation_prompt(t, analysis, &options) {
            Err(e) => Err(format!("generation prompt: {e}")),
            Ok(gp) => {
                gp_same.1 += 1;
                let want = case["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
                if gp == want {
                    gp_same.0 += 1;
                } else {
                    println!("GP #{} {name}: ours {:?} llama.cpp {:?}", case["id"], gp, want);
                }
                let input = case["input"].as_str().unwrap_or("");
                let result = StreamParser::new(analysis, &gp, &options).and_then(|mut p| {
                    p.push(input);
                    p.finish()?;
                    Ok(p.message().clone())
                });
                if case["kind"] == "expect_parse_error" {
                    if result.is_err() { Ok(()) } else { Err("expected a parse error".to_string()) }
                } else {
                    match result {
                        Ok(msg) => harness_mismatch(&msg, &case["expected"]).map_or(Ok(()), Err),
                        Err(e) => Err(format!("error: {e}")),
                    }
                }
            }
        };
        match verdict {
            Ok(()) => entry.0 += 1,
            Err(why) => failures.push(format!(
                "#{} {} ({}) [llama.cpp passed={}]: {why}",
                case["id"], name, case["handler"].as_str().unwrap_or(""), case["passed"]
            )),
        }
    }
    (by_handler, failures, gp_same)
}

#[test]
fn cases_pass_with_our_own_analysis() {
    let (by_handler, failures, gp) = run_all();
    let (pass, total) = by_handler.values().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!("end-to-end cases (our analysis): {pass}/{total}");
    for (h, (p, t)) in &by_handler {
        println!("  {h}: {p}/{t}");
    }
    println!("generation prompts equal to llama.cpp's: {}/{}", gp.0, gp.1);
    for f in &failures {
        println!("  FAIL {f}");
    }
    // Floor: raise it as the analysis improves; never lower it.
    assert!(pass >= FLOOR, "end-to-end pass count {pass} fell below {FLOOR}");
}

const FLOOR: usize = 333;
