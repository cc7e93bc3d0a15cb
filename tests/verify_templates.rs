//! verify_template over every reference template: the round trip must succeed for every template that
//! renders tool calls (the parser reads back what the template writes).

mod common;

use chat_autoparser::{verify_template, ChatTemplate, RenderOptions};
use common::expectations::Expectations;

#[test]
fn every_reference_template_round_trips() {
    let dir = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let (mut ok_templates, mut total) = (0, 0);
    // One case per template and message (`TEMPLATE [message]`).
    let mut expect = Expectations::load("verify_round_trips");
    let mut skips = Vec::new();
    for name in &names {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }).unwrap();
        let report = verify_template(&t);
        total += 1;
        if report.ok {
            ok_templates += 1;
        }
        for r in &report.results {
            if let Some(why) = &r.skipped {
                skips.push(format!("{name} [{}]: {why}", r.name));
            }
            expect.check(format!("{name} [{}]", r.name), r.ok, || {
                format!("{}\n      output {:?}", r.error.clone().unwrap_or_default(), r.output)
            });
        }
    }
    let (ok_results, results) = expect.counts();
    println!("verify: {ok_templates}/{total} templates round-trip fully, {ok_results}/{results} messages");
    // Skips count as passed: the template does not render that part of the message at all.
    println!("{} skipped:", skips.len());
    for s in &skips {
        println!("  SKIP {s}");
    }
    expect.finish();
}

/// The tool-call grammar built from the same analysis accepts every tool-call text that round-trips
/// (lazy grammars from their first word/token trigger on).
#[test]
fn round_trip_tool_calls_satisfy_the_grammar() {
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::build_grammar;
    use chat_autoparser::gbnf::{ParsedGrammar, TriggerKind};
    use chat_autoparser::testing::fixture_tools;
    let dir = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    // One case per round-tripped message with tool calls (`TEMPLATE [message]`).
    let mut expect = Expectations::load("verify_round_trip_grammar");
    for name in &names {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }).unwrap();
        let options = RequestOptions { tools: fixture_tools(), parallel_tool_calls: true, ..Default::default() };
        let Ok(grammar) = build_grammar(t.analysis().expect("analysis"), &options) else { continue };
        if grammar.gbnf.is_empty() {
            continue;
        }
        let parsed = ParsedGrammar::parse(&grammar.gbnf).expect("grammar parses");
        for r in verify_template(&t).results.iter().filter(|r| r.ok && r.skipped.is_none() && !r.expected.tool_calls.is_empty()) {
            let start = if grammar.lazy {
                let words = grammar.triggers.iter().filter(|g| matches!(g.kind, TriggerKind::Word | TriggerKind::Token));
                match words.filter_map(|g| r.output.find(g.value.as_str())).min() {
                    Some(s) => s,
                    None => continue,
                }
            } else {
                0
            };
            let text = &r.output[start..];
            let check = parsed.check(text).ok();
            let accepted = check.as_ref().is_some_and(|c| c.accepted);
            expect.check(format!("{name} [{}]", r.name), accepted, || format!("rejected at {:?}: {text:?}", check.and_then(|c| c.error_at)));
        }
    }
    let (ok, tried) = expect.counts();
    println!("grammar accepts round-tripped tool calls: {ok}/{tried}");
    expect.finish();
}
