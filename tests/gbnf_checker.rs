//! The GBNF checker against llama.cpp's own grammars: every grammar llama.cpp produced for the
//! conformance cases and the fixed analysis request must parse, and must accept the text llama.cpp
//! checked against it (`grammar_check.constrained_text`).

mod common;

use chat_autoparser::gbnf::{check_grammar, ParsedGrammar};
use std::time::Instant;

#[test]
fn llama_cpp_grammars_parse_and_accept_their_constrained_text() {
    let t0 = Instant::now();
    let mut parsed = 0;
    let mut total = 0;
    let mut checked = 0;
    let mut accepted = 0;
    let mut failures = Vec::new();
    for case in common::load_jsonl("cases.jsonl") {
        let Some(g) = case["prompt_side"]["grammar"].as_str().filter(|g| !g.is_empty()) else { continue };
        total += 1;
        let grammar = match ParsedGrammar::parse(g) {
            Ok(p) => {
                parsed += 1;
                p
            }
            Err(e) => {
                failures.push(format!("case {}: parse: {e}", case["id"]));
                continue;
            }
        };
        let gc = &case["grammar_check"];
        if gc["checked"] != true {
            continue;
        }
        let text = gc["constrained_text"].as_str().unwrap_or_default();
        let expect = gc["matched"] == true;
        checked += 1;
        match grammar.check(text) {
            Ok(r) if r.accepted == expect => accepted += 1,
            Ok(r) => failures.push(format!("case {} ({}): accepted={} expected {expect}, error_at {:?}", case["id"], case["template"], r.accepted, r.error_at)),
            Err(e) => failures.push(format!("case {}: check: {e}", case["id"])),
        }
    }
    for rec in common::load_jsonl("analysis.jsonl") {
        for side in ["with_tools", "no_tools"] {
            if let Some(g) = rec[side]["chat_params"]["grammar"].as_str().filter(|g| !g.is_empty()) {
                total += 1;
                match ParsedGrammar::parse(g) {
                    Ok(_) => parsed += 1,
                    Err(e) => failures.push(format!("{} {side}: parse: {e}", rec["template"])),
                }
            }
        }
    }
    println!("llama.cpp grammars parsed: {parsed}/{total}; constrained texts agreeing with llama.cpp's verdict: {accepted}/{checked}");
    println!("elapsed: {:?}", t0.elapsed());
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert_eq!(parsed, total, "every llama.cpp grammar must parse");
    assert_eq!(accepted, checked, "checker must agree with llama.cpp on every checked text");
}

#[test]
fn checker_rejects_corruptions_of_llama_cpp_texts() {
    // Cutting the last character off a JSON tool call must leave an incomplete (rejected) text, with
    // the error at the end; the checker must not accept everything.
    let mut rejected = 0;
    let mut tried = 0;
    for case in common::load_jsonl("cases.jsonl") {
        let gc = &case["grammar_check"];
        let (Some(g), Some(text)) = (case["prompt_side"]["grammar"].as_str(), gc["constrained_text"].as_str()) else { continue };
        if gc["matched"] != true || !text.ends_with('}') {
            continue;
        }
        tried += 1;
        let cut = &text[..text.len() - 1];
        let r = check_grammar(g, cut).expect("parses");
        if !r.accepted && r.error_at == Some(cut.len()) {
            rejected += 1;
        } else {
            println!("  case {} accepted truncated text", case["id"]);
        }
    }
    println!("truncated texts rejected at their end: {rejected}/{tried}");
    assert!(tried > 20);
    assert_eq!(rejected, tried);
}

/// Mutated llama.cpp grammars and texts never panic the parser or the checker (they may be errors).
#[test]
fn mutations_never_panic() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let samples: Vec<(String, String)> = common::load_jsonl("cases.jsonl")
        .into_iter()
        .filter_map(|c| Some((c["prompt_side"]["grammar"].as_str()?.to_string(), c["grammar_check"]["constrained_text"].as_str().unwrap_or("").to_string())))
        .take(40)
        .collect();
    let pieces = ["(", ")", "\"", "[", "]", "\\", "{", "}", "{2,1}", "*", "|", "\n", "::=", "<", "!", "\\x", "\\U0011FFFF", "é", "#"];
    let mut runs = 0;
    for (g, text) in &samples {
        for _ in 0..25 {
            let chars: Vec<char> = g.chars().collect();
            let at = (next() as usize) % (chars.len() + 1);
            let piece = pieces[(next() as usize) % pieces.len()];
            let mutated: String = chars[..at].iter().collect::<String>() + piece + &chars[at..].iter().collect::<String>();
            if let Ok(p) = ParsedGrammar::parse(&mutated) {
                let tchars: Vec<char> = text.chars().collect();
                let cut = (next() as usize) % (tchars.len() + 1);
                let _ = p.check(&tchars[..cut].iter().collect::<String>());
            }
            runs += 1;
        }
    }
    println!("mutated grammars run without panic: {runs}");
    assert!(runs >= 500);
}

/// Rule names are llama.cpp's `[a-zA-Z0-9-]`: an underscore is a syntax error there, so here too.
#[test]
fn rule_names_follow_llama_cpp() {
    assert!(ParsedGrammar::parse("root ::= a-b\na-b ::= \"x\"").is_ok());
    assert!(ParsedGrammar::parse("root ::= a_b\na_b ::= \"x\"").is_err());
}

/// Issue #11 item 9: tagged-argument grammars end a string value with a right-recursive "anything
/// until `</parameter>`" rule; a valid 64 KB Qwen3-Coder call must be accepted within the checker's
/// limits, with work linear in its length (it was a `Limit` error from 4 KB on).
#[test]
fn long_tagged_call_is_accepted_in_linear_work() {
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::build_grammar;
    use chat_autoparser::{ChatTemplate, RenderOptions};
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance/templates/Qwen3-Coder.jinja")).unwrap();
    let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
    let tool = serde_json::json!({"type": "function", "function": {"name": "write_file", "parameters": {
        "type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}}});
    let opts = RequestOptions { tools: vec![tool], ..RequestOptions::default() };
    let g = ParsedGrammar::parse(&build_grammar(t.analysis().unwrap(), &opts).unwrap().gbnf).unwrap();
    let line = "The quick brown fox; a < b, c > d, x = \"y\" </para\n";
    let call = |n: usize| {
        let body: String = line.repeat(n / line.len() + 1).chars().take(n).collect();
        format!("<tool_call>\n<function=write_file>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>")
    };
    let (small, small_items) = g.check_counting(&call(1024)).unwrap();
    let (big, big_items) = g.check_counting(&call(65536)).unwrap();
    assert!(small.accepted && big.accepted);
    // 64× the text, at most ~64× the work (quadratic would be ~4096×).
    assert!(big_items < 80 * small_items, "1 KB: {small_items} items, 64 KB: {big_items}");
}
