//! Templates llama.cpp sends to hand-written parsers: our general analysis must find markers the
//! model actually writes (cases.jsonl inputs). A snapshot of the key markers per template, plus a
//! generic check that the tool-call opener we found occurs in every case that expects a call.

mod common;

use chat_autoparser::analysis::{analyze_template, Handler};
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::expectations::Expectations;
use serde_json::Value;

fn analysis_json(name: &str) -> Value {
    let t = ChatTemplate::new(&common::template_source(name), RenderOptions::default()).expect("compiles");
    serde_json::to_value(analyze_template(&t)).expect("serializes")
}

fn field<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| &v[k])
}

/// (template, [(field path, expected value)]): what the cases show the model writes.
const SNAPSHOT: &[(&str, &[(&str, &str)])] = &[
    // `<think>` … `</think>` then `<tool_call>\n<function=f>\n<parameter=a>\nv\n</parameter>\n</function>\n</tool_call>`
    ("Qwen3.5-4B.jinja", &[
        ("reasoning.start", "<think>\n"), ("reasoning.end", "\n</think>\n\n"),
        ("tools.format.mode", "TAG_WITH_TAGGED"), ("tools.format.perCallStart", "<tool_call>\n"), ("tools.format.perCallEnd", "</tool_call>"),
        ("tools.function.namePrefix", "<function="), ("tools.function.nameSuffix", ">\n"), ("tools.function.close", "</function>\n"),
        ("tools.arguments.namePrefix", "<parameter="), ("tools.arguments.nameSuffix", ">\n"), ("tools.arguments.valueSuffix", "\n</parameter>\n"),
    ]),
    ("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", &[
        ("reasoning.end", "\n</think>\n"), ("tools.format.mode", "TAG_WITH_TAGGED"), ("tools.format.perCallStart", "<tool_call>\n"),
        ("tools.function.namePrefix", "<function="), ("tools.arguments.namePrefix", "<parameter="), ("tools.arguments.valueSuffix", "\n</parameter>\n"),
    ]),
    // `<|START_THINKING|>…<|END_THINKING|><|START_TEXT|>…<|END_TEXT|>`, calls in `<|START_ACTION|>[{"tool_call_id":…,"tool_name":…,"parameters":…}]<|END_ACTION|>`
    ("Cohere2MoE.jinja", &[
        ("reasoning.start", "<|START_THINKING|>"), ("reasoning.end", "<|END_THINKING|>"),
        ("content.mode", "ALWAYS_WRAPPED"), ("content.start", "<|START_TEXT|>"), ("content.end", "<|END_TEXT|>"),
        ("tools.format.mode", "JSON_NATIVE"), ("tools.format.sectionStart", "<|START_ACTION|>"), ("tools.format.sectionEnd", "<|END_ACTION|>"),
        ("tools.format.nameField", "tool_name"), ("tools.format.argsField", "parameters"), ("tools.format.genIdField", "tool_call_id"),
    ]),
    // `</think>` closes reasoning opened by the prompt; DSML tags for calls.
    ("deepseek-ai-DeepSeek-V3.2.jinja", &[
        ("reasoning.start", "<think>"), ("reasoning.end", "</think>"), ("tools.format.mode", "TAG_WITH_TAGGED"),
        ("tools.format.sectionStart", "<｜DSML｜function_calls>\n"), ("tools.format.sectionEnd", "</｜DSML｜function_calls>"),
        ("tools.function.namePrefix", "<｜DSML｜invoke name=\""), ("tools.function.nameSuffix", "\">\n"), ("tools.function.close", "</｜DSML｜invoke>\n"),
        ("tools.arguments.namePrefix", "<｜DSML｜parameter name=\""), ("tools.arguments.valueSuffix", "</｜DSML｜parameter>\n"),
        ("tools.arguments.valuePrefix", "\" string=\"true\">"), ("tools.arguments.typedValuePrefix", "\" string=\"false\">"),
    ]),
    // `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`
    ("Kimi-K2-Thinking.jinja", &[
        ("reasoning.start", "<think>"), ("reasoning.end", "</think>"), ("tools.format.mode", "TAG_WITH_JSON"),
        ("tools.format.sectionStart", "<|tool_calls_section_begin|>"), ("tools.format.sectionEnd", "<|tool_calls_section_end|>"),
        ("tools.format.perCallStart", "<|tool_call_begin|>"), ("tools.format.perCallEnd", "<|tool_call_end|>"),
        ("tools.function.namePrefix", "functions."), ("tools.function.nameSuffix", ":0<|tool_call_argument_begin|>"),
    ]),
    ("moonshotai-Kimi-K2.jinja", &[
        ("tools.format.mode", "TAG_WITH_JSON"), ("tools.format.sectionStart", "<|tool_calls_section_begin|>"),
        ("tools.format.perCallStart", "<|tool_call_begin|>"), ("tools.function.namePrefix", "functions."),
    ]),
    // `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": …, "arguments": …}`
    ("GigaChat3-10B-A1.8B.jinja", &[
        ("tools.format.mode", "JSON_NATIVE"), ("tools.format.sectionStart", "<|message_sep|>\n\nfunction call<|role_sep|>\n"),
        ("tools.format.nameField", "name"), ("tools.format.argsField", "arguments"),
    ]),
    // `<function name="f"><param name="a">v</param></function>`
    ("openbmb-MiniCPM5-1B.jinja", &[
        ("reasoning.start", "<think>\n"), ("tools.format.mode", "TAG_WITH_TAGGED"),
        ("tools.function.namePrefix", "<function name=\""), ("tools.function.nameSuffix", "\">"),
        ("tools.arguments.namePrefix", "<param name=\""), ("tools.arguments.valuePrefix", "\">"),
        ("tools.arguments.valueSuffix", "</param>"), ("tools.function.close", "</function>"),
        ("tools.arguments.rawValueStart", "<![CDATA["), ("tools.arguments.rawValueEnd", "]]>"),
    ]),
    // `<|channel>thought\n…<channel|>`; calls `<|tool_call>call:f{a:<|"|>v<|"|>}<tool_call|>` (not read yet:
    // see its cases in tests/expectations/tool_openers.jsonl).
    ("google-gemma-4-31B-it.jinja", &[("reasoning.end", "<channel|>")]),
];

#[test]
fn handler_templates_snapshot() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, fields) in SNAPSHOT {
        let a = analysis_json(name);
        assert_eq!(a["handler"], "autoparser", "{name}: no dedicated handler expected");
        for (path, want) in *fields {
            checked += 1;
            let got = field(&a, path);
            if got.as_str() != Some(want) {
                failures.push(format!("{name} {path}: want {want:?} got {got}"));
            }
        }
    }
    println!("handler-template snapshot: {}/{checked} markers as expected", checked - failures.len());
    for f in &failures {
        println!("DIFF {f}");
    }
    assert!(failures.is_empty());
}

/// For every case expecting a tool call, the first opener we found (section start, else per-call
/// start, else function-name prefix) must occur in the model's output. One case of
/// `tests/expectations/tool_openers.jsonl` per case (`TEMPLATE #id`); the known differences include the
/// templates whose calls the general analysis cannot read yet, with why.
#[test]
fn tool_openers_occur_in_case_inputs() {
    let cases = common::load_jsonl("cases.jsonl");
    let mut expect = Expectations::load("tool_openers");
    let mut cache = std::collections::HashMap::new();
    for c in &cases {
        let calls = c["expected"]["tool_calls"].as_array().map_or(0, |v| v.len());
        let name = c["template"].as_str().unwrap_or_default();
        if calls == 0 {
            continue;
        }
        let a = cache.entry(name.to_string()).or_insert_with(|| analysis_json(name));
        if a["handler"] != "autoparser" {
            continue;
        }
        let f = &a["tools"];
        let opener = ["format.sectionStart", "format.perCallStart", "function.namePrefix"]
            .iter()
            .filter_map(|p| field(f, p).as_str())
            .map(str::trim)
            .find(|s| !s.is_empty())
            .unwrap_or("");
        let text = format!("{}{}", c["prompt_side"]["generation_prompt"].as_str().unwrap_or(""), c["input"].as_str().unwrap_or(""));
        // No tool format: the fallback's openers (rule R13) — markers mined from the source, then the
        // conventions with markers (bare JSON and lists at a line start are the `{` / `[` check).
        let fallback: Vec<&str> = if field(f, "format.mode") == "NONE" {
            let mined = f["fallbackMarkers"].as_array().into_iter().flatten().filter_map(|m| m["start"].as_str());
            mined.chain(["<|tool_call_start|>[", "<tool_call>"]).collect()
        } else {
            Vec::new()
        };
        let found = !opener.is_empty() && text.contains(opener)
            || fallback.iter().any(|o| text.contains(o))
            || opener.is_empty() && text.trim_start().starts_with(['{', '[']);
        expect.check(format!("{name} #{}", c["id"]), found, || {
            format!("opener {opener:?} not in {:?}", text.chars().rev().take(120).collect::<String>().chars().rev().collect::<String>())
        });
    }
    let (ok, total) = expect.counts();
    println!("tool openers found in case outputs: {ok}/{total}");
    expect.finish();
}

/// Dedicated handlers are chosen for exactly the templates llama.cpp gives them.
#[test]
fn dedicated_handlers_match_llama_cpp() {
    for r in common::load_jsonl("analysis.jsonl") {
        let name = r["template"].as_str().unwrap_or_default();
        let want = match r["production_handler_with_tools"].as_str().unwrap_or_default() {
            "GPT-OSS" => Handler::GptOss,
            "Functionary v3.2" => Handler::FunctionaryV32,
            "Ministral/Magistral Large 3" => Handler::Ministral3,
            _ => Handler::Autoparser,
        };
        assert_eq!(chat_autoparser::analysis::detect_handler(&common::template_source(name)), want, "{name}");
    }
}

/// No marker may contain a probe string (llama.cpp leaks them in 5 templates: analysis_probe_leaks).
#[test]
fn no_probe_strings_leak_into_markers() {
    const PROBES: &[&str] = &["FFF_FIRST_FUN_F", "SSS_SECOND_FUN_S", "AA_ARG_FST_AA", "BB_ARG_SND_BB", "call00001", "call99999", "XXXX", "YYYY", "U_USER_MSG", "A_ASST_MSG", "REASON_PART"];
    let mut leaks = Vec::new();
    let records = common::load_jsonl("analysis.jsonl");
    for r in &records {
        let name = r["template"].as_str().unwrap_or_default();
        let mut a = analysis_json(name);
        for k in ["diffs", "diagnostics", "caps"] {
            a.as_object_mut().map(|m| m.remove(k));
        }
        let text = a.to_string();
        leaks.extend(PROBES.iter().filter(|p| text.contains(*p)).map(|p| format!("{name}: {p}")));
    }
    println!("probe leaks: {} in {} templates", leaks.len(), records.len());
    for l in &leaks {
        println!("LEAK {l}");
    }
    assert!(leaks.is_empty());
}
