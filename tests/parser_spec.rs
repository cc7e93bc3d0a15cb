//! Issue #28: a compiled parser spec (`ChatTemplate::compile_parser`, read back from its JSON text by
//! `CompiledParser`) parses exactly as the template does — the same generation prompt, message, deltas,
//! diagnostics, finish reason and errors, whole and chunked — over every corpus: the conformance cases,
//! the real outputs, and the zoo's round trips (`verify_template`'s outputs). The cases are also written
//! to `target/tmp/parser-identity-cases.json`, which `pkg-tests/parser.test.mjs` replays through the two
//! wasm modules. And a spec of another format version is refused, naming both versions.

mod case_support;
mod common;

use chat_autoparser::api::{Delta, RequestOptions};
use chat_autoparser::{ChatTemplate, CompiledParser, ErrorKind, RenderOptions, StreamParser};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One parse to compare: a template, the request's options (JS names) and the model output.
struct Case {
    corpus: &'static str,
    template: String,
    options: Value,
    output: String,
}

/// Everything a parse gives, as JSON text: byte-identical means equal text.
fn run(p: Result<StreamParser, chat_autoparser::Error>, chunks: &[&str]) -> String {
    let mut p = match p {
        Ok(p) => p,
        Err(e) => return json!({ "buildError": e.kind().name() }).to_string(),
    };
    let mut deltas: Vec<Vec<Delta>> = chunks.iter().map(|c| p.push(c)).collect();
    let finish = p.finish();
    let error = finish.as_ref().err().map(|e| e.to_string());
    deltas.push(finish.unwrap_or_else(|_| p.take_failed_deltas()));
    let deltas = serde_json::to_value(&deltas).expect("deltas serialize");
    json!({ "deltas": deltas, "message": p.message(), "diagnostics": p.diagnostics(), "finishReason": p.finish_reason(), "stopped": p.stopped(), "error": error })
        .to_string()
}

fn template_source(name: &str) -> Option<String> {
    let dirs = ["tests/fixtures/real-outputs/templates", "tests/fixtures/conformance/templates", "tests/fixtures/zoo"];
    dirs.iter().find_map(|d| std::fs::read_to_string(root().join(d).join(name)).ok())
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for c in common::load_jsonl("cases.jsonl") {
        let mut options = serde_json::to_value(case_support::options_of(&c)).expect("options serialize");
        options["strict"] = json!(true);
        out.push(Case { corpus: "conformance", template: c["template"].as_str().unwrap_or("").into(), options, output: c["input"].as_str().unwrap_or("").into() });
    }
    let dir = root().join("tests/fixtures/real-outputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("real outputs").filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(&f).expect("readable").lines().filter(|l| !l.trim().is_empty()) {
            let c: Value = serde_json::from_str(line).expect("valid JSONL");
            let options = c.get("options").cloned().unwrap_or(json!({}));
            out.push(Case { corpus: "real-outputs", template: c["template"].as_str().unwrap_or("").into(), options, output: c["output"].as_str().unwrap_or("").into() });
        }
    }
    let zoo = root().join("tests/fixtures/zoo");
    let mut names: Vec<String> = std::fs::read_dir(&zoo).expect("zoo").filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.ends_with(".jinja")).collect();
    names.sort();
    for name in names {
        let Ok(t) = ChatTemplate::new(&template_source(&name).unwrap_or_default(), render_options()) else { continue };
        // The round trip's outputs, parsed with the options `verify_template` parses them with.
        let options = json!({ "tools": chat_autoparser::testing::fixture_tools(), "messages": [{ "role": "user", "content": "Hello" }], "parallelToolCalls": true });
        for r in t.verify().results.into_iter().filter(|r| r.skipped.is_none() && !r.output.is_empty()) {
            out.push(Case { corpus: "zoo", template: name.clone(), options: options.clone(), output: r.output });
        }
    }
    out
}

fn render_options() -> RenderOptions {
    RenderOptions { now: Some(1_795_305_600.0), ..Default::default() }
}

#[test]
fn a_compiled_spec_parses_as_its_template_over_every_corpus() {
    let cases = cases();
    let mut templates: BTreeMap<String, Option<(ChatTemplate, CompiledParser, String)>> = BTreeMap::new();
    let (mut compared, mut prompt_differs, mut differ) = (BTreeMap::<&str, usize>::new(), Vec::new(), Vec::new());
    let mut written = Vec::new();
    for c in &cases {
        let entry = templates.entry(c.template.clone()).or_insert_with(|| {
            let t = ChatTemplate::new(&template_source(&c.template)?, render_options()).ok()?;
            let spec = t.compile_parser(&Default::default()).ok()?.to_json();
            let compiled = CompiledParser::from_json(&spec).expect("a spec reads back");
            Some((t, compiled, spec))
        });
        let Some((t, compiled, _)) = entry else { continue };
        let Ok(options) = serde_json::from_value::<RequestOptions>(c.options.clone()) else { continue };
        let Ok(gp) = t.generation_prompt(&options) else { continue };
        if gp != compiled.generation_prompt(&options) {
            // The tail the spec holds was rendered without this request's conversation or tools; a caller
            // whose prompt depends on them passes `generationPrompt` (checked below with it).
            prompt_differs.push(format!("{} {}", c.corpus, c.template));
        }
        let options = if gp != compiled.generation_prompt(&options) { RequestOptions { generation_prompt: Some(gp), ..options } } else { options };
        for n in [0, 1, 7] {
            let chunks = if n == 0 { vec![c.output.as_str()] } else { chat_autoparser::testing::chunks(&c.output, n) };
            let (full, spec) = (run(t.stream_parser(&options), &chunks), run(compiled.stream_parser(&options), &chunks));
            if full != spec {
                differ.push(format!("{} {} (chunks of {n}): {}\n  full: {full}\n  spec: {spec}", c.corpus, c.template, c.output.chars().take(80).collect::<String>()));
            }
        }
        *compared.entry(c.corpus).or_default() += 1;
        written.push(json!({ "corpus": c.corpus, "template": c.template, "options": serde_json::to_value(&options).expect("options serialize"), "output": c.output }));
    }
    println!("parser spec ≡ template: {compared:?} cases (whole, 1-byte and 7-byte chunks); {} of them with the request's generationPrompt (its prompt tail depends on the conversation or tools)", prompt_differs.len());
    assert!(compared.values().all(|&n| n > 50), "too few cases compared: {compared:?}");
    assert!(differ.is_empty(), "{} parses differ:\n{}", differ.len(), differ.iter().take(10).cloned().collect::<Vec<_>>().join("\n"));
    // Most prompts need no override: the spec's tails are what a request renders.
    assert!(prompt_differs.len() * 10 < written.len(), "{} of {} prompts differ: {:?}", prompt_differs.len(), written.len(), &prompt_differs[..prompt_differs.len().min(20)]);
    let specs: BTreeMap<&String, &String> = templates.iter().filter_map(|(k, v)| Some((k, &v.as_ref()?.2))).collect();
    let dir = root().join("target/tmp");
    std::fs::create_dir_all(&dir).expect("target/tmp");
    let out = json!({ "now": 1_795_305_600.0, "cases": written, "specs": specs });
    std::fs::write(dir.join("parser-identity-cases.json"), out.to_string()).expect("written");
}

#[test]
fn a_spec_of_another_version_is_refused_naming_both() {
    let t = ChatTemplate::new(&template_source("Qwen-Qwen3-0.6B.jinja").expect("template"), render_options()).expect("compiles");
    let mut spec: Value = serde_json::from_str(&t.compile_parser(&Default::default()).expect("spec").to_json()).expect("JSON");
    spec["specVersion"] = json!(0);
    spec["writtenBy"] = json!("0.0.9");
    let e = CompiledParser::from_json(&spec.to_string()).expect_err("refused");
    assert_eq!(e.kind(), ErrorKind::SpecVersion);
    let text = e.to_string();
    assert!(text.contains("version 0") && text.contains("0.0.9") && text.contains(&format!("version {}", chat_autoparser::PARSER_SPEC_VERSION)), "{text}");
    // Not a spec at all, or a field missing: InvalidInput.
    for bad in ["[]", "{}", &format!("{{\"specVersion\": {}}}", chat_autoparser::PARSER_SPEC_VERSION)] {
        assert_eq!(CompiledParser::from_json(bad).expect_err(bad).kind(), ErrorKind::InvalidInput, "{bad}");
    }
}

#[test]
fn the_spec_holds_a_tail_per_thinking_mode_and_no_diffs() {
    let t = ChatTemplate::new(&template_source("Qwen-Qwen3-0.6B.jinja").expect("template"), render_options()).expect("compiles");
    let spec = t.compile_parser(&Default::default()).expect("spec");
    assert!(spec.analysis.diffs.is_empty());
    let off = spec.generation_prompts.no_thinking.as_deref().expect("thinking off differs");
    assert!(off.contains("</think>"), "{off:?}");
    let options = RequestOptions { enable_thinking: Some(false), ..Default::default() };
    assert_eq!(CompiledParser::from(spec).generation_prompt(&options), t.generation_prompt(&options).expect("renders"));
}
