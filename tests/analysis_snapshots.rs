//! Snapshot of the analysis of every reference template: `tests/snapshots/analysis/<template>.json` is
//! the pretty JSON of `ChatTemplate::analysis()` (what wasm, the CLI and `verify` use), so any change to
//! the analysis shows up as a reviewable diff. `UPDATE_EXPECTATIONS=1 cargo test --test
//! analysis_snapshots` rewrites the snapshots (and removes those of templates that are gone).

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/analysis")
}

/// The first line where `want` and `got` differ, both sides, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w.iter().zip(&g).take_while(|(a, b)| a == b).count();
    format!("line {}: snapshot {:?}, now {:?}", i + 1, w.get(i).copied().unwrap_or("<end>"), g.get(i).copied().unwrap_or("<end>"))
}

#[test]
fn analysis_matches_snapshot_per_template() {
    let update = std::env::var("UPDATE_EXPECTATIONS").is_ok_and(|v| !v.is_empty() && v != "0");
    let templates = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&templates).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let dir = snapshot_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let (mut same, mut problems) = (0, Vec::new());
    for name in &names {
        // A fixed clock: templates calling `strftime_now` put the date into the rendered probes.
        let opts = RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() };
        let t = ChatTemplate::new(&common::template_source(name), opts).expect("reference templates compile");
        let got = serde_json::to_string_pretty(t.analysis().expect("analysis")).unwrap() + "\n";
        let path = dir.join(format!("{name}.json"));
        match std::fs::read_to_string(&path) {
            Ok(want) if want == got => same += 1,
            _ if update => std::fs::write(&path, &got).unwrap(),
            Ok(want) => problems.push(format!("CHANGED {name}: {}", first_difference(&want, &got))),
            Err(_) => problems.push(format!("NEW {name}: no snapshot")),
        }
    }
    let wanted: BTreeSet<String> = names.iter().map(|n| format!("{n}.json")).collect();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let file = e.file_name().into_string().unwrap();
        if !wanted.contains(&file) {
            if update {
                std::fs::remove_file(e.path()).unwrap();
            } else {
                problems.push(format!("GONE {file}: snapshot of a template that is no longer there"));
            }
        }
    }
    println!("analysis snapshots: {same}/{} templates unchanged", names.len());
    for p in &problems {
        println!("  {p}");
    }
    assert!(
        problems.is_empty(),
        "{} analysis snapshot(s) differ (review, then UPDATE_EXPECTATIONS=1 cargo test --test analysis_snapshots):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
