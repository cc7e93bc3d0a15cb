//! The template zoo (tests/fixtures/zoo): 300+ real chat templates never used to build the analysis.
//!
//! Every golden render of scripts/zoo_goldens.py (Python Jinja2 set up as transformers does) must come out
//! byte for byte, or fail where Python raised; `verify_template` must round-trip every template. Each case
//! is held to tests/expectations/zoo.json: "pass", or {"known": reason}. A case that changes either way
//! fails the test; `UPDATE_EXPECTATIONS=1 cargo test --test zoo` rewrites the file (review the diff).
//! `cargo test --test zoo -- --ignored` regenerates docs/zoo.md.

use chat_autoparser::analysis::Analysis;
use chat_autoparser::{verify_template, ChatTemplate, RenderOptions};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 2024-07-26 12:00:00 UTC: the time the goldens used for `strftime_now`.
const REFERENCE_NOW: f64 = 1_721_995_200.0;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn zoo_dir() -> PathBuf {
    root().join("tests/fixtures/zoo")
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("valid JSONL")).collect()
}

/// Outcome of one case: `Ok(())` or why it differs from Python.
type Outcome = Result<(), String>;

struct TemplateRun {
    name: String,
    provenance: Value,
    renders: Vec<(String, Outcome)>,
    verify: Outcome,
    verify_ok: usize,
    verify_total: usize,
    /// The template renders an assistant turn at all (some result was not skipped).
    renders_assistant: bool,
    summary: String,
}

fn mode<T: std::fmt::Debug>(m: &T) -> String {
    format!("{m:?}")
}

/// The analysis in one line: handler, reasoning, content and tool-call layout.
fn summarize(a: &Analysis) -> String {
    let mut s = format!("{} reasoning={}", mode(&a.handler), mode(&a.reasoning.mode));
    if !a.reasoning.start.is_empty() || !a.reasoning.end.is_empty() {
        s += &format!(" {:?}…{:?}", a.reasoning.start, a.reasoning.end);
    }
    s += &format!(" content={}", mode(&a.content.mode));
    if !a.content.start.is_empty() {
        s += &format!(" {:?}…{:?}", a.content.start, a.content.end);
    }
    let f = &a.tools.format;
    s += &format!(" tools={}", mode(&f.mode));
    let markers: Vec<String> =
        [&f.section_start, &f.per_call_start, &a.tools.function.name_prefix].iter().filter(|m| !m.is_empty()).map(|m| format!("{m:?}")).collect();
    if !markers.is_empty() {
        s += &format!(" {}", markers.join(" "));
    }
    if !a.analysis_complete {
        s += " (incomplete)";
    }
    if !a.workarounds.is_empty() {
        s += &format!(" workarounds={:?}", a.workarounds);
    }
    s
}

fn diff_reason(exp: &str, got: &str) -> String {
    let at = exp.bytes().zip(got.bytes()).take_while(|(a, b)| a == b).count();
    let window = |s: &str| {
        let lo = (at.saturating_sub(20)..=at).find(|&i| s.is_char_boundary(i)).unwrap_or(at);
        let hi = (at + 40..s.len().max(at + 40) + 4).find(|&i| i >= s.len() || s.is_char_boundary(i)).unwrap_or(s.len()).min(s.len());
        s.get(lo..hi).unwrap_or("").to_string()
    };
    format!("differs at byte {at}: Python …{:?}, ours …{:?}", window(exp), window(got))
}

fn run_zoo() -> Vec<TemplateRun> {
    let dir = zoo_dir();
    let contexts: Map<String, Value> = serde_json::from_str(&std::fs::read_to_string(dir.join("contexts.json")).unwrap()).unwrap();
    let provenance: BTreeMap<String, Value> =
        read_jsonl(&dir.join("PROVENANCE.jsonl")).into_iter().map(|p| (p["file"].as_str().unwrap().to_string(), p)).collect();
    let mut by_template: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in read_jsonl(&dir.join("renders.jsonl")) {
        by_template.entry(r["template"].as_str().unwrap().to_string()).or_default().push(r);
    }
    let mut runs = Vec::new();
    for (file, prov) in &provenance {
        let source = std::fs::read_to_string(dir.join(file)).unwrap();
        let template = ChatTemplate::new(&source, RenderOptions { now: Some(REFERENCE_NOW), ..Default::default() });
        let mut renders = Vec::new();
        for r in by_template.get(file).map(Vec::as_slice).unwrap_or(&[]) {
            let context = r["context"].as_str().unwrap();
            let mut kwargs = contexts[context].clone();
            let mut key = format!("{}|{context}", file.trim_end_matches(".jinja"));
            if let Some(et) = r.get("enable_thinking") {
                kwargs["enable_thinking"] = et.clone();
                key += &format!("|enable_thinking={et}");
            }
            let got = match &template {
                Ok(t) => t.render(&kwargs).map_err(|e| e.to_string()),
                Err(e) => Err(format!("compile: {e}")),
            };
            let outcome = match (r.get("expected").and_then(Value::as_str), got) {
                (Some(exp), Ok(got)) if got == exp => Ok(()),
                (Some(exp), Ok(got)) => Err(diff_reason(exp, &got)),
                (Some(_), Err(e)) => Err(format!("we raise ({e}); Python renders")),
                (None, Err(_)) => Ok(()),
                (None, Ok(_)) => Err(format!("we render; Python raises {}", r["error"].as_str().unwrap_or(""))),
            };
            renders.push((key, outcome));
        }
        let name = file.trim_end_matches(".jinja").to_string();
        let (verify, verify_ok, verify_total, renders_assistant, summary) = match &template {
            Ok(t) => {
                let report = verify_template(t);
                let ok = report.results.iter().filter(|r| r.ok).count();
                let failed: Vec<String> =
                    report.results.iter().filter(|r| !r.ok).map(|r| format!("{}: {}", r.name, r.error.clone().unwrap_or_default())).collect();
                let outcome = if report.ok { Ok(()) } else { Err(failed.join("; ")) };
                let assistant = report.results.iter().any(|r| r.skipped.is_none());
                (outcome, ok, report.results.len(), assistant, t.analysis().map(summarize).unwrap_or_else(|e| format!("analysis failed: {e}")))
            }
            Err(e) => (Err(format!("compile: {e}")), 0, 0, false, format!("does not compile: {e}")),
        };
        runs.push(TemplateRun { name, provenance: prov.clone(), renders, verify, verify_ok, verify_total, renders_assistant, summary });
    }
    runs
}

fn expectation(outcome: &Outcome) -> Value {
    match outcome {
        Ok(()) => json!("pass"),
        Err(why) => json!({ "known": why }),
    }
}

/// The expectation to write: a case that still fails keeps its recorded (possibly hand-written) reason.
fn keep_reason(old: Option<&Value>, outcome: &Outcome) -> Value {
    match (old, outcome) {
        (Some(v @ Value::Object(o)), Err(_)) if o.contains_key("known") => v.clone(),
        _ => expectation(outcome),
    }
}

/// A case agrees with its expectation: both pass, or both fail (the recorded reason is documentation).
fn agrees(expected: Option<&Value>, outcome: &Outcome) -> bool {
    match (expected, outcome) {
        (Some(Value::String(s)), Ok(())) => s == "pass",
        (Some(Value::Object(o)), Err(_)) => o.contains_key("known"),
        _ => false,
    }
}

#[test]
fn zoo_renders_and_round_trips() {
    let runs = run_zoo();
    let path = root().join("tests/expectations/zoo.json");
    let old: Value = std::fs::read_to_string(&path).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(json!({}));
    let (mut exact, mut total, mut verified, mut verifiable) = (0, 0, 0, 0);
    let mut new_renders = Map::new();
    let mut new_verify = Map::new();
    let mut mismatches = Vec::new();
    for run in &runs {
        let ok = run.renders.iter().filter(|(_, o)| o.is_ok()).count();
        exact += ok;
        total += run.renders.len();
        if run.renders_assistant {
            verifiable += 1;
            verified += run.verify.is_ok() as usize;
        }
        println!(
            "zoo {}: renders {ok}/{}, verify {}/{}, {}",
            run.name,
            run.renders.len(),
            run.verify_ok,
            run.verify_total,
            run.summary
        );
        for (key, outcome) in &run.renders {
            let want = old.get("renders").and_then(|r| r.get(key));
            if !agrees(want, outcome) {
                mismatches.push(format!("render {key}: expected {}, got {}", want.unwrap_or(&json!("nothing")), expectation(outcome)));
            }
            new_renders.insert(key.clone(), keep_reason(want, outcome));
        }
        let want = old.get("verify").and_then(|r| r.get(&run.name));
        if !agrees(want, &run.verify) {
            mismatches.push(format!("verify {}: expected {}, got {}", run.name, want.unwrap_or(&json!("nothing")), expectation(&run.verify)));
        }
        new_verify.insert(run.name.clone(), keep_reason(want, &run.verify));
    }
    println!("zoo renders: {exact} / {total}");
    println!("zoo verify templates: {verified} / {verifiable} (templates that render an assistant turn; {} in the zoo)", runs.len());
    if std::env::var_os("UPDATE_EXPECTATIONS").is_some() {
        let doc = json!({
            "about": "Per-case expectations of tests/zoo.rs: \"pass\", or {\"known\": why it differs}. Regenerate with UPDATE_EXPECTATIONS=1.",
            "renders": new_renders,
            "verify": new_verify,
        });
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
        println!("wrote {}", path.display());
        return;
    }
    for m in &mismatches {
        println!("MISMATCH {m}");
    }
    assert!(mismatches.is_empty(), "{} zoo cases differ from tests/expectations/zoo.json (UPDATE_EXPECTATIONS=1 to accept)", mismatches.len());
}

/// Regenerates docs/zoo.md: every zoo template with its provenance, analysis summary and status.
#[test]
#[ignore]
fn write_zoo_docs() {
    let runs = run_zoo();
    let exact: usize = runs.iter().map(|r| r.renders.iter().filter(|(_, o)| o.is_ok()).count()).sum();
    let total: usize = runs.iter().map(|r| r.renders.len()).sum();
    let verifiable: Vec<&TemplateRun> = runs.iter().filter(|r| r.renders_assistant).collect();
    let verified = verifiable.iter().filter(|r| r.verify.is_ok()).count();
    let mut sources: BTreeMap<String, usize> = BTreeMap::new();
    let mut families: BTreeMap<String, usize> = BTreeMap::new();
    for r in &runs {
        *sources.entry(r.provenance["repo"].as_str().unwrap_or("").to_string()).or_default() += 1;
        *families.entry(r.provenance["family"].as_str().unwrap_or("").to_string()).or_default() += 1;
    }
    let mut md = String::from("# Template zoo\n\nGenerated by `cargo test --test zoo -- --ignored` (tests/zoo.rs); do not edit by hand.\n\n");
    md += &format!(
        "{} real chat templates (tests/fixtures/zoo, provenance in PROVENANCE.jsonl), none of them among the conformance templates.\n\n",
        runs.len()
    );
    md += &format!("* renders byte-identical to Python Jinja2 (or raising where it raises): **{exact} / {total}**\n");
    md += &format!(
        "* `verifyTemplate` round-trips fully: **{verified} / {}** templates that render an assistant turn\n\n",
        verifiable.len()
    );
    md += "Sources: ";
    md += &sources.iter().map(|(k, v)| format!("{k} ({v})")).collect::<Vec<_>>().join(", ");
    md += "\n\nFamilies: ";
    md += &families.iter().map(|(k, v)| format!("{k} ({v})")).collect::<Vec<_>>().join(", ");
    md += "\n\n| template | family | source | renders | verify | analysis | status |\n|---|---|---|---|---|---|---|\n";
    for r in &runs {
        let p = &r.provenance;
        let commit = p["commit"].as_str().unwrap_or("");
        let source = format!("{} `{}` @{}", p["repo"].as_str().unwrap_or(""), p["path"].as_str().unwrap_or(""), commit.get(..10).unwrap_or(commit));
        let ok = r.renders.iter().filter(|(_, o)| o.is_ok()).count();
        let mut status = Vec::new();
        if ok < r.renders.len() {
            let first = r.renders.iter().find_map(|(k, o)| o.as_ref().err().map(|e| format!("{k}: {e}"))).unwrap_or_default();
            status.push(format!("render differs ({first})"));
        }
        match (&r.verify, r.renders_assistant) {
            (Err(e), _) => status.push(format!("round trip fails ({e})")),
            (Ok(()), false) => status.push("renders no assistant turn".into()),
            _ => {}
        }
        let status = if status.is_empty() { "ok".to_string() } else { status.join("; ") };
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', "\\n");
        md += &format!(
            "| {} | {} | {} | {ok}/{} | {}/{} | {} | {} |\n",
            cell(&r.name),
            cell(p["family"].as_str().unwrap_or("")),
            cell(&source),
            r.renders.len(),
            r.verify_ok,
            r.verify_total,
            cell(&r.summary),
            cell(&status)
        );
    }
    let path = root().join("docs/zoo.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, md).unwrap();
    println!("wrote {}", path.display());
}

/// `verified` reports per part: a zoo template whose analysis is complete but whose second parallel call
/// lacks its opening tag fails on tool calls only.
#[test]
fn verified_names_the_part_that_fails() {
    use chat_autoparser::PartStatus;
    let source = std::fs::read_to_string(zoo_dir().join("hfjs-NousResearch-Hermes-2-Pro-Llama-3-8B.jinja")).unwrap();
    let t = ChatTemplate::new(&source, RenderOptions::default()).unwrap();
    assert!(t.analysis().unwrap().analysis_complete);
    let v = verify_template(&t).verified;
    assert!(!v.ok);
    assert_eq!((v.content, v.reasoning, v.tool_calls), (PartStatus::Ok, PartStatus::Untested, PartStatus::Failed));
}

/// Parallel JSON calls written back to back without a closing marker (Llama 4's layout) are two calls,
/// whole or streamed one character at a time.
#[test]
fn back_to_back_json_calls_are_parallel_calls() {
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::{generation_prompt, parse_output, StreamParser};
    let source = std::fs::read_to_string(zoo_dir().join("ollama-lib-llama4-latest.jinja")).unwrap();
    let t = ChatTemplate::new(&source, RenderOptions::default()).unwrap();
    let options = RequestOptions {
        tools: chat_autoparser::testing::fixture_tools(),
        messages: vec![json!({ "role": "user", "content": "hi" })],
        parallel_tool_calls: true,
        ..Default::default()
    };
    let a = t.analysis().unwrap();
    let gp = generation_prompt(&t, a, &options).unwrap();
    let text = r#"<|python_start|><|python_end|>{"name": "get_weather", "parameters": {"location": "Paris"}}{"name": "get_weather", "parameters": {"location": "Tokyo"}}"#;
    let whole = parse_output(a, &gp, text, &options).unwrap();
    assert_eq!(whole.tool_calls.len(), 2, "{whole:?}");
    assert_eq!(whole.tool_calls[1].function.arguments.replace(' ', ""), r#"{"location":"Tokyo"}"#);
    assert!(whole.content.is_empty());
    let mut p = StreamParser::new(a, &gp, &options).unwrap();
    for c in text.chars() {
        p.push(&c.to_string());
    }
    p.finish().unwrap();
    assert_eq!(p.message(), &whole);
}
