//! The independent real-output corpus (`tests/fixtures/real-outputs/*.jsonl`, one file per source
//! project): model outputs that other projects' parsers were tested with, parsed here exactly as a
//! user would parse them (template → generation prompt from the case's options → parse), compared
//! with what the source expects, and held to a per-case expectation
//! (`tests/expectations/real_outputs.json`: `"pass"` or `{"known": "<rule> — <why>"}`).
//!
//! Comparison rules (the sources differ in what they assert, so only what they assert is compared):
//! - `content` and `reasoning_content`: compared after trimming surrounding whitespace (sources
//!   disagree on whether whitespace next to a marker belongs to the text; none asserts it in a way
//!   that survives across engines). A field missing from `expected` is not compared.
//! - `tool_calls`: same number, same order, same `name`; `arguments` compared as parsed JSON values
//!   (key order ignored, `1` = `1.0`); an expected string that is not JSON is compared as text; a call
//!   without `arguments` (the source asserts only the name) is not compared there. `id` is compared
//!   only when the expected call gives one.
//! - stream ≡ whole: the output is also pushed one character at a time, in chunks of 3 and 7 bytes
//!   and in the source's own chunks (with `"splits": "every"`, also cut in two at every character
//!   boundary, as sources that loop over every split do); any difference from the whole-text result
//!   fails the case.
//!
//! `cargo test --test real_outputs -- --nocapture` prints the rates (`REAL_OUTPUTS_SHOW=<id prefix>` also
//! prints the generation prompt and our message for those cases); `UPDATE_EXPECTATIONS=1` rewrites
//! the expectation file (known reasons already written are kept; new failures get `UNCLASSIFIED`).

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{generation_prompt, StreamParser};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A template by file name: the corpus' own, then the vendored conformance set, then the zoo.
fn template_source(name: &str) -> Result<String, String> {
    let candidates = [
        root().join("tests/fixtures/real-outputs/templates").join(name),
        root().join("tests/fixtures/conformance/templates").join(name),
        root().join("tests/fixtures/zoo").join(name),
    ];
    candidates.iter().find_map(|p| std::fs::read_to_string(p).ok()).ok_or_else(|| format!("template {name} not found"))
}

struct Case {
    source: String,
    value: Value,
}

fn load_cases() -> Vec<Case> {
    let dir = root().join("tests/fixtures/real-outputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for f in files {
        let source = f.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", f.display(), n + 1));
            cases.push(Case { source: source.clone(), value });
        }
    }
    cases
}

/// The parse of one chunking: the message, or the error `finish()` gave.
fn parse(t: &ChatTemplate, gp: &str, options: &RequestOptions, chunks: &[&str]) -> Result<Message, String> {
    let mut p = StreamParser::new(t.analysis().map_err(|e| format!("analysis: {e}"))?, gp, options).map_err(|e| format!("parser: {e}"))?;
    for c in chunks {
        p.push(c);
    }
    p.finish().map_err(|e| format!("finish error: {e}"))?;
    Ok(p.message().clone())
}

fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w))),
        _ => a == b,
    }
}

fn ws_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

/// Why `got` differs from `expected` under the rules above, if it does.
fn mismatch(got: &Message, expected: &Value) -> Option<String> {
    for (field, ours) in [("content", &got.content), ("reasoning_content", &got.reasoning_content)] {
        if let Some(want) = expected.get(field) {
            let want = want.as_str().unwrap_or("");
            if ws_trim(ours) != ws_trim(want) {
                return Some(format!("{field} {ours:?} != {want:?}"));
            }
        }
    }
    let Some(want_calls) = expected.get("tool_calls") else { return None };
    let want_calls = want_calls.as_array().cloned().unwrap_or_default();
    let names = |calls: &[chat_autoparser::api::ToolCall]| calls.iter().map(|c| c.function.name.clone()).collect::<Vec<_>>();
    if want_calls.len() != got.tool_calls.len() {
        return Some(format!("{} tool calls {:?} != {} expected", got.tool_calls.len(), names(&got.tool_calls), want_calls.len()));
    }
    for (i, (ours, want)) in got.tool_calls.iter().zip(&want_calls).enumerate() {
        let name = want["name"].as_str().unwrap_or("");
        if ours.function.name != name {
            return Some(format!("call {i} name {:?} != {name:?}", ours.function.name));
        }
        // Ids only where the source gives one (ours are generated otherwise; tests/call_ids.rs).
        if let Some(id) = want.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()) {
            if ours.id != id {
                return Some(format!("call {i} id {:?} != {id:?}", ours.id));
            }
        }
        let want_args = match want.get("arguments") {
            None => continue, // the source does not assert the arguments
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
            Some(other) => other.clone(),
        };
        let ours_args = serde_json::from_str(&ours.function.arguments).unwrap_or_else(|_| Value::String(ours.function.arguments.clone()));
        if !same_json(&ours_args, &want_args) {
            return Some(format!("call {i} arguments {} != {}", ours.function.arguments, want_args));
        }
    }
    None
}

/// The request options a user would pass (JS names; `extraContext` for template-specific switches).
fn options_of(case: &Value) -> Result<RequestOptions, String> {
    let o = case.get("options").cloned().unwrap_or(Value::Object(Map::new()));
    serde_json::from_value(o).map_err(|e| format!("options: {e}"))
}

/// The leniency rules (`rule R…`) the diagnostics of a parse of `output` name, each once.
fn rules_fired(t: &ChatTemplate, gp: &str, options: &RequestOptions, output: &str) -> Vec<String> {
    let Ok(analysis) = t.analysis() else { return Vec::new() };
    let Ok(mut p) = StreamParser::new(analysis, gp, options) else { return Vec::new() };
    p.push(output);
    let _ = p.finish();
    let mut rules: Vec<String> = Vec::new();
    for d in p.diagnostics() {
        for (at, _) in d.message.match_indices("rule R") {
            let id: String = d.message[at + 5..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            if !rules.contains(&id) {
                rules.push(id);
            }
        }
    }
    rules
}

/// The verdict of one case: `Ok` with the leniency rules its parse needed, or why it fails.
fn run_case(case: &Value, templates: &mut HashMap<String, Result<ChatTemplate, String>>) -> Result<Vec<String>, String> {
    let name = case["template"].as_str().unwrap_or("");
    let t = templates
        .entry(name.to_string())
        .or_insert_with(|| template_source(name).and_then(|s| ChatTemplate::new(&s, RenderOptions::default()).map_err(|e| format!("template: {e}"))))
        .as_ref()
        .map_err(Clone::clone)?;
    let options = options_of(case)?;
    let gp = generation_prompt(t, t.analysis().map_err(|e| format!("analysis: {e}"))?, &options).map_err(|e| format!("generation prompt: {e}"))?;
    let output = case["output"].as_str().unwrap_or("");
    let whole = parse(t, &gp, &options, &[output]);
    let mut chunkings: Vec<(String, Vec<&str>)> = vec![
        ("1 char".into(), output.char_indices().map(|(i, c)| &output[i..i + c.len_utf8()]).collect()),
        ("3 bytes".into(), chat_autoparser::testing::chunks(output, 3)),
        ("7 bytes".into(), chat_autoparser::testing::chunks(output, 7)),
    ];
    if let Some(src) = case.get("chunks").and_then(Value::as_array) {
        chunkings.push(("source chunks".into(), src.iter().filter_map(Value::as_str).collect()));
    }
    // `"splits": "every"`: the source parses the output cut in two at every offset.
    if case.get("splits").and_then(Value::as_str) == Some("every") {
        for at in (0..=output.len()).filter(|&at| output.is_char_boundary(at)) {
            chunkings.push((format!("split at byte {at}"), vec![&output[..at], &output[at..]]));
        }
    }
    for (label, chunks) in &chunkings {
        if chunks.concat() != output {
            continue; // the source's chunks are not a split of the output (never expected)
        }
        let streamed = parse(t, &gp, &options, chunks);
        if streamed != whole {
            return Err(format!("stream ≠ whole ({label})"));
        }
    }
    let got = whole?;
    if std::env::var("REAL_OUTPUTS_SHOW").is_ok_and(|p| case["id"].as_str().is_some_and(|id| id.starts_with(&p))) {
        let mut p = StreamParser::new(t.analysis().map_err(|e| e.to_string())?, &gp, &options).map_err(|e| e.to_string())?;
        p.push(output);
        let _ = p.finish();
        let diagnostics: Vec<&str> = p.diagnostics().iter().map(|d| d.message.as_str()).collect();
        println!("{}\n  generation prompt {gp:?}\n  parsed {}\n  diagnostics {diagnostics:?}", case["id"], serde_json::to_string(&got).unwrap());
    }
    mismatch(&got, &case["expected"]).map_or_else(|| Ok(rules_fired(t, &gp, &options, output)), Err)
}

fn expectations_path() -> PathBuf {
    root().join("tests/expectations/real_outputs.json")
}

fn load_expectations(path: &Path) -> Map<String, Value> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).expect("expectation file is JSON"),
        Err(_) => Map::new(),
    }
}

#[test]
fn real_outputs_meet_their_expectations() {
    let cases = load_cases();
    let mut templates = HashMap::new();
    let expectations = load_expectations(&expectations_path());
    let mut by_source: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut by_template: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut updated = Map::new();
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // Per leniency rule: the passing cases whose parse needed it (its diagnostic fired).
    let mut by_rule: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        let id = case.value["id"].as_str().unwrap_or("").to_string();
        assert!(seen.insert(id.clone()), "duplicate case id {id}");
        let verdict = run_case(&case.value, &mut templates);
        let template = case.value["template"].as_str().unwrap_or("").to_string();
        for (map, key) in [(&mut by_source, case.source.clone()), (&mut by_template, template)] {
            let e = map.entry(key).or_default();
            e.1 += 1;
            e.0 += usize::from(verdict.is_ok());
        }
        for rule in verdict.iter().flatten() {
            *by_rule.entry(rule.clone()).or_default() += 1;
        }
        let expected = expectations.get(&id);
        match (&verdict, expected) {
            (Ok(_), Some(Value::String(s))) if s == "pass" => {}
            (Ok(_), other) => problems.push(format!("{id}: passes but is expected {}", other.map_or("nothing".into(), Value::to_string))),
            (Err(why), Some(Value::Object(k))) if k.contains_key("known") => {
                println!("  known {id}: {why}");
            }
            (Err(why), _) => problems.push(format!("{id}: {why}")),
        }
        updated.insert(
            id.clone(),
            match (&verdict, expected) {
                (Ok(_), _) => Value::String("pass".into()),
                (Err(_), Some(Value::Object(k))) if k.contains_key("known") => Value::Object(k.clone()),
                (Err(why), _) => serde_json::json!({ "known": format!("UNCLASSIFIED — {why}") }),
            },
        );
    }
    for id in expectations.keys() {
        if !updated.contains_key(id) {
            problems.push(format!("{id}: in the expectation file but not in the corpus"));
        }
    }
    let (pass, total) = by_source.values().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!("real outputs: {pass} / {total} ({:.1}%)", 100.0 * pass as f64 / total.max(1) as f64);
    for (s, (p, t)) in &by_source {
        println!("real outputs {s}: {p} / {t}");
    }
    for (s, (p, t)) in &by_template {
        println!("real outputs template {s}: {p} / {t}");
    }
    let order = |r: &String| (r.chars().next(), r[1..].parse::<u32>().unwrap_or(0));
    let mut rules: Vec<(&String, &usize)> = by_rule.iter().collect();
    rules.sort_by_key(|(r, _)| order(r));
    for (rule, n) in rules {
        println!("real outputs rule {rule}: needed by {n} passing case(s)");
    }
    if std::env::var_os("UPDATE_EXPECTATIONS").is_some() {
        let path = expectations_path();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Sorted by id, so a rewrite's diff shows only the cases that changed.
        let sorted: BTreeMap<String, Value> = updated.into_iter().collect();
        let mut text = serde_json::to_string_pretty(&sorted).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        println!("rewrote {}", path.display());
        return;
    }
    for p in &problems {
        println!("  UNEXPECTED {p}");
    }
    assert!(problems.is_empty(), "{} cases differ from tests/expectations/real_outputs.json (UPDATE_EXPECTATIONS=1 rewrites it)", problems.len());
}
