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
//! - Sectioned tagged calls also trigger on the per-call marker (calls without their section).
//! - Templates llama.cpp routes to hand-written handlers we do not have (Kimi K2, LFM2, Gemma4,
//!   DeepSeek V3.2, MiniCPM5, Cohere2 MoE, GigaChatV3, tagged thinking tools) are built from the
//!   analyzer's own result, which for several of them is visibly wrong (probe strings leak into
//!   markers); failures there are listed, not hidden. tests/gbnf_conformance.rs runs every case
//!   through OUR analysis instead.

mod case_support;
mod common;
mod gbnf_support;

use chat_autoparser::analysis::Handler;
use chat_autoparser::api::RequestOptions;
use chat_autoparser::build_grammar;
use chat_autoparser::gbnf::{Grammar, ParsedGrammar, TriggerKind};
use case_support::{analysis_with_handler, options_of as options_from};
use gbnf_support::{accepts, corruptions, Tally};
use serde_json::{json, Value};
use std::collections::BTreeMap;


fn analyses() -> BTreeMap<String, Value> {
    common::load_jsonl("analysis.jsonl").into_iter().map(|r| (r["template"].as_str().unwrap().to_string(), r)).collect()
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
        let a = analysis_with_handler(&analyses[template], handler);
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

/// Reached: 107/187 (Kimi K2 calls without their section since 106, without their end marker since 107). The others are templates llama.cpp handles with hand-written code we do not
/// have (printed as FAIL above): Gemma4 16, Kimi K2 5 (the analysis record has no call counter), LFM2/LFM2.5 43 (no or probe-leaking tool
/// format), DeepSeek V3.2 8 (`string="false"` for non-string values, unseen by the analysis), MiniCPM5 6
/// (value suffix swallowed the closing tags), tagged thinking tools 2 (a tool call inside the
/// reasoning fired the trigger; llama.cpp's handler adds a `</think> .*` tail).
const ACCEPT_FLOOR: usize = 107;

#[test]
fn triggers_and_preserved_tokens_match_llama_cpp() {
    let mut same_triggers = Tally::default();
    let mut same_preserved = Tally::default();
    let mut lazy_agree = Tally::default();
    let mut built = Tally::default();
    for rec in common::load_jsonl("analysis.jsonl") {
        let template = rec["template"].as_str().unwrap();
        let handler = rec["production_handler_with_tools"].as_str().unwrap_or("autoparser");
        let a = analysis_with_handler(&rec, handler);
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
    // Reached 45/49, 35/44, 31/44; triggers 31 since calls outside their section also trigger (see
    // below). Every autoparser-handled template with a tool format agrees on all three except:
    // - Llama 3.1/3.2 (bare JSON calls): llama.cpp builds no grammar, we build a lazy one with a
    //   `pattern_full` trigger on the call's opening;
    // - sectioned tagged calls (DeepSeek R1/V3.1, Solar Open): our grammar, like our parser, accepts
    //   calls without their section (models drop it), so the per-call marker is a second trigger
    //   after llama.cpp's section marker (llama.cpp's former DeepSeek R1 handler did the same);
    // - preserved tokens 30 since markers glued from special tokens are split into them
    //   (DeepSeek R1 "```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"): a runtime keeps only single
    //   tokens whole, and no tokenizer has the glued marker as one. The rest are hand-written llama.cpp handlers
    // we replace by the analysis (Kimi K2 triggers per call, Gemma4 / LFM2 / MiniCPM5 / DeepSeek V3.2
    // / GigaChat / Cohere2 MoE / tagged thinking tools keep handler-specific token lists).
    assert!(lazy_agree.ok >= 45 && same_triggers.ok >= 31 && same_preserved.ok >= 30);
    let _ = (TriggerKind::Word, Handler::Autoparser);
}

/// The fixed analysis request (get_weather with a `unit` enum, calculate) on three formats: a valid
/// call is accepted, an enum value outside the list, an unknown tool and a missing required argument
/// are rejected; `required` and `json_schema` grammars are not lazy.
#[test]
fn fixed_request_enum_and_modes() {
    let analyses = analyses();
    let rec = |t: &str| analysis_with_handler(&analyses[t], analyses[t]["production_handler_with_tools"].as_str().unwrap());
    let tools = analyses["Qwen3-Coder.jinja"]["with_tools"]["inputs"]["tools"].clone();
    let opts = |extra: Value| -> RequestOptions {
        let mut o = json!({"tools": tools, "parallelToolCalls": true});
        case_support::merge(&mut o, extra);
        serde_json::from_value(o).unwrap()
    };
    let table: [(&str, &str, &str); 3] = [
        (
            "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expr\": \"2+2\"}}\n</tool_call>",
            "\"celsius\"",
        ),
        (
            "Qwen3-Coder.jinja",
            "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
            "\ncelsius\n",
        ),
        ("openai-gpt-oss-120b.jinja", "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Paris\", \"unit\": \"fahrenheit\"}<|call|>", "\"fahrenheit\""),
    ];
    for (template, ok, enum_value) in table {
        let a = rec(template);
        let g = build_grammar(&a, &opts(json!({}))).unwrap();
        assert!(g.lazy, "{template}");
        let p = ParsedGrammar::parse(&g.gbnf).unwrap();
        assert!(accepts(&p, ok), "{template}: {ok:?}\n{}", g.gbnf);
        let bad_enum = ok.replace(enum_value, &enum_value.replace("celsius", "kelvin").replace("fahrenheit", "kelvin"));
        assert!(!accepts(&p, &bad_enum), "{template}: {bad_enum:?}");
        assert!(!accepts(&p, &ok.replace("get_weather", "get_weathers")), "{template}: unknown tool");
        assert!(!accepts(&p, &ok.replace("location", "place")), "{template}: missing required argument");

        let req = build_grammar(&a, &opts(json!({"toolChoice": "required"}))).unwrap();
        assert!(!req.lazy && req.triggers.is_empty(), "{template}: required is not lazy");
        let rp = ParsedGrammar::parse(&req.gbnf).unwrap();
        assert!(accepts(&rp, ok), "{template}: required accepts a bare call\n{}", req.gbnf);
        assert!(!accepts(&rp, "Just text."), "{template}: required rejects plain content");

        let js = build_grammar(&a, &opts(json!({"jsonSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}))).unwrap();
        assert!(!js.lazy);
        let jp = ParsedGrammar::parse(&js.gbnf).unwrap();
        let (good, bad) = if template.starts_with("openai") {
            ("<|channel|>final <|constrain|>json<|message|>{\"n\": 3}", "<|channel|>final<|message|>{\"n\": \"3\"}")
        } else {
            ("```json\n{\"n\": 3}\n```", "{\"m\": 3}")
        };
        assert!(accepts(&jp, good), "{template}: {good:?}\n{}", js.gbnf);
        assert!(!accepts(&jp, bad), "{template}: {bad:?}");
    }
    // No tools, tool_choice none or no tool format: no grammar.
    let none = build_grammar(&rec("Qwen3-Coder.jinja"), &opts(json!({"toolChoice": "none"}))).unwrap();
    assert!(none.gbnf.is_empty());
    let no_format = build_grammar(&rec("google-gemma-2-2b-it.jinja"), &opts(json!({}))).unwrap();
    assert!(no_format.gbnf.is_empty());
    let nameless: RequestOptions = serde_json::from_value(json!({"tools": [{"type": "function", "function": {}}]})).unwrap();
    assert!(build_grammar(&rec("Qwen3-Coder.jinja"), &nameless).is_err());
}
