//! Tool-call grammars against llama.cpp: for every conformance case whose input llama.cpp checked
//! against its grammar, build ours from llama.cpp's analysis of the template and the case's request,
//! and check that it accepts the same constrained text and rejects corrupted versions of it. Triggers
//! and preserved tokens are compared with llama.cpp's; differences are printed and the justified ones
//! are listed below.
//!
//! Justified differences (by design):
//! - Word triggers are trimmed markers (`<tool_call>` where llama.cpp says `<tool_call>\n`): our
//!   grammars make marker whitespace optional, so the shorter word starts the same grammar.
//! - Non-lazy grammars cover the model output only; llama.cpp's also spell out the generation prompt,
//!   so its `constrained_text` is compared without that prefix.
//! - Templates llama.cpp routes to hand-written handlers we do not have (Kimi K2, LFM2, Gemma4,
//!   DeepSeek V3.2, MiniCPM5, Cohere2 MoE, GigaChatV3, tagged thinking tools) are built from the
//!   analyzer's own result, which for several of them is visibly wrong (probe strings leak into
//!   markers); failures there are listed, not hidden.

mod common;

use chat_autoparser::analysis::{Analysis, Handler};
use chat_autoparser::api::RequestOptions;
use chat_autoparser::gbnf::{build_grammar, Grammar, ParsedGrammar, TriggerKind};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn camel(key: &str) -> String {
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

fn camelize(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (camel(k), camelize(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(camelize).collect()),
        other => other.clone(),
    }
}

fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// llama.cpp's analysis record (snake_case) as our `Analysis`, with the production handler.
fn analysis_from(record: &Value, handler: &str) -> Analysis {
    let mut v = serde_json::to_value(Analysis::default()).unwrap();
    merge(&mut v, &camelize(record));
    let handler = match handler {
        "GPT-OSS" | "Functionary v3.2" | "Ministral/Magistral Large 3" => handler,
        _ => "autoparser",
    };
    v["handler"] = json!(handler);
    serde_json::from_value(v).expect("analysis converts")
}

fn options_from(case: &Value) -> RequestOptions {
    let mut o = json!({
        "tools": case["tools"].as_array().cloned().unwrap_or_default(),
        "toolChoice": case["tool_choice"],
        "parallelToolCalls": case["parallel_tool_calls"],
        "enableThinking": case["enable_thinking"],
        "jsonSchema": case["json_schema"],
    });
    if o["jsonSchema"].is_null() {
        o.as_object_mut().unwrap().remove("jsonSchema");
    }
    serde_json::from_value(o).expect("options convert")
}

fn analyses() -> BTreeMap<String, Value> {
    common::load_jsonl("analysis.jsonl").into_iter().map(|r| (r["template"].as_str().unwrap().to_string(), r)).collect()
}

fn accepts(g: &ParsedGrammar, text: &str) -> bool {
    g.check(text).map(|r| r.accepted).unwrap_or(false)
}

#[derive(Default)]
struct Tally {
    tried: usize,
    ok: usize,
}

impl Tally {
    fn add(&mut self, ok: bool) {
        self.tried += 1;
        self.ok += ok as usize;
    }
}

/// Corruptions of an accepted text that a correct grammar must reject: (kind, text).
fn corruptions(case: &Value, text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let tools = case["tools"].as_array().cloned().unwrap_or_default();
    let called: Vec<String> = case["expected"]["tool_calls"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str().map(String::from)).collect();
    if let Some(name) = called.first() {
        if text.contains(name.as_str()) {
            out.push(("unknown tool name", text.replacen(name.as_str(), "unknown_tool_xyz", 1)));
        }
        let params = tools.iter().map(|t| &t["function"]).find(|f| f["name"] == json!(name)).map(|f| f["parameters"].clone()).unwrap_or(Value::Null);
        if let Some(req) = params["required"].as_array().and_then(|r| r.first()).and_then(Value::as_str) {
            // Renaming every occurrence of the key removes the required argument.
            let quoted = format!("\"{req}\"");
            let tagged = [format!("={req}>"), format!("\"{req}\""), format!(">{req}<")];
            if text.contains(&quoted) || tagged.iter().any(|t| text.contains(t.as_str())) {
                let renamed = tagged.iter().fold(text.to_string(), |t, pat| t.replace(pat.as_str(), &pat.replace(req, "zz_missing")));
                out.push(("missing required argument", renamed));
            }
        }
        if let Some(props) = params["properties"].as_object() {
            for p in props.values() {
                if let Some(vals) = p["enum"].as_array() {
                    for v in vals.iter().filter_map(Value::as_str) {
                        if text.contains(&format!("\"{v}\"")) {
                            out.push(("value outside enum", text.replacen(&format!("\"{v}\""), "\"not_in_enum\"", 1)));
                        }
                    }
                }
            }
        }
        if let Some(pos) = text.rfind('}') {
            let mut broken = text.to_string();
            broken.replace_range(pos..pos + 1, "");
            if !broken.ends_with('}') {
                out.push(("broken JSON", broken));
            }
        }
    }
    out
}

#[test]
fn tool_grammars_accept_llama_cpp_checked_texts() {
    let analyses = analyses();
    let mut accept = Tally::default();
    let mut parse = Tally::default();
    let mut corrupt: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut by_handler: BTreeMap<String, Tally> = BTreeMap::new();
    for case in common::load_jsonl("cases.jsonl") {
        let gc = &case["grammar_check"];
        if gc["checked"] != true || gc["matched"] != true {
            continue;
        }
        let template = case["template"].as_str().unwrap();
        let handler = case["handler"].as_str().unwrap_or("autoparser");
        let a = analysis_from(&analyses[template]["analysis"], handler);
        let opts = options_from(&case);
        let grammar: Grammar = match build_grammar(&a, &opts) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("case {} {template} [{handler}]: build: {e}", case["id"]));
                accept.add(false);
                continue;
            }
        };
        if grammar.gbnf.is_empty() {
            failures.push(format!("case {} {template} [{handler}]: no grammar (the analysis found no tool format)", case["id"]));
            accept.add(false);
            by_handler.entry(handler.to_string()).or_default().add(false);
            continue;
        }
        let parsed = ParsedGrammar::parse(&grammar.gbnf);
        parse.add(parsed.is_ok());
        let Ok(parsed) = parsed else {
            failures.push(format!("case {} {template}: our grammar does not parse: {:?}", case["id"], parsed.err()));
            continue;
        };
        let mut text = gc["constrained_text"].as_str().unwrap().to_string();
        let ps = &case["prompt_side"];
        if ps["grammar_lazy"] == false {
            let gp = ps["generation_prompt"].as_str().unwrap_or("");
            text = text.strip_prefix(gp).unwrap_or(&text).to_string();
        }
        let ok = !grammar.gbnf.is_empty() && accepts(&parsed, &text);
        accept.add(ok);
        by_handler.entry(handler.to_string()).or_default().add(ok);
        if !ok {
            let at = parsed.check(&text).ok().and_then(|r| r.error_at).unwrap_or(0);
            failures.push(format!(
                "case {} {template} [{handler}] lazy={}: rejected at {at}: {:?} | {:?}",
                case["id"],
                grammar.lazy,
                text.get(..at).unwrap_or(""),
                text.get(at..).unwrap_or("")
            ));
            continue;
        }
        for (kind, bad) in corruptions(&case, &text) {
            let rejected = !accepts(&parsed, &bad);
            corrupt.entry(kind).or_default().add(rejected);
            if !rejected {
                failures.push(format!("case {} {template}: accepted corruption `{kind}`: {bad:?}", case["id"]));
            }
        }
    }
    println!("our grammars parse in our checker: {}/{}", parse.ok, parse.tried);
    println!("accept llama.cpp's checked constrained text: {}/{}", accept.ok, accept.tried);
    for (h, t) in &by_handler {
        println!("  handler {h}: {}/{}", t.ok, t.tried);
    }
    for (k, t) in &corrupt {
        println!("reject corruption `{k}`: {}/{}", t.ok, t.tried);
    }
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert_eq!(parse.ok, parse.tried, "every generated grammar must parse");
    assert!(accept.ok >= ACCEPT_FLOOR, "accepted {} < floor {ACCEPT_FLOOR}", accept.ok);
    for (k, t) in &corrupt {
        assert_eq!(t.ok, t.tried, "corruption `{k}` must always be rejected");
    }
}

/// Reached: 100/187. The 87 others are templates llama.cpp handles with hand-written code we do not
/// have (printed as FAIL above): Gemma4 16, Kimi K2 12, LFM2/LFM2.5 30 (no or probe-leaking tool
/// format), DeepSeek V3.2 8 (`string="false"` for non-string values, unseen by the analysis), MiniCPM5 6
/// (value suffix swallowed the closing tags), tagged thinking tools 2 (a tool call inside the
/// reasoning fired the trigger; llama.cpp's handler adds a `</think> .*` tail).
const ACCEPT_FLOOR: usize = 100;

#[test]
fn triggers_and_preserved_tokens_match_llama_cpp() {
    let mut same_triggers = Tally::default();
    let mut same_preserved = Tally::default();
    let mut lazy_agree = Tally::default();
    let mut built = Tally::default();
    for rec in common::load_jsonl("analysis.jsonl") {
        let template = rec["template"].as_str().unwrap();
        let handler = rec["production_handler_with_tools"].as_str().unwrap_or("autoparser");
        let a = analysis_from(&rec["analysis"], handler);
        let inputs = &rec["with_tools"]["inputs"];
        let opts: RequestOptions = serde_json::from_value(json!({
            "tools": inputs["tools"], "toolChoice": inputs["tool_choice"], "parallelToolCalls": inputs["parallel_tool_calls"],
            "enableThinking": inputs["enable_thinking"],
        }))
        .unwrap();
        let g = build_grammar(&a, &opts);
        built.add(g.as_ref().is_ok_and(|g| g.gbnf.is_empty() || ParsedGrammar::parse(&g.gbnf).is_ok()));
        let Ok(g) = g else {
            println!("  {template}: build error {:?}", g.err());
            continue;
        };
        let cp = &rec["with_tools"]["chat_params"];
        let theirs_grammar = cp["grammar"].as_str().is_some_and(|s| !s.is_empty());
        if !theirs_grammar && g.gbnf.is_empty() {
            lazy_agree.add(true);
            continue;
        }
        lazy_agree.add(theirs_grammar && cp["grammar_lazy"] == json!(g.lazy));
        let theirs: Vec<(String, String)> = cp["grammar_triggers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| (t["type"].as_str().unwrap_or("").to_string(), t["value"].as_str().unwrap_or("").trim().to_string()))
            .collect();
        let ours: Vec<(String, String)> = g
            .triggers
            .iter()
            .map(|t| (serde_json::to_value(t.kind).unwrap().as_str().unwrap().to_string(), t.value.trim().to_string()))
            .collect();
        let trig_ok = theirs == ours;
        same_triggers.add(trig_ok);
        let theirs_p: Vec<String> = cp["preserved_tokens"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect();
        let mut a_sorted = theirs_p.clone();
        a_sorted.sort();
        let mut b_sorted = g.preserved_tokens.clone();
        b_sorted.sort();
        let pres_ok = a_sorted == b_sorted;
        same_preserved.add(pres_ok);
        if !trig_ok || !pres_ok {
            println!("  {template} [{handler}] lazy ours={} theirs={}", g.lazy, cp["grammar_lazy"]);
            if !trig_ok {
                println!("     triggers ours={ours:?}\n              theirs={theirs:?}");
            }
            if !pres_ok {
                println!("     preserved ours={:?}\n               theirs={theirs_p:?}", g.preserved_tokens);
            }
        }
    }
    println!("grammars built and parsed: {}/{}", built.ok, built.tried);
    println!("lazy flag agrees: {}/{}", lazy_agree.ok, lazy_agree.tried);
    println!("triggers equal (values trimmed): {}/{}", same_triggers.ok, same_triggers.tried);
    println!("preserved tokens equal (as sets): {}/{}", same_preserved.ok, same_preserved.tried);
    assert_eq!(built.ok, built.tried);
    let _ = TriggerKind::Word;
    let _ = Handler::Autoparser;
}
