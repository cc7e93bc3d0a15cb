//! The analyzer against llama.cpp's: analysis.jsonl (every field of every template llama.cpp routes
//! to its auto-parser) and analysis-diffs.jsonl (every comparison, in order).
//!
//! Capabilities are taken from the reference record so the analysis is tested on its own; the
//! capability probe has its own test.

mod common;

use chat_autoparser::analysis::{analyze_template, analyze_template_with_caps, Analysis};
use chat_autoparser::Caps;
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::Value;
use std::collections::BTreeMap;

fn caps_of(r: &Value) -> Caps {
    let c = &r["caps"];
    let f = |k: &str| c[k].as_bool().unwrap_or(false);
    Caps {
        supports_tools: f("supports_tools"),
        supports_tool_calls: f("supports_tool_calls"),
        supports_system_role: f("supports_system_role"),
        supports_parallel_tool_calls: f("supports_parallel_tool_calls"),
        supports_preserve_reasoning: f("supports_preserve_reasoning"),
        supports_string_content: f("supports_string_content"),
        supports_typed_content: f("supports_typed_content"),
        supports_object_arguments: f("supports_object_arguments"),
    }
}

/// 2026-11-22 12:00:00 UTC.
const ANALYSIS_NOW: f64 = 1_795_348_800.0;

fn compile(r: &Value) -> ChatTemplate {
    let name = r["template"].as_str().unwrap();
    // analysis-diffs.jsonl was recorded with the clock at the day the data was made.
    let opts = RenderOptions { now: Some(ANALYSIS_NOW), ..Default::default() };
    ChatTemplate::new(&common::template_source(name), opts).expect("template compiles")
}

fn analyze(r: &Value) -> Analysis {
    analyze_template_with_caps(&compile(r), &caps_of(r))
}

use common::camel;

/// Leaves of a JSON value by dotted path (keys converted to camelCase).
fn flatten(v: &Value, path: String, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() { camel(k) } else { format!("{path}.{}", camel(k)) };
                flatten(x, p, out);
            }
        }
        _ => {
            out.insert(path, v.clone());
        }
    }
}

/// Known, deliberate differences: (template, field or field prefix, reason).
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "Bielik-11B-v3.0-Instruct.jinja",
        "content.requiresNonnullContent",
        "the template calls content.lstrip(); with content null Jinja2 (and our renderer) raise, llama.cpp's engine tolerates it. We render with \"\" and record that null content must be avoided",
    ),
    (
        "Qwen-Qwen3-0.6B.jinja",
        "content.requiresNonnullContent",
        "same: string methods on null content raise in Jinja2, not in llama.cpp's engine",
    ),
    (
        "NVIDIA-Nemotron-Nano-v2.jinja",
        "reasoning.start",
        "workaround value: the generation prompt ends with `<think>\\n` and the model continues after it; llama.cpp's snapshot had `<think>\\n\\n`, its current source `<think>\\n`",
    ),
    (
        "llama-cpp-deepseek-r1.jinja",
        "tools.",
        "with tools the template does `tools | map(attribute='function') | tojson`; in Jinja2 (and our renderer) map() is a generator that tojson refuses, so no tool call renders; llama.cpp's engine serializes it",
    ),
    ("llama-cpp-deepseek-r1.jinja", "preservedTokens", "follows from the tools.* difference above"),
    (
        "upstage-Solar-Open-100B.jinja",
        "tools.callId.",
        "llama.cpp leaks the probe id `call00001` into the name prefix (analysis_probe_leaks): it looked for the function name in the whole prompt, where the tool list names it too. We look in the assistant turn only and find the id before the name: PRE_FUNC_NAME between `<|tool_call:begin|>` and `<|tool_call:name|>`",
    ),
    ("upstage-Solar-Open-100B.jinja", "tools.function.namePrefix", "`<|tool_call:name|>` without the leaked probe id (see tools.callId)"),
    ("upstage-Solar-Open-100B.jinja", "preservedTokens", "follows from the name prefix without the leaked probe id"),
];

#[test]
fn analysis_matches_llama_cpp() {
    let failures = compare_all(false);
    assert!(failures.is_empty(), "{} unexpected field differences", failures.len());
}

/// The same with capabilities from our own probe (`analyze_template`): the end-to-end result.
#[test]
fn analysis_with_probed_caps_matches_llama_cpp() {
    // Firefunction v2 reads an undefined `functions` variable, so every capability probe render
    // fails and tool calls look unsupported (the analyzer itself recovers by defining it).
    let failures = compare_all(true);
    let unexplained: Vec<_> = failures.iter().filter(|f| !f.starts_with("fireworks-ai-llama-3-firefunction-v2.jinja ")).collect();
    assert!(unexplained.is_empty(), "{unexplained:?}");
}

/// Compare every field of every auto-parser template; returns the unexpected differences.
fn compare_all(probed_caps: bool) -> Vec<String> {
    let records = common::load_jsonl("analysis.jsonl");
    let (mut fields_ok, mut fields_total, mut templates_ok, mut templates_total) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for r in records.iter().filter(|r| r["production_handler_with_tools"] == "autoparser") {
        let name = r["template"].as_str().unwrap();
        templates_total += 1;
        let ours = if probed_caps { analyze_template(&compile(r)) } else { analyze(r) };
        let ours = serde_json::to_value(ours).unwrap();
        let (mut want, mut got) = (BTreeMap::new(), BTreeMap::new());
        flatten(&r["analysis"], String::new(), &mut want);
        flatten(&ours, String::new(), &mut got);
        let mut all_ok = true;
        for (path, w) in &want {
            fields_total += 1;
            let g = got.get(path).cloned().unwrap_or(Value::Null);
            if &g == w || KNOWN.iter().any(|(t, f, _)| *t == name && path.starts_with(f)) {
                fields_ok += 1;
            } else {
                all_ok = false;
                failures.push(format!("{name} {path}: want {w} got {g}"));
            }
        }
        if all_ok {
            templates_ok += 1;
        }
    }
    let how = if probed_caps { "probed caps" } else { "reference caps" };
    println!("analysis ({how}): {templates_ok}/{templates_total} templates fully match, {fields_ok}/{fields_total} fields");
    for f in &failures {
        println!("DIFF {f}");
    }
    for (t, f, why) in KNOWN {
        println!("KNOWN {t} {f}: {why}");
    }
    failures
}

/// Comparisons that match today (see the causes listed in the test).
const FLOOR_DIFFS: usize = 496;

/// Every comparison of analysis-diffs.jsonl, in order, against ours (for every template).
#[test]
fn diffs_match_llama_cpp() {
    let diffs = common::load_jsonl("analysis-diffs.jsonl");
    let records = common::load_jsonl("analysis.jsonl");
    let (mut ok, mut total) = (0, 0);
    let mut failures = Vec::new();
    for r in &records {
        let name = r["template"].as_str().unwrap();
        let ours = analyze(r).diffs;
        let theirs: Vec<&Value> = diffs.iter().filter(|d| d["template"] == name).collect();
        for (i, d) in theirs.iter().enumerate() {
            total += 1;
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            let Some(o) = ours.get(i) else {
                failures.push(format!("{name} #{}: {} missing", i + 1, s("caller")));
                continue;
            };
            let want = (s("caller"), d["ok"].as_bool().unwrap_or(true), s("prefix"), s("left"), s("right"), s("suffix"));
            let got = (o.step.clone(), o.ok, o.prefix.clone(), o.left.clone(), o.right.clone(), o.suffix.clone());
            if want == got {
                ok += 1;
            } else {
                let at = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                failures.push(format!(
                    "{name} #{} {}: step {:?} ok {}/{}\n   prefix@{} {:?}\n   left  want {:?} got {:?}\n   right want {:?} got {:?}\n   suffix want {:?} got {:?}",
                    i + 1, want.0, got.0, want.1, got.1, at(&want.2, &got.2),
                    got.2.get(at(&want.2, &got.2).saturating_sub(30)..).unwrap_or("").chars().take(80).collect::<String>(),
                    want.3.chars().take(150).collect::<String>(), got.3.chars().take(150).collect::<String>(),
                    want.4.chars().take(150).collect::<String>(), got.4.chars().take(150).collect::<String>(),
                    want.5.chars().take(80).collect::<String>(), got.5.chars().take(80).collect::<String>()
                ));
            }
        }
        if ours.len() > theirs.len() {
            failures.push(format!("{name}: {} extra comparisons", ours.len() - theirs.len()));
        }
    }
    // Known causes of the remaining differences, all on the rendering side:
    // - an empty conversation: templates index messages[0]; Jinja2 (and we) raise, llama.cpp's
    //   engine does not, so we take the fallback user-start probe (an extra comparison);
    // - `list.append` (Kimi K2), `None.lstrip()` (Bielik, Qwen3), undefined `functions`
    //   (Firefunction) raise here and not in llama.cpp;
    // - `not x is defined` precedence (rwkv-world): llama.cpp reads `(not x) is defined`;
    // - whitespace control differences in a few long templates (Command R+).
    println!("analysis diffs: {ok}/{total} comparisons match");
    for f in failures.iter().filter(|f| std::env::var("DIFF_FILTER").map_or(true, |x| f.contains(&x))) {
        println!("DIFF {f}");
    }
    assert!(ok >= FLOOR_DIFFS, "comparisons matching fell below {FLOOR_DIFFS}");
}
