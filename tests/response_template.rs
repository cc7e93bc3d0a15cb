//! response_template derivation on hand-built analyses (self-contained; the cross-check against
//! transformers itself over the conformance corpus is scripts/response_template_crosscheck.py).

use chat_autoparser::analysis::*;
use chat_autoparser::api::{Message, ReasoningField, ToolCall};
use chat_autoparser::response_template::{derive_response_template, derive_response_template_with, DeriveOptions, ResponseTemplate};
use serde_json::json;

fn qwen_like() -> Analysis {
    let mut a = Analysis::default();
    a.assistant_start = "<|im_start|>assistant".into();
    a.reasoning = ReasoningAnalysis { mode: ReasoningMode::TagBased, start: "<think>".into(), end: "</think>".into(), ..ReasoningAnalysis::default() };
    a.tools.format.mode = ToolFormat::TagWithTagged;
    a.tools.format.per_call_start = "<tool_call>\n".into();
    a.tools.format.per_call_end = "</tool_call>".into();
    a.tools.function = FunctionAnalysis { name_prefix: "<function=".into(), name_suffix: ">\n".into(), close: "</function>\n".into() };
    a.tools.arguments.name_prefix = "<parameter=".into();
    a.tools.arguments.name_suffix = ">\n".into();
    a.tools.arguments.value_suffix = "\n</parameter>\n".into();
    a
}

#[test]
fn tagged_calls_become_xml_inline_with_the_name_from_open_pattern() {
    let (rt, losses) = derive_response_template(&qwen_like());
    assert_eq!(rt["start_anchor"], "<|im_start|>assistant");
    // Every reasoning block, joined as our parser joins them.
    assert_eq!(rt["fields"]["thinking"], json!({ "open": "<think>", "close": "</think>", "repeats": true, "join": "" }));
    let calls = &rt["fields"]["tool_calls"];
    assert_eq!(calls["open_pattern"], "<tool_call>\\s*<function=(?P<name>[\\w.\\-]+)>(?:\\n)?");
    assert_eq!(calls["close_pattern"], "</function>(?:\\s*</tool_call>)?");
    assert_eq!(calls["content"], "xml-inline");
    assert_eq!(calls["content_args"]["tag_pattern"], "<parameter=(?P<key>.+?)>(?:\\n)?(?P<value>.*?)(?:\\n)?</parameter>(?:\\n)?");
    assert_eq!(calls["transform"], json!({ "type": "function", "function": { "name": "{name}", "arguments": "{content}" } }));
    assert_eq!(rt["fields"]["content"], json!({ "repeats": true, "join": "" }));
    assert!(losses.iter().any(|l| l.feature == "tools.argument_types" && l.severity == "partial"));
    // The JSON form round-trips through the spec types (transformers' key set).
    let spec = ResponseTemplate::from_value(&rt).expect("valid response_template");
    assert_eq!(spec.to_value(), rt);
}

#[test]
fn end_of_turn_tokens_are_swallowed_and_markers_in_two_roles_written_once() {
    let mut a = Analysis::default();
    a.assistant_start = "<|begin|>assistant".into();
    a.turn_end = vec!["<|end|>".into(), "<|tool_call:end|>".into()];
    a.tools.format.mode = ToolFormat::TagWithJson;
    a.tools.format.per_call_start = "<|tool_call:begin|>".into();
    a.tools.format.per_call_end = "<|tool_call:end|>".into();
    a.tools.call_id = CallIdAnalysis { pos: CallIdPosition::PreFuncName, prefix: "<|tool_call:begin|>".into(), suffix: "<|tool_call:name|>".into(), ..Default::default() };
    a.tools.function.name_prefix = "<|tool_call:name|>".into();
    a.tools.function.name_suffix = "\n<|tool_call:args|>".into();
    let (rt, _) = derive_response_template(&a);
    let calls = &rt["fields"]["tool_calls"];
    // One `<|tool_call:begin|>` and one `<|tool_call:name|>`; any whitespace before the arguments marker.
    assert_eq!(calls["open_pattern"], "<\\|tool_call:begin\\|>\\s*(?P<id>.+?)<\\|tool_call:name\\|>\\s*(?P<name>[\\w.\\-]+)\\s*<\\|tool_call:args\\|>");
    // `<|end|>` (not part of another marker) is dropped as our parser drops it (rule R7).
    assert_eq!(rt["fields"]["end_of_turn"], json!({ "open": "<|end|>", "close_pattern": "" }));
}

#[test]
fn the_reasoning_field_can_be_renamed() {
    let opts = DeriveOptions { reasoning_field: "reasoning_content".into(), ..Default::default() };
    let (rt, _) = derive_response_template_with(&qwen_like(), &opts);
    assert!(rt["fields"].get("reasoning_content").is_some() && rt["fields"].get("thinking").is_none());
}

#[test]
fn name_as_key_json_is_reported_unsupported() {
    let mut a = qwen_like();
    a.tools.format.mode = ToolFormat::JsonNative;
    a.tools.format.fun_name_is_key = true;
    let (rt, losses) = derive_response_template(&a);
    assert!(rt["fields"].get("tool_calls").is_none());
    assert!(losses.iter().any(|l| l.feature == "tools.name_as_key" && l.severity == "unsupported"));
}

#[test]
fn unknown_keys_are_rejected_like_transformers_does() {
    let bad = json!({ "start_anchor": "a", "fields": { "x": { "open": "<x>", "bogus": 1 } } });
    assert!(ResponseTemplate::from_value(&bad).is_err());
    assert!(ResponseTemplate::from_value(&json!({ "start_anchor": "a", "fields": {} })).is_err());
    assert!(ResponseTemplate::from_value(&json!({ "version": 2, "start_anchor": "a", "fields": { "c": {} } })).is_err());
}

#[test]
fn messages_name_reasoning_as_asked() {
    let m = Message { content: "hi".into(), reasoning_content: "hmm".into(), tool_calls: vec![ToolCall::new("", "f", "{}")], ..Default::default() };
    assert_eq!(m.to_json(ReasoningField::ReasoningContent)["reasoning_content"], "hmm");
    for f in [ReasoningField::Reasoning, ReasoningField::Thinking] {
        let v = m.to_json(f);
        assert_eq!(v[f.key()], "hmm");
        assert!(v.get("reasoning_content").is_none());
        assert_eq!(v["content"], "hi");
    }
}

#[test]
fn deltas_become_transformers_region_events() {
    use chat_autoparser::api::Delta;
    use chat_autoparser::response_template::{RegionEvent, RegionTracker};
    let deltas = vec![
        Delta::Reasoning("I should ".into()),
        Delta::Reasoning("greet \n".into()),
        Delta::Content("Hi".into()),
        Delta::ToolCall { index: 0, id: Some("c1".into()), name: Some("greet".into()), arguments: None },
        Delta::ToolCall { index: 0, id: None, name: None, arguments: Some("{\"a\":".into()) },
        Delta::ToolCall { index: 0, id: None, name: None, arguments: Some("1}".into()) },
        Delta::ToolCall { index: 1, id: None, name: Some("g".into()), arguments: Some("{}".into()) },
    ];
    let mut t = RegionTracker::new();
    let mut ev = Vec::new();
    // Any split of the delta list gives the same events.
    t.feed(&deltas[..3], &mut ev);
    t.feed(&deltas[3..], &mut ev);
    t.finish(&mut ev);
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(v[0], json!({ "type": "region_open", "field": "thinking" }));
    assert_eq!(v[1], json!({ "type": "region_chunk", "field": "thinking", "text": "I should ", "dirty": false }));
    assert_eq!(v[3], json!({ "type": "region_close", "field": "thinking", "value": "I should greet" }));
    let closes: Vec<&RegionEvent> = ev.iter().filter(|e| matches!(e, RegionEvent::RegionClose { .. })).collect();
    assert_eq!(closes.len(), 4);
    let last_two = serde_json::to_value(&closes[2..]).unwrap();
    assert_eq!(last_two[0]["value"], json!({ "id": "c1", "type": "function", "function": { "name": "greet", "arguments": { "a": 1 } } }));
    assert_eq!(last_two[1]["value"]["function"]["name"], "g");
    assert!(ev.iter().all(|e| !matches!(e, RegionEvent::RegionChunk { field, dirty: false, .. } if field == "tool_calls")));
}

/// The conformance copy of a template (vendored in the repository).
fn conformance_template(name: &str) -> chat_autoparser::ChatTemplate {
    let path = format!("{}/tests/fixtures/conformance/templates/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("vendored template");
    chat_autoparser::ChatTemplate::new(&source, Default::default()).expect("compiles")
}

#[test]
fn a_declared_template_is_checked_against_the_analysis_on_the_round_trip_outputs() {
    use chat_autoparser::response_template::{check_declared, response_template, CompiledTemplate, ResponseTemplateOptions};
    use std::rc::Rc;
    let t = conformance_template("Qwen3.5-4B.jinja");
    let report = t.verify();
    assert!(report.ok, "the template round-trips");
    // Our own derived template reads every round-trip output as our analysis does.
    let derived = response_template(&t, &ResponseTemplateOptions::default()).expect("derives").response_template;
    let check = check_declared(Rc::new(CompiledTemplate::from_value(&derived).expect("valid")), &report);
    assert!(check.checked >= 3, "outputs checked: {}", check.checked);
    assert!(check.agree, "{:?}", check.disagreements);
    // A declared template with the wrong reasoning tags leaves the reasoning (and, the prompt having
    // opened `<think>`, even the empty block's `</think>`) in the content: the outputs are reported,
    // every one with reasoning among them, each with its fixture name and first difference.
    let mut wrong = derived.clone();
    wrong["fields"]["thinking"] = json!({ "open": "<reason>", "close": "</reason>" });
    let check = check_declared(Rc::new(CompiledTemplate::from_value(&wrong).expect("valid")), &report);
    assert!(!check.agree);
    let with_reasoning: Vec<&str> = report.results.iter().filter(|r| r.skipped.is_none() && !r.expected.reasoning_content.is_empty()).map(|r| r.name.as_str()).collect();
    assert!(!with_reasoning.is_empty());
    let named: Vec<&str> = check.disagreements.iter().map(|d| d.name.as_str()).collect();
    assert!(with_reasoning.iter().all(|n| named.contains(n)), "{named:?} ⊉ {with_reasoning:?}");
    let reasoning = check.disagreements.iter().find(|d| d.name == "reasoning").expect("the reasoning row");
    assert!(reasoning.declared.as_ref().is_some_and(|m| m.reasoning_content.is_empty() && m.content.contains("</think>")), "{reasoning:?}");
    assert!(check.disagreements.iter().all(|d| d.difference.starts_with("content") || d.difference.starts_with("reasoning")), "{:?}", check.disagreements);
}
