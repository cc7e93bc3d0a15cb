//! Grammars that accept what the template itself writes (issue #26, item 4): for every template of the
//! zoo and the conformance set, the tool-call texts its own round trip renders (`verifyTemplate`'s call
//! fixtures: one call, parallel calls, nested arguments, a call after reasoning) must be accepted by the
//! grammar we build for the same tools, fed as a runtime feeds it (a lazy grammar from the first firing of
//! its word triggers, after a closed reasoning block; a non-lazy one from the reply's start). Each case is
//! an assertion in tests/expectations/zoo_grammars.jsonl, every known difference with its reason.

mod common;
mod gbnf_support;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::gbnf::{Grammar, ParsedGrammar, TriggerKind};
use chat_autoparser::testing::fixture_tools;
use chat_autoparser::{build_grammar, verify_template, ChatTemplate, RenderOptions};
use common::expectations::Expectations;
use gbnf_support::{accepts, rejection};
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_automata::{Anchored, Input};

/// What a runtime constrains: `None` when a lazy grammar's triggers never fire. Triggers are searched in the
/// generation prompt's tail and the reply, after a closed reasoning block (a block the call itself ends is
/// searched): a word from where it starts, a pattern from its first group (or its match); a full pattern
/// must match the whole text generated so far (the reply up to some point) and starts the grammar at its
/// first group there.
fn constrained(grammar: &Grammar, prompt_tail: &str, output: &str) -> Option<String> {
    if !grammar.lazy {
        return Some(output.to_string());
    }
    let full = format!("{prompt_tail}{output}");
    let (start, end) = (grammar.reasoning_start.as_str(), grammar.reasoning_end.as_str());
    let open = if start.is_empty() { Some(0) } else { full.find(start).map(|i| i + start.len()) };
    let from = if end.is_empty() { 0 } else { open.and_then(|o| full.get(o..)?.find(end).map(|j| o + j + end.len())).unwrap_or(0) };
    let rest = full.get(from..)?;
    let mut first: Option<usize> = None;
    for t in &grammar.triggers {
        let at = match t.kind {
            TriggerKind::Word | TriggerKind::Token => rest.find(t.value.as_str()),
            TriggerKind::Pattern => captures(&Trig::new(&t.value)?, rest, false),
            TriggerKind::PatternFull => {
                let re = Trig::new(&t.value)?;
                // Against the reply generated so far: every prefix of it, shortest first.
                let base = full.len() - output.len();
                let reply = &full[base.max(from)..];
                let offset = base.max(from) - from;
                (1..=reply.len()).filter(|&p| reply.is_char_boundary(p)).find_map(|p| captures(&re, &reply[..p], true)).map(|a| a + offset)
            }
        };
        first = match (first, at) {
            (Some(f), Some(a)) => Some(f.min(a)),
            (f, a) => f.or(a),
        };
    }
    first.map(|at| rest[at..].to_string())
}

/// A trigger pattern as this test's engine runs it. regex-automata has no lookaround; a pattern that ends in
/// a negative lookahead of a literal (`>>>(?!all)`, llama.cpp's std::regex reads it) is run as the pattern
/// before it, a match counting only when the text after it does not start with the literal.
struct Trig {
    re: PikeVM,
    not_followed_by: Option<String>,
}

impl Trig {
    fn new(pattern: &str) -> Option<Trig> {
        if let Ok(re) = PikeVM::new(pattern) {
            return Some(Trig { re, not_followed_by: None });
        }
        let at = pattern.rfind("(?!")?;
        let literal = pattern.get(at + 3..)?.strip_suffix(')')?;
        if literal.is_empty() || literal.contains(|c: char| !c.is_alphanumeric() && c != '_') {
            return None;
        }
        Some(Trig { re: PikeVM::new(pattern.get(..at)?).ok()?, not_followed_by: Some(literal.to_string()) })
    }
}

/// Where a trigger pattern starts the grammar in `hay`: its first group's start, else its match's; `whole`:
/// only a match of all of `hay`.
fn captures(t: &Trig, hay: &str, whole: bool) -> Option<usize> {
    let re = &t.re;
    let (mut cache, mut caps) = (re.create_cache(), re.create_captures());
    let mut from = 0;
    while from <= hay.len() {
        let input = if whole { Input::new(hay).anchored(Anchored::Yes) } else { Input::new(hay).range(from..) };
        re.search(&mut cache, &input, &mut caps);
        let m = caps.get_match()?;
        let refused = t.not_followed_by.as_deref().is_some_and(|l| hay.get(m.end()..).is_some_and(|after| after.starts_with(l)));
        if whole && (m.end() != hay.len() || refused) {
            return None;
        }
        if !refused {
            return Some(caps.get_group(1).map_or(m.start(), |g| g.start));
        }
        from = m.start() + hay.get(m.start()..)?.chars().next().map_or(1, char::len_utf8);
    }
    None
}

fn templates() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["zoo", "conformance/templates"] {
        let mut names: Vec<_> = std::fs::read_dir(common::fixtures_dir().join(dir)).expect("fixtures").filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".jinja")).collect();
        names.sort();
        for n in names {
            let src = std::fs::read_to_string(common::fixtures_dir().join(dir).join(&n)).expect("readable");
            out.push((format!("{dir}/{n}"), src));
        }
    }
    out
}

#[test]
fn every_templates_grammar_accepts_the_calls_its_round_trip_renders() {
    let mut cases = Expectations::load("zoo_grammars");
    let (mut templates_with_calls, mut templates_all_accepted) = (0, 0);
    for (name, src) in templates() {
        let Ok(t) = ChatTemplate::new(&src, RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }) else { continue };
        let Ok(analysis) = t.analysis() else { continue };
        let report = verify_template(&t);
        let calls: Vec<_> = report.results.iter().filter(|r| !r.expected.tool_calls.is_empty() && r.skipped.is_none() && r.error.is_none()).collect();
        if calls.is_empty() {
            continue;
        }
        templates_with_calls += 1;
        let mut all = true;
        for r in calls {
            let options = RequestOptions { tools: fixture_tools(), parallel_tool_calls: r.expected.tool_calls.len() > 1, ..Default::default() };
            let verdict = (|| -> Result<(), String> {
                let grammar = build_grammar(analysis, &options).map_err(|e| format!("build: {e}"))?;
                if grammar.gbnf.is_empty() {
                    return Err("no grammar".into());
                }
                let parsed = ParsedGrammar::parse(&grammar.gbnf).map_err(|e| format!("grammar does not parse: {e}"))?;
                let text = constrained(&grammar, &r.generation_prompt, &r.output)
                    .ok_or_else(|| format!("no trigger of {:?} fires in {:?}", grammar.triggers.iter().map(|t| &t.value).collect::<Vec<_>>(), r.output))?;
                if accepts(&parsed, &text) { Ok(()) } else { Err(format!("lazy={} {}", grammar.lazy, rejection(&parsed, &text))) }
            })();
            if let (Err(e), Ok(_)) = (&verdict, std::env::var("ZOO_GRAMMARS_VERBOSE")) {
                println!("{name}: {}: {e}", r.name);
            }
            all &= verdict.is_ok();
            cases.record(format!("{name}: {}", r.name), verdict);
        }
        templates_all_accepted += usize::from(all);
    }
    let (ok, tried) = cases.counts();
    println!("zoo grammars accept their round trips' call texts: {ok}/{tried} renders; {templates_all_accepted}/{templates_with_calls} templates accept all of theirs");
    cases.finish();
}

#[test]
fn a_trailing_negative_lookahead_refuses_the_matches_its_literal_follows() {
    let t = Trig::new(">>>(?!all)").expect("compiles");
    assert_eq!(captures(&t, "x>>>all\n hi >>>get_weather", false), Some(12));
    assert_eq!(captures(&t, ">>>all\n", false), None);
    assert!(Trig::new(">>>(?!a|b)").is_none(), "only a literal");
}
