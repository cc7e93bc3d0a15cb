//! Tool-call ids (#13 item 6): every call of every case — every format, the dedicated handlers
//! included, through our analysis and generation prompt — has a non-empty id on its first delta; the
//! case's id is kept where it gives one; calls of one message differ; streamed ids (one character at
//! a time) equal the whole-text ones, and the same output in another conversation gets other ids.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use case_support::{each_case_end_to_end, stream};
use chat_autoparser::api::Delta;
use chat_autoparser::{generation_prompt, parse_output, StreamParser};
use chat_autoparser::{ChatTemplate, RenderOptions};
use std::collections::HashSet;

#[test]
fn every_call_has_a_stable_distinct_id_on_its_first_delta() {
    let (mut calls, mut model_ids, mut generated, mut parallel) = (0, 0, 0, 0);
    each_case_end_to_end(|case, name, analysis, gp, options, input| {
        let whole = stream(analysis, gp, options, &[input]);
        let chars: Vec<&str> = input.char_indices().map(|(i, c)| &input[i..i + c.len_utf8()]).collect();
        let streamed = stream(analysis, gp, options, &chars);
        let ids: Vec<&str> = whole.0.tool_calls.iter().map(|c| c.id.as_str()).collect();
        let streamed_ids: Vec<&str> = streamed.0.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, streamed_ids, "case #{} {name}", case["id"]);
        assert!(ids.iter().all(|id| !id.is_empty()), "case #{} {name}: empty id in {ids:?}", case["id"]);
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "case #{} {name}: ids repeat {ids:?}", case["id"]);
        parallel += usize::from(ids.len() > 1);
        for (i, want) in case["expected"]["tool_calls"].as_array().into_iter().flatten().enumerate() {
            match want["id"].as_str().filter(|s| !s.is_empty()) {
                Some(id) => {
                    assert_eq!(ids.get(i).copied(), Some(id), "case #{} {name}: the model's id", case["id"]);
                    model_ids += 1;
                }
                None => generated += 1,
            }
        }
        for (deltas, how) in [(&whole.2, "whole"), (&streamed.2, "streamed")] {
            let mut seen = HashSet::new();
            for d in deltas.iter() {
                if let Delta::ToolCall { index, id, .. } = d {
                    if seen.insert(*index) {
                        assert!(id.as_deref().is_some_and(|s| !s.is_empty()), "case #{} {name} {how}: first delta of call {index} has no id", case["id"]);
                    }
                }
            }
        }
        calls += ids.len();
    });
    println!("call ids: {calls} calls ({model_ids} with the case's own id kept, {generated} generated), {parallel} messages with parallel calls, stream ≡ whole");
    assert!(model_ids > 0 && generated > 0 && parallel > 0);
}

#[test]
fn ids_depend_on_the_conversation_and_the_models_late_id_replaces_the_generated_one() {
    let source = common::template_source("mistralai-Mistral-Nemo-Instruct-2407.jinja");
    let t = ChatTemplate::new(&source, RenderOptions::default()).unwrap();
    let tools: Vec<serde_json::Value> = serde_json::from_str(r#"[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"days":{"type":"integer"}}}}}]"#).unwrap();
    let mut options = chat_autoparser::api::RequestOptions { tools, ..Default::default() };
    let analysis = t.analysis().unwrap();
    let gp = generation_prompt(&t, analysis, &options).unwrap();
    let text = r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 1}}, {"name": "get_weather", "arguments": {"days": 2}}]"#;
    let a = parse_output(analysis, &gp, text, &options).unwrap();
    options.messages = vec![serde_json::json!({"role": "user", "content": "Weather?"})];
    let b = parse_output(analysis, &gp, text, &options).unwrap();
    assert_ne!(a.tool_calls[0].id, a.tool_calls[1].id);
    assert_ne!(a.tool_calls[0].id, b.tool_calls[0].id, "another conversation, other ids");
    // Generated ids are what the template itself accepts back (Mistral wants nine alphanumerics).
    assert!(a.tool_calls.iter().all(|c| c.id.len() == 9 && c.id.bytes().all(|b| b.is_ascii_alphanumeric())));
    // The model wrote its id after the arguments: first delta generated, the model's id after.
    let late = r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 1}, "id": "abcDEF123"}]"#;
    let mut p = StreamParser::new(analysis, &gp, &options).unwrap();
    let mut deltas = p.push(late);
    deltas.extend(p.finish().unwrap());
    let ids: Vec<String> = deltas.iter().filter_map(|d| if let Delta::ToolCall { id: Some(id), .. } = d { Some(id.clone()) } else { None }).collect();
    assert_eq!(ids.len(), 2, "{deltas:?}");
    assert_eq!(ids[1], "abcDEF123");
    assert_eq!(p.message().tool_calls[0].id, "abcDEF123");
}

#[test]
fn a_models_own_id_in_a_json_call_is_kept_and_a_repeated_one_replaced() {
    // Qwen3's template writes `<tool_call>{"name", "arguments"}</tool_call>`, no id: a model that adds its own
    // `"id"` (also inside an OpenAI `function` object) gets it as the call's id; a repeated one is replaced.
    let t = ChatTemplate::new(&common::template_source("Qwen-Qwen3-0.6B.jinja"), RenderOptions::default()).unwrap();
    let tools = serde_json::json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}]);
    let options = chat_autoparser::api::RequestOptions { tools: tools.as_array().unwrap().clone(), enable_thinking: Some(false), parallel_tool_calls: true, ..Default::default() };
    let out = r#"<tool_call>{"id": "call_a", "name": "f", "arguments": {}}</tool_call>
<tool_call>{"type": "function", "function": {"id": "call_b", "name": "g", "arguments": {}}}</tool_call>
<tool_call>{"id": "call_a", "name": "g", "arguments": {}}</tool_call>"#;
    let chars: Vec<&str> = out.char_indices().map(|(i, c)| &out[i..i + c.len_utf8()]).collect();
    for chunks in [vec![out], chars] {
        let mut p = t.stream_parser(&options).unwrap();
        for c in &chunks {
            p.push(c);
        }
        p.finish().unwrap();
        let ids: Vec<&str> = p.message().tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(&ids[..2], ["call_a", "call_b"]);
        assert!(!ids[2].is_empty() && ids[2] != "call_a", "{ids:?}");
        assert!(p.diagnostics().iter().any(|d| d.message.contains("repeats an earlier call's") && d.rule.as_deref() == Some("R46")), "{:?}", p.diagnostics());
        assert!(p.diagnostics().iter().any(|d| d.message.contains("own \"id\" member kept") && d.rule.as_deref() == Some("R46")), "{:?}", p.diagnostics());
    }
}
