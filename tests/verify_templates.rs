//! verify_template over every shared template: the round trip must succeed for every template that
//! renders tool calls (the parser reads back what the template writes).

mod common;

use chat_autoparser::{verify_template, ChatTemplate, RenderOptions};

#[test]
fn every_shared_template_round_trips() {
    let dir = common::shared_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let (mut ok_templates, mut total, mut ok_results, mut results) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut skips = Vec::new();
    for name in &names {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }).unwrap();
        let report = verify_template(&t);
        total += 1;
        if report.ok {
            ok_templates += 1;
        }
        for r in &report.results {
            results += 1;
            if let Some(why) = &r.skipped {
                skips.push(format!("{name} [{}]: {why}", r.name));
            }
            if r.ok {
                ok_results += 1;
            } else {
                failures.push(format!("{name} [{}]: {}\n      output {:?}", r.name, r.error.clone().unwrap_or_default(), r.output));
            }
        }
    }
    println!("verify: {ok_templates}/{total} templates round-trip fully, {ok_results}/{results} messages");
    for f in &failures {
        println!("  FAIL {f}");
    }
    // Skips count as passed: the template does not render that part of the message at all.
    println!("{} skipped:", skips.len());
    for s in &skips {
        println!("  SKIP {s}");
    }
    assert!(ok_results >= FLOOR, "{ok_results} round trips, floor {FLOOR}");
}

const FLOOR: usize = 230;

/// The tool-call grammar built from the same analysis accepts every tool-call text that round-trips
/// (lazy grammars from their first word/token trigger on).
#[test]
fn round_trip_tool_calls_satisfy_the_grammar() {
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::build_grammar;
    use chat_autoparser::gbnf::{ParsedGrammar, TriggerKind};
    use chat_autoparser::testing::fixture_tools;
    let dir = common::shared_dir().join("conformance/templates");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let (mut tried, mut ok) = (0, 0);
    for name in &names {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }).unwrap();
        let options = RequestOptions { tools: fixture_tools(), parallel_tool_calls: true, ..Default::default() };
        let Ok(grammar) = build_grammar(t.analysis(), &options) else { continue };
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
            tried += 1;
            let check = parsed.check(text).ok();
            if check.as_ref().is_some_and(|c| c.accepted) {
                ok += 1;
            } else {
                println!("  REJECTED {name} [{}] at {:?}: {text:?}", r.name, check.and_then(|c| c.error_at));
            }
        }
    }
    println!("grammar accepts round-tripped tool calls: {ok}/{tried}");
    assert!(ok >= GRAMMAR_FLOOR, "{ok} accepted, floor {GRAMMAR_FLOOR}");
}

/// Reached: 125/130. Known rejections: Python-literal argument values (`['ana', 'bo']`, `True`) that
/// Seed-OSS and MiniCPM5 render inside tagged arguments (the grammar asks for JSON values), and Cohere
/// command-r-plus' pretty-printed `Action:` JSON (the parser reads it; the grammar's JSON spacing rule
/// is stricter than the template's indentation).
const GRAMMAR_FLOOR: usize = 125;
