//! A parser copied from the caches is the parser built afresh. `ChatTemplate::stream_parser` copies a
//! parser built for the same request, or — for a new conversation with the same request shape — the
//! format's parser from before it read any prompt, which then reads the new prompt
//! (`session::parser_cache`). For every conformance case (our analysis, our generation prompt), after the
//! caches were filled by the same request with another conversation, the copied parser gives the same
//! message, diagnostics, error, finish reason and deltas, whole and in chunks, as `StreamParser::new` from the analysis.

mod common;
#[path = "case_support/mod.rs"]
mod case_support;

use case_support::{chunks, drain, each_case_end_to_end, our_template, Outcome};
use chat_autoparser::api::{Diagnostic, RequestOptions};
use chat_autoparser::StreamParser;
use serde_json::json;
use std::collections::HashMap;

/// Message, error and deltas, diagnostics and finish reason.
fn run(mut p: StreamParser, parts: &[&str]) -> (Outcome, Vec<Diagnostic>, Option<&'static str>) {
    let outcome = drain(&mut p, parts);
    (outcome, p.diagnostics().to_vec(), p.finish_reason())
}

#[test]
fn a_parser_copied_for_a_new_conversation_is_the_parser_built_afresh() {
    let mut templates = HashMap::new();
    let (mut compared, mut primed_differently) = (0, 0);
    each_case_end_to_end(|case, name, analysis, gp, options, input| {
        let t = our_template(&mut templates, name);
        // The same request shape in another conversation fills both caches first.
        let mut other = options.clone();
        other.messages = vec![json!({"role": "user", "content": format!("another conversation before case {}", case["id"])})];
        let Ok(seed) = t.stream_parser(&other) else { return };
        drop(seed);
        let other_gp = chat_autoparser::generation_prompt(t, analysis, &other).unwrap_or_default();
        primed_differently += usize::from(other_gp != gp);
        let len = input.len();
        for cuts in [vec![], (1..len).collect::<Vec<_>>(), vec![len / 3, 2 * len / 3]] {
            let parts = chunks(input, &cuts);
            let fresh = run(StreamParser::new(analysis, gp, options).expect("parser builds"), &parts);
            let copied = run(t.stream_parser(options).expect("parser copies"), &parts);
            assert_eq!(copied, fresh, "case {} ({name}), {} chunks", case["id"], parts.len());
            // And once more: now a copy of the parser built for this very request.
            let again = run(t.stream_parser(options).expect("parser copies"), &parts);
            assert_eq!(again, fresh, "case {} ({name}), second copy", case["id"]);
        }
        compared += 1;
    });
    println!("parser reuse: {compared} cases compared, {primed_differently} of them after a conversation with another generation prompt");
    assert!(compared > 300, "only {compared} cases compared");
    assert!(primed_differently > 40, "the seeding conversation should change the prompt in many cases: {primed_differently}");
}

#[test]
fn the_unprimed_parser_is_kept_per_request_shape() {
    // Options that shape the parser (here the tools) are not shared between shapes.
    let mut templates = HashMap::new();
    let t = our_template(&mut templates, "Qwen3-Coder.jinja");
    let tool = |n: &str| json!({"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}});
    let with = |tools: Vec<serde_json::Value>, user: &str| RequestOptions { tools, messages: vec![json!({"role": "user", "content": user})], ..Default::default() };
    let call = "<tool_call>\n<function=beta>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>";
    let undeclared = |o: &RequestOptions| {
        let ((m, _, _), diagnostics, _) = run(t.stream_parser(o).unwrap(), &[call]);
        assert_eq!(m.tool_calls.len(), 1, "{m:?}");
        diagnostics.iter().any(|d| d.rule.as_deref() == Some("R22"))
    };
    assert!(undeclared(&with(vec![tool("alpha")], "a")), "beta is not declared: R22");
    assert!(!undeclared(&with(vec![tool("beta")], "b")), "beta is declared");
    assert!(undeclared(&with(vec![tool("alpha")], "c")), "the alpha shape again, in a third conversation");
}
