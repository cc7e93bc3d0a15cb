//! Tool-call grammars from OUR pipeline against llama.cpp: for every case of cases.jsonl whose
//! output llama.cpp checked against its grammar, compile the template, take our analysis and our
//! generation prompt, build our grammar, and check it on what a runtime would feed it:
//! - lazy grammars: `generation_prompt + input` from the first firing of OUR word triggers on
//!   (pattern triggers, which need a regex engine, use llama.cpp's `constrained_text`);
//! - non-lazy grammars: the model output (`input`) — our grammars never spell out the prompt.
//!
//! The grammar must accept it (where llama.cpp's accepted) and reject corrupted versions of it
//! (unknown tool, missing required argument, broken JSON; and, with the called tool's string
//! argument turned into an enum of its values, a value outside the enum). Every grammar
//! must parse in our checker. Triggers and preserved tokens are compared with llama.cpp's
//! `prompt_side`. Each case is its own assertion in `tests/expectations/grammar_{cases,corruptions,
//! triggers,preserved_tokens}.jsonl`, where every known difference carries its justification.

mod case_support;
mod common;
mod gbnf_support;

use chat_autoparser::build_grammar;
use chat_autoparser::gbnf::{Grammar, ParsedGrammar, TriggerKind};
use chat_autoparser::generation_prompt;
use chat_autoparser::{ChatTemplate, RenderOptions};
use case_support::options_of;
use gbnf_support::{accepts, corruptions, rejection, Tally};
use chat_autoparser::api::RequestOptions;
use common::expectations::Expectations;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What our grammar sees of a case: `Ok(None)` when a lazy grammar never fires.
fn constrained(grammar: &Grammar, gp: &str, case: &Value) -> Result<Option<String>, String> {
    let input = case["input"].as_str().unwrap_or("");
    if !grammar.lazy {
        return Ok(Some(input.to_string()));
    }
    if grammar.triggers.iter().any(|t| t.kind != TriggerKind::Word) {
        return Ok(Some(case["grammar_check"]["constrained_text"].as_str().unwrap_or("").to_string()));
    }
    let full = format!("{gp}{input}");
    let from = after_reasoning(grammar, &full);
    let rest = full.get(from..).unwrap_or("");
    let first = grammar.triggers.iter().filter_map(|t| rest.find(t.value.as_str())).min();
    Ok(first.map(|at| rest.get(at..).unwrap_or("").to_string()))
}

/// Where the trigger search starts: after a closed reasoning block, as llama.cpp's runtime skips
/// thinking blocks when it looks for triggers (`reasoning_budget_path`). A block left open (the
/// call ends the reasoning) is searched.
fn after_reasoning(g: &Grammar, full: &str) -> usize {
    let (start, end) = (g.reasoning_start.as_str(), g.reasoning_end.as_str());
    if end.is_empty() {
        return 0;
    }
    let open = if start.is_empty() { Some(0) } else { full.find(start).map(|i| i + start.len()) };
    open.and_then(|o| full.get(o..)?.find(end).map(|j| o + j + end.len())).unwrap_or(0)
}

struct Outcome {
    /// handler → accepted (or, where llama.cpp's grammar rejected, also rejected).
    by_handler: BTreeMap<String, Tally>,
    parse: Tally,
    same_text: Tally,
    text_diffs: Vec<String>,
    corrupt: BTreeMap<&'static str, Tally>,
    /// Per case (`#id TEMPLATE`): our grammar agrees with llama.cpp's check.
    cases: Expectations,
    /// Per case and corruption (`#id TEMPLATE: kind`): the corrupted text is rejected.
    corruptions: Expectations,
    triggers: Expectations,
    preserved: Expectations,
}

fn run() -> Outcome {
    let mut templates: HashMap<String, ChatTemplate> = HashMap::new();
    let mut o = Outcome {
        by_handler: BTreeMap::new(),
        parse: Tally::default(),
        same_text: Tally::default(),
        text_diffs: Vec::new(),
        corrupt: BTreeMap::new(),
        cases: Expectations::load("grammar_cases"),
        corruptions: Expectations::load("grammar_corruptions"),
        triggers: Expectations::load("grammar_triggers"),
        preserved: Expectations::load("grammar_preserved_tokens"),
    };
    for case in common::load_jsonl("cases.jsonl") {
        let gc = &case["grammar_check"];
        if gc["checked"] != true {
            continue;
        }
        let name = case["template"].as_str().unwrap_or("").to_string();
        let handler = case["handler"].as_str().unwrap_or("autoparser").to_string();
        let id = &case["id"];
        let case_id = format!("#{id} {name}");
        let t = templates.entry(name.clone()).or_insert_with(|| {
            let opts = RenderOptions { now: Some(1_795_305_600.0), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).expect("reference templates compile")
        });
        let options = options_of(&case);
        let mut tally = o.by_handler.remove(&handler).unwrap_or_default();
        let verdict = (|| -> Result<(), String> {
            let grammar = build_grammar(t.analysis().expect("analysis"), &options).map_err(|e| format!("build: {e}"))?;
            if grammar.gbnf.is_empty() {
                return Err("no grammar (no tool format in our analysis)".into());
            }
            compare_prompt_side(&mut o, &grammar, &case, &case_id);
            let parsed = ParsedGrammar::parse(&grammar.gbnf);
            o.parse.add(parsed.is_ok());
            let parsed = parsed.map_err(|e| format!("grammar does not parse: {e}"))?;
            let gp = generation_prompt(t, t.analysis().expect("analysis"), &options).map_err(|e| format!("generation prompt: {e}"))?;
            let text = match constrained(&grammar, &gp, &case)? {
                Some(text) => text,
                // Nothing constrains output without a trigger; right only when there is no call.
                None if case["expected"]["tool_calls"].as_array().is_none_or(|c| c.is_empty()) => return Ok(()),
                None => return Err(format!("no trigger of {:?} fires in {gp:?} + {:?}", grammar.triggers, case["input"])),
            };
            let theirs = gc["constrained_text"].as_str().unwrap_or("");
            let ps = &case["prompt_side"];
            let theirs_output = if ps["grammar_lazy"] == false { theirs.strip_prefix(ps["generation_prompt"].as_str().unwrap_or("")).unwrap_or(theirs) } else { theirs };
            o.same_text.add(text == theirs_output);
            if text != theirs_output {
                o.text_diffs.push(format!("case {id} [{handler}]: ours {:?} theirs {:?}", text.get(..60).unwrap_or(&text), theirs_output.get(..60).unwrap_or(theirs_output)));
            }
            let ok = accepts(&parsed, &text);
            if gc["matched"] != true {
                // llama.cpp's own grammar rejected this text: agreeing means rejecting it too.
                return if ok { Err(format!("accepted a text llama.cpp's grammar rejected: {text:?}")) } else { Ok(()) };
            }
            if !ok {
                return Err(format!("lazy={} {}", grammar.lazy, rejection(&parsed, &text)));
            }
            if let Some((enum_options, good, bad)) = enum_variant(&case, &options, &text) {
                let g = build_grammar(t.analysis().expect("analysis"), &enum_options).map_err(|e| format!("enum build: {e}"))?;
                let p = ParsedGrammar::parse(&g.gbnf).map_err(|e| format!("enum grammar does not parse: {e}"))?;
                let ok = accepts(&p, &good) && !accepts(&p, &bad);
                o.corrupt.entry("value outside enum").or_default().add(ok);
                o.corruptions.check(format!("{case_id}: value outside enum"), ok, || {
                    format!("accepts {:?} {} / rejects {bad:?} {}", good, accepts(&p, &good), !accepts(&p, &bad))
                });
            }
            for (kind, bad) in corruptions(&case, &text) {
                let rejected = !accepts(&parsed, &bad);
                o.corrupt.entry(kind).or_default().add(rejected);
                o.corruptions.check(format!("{case_id}: {kind}"), rejected, || format!("accepted {bad:?}"));
            }
            Ok(())
        })();
        tally.add(verdict.is_ok());
        o.cases.record(case_id, verdict.map_err(|why| format!("[{handler}]: {why}")));
        o.by_handler.insert(handler, tally);
    }
    o
}

/// The case's request with the first called tool's first string argument (whose value occurs once
/// in the text) made an enum of that value and another, with the text and the text holding a value
/// outside the enum.
fn enum_variant(case: &Value, options: &RequestOptions, text: &str) -> Option<(RequestOptions, String, String)> {
    let call = case["expected"]["tool_calls"].as_array()?.first()?;
    let args: Value = serde_json::from_str(call["arguments"].as_str()?).ok()?;
    let (key, value) = args.as_object()?.iter().find_map(|(k, v)| {
        let v = v.as_str().filter(|v| v.len() > 2 && text.matches(*v).count() == 1)?;
        Some((k.clone(), v.to_string()))
    })?;
    // Every value the tool's calls give the argument is in the enum.
    let mut values: Vec<Value> = case["expected"]["tool_calls"]
        .as_array()?
        .iter()
        .filter(|c| c["name"] == call["name"])
        .filter_map(|c| serde_json::from_str::<Value>(c["arguments"].as_str()?).ok()?.get(&key).cloned())
        .collect();
    values.push(json!("another value"));
    let mut opts = options.clone();
    let tool = opts.tools.iter_mut().find(|t| t["function"]["name"] == call["name"])?;
    let prop = tool["function"]["parameters"]["properties"].get_mut(&key)?;
    prop["enum"] = Value::Array(values);
    Some((opts, text.to_string(), text.replacen(&value, "outside", 1)))
}

/// Triggers (kind, trimmed value, in order) and preserved tokens (as sets) against llama.cpp's.
fn compare_prompt_side(o: &mut Outcome, g: &Grammar, case: &Value, id: &str) {
    let ps = &case["prompt_side"];
    // A non-lazy grammar applies from the start; llama.cpp still lists its handler's triggers there.
    let lazy = ps["grammar_lazy"] == true;
    let theirs: Vec<(String, String)> = ps["grammar_triggers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|_| lazy)
        .map(|t| (t["type"].as_str().unwrap_or("").to_string(), t["value"].as_str().unwrap_or("").trim().to_string()))
        .collect();
    let ours: Vec<(String, String)> =
        g.triggers.iter().map(|t| (serde_json::to_value(t.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(), t.value.trim().to_string())).collect();
    o.triggers.check(id, ours == theirs, || format!("ours {ours:?} theirs {theirs:?}"));
    let theirs_p: BTreeSet<String> = ps["preserved_tokens"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect();
    let ours_p: BTreeSet<String> = g.preserved_tokens.iter().cloned().collect();
    o.preserved.check(id, ours_p == theirs_p, || format!("ours {ours_p:?} theirs {theirs_p:?}"));
}

#[test]
fn our_grammars_accept_every_checked_text() {
    let o = run();
    let total: Tally = o.by_handler.values().fold(Tally::default(), |mut a, t| {
        a.tried += t.tried;
        a.ok += t.ok;
        a
    });
    println!("our pipeline's grammars agree with llama.cpp's grammar check: {}/{}", total.ok, total.tried);
    for (h, t) in &o.by_handler {
        println!("  {h}: {}/{}", t.ok, t.tried);
    }
    println!("grammars parse in our checker: {}/{}", o.parse.ok, o.parse.tried);
    println!("constrained text equals llama.cpp's: {}/{}", o.same_text.ok, o.same_text.tried);
    for (k, t) in &o.corrupt {
        println!("reject corruption `{k}`: {}/{}", t.ok, t.tried);
    }
    for d in &o.text_diffs {
        println!("  TEXT {d}");
    }
    assert_eq!(o.parse.ok, o.parse.tried, "every generated grammar must parse");
    o.corruptions.finish();
    o.cases.finish();
}

/// Triggers (kind, trimmed value, in order) and preserved tokens (as sets) per case; ours differ from
/// llama.cpp's hand-written handlers in places, each justified in the expectation files.
#[test]
fn triggers_and_preserved_tokens_against_prompt_side() {
    let o = run();
    let (t, p) = (o.triggers.counts(), o.preserved.counts());
    println!("triggers equal (kind, trimmed value; llama.cpp's lazy grammars): {}/{}", t.0, t.1);
    println!("preserved tokens equal (as sets): {}/{}", p.0, p.1);
    o.triggers.finish();
    o.preserved.finish();
}
