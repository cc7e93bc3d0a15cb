//! Helpers for the conformance tests: where the vendored reference corpus is, and JSONL loading.
#![allow(dead_code)]

pub mod expectations;
pub mod leniency;

use std::path::PathBuf;

/// `tests/fixtures`: the pinned copy of the reference corpus (`conformance/`, `bench/`), refreshed by
/// `scripts/refresh-fixtures.sh`. Tests never read `../shared`, so a clone of the repository alone runs them.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every line of a JSONL file under `tests/fixtures/conformance/`.
pub fn load_jsonl(name: &str) -> Vec<serde_json::Value> {
    let path = fixtures_dir().join("conformance").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("valid JSONL")).collect()
}

/// A template by file name: a conformance template, else one of the zoo's, else a synthetic one
/// (`fixtures/synthetic/`, written for the tests).
pub fn template_source(name: &str) -> String {
    let path = fixtures_dir().join("conformance/templates").join(name);
    let zoo = fixtures_dir().join("zoo").join(name);
    let synthetic = fixtures_dir().join("synthetic").join(name);
    std::fs::read_to_string(&path).or_else(|_| std::fs::read_to_string(&zoo)).or_else(|_| std::fs::read_to_string(&synthetic)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// 2024-07-26 12:00:00 UTC: the time the reference renders used for `strftime_now`.
pub const REFERENCE_NOW: f64 = 1_721_995_200.0;

/// snake_case → camelCase (llama.cpp's field names → ours).
pub fn camel(key: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in key.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}
