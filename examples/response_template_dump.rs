//! Cross-validation input for `scripts/response_template_crosscheck.py`: for every template of a
//! conformance directory, the derived `response_template` and its losses; for every case of
//! `cases.jsonl`, our parser's message (reasoning always extracted, as a response template does).
//!
//! `cargo run --release --example response_template_dump -- DIR > dump.jsonl`

use chat_autoparser::api::{ReasoningFormat, RequestOptions};
use chat_autoparser::{generation_prompt, StreamParser};
use chat_autoparser::response_template::{parse_response, response_template_for, DeriveOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

fn options_of(case: &Value) -> Result<RequestOptions, String> {
    let mut o = Map::new();
    for (ours, theirs) in [
        ("tools", "tools"),
        ("messages", "messages"),
        ("addGenerationPrompt", "add_generation_prompt"),
        ("continueFinalMessage", "continue_final_message"),
        ("enableThinking", "enable_thinking"),
        ("parallelToolCalls", "parallel_tool_calls"),
        ("toolChoice", "tool_choice"),
        ("jsonSchema", "json_schema"),
        ("isPartial", "is_partial"),
    ] {
        if let Some(v) = case.get(theirs) {
            o.insert(ours.into(), v.clone());
        }
    }
    let mut opts: RequestOptions = serde_json::from_value(Value::Object(o)).map_err(|e| e.to_string())?;
    opts.reasoning_format = ReasoningFormat::Auto;
    Ok(opts)
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "tests/fixtures/conformance".into());
    let cases = std::fs::read_to_string(format!("{dir}/cases.jsonl")).expect("cases.jsonl");
    let mut templates: BTreeMap<String, ChatTemplate> = BTreeMap::new();
    let mut derived: BTreeMap<String, Value> = BTreeMap::new();
    let mut names: Vec<String> = std::fs::read_dir(format!("{dir}/templates"))
        .expect("templates dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".jinja"))
        .collect();
    names.sort();
    for name in &names {
        let source = std::fs::read_to_string(format!("{dir}/templates/{name}")).expect("template");
        let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
        match ChatTemplate::new(&source, opts) {
            Ok(t) => {
                let Ok((rt, losses)) = response_template_for(&t, &DeriveOptions::default()) else {
                    println!("{}", json!({ "kind": "template", "name": name, "error": "analysis failed" }));
                    continue;
                };
                let handler = t.analysis().map(|a| a.handler).unwrap_or_default();
                println!("{}", json!({ "kind": "template", "name": name, "handler": handler, "responseTemplate": rt, "losses": losses }));
                derived.insert(name.clone(), rt);
                templates.insert(name.clone(), t);
            }
            Err(e) => println!("{}", json!({ "kind": "template", "name": name, "error": e.to_string() })),
        }
    }
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("case JSON");
        let name = case["template"].as_str().unwrap_or("");
        let Some(t) = templates.get(name) else { continue };
        let result = options_of(&case).and_then(|opts| {
            let a = t.analysis().map_err(|e| e.to_string())?;
            let gp = generation_prompt(t, a, &opts).map_err(|e| e.to_string())?;
            let mut p = StreamParser::new(a, &gp, &opts).map_err(|e| e.to_string())?;
            p.push(case["input"].as_str().unwrap_or(""));
            p.finish().map_err(|e| e.to_string())?;
            Ok(json!({ "message": p.message(), "generationPrompt": gp }))
        });
        // Our interpreter of the spec on the derived template (compared with transformers' own).
        let tools = case["tools"].as_array().cloned().unwrap_or_default();
        let prompt = case["prompt_side"]["prompt"].as_str().unwrap_or("");
        let spec = match parse_response(case["input"].as_str().unwrap_or(""), &derived[name], prompt, &tools) {
            Ok(v) => json!({ "ok": v }),
            Err(e) => json!({ "error": e.to_string() }),
        };
        match result {
            Ok(v) => println!("{}", json!({ "kind": "case", "id": case["id"], "ours": v["message"], "generationPrompt": v["generationPrompt"], "spec": spec })),
            Err(e) => println!("{}", json!({ "kind": "case", "id": case["id"], "error": e, "spec": spec })),
        }
    }
}
