//! Cross-validation input for `scripts/response_template_crosscheck.py`, one JSON line per record,
//! over three corpora:
//! - `conformance` (`tests/fixtures/conformance`): every case of `cases.jsonl`, its prompt as the
//!   prefix;
//! - `real-outputs` (`tests/fixtures/real-outputs/*.jsonl`): every case, with the prompt its options
//!   render (or its `generationPrompt`) as the prefix;
//! - `zoo` (`tests/fixtures/zoo`, templates without outputs of their own): the assistant turns
//!   `verify_template` renders and cuts out, after the prompt the round trip parsed them with.
//!
//! Per template: the derived `response_template` and its losses (`kind: template`). Per case
//! (`kind: case`): the output, prefix and tools transformers' parser gets, our parser's message
//! (reasoning always extracted, as a response template does) and our interpreter of the spec on the
//! derived template; or `skip` with why the case cannot be compared.
//!
//! `cargo run --release --example response_template_dump [-- CORPUS…] > dump.jsonl`

#[path = "../tests/case_support/options.rs"]
mod case_options;

use case_options::case_request_options;
use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions};
use chat_autoparser::response_template::{parse_response, response_template_for, DeriveOptions};
use chat_autoparser::testing::fixture_tools;
use chat_autoparser::{generation_prompt, request_prompt, verify_template, ChatTemplate, RenderOptions, StreamParser};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The conformance cases' clock (2026-11-22), as the end-to-end tests use.
const CONFORMANCE_NOW: f64 = 1_795_305_600.0;
/// The zoo goldens' clock (2024-07-26 12:00 UTC), as tests/zoo.rs uses.
const ZOO_NOW: f64 = 1_721_995_200.0;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("JSONL")).collect()
}

fn emit(v: Value) {
    println!("{v}");
}

/// The templates of one corpus, compiled and derived once; each emitted as a `template` record.
struct Templates {
    corpus: &'static str,
    now: f64,
    compiled: BTreeMap<String, Option<(ChatTemplate, Value)>>,
}

impl Templates {
    fn new(corpus: &'static str, now: f64) -> Self {
        Templates { corpus, now, compiled: BTreeMap::new() }
    }

    /// The template and its derived response template, or `None` (the record says why).
    fn get(&mut self, name: &str, source: impl FnOnce() -> Option<String>) -> Option<&(ChatTemplate, Value)> {
        let (corpus, now) = (self.corpus, self.now);
        self.compiled
            .entry(name.to_string())
            .or_insert_with(|| {
                let fail = |error: String| {
                    emit(json!({ "kind": "template", "corpus": corpus, "name": name, "error": error }));
                    None
                };
                let Some(source) = source() else { return fail("template not found".into()) };
                let t = match ChatTemplate::new(&source, RenderOptions { now: Some(now), ..Default::default() }) {
                    Ok(t) => t,
                    Err(e) => return fail(format!("template did not compile: {e}")),
                };
                let (rt, losses) = match response_template_for(&t, &DeriveOptions::default()) {
                    Ok(d) => d,
                    Err(e) => return fail(format!("analysis failed: {e}")),
                };
                let handler = t.analysis().map(|a| a.handler).unwrap_or_default();
                emit(json!({ "kind": "template", "corpus": corpus, "name": name, "handler": handler, "responseTemplate": rt, "losses": losses }));
                Some((t, rt))
            })
            .as_ref()
    }
}

/// One comparable case: what transformers gets, our message, and our interpreter's reading.
fn emit_case(corpus: &str, id: &str, template: &str, derived: &Value, output: &str, prefix: &str, tools: &[Value], ours: Result<Message, String>, extra: Value) {
    let spec = match parse_response(output, derived, prefix, tools) {
        Ok(v) => json!({ "ok": v }),
        Err(e) => json!({ "error": e.to_string() }),
    };
    let mut rec = json!({ "kind": "case", "corpus": corpus, "id": id, "template": template, "output": output, "prefix": prefix, "tools": tools, "spec": spec });
    match ours {
        Ok(m) => rec["ours"] = serde_json::to_value(m).expect("message serializes"),
        Err(e) => rec["error"] = e.into(),
    }
    if let (Value::Object(r), Value::Object(x)) = (&mut rec, extra) {
        r.extend(x);
    }
    emit(rec);
}

fn emit_skip(corpus: &str, id: &str, template: &str, why: &str) {
    emit(json!({ "kind": "case", "corpus": corpus, "id": id, "template": template, "skip": why }));
}

/// Our parser's message for `output` after the request's generation prompt.
fn our_message(t: &ChatTemplate, options: &RequestOptions, output: &str) -> Result<Message, String> {
    let a = t.analysis().map_err(|e| e.to_string())?;
    let gp = generation_prompt(t, a, options).map_err(|e| e.to_string())?;
    let mut p = StreamParser::new(a, &gp, options).map_err(|e| e.to_string())?;
    p.push(output);
    p.finish().map_err(|e| e.to_string())?;
    Ok(p.message().clone())
}

fn conformance() {
    let dir = fixtures().join("conformance");
    let mut templates = Templates::new("conformance", CONFORMANCE_NOW);
    for case in read_jsonl(&dir.join("cases.jsonl")) {
        let name = case["template"].as_str().unwrap_or("");
        let id = case["id"].to_string();
        let Some((t, rt)) = templates.get(name, || std::fs::read_to_string(dir.join("templates").join(name)).ok()) else {
            emit_skip("conformance", &id, name, "template did not compile");
            continue;
        };
        if case.get("json_schema").is_some_and(|s| !s.is_null()) {
            emit_skip("conformance", &id, name, "response-format schema (not a response-template concept)");
            continue;
        }
        if case["is_partial"].as_bool() == Some(true) {
            emit_skip("conformance", &id, name, "partial output (transformers parses only finished regions)");
            continue;
        }
        let output = case["input"].as_str().unwrap_or("");
        let ours = case_request_options(&case).and_then(|mut opts| {
            opts.reasoning_format = ReasoningFormat::Auto;
            our_message(t, &opts, output)
        });
        let tools = case["tools"].as_array().cloned().unwrap_or_default();
        let prefix = case["prompt_side"]["prompt"].as_str().unwrap_or("");
        emit_case("conformance", &id, name, rt, output, prefix, &tools, ours, json!({}));
    }
}

fn real_outputs() {
    let dir = fixtures().join("real-outputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("real-outputs dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut templates = Templates::new("real-outputs", CONFORMANCE_NOW);
    // A template by file name: the corpus' own, then the conformance set, then the zoo (as tests/real_outputs.rs).
    let source = |name: &str| {
        [dir.join("templates").join(name), fixtures().join("conformance/templates").join(name), fixtures().join("zoo").join(name)]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
    };
    for case in files.iter().flat_map(|f| read_jsonl(f)) {
        let name = case["template"].as_str().unwrap_or("");
        let id = case["id"].as_str().unwrap_or("");
        let Some((t, rt)) = templates.get(name, || source(name)) else {
            emit_skip("real-outputs", id, name, "template did not compile");
            continue;
        };
        let options: RequestOptions = match serde_json::from_value(case.get("options").cloned().unwrap_or(json!({}))) {
            Ok(o) => o,
            Err(e) => {
                emit_skip("real-outputs", id, name, &format!("options: {e}"));
                continue;
            }
        };
        let output = case["output"].as_str().unwrap_or("");
        let prefix = t.analysis().map_err(|e| e.to_string()).and_then(|a| request_prompt(t, a, &options).map_err(|e| e.to_string()));
        let prefix = match prefix {
            Ok(p) => p,
            Err(e) => {
                emit_skip("real-outputs", id, name, &format!("prompt did not render: {e}"));
                continue;
            }
        };
        let ours = our_message(t, &options, output);
        emit_case("real-outputs", id, name, rt, output, &prefix, &options.tools, ours, json!({}));
    }
}

fn zoo() {
    let dir = fixtures().join("zoo");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("zoo dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    let mut templates = Templates::new("zoo", ZOO_NOW);
    let tools = fixture_tools();
    for name in &names {
        let Some((t, rt)) = templates.get(name, || std::fs::read_to_string(dir.join(name)).ok()) else { continue };
        for r in verify_template(t).results {
            let id = format!("{name}/{}", r.name);
            if let Some(why) = &r.skipped {
                emit_skip("zoo", &id, name, why);
            } else if r.output.is_empty() {
                emit_skip("zoo", &id, name, &format!("no round-trip output: {}", r.error.as_deref().unwrap_or("empty turn")));
            } else {
                // The round trip's own parse is ours; `roundTrip` says whether it read the rendered message back.
                // The whole prompt, as the spec wants; only the generation prompt where the derived
                // anchor is the line break of a template without an assistant marker (its documented use).
                let anchor = rt["start_anchor"].as_str().unwrap_or("");
                if anchor != "\n" && !r.prompt.contains(anchor) {
                    emit_skip("zoo", &id, name, "the round trip's prompt does not hold the derived anchor: the template renders a history reply unlike a reply to its generation prompt (a classifier's judged conversation, a prompt-only instruction)");
                    continue;
                }
                let (prefix, prefix_kind) = if anchor == "\n" { (&r.generation_prompt, "generation prompt (line-break anchor)") } else { (&r.prompt, "whole prompt") };
                let extra = json!({ "roundTrip": r.ok, "prefixKind": prefix_kind });
                emit_case("zoo", &id, name, rt, &r.output, prefix, &tools, Ok(r.actual), extra);
            }
        }
    }
}

fn main() {
    let mut corpora: Vec<String> = std::env::args().skip(1).collect();
    if corpora.is_empty() {
        corpora = vec!["conformance".into(), "real-outputs".into(), "zoo".into()];
    }
    for c in &corpora {
        match c.as_str() {
            "conformance" => conformance(),
            "real-outputs" => real_outputs(),
            "zoo" => zoo(),
            other => {
                eprintln!("unknown corpus {other:?} (conformance, real-outputs, zoo)");
                std::process::exit(2);
            }
        }
    }
}
