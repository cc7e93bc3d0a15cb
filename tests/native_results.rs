//! Writes what the native build computes for the whole conformance corpus (every template's analysis,
//! every case's generation prompt and parsed message) to `target/tmp/native-results.json`, and
//! `pkg-tests/native-parity.test.mjs` requires the built wasm package to compute exactly the same.
//! The two builds once disagreed (minijinja's debug mode follows the build profile) on one template only.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use case_support::options_of;
use chat_autoparser::{generation_prompt, parse_output};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The day the cases were rendered (2026-11-22); the Node side passes the same `now`.
const NOW: f64 = 1_795_305_600.0;

fn compile(name: &str) -> ChatTemplate {
    let opts = RenderOptions { now: Some(NOW), ..Default::default() };
    ChatTemplate::new(&common::template_source(name), opts).expect("shared templates compile")
}

#[test]
fn write_native_results_for_the_wasm_parity_test() {
    let dir = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    let templates: BTreeMap<String, ChatTemplate> = names.iter().map(|n| (n.clone(), compile(n))).collect();
    let analyses: Map<String, Value> =
        templates.iter().map(|(n, t)| (n.clone(), serde_json::to_value(t.analysis().expect("analysis")).expect("analysis serializes"))).collect();

    let mut cases = Vec::new();
    for case in common::load_jsonl("cases.jsonl") {
        let t = &templates[case["template"].as_str().expect("case names its template")];
        let options = options_of(&case);
        let result = t.analysis().and_then(|a| generation_prompt(t, a, &options).map(|gp| (a, gp))).map(|(a, gp)| {
            let parsed = parse_output(a, &gp, case["input"].as_str().unwrap_or(""), &options);
            (gp, parsed)
        });
        cases.push(match result {
            Ok((gp, Ok(msg))) => json!({ "id": case["id"], "generationPrompt": gp, "message": msg }),
            Ok((gp, Err(e))) => json!({ "id": case["id"], "generationPrompt": gp, "error": e.kind().name() }),
            Err(e) => json!({ "id": case["id"], "error": e.kind().name() }),
        });
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("native-results.json");
    let out = json!({ "now": NOW, "analyses": analyses, "cases": cases });
    std::fs::write(&path, serde_json::to_string(&out).expect("serializes")).expect("writes native results");
    println!("native results for the wasm parity test: {} analyses, {} cases → {}", names.len(), cases.len(), path.display());
    assert_eq!(cases.len(), 333);
}
