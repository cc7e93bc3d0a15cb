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
use common::expectations::Expectations;
use std::collections::{BTreeMap, HashMap};

/// Run every case, recording each (`#id TEMPLATE`) in `tests/expectations/end_to_end.jsonl` and its
/// generation prompt in `end_to_end_generation_prompts.jsonl`; prints the figures and checks both.
#[test]
fn cases_pass_with_our_own_analysis() {
    let mut templates: HashMap<String, ChatTemplate> = HashMap::new();
    let mut by_handler: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut expect = Expectations::load("end_to_end");
    let mut expect_gp = Expectations::load("end_to_end_generation_prompts");
    for case in common::load_jsonl("cases.jsonl") {
        let name = case["template"].as_str().unwrap_or("").to_string();
        let t = templates.entry(name.clone()).or_insert_with(|| {
            // The cases were rendered on the day the data was made (2026-11-22).
            let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).expect("reference templates compile")
        });
        let handler = case["handler"].as_str().unwrap_or("").to_string();
        let entry = by_handler.entry(handler).or_default();
        entry.1 += 1;
        let options = options_of(&case);
        let analysis = t.analysis().expect("analysis");
        let id = format!("#{} {name}", case["id"]);
        let verdict = match generation_prompt(t, analysis, &options) {
            Err(e) => Err(format!("generation prompt: {e}")),
            Ok(gp) => {
                let want = case["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
                expect_gp.check(id.clone(), gp == want, || format!("ours {gp:?} llama.cpp {want:?}"));
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
        if verdict.is_ok() {
            entry.0 += 1;
        }
        let handler = case["handler"].as_str().unwrap_or("");
        expect.record(id, verdict.map_err(|why| format!("({handler}) [llama.cpp passed={}]: {why}", case["passed"])));
    }
    let (pass, total) = expect.counts();
    println!("end-to-end cases (our analysis): {pass}/{total}");
    for (h, (p, t)) in &by_handler {
        println!("  {h}: {p}/{t}");
    }
    let gp = expect_gp.counts();
    println!("generation prompts equal to llama.cpp's: {}/{}", gp.0, gp.1);
    expect_gp.finish();
    expect.finish();
}
