//! transformers' own response-parsing test cases (tests/fixtures/hf-response-parsing, transcribed
//! as data from transformers' tests/utils/test_chat_parsing.py and checked against transformers
//! 5.23), run through our interpreter of declared response templates: whole text, and streamed
//! over fixed and random chunkings (stream ≡ whole).

use chat_autoparser::response_template::{parse_response, CompiledTemplate, ResponseParser};
use serde_json::Value;
use std::rc::Rc;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hf-response-parsing");

/// Cases we do not run as transformers does, with the reason (every other case must pass).
const KNOWN: &[(u64, &str)] = &[
    (57, "tag_pattern uses a backreference (\\1): rejected with InvalidInput (documented regex subset)"),
    (58, "tag_pattern uses a backreference (\\1): rejected with InvalidInput (documented regex subset)"),
];

fn load() -> (Value, Vec<Value>) {
    let templates: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/templates.json")).unwrap()).unwrap();
    let cases = std::fs::read_to_string(format!("{DIR}/cases.jsonl")).unwrap().lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    (templates["templates"].clone(), cases)
}

fn template_of<'a>(templates: &'a Value, case: &'a Value) -> &'a Value {
    case.get("template").unwrap_or_else(|| &templates[case["template_ref"].as_str().unwrap()])
}

fn tools_of(case: &Value) -> Vec<Value> {
    case.get("tools").and_then(Value::as_array).cloned().unwrap_or_default()
}

fn pick(out: Value, case: &Value) -> Value {
    match case.get("compare_key").and_then(Value::as_str) {
        Some(k) => out.get(k).cloned().unwrap_or(Value::Null),
        None => out,
    }
}

/// Same value, numbers compared as numbers (1.5 == 1.5, 7 == 7).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64() && x.is_f64() == y.is_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

#[test]
fn transformers_cases_whole_text() {
    let (templates, cases) = load();
    let (mut pass, mut known) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_u64().unwrap();
        let result = parse_response(case["text"].as_str().unwrap(), template_of(&templates, case), case["prefix"].as_str().unwrap(), &tools_of(case));
        if let Some((_, why)) = KNOWN.iter().find(|(k, _)| *k == id) {
            let e = result.expect_err("a known unsupported case must fail loudly");
            assert!(e.to_string().contains("backreference"), "#{id}: {e} ({why})");
            known += 1;
            continue;
        }
        let verdict = match (case.get("expected_error"), result) {
            (Some(_), Err(_)) => Ok(()),
            (Some(want), Ok(got)) => Err(format!("expected an error ({want}), got {got}")),
            (None, Ok(got)) => {
                let got = pick(got, case);
                if same(&got, &case["expected"]) { Ok(()) } else { Err(format!("got {got}\n   want {}", case["expected"])) }
            }
            (None, Err(e)) => Err(format!("error: {e}")),
        };
        match verdict {
            Ok(()) => pass += 1,
            Err(why) => failures.push(format!("#{id} {}: {why}", case["source"])),
        }
    }
    println!("transformers response-parsing cases: {pass}/{} pass, {known} known unsupported (backreferences)", cases.len() - known);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn chunked(text: &str, cuts: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&text.len())) {
        let mut c = c.min(text.len()).max(prev);
        while !text.is_char_boundary(c) {
            c += 1;
        }
        if c > prev {
            out.push(text[prev..c].to_string());
            prev = c;
        }
    }
    out
}

#[test]
fn streamed_equals_whole_for_every_chunking() {
    let (templates, cases) = load();
    let mut rng = Rng(0xC0DE_5EED);
    let mut runs = 0;
    for case in cases.iter().filter(|c| c.get("expected_error").is_none() && !KNOWN.iter().any(|(k, _)| Some(*k) == c["id"].as_u64())) {
        let text = case["text"].as_str().unwrap();
        let prefix = case["prefix"].as_str().unwrap();
        let t = Rc::new(CompiledTemplate::from_value(template_of(&templates, case)).unwrap());
        let whole = parse_response(text, template_of(&templates, case), prefix, &tools_of(case)).unwrap();
        let mut chunkings: Vec<Vec<usize>> = [1usize, 2, 3, 5, 7, 13, 31].iter().map(|&s| (s..text.len()).step_by(s).collect()).collect();
        for _ in 0..30 {
            let n = if text.is_empty() { 0 } else { (rng.next() as usize) % text.len() };
            let mut cuts: Vec<usize> = (0..n).map(|_| 1 + (rng.next() as usize) % text.len().max(1)).collect();
            cuts.sort();
            chunkings.push(cuts);
        }
        for cuts in chunkings {
            let mut p = ResponseParser::new(t.clone(), prefix, &tools_of(case)).unwrap();
            for chunk in chunked(text, &cuts) {
                p.feed(&chunk).unwrap();
            }
            let (msg, _) = p.finalize().unwrap();
            assert_eq!(msg, whole, "#{} streamed with cuts {cuts:?}", case["id"]);
            runs += 1;
        }
    }
    println!("transformers response-parsing cases: stream == whole over {runs} chunkings");
}

/// The same cases through `StreamParser` (OpenAI deltas): the message matches transformers' dict
/// for content, reasoning and tool calls, and every chunking gives the same deltas' message.
#[test]
fn declared_template_as_stream_parser() {
    use chat_autoparser::api::{Message, RequestOptions};
    use chat_autoparser::response_template::declared_stream_parser;
    let (templates, cases) = load();
    let mut checked = 0;
    for case in cases.iter().filter(|c| c.get("expected_error").is_none() && c.get("compare_key").is_none() && !KNOWN.iter().any(|(k, _)| Some(*k) == c["id"].as_u64())) {
        let id = &case["id"];
        let text = case["text"].as_str().unwrap();
        let prefix = case["prefix"].as_str().unwrap();
        let t = Rc::new(CompiledTemplate::from_value(template_of(&templates, case)).unwrap());
        let options = RequestOptions { tools: tools_of(case), ..Default::default() };
        let run = |cuts: &[usize]| -> Message {
            let mut p = declared_stream_parser(t.clone(), prefix, &options).unwrap();
            let mut deltas = Vec::new();
            for chunk in chunked(text, cuts) {
                deltas.extend(p.push(&chunk));
            }
            deltas.extend(p.finish().unwrap());
            assert_eq!(&Message::from_deltas(&deltas), p.message(), "#{id}: deltas rebuild the message");
            p.message().clone()
        };
        let whole = run(&[]);
        let want = &case["expected"];
        let text_of = |k: &str| want.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        if want.get("content").is_none_or(Value::is_string) {
            assert_eq!(whole.content, text_of("content"), "#{id} content");
        }
        if want.get("thinking").is_none_or(Value::is_string) {
            assert_eq!(whole.reasoning_content, text_of("thinking"), "#{id} reasoning");
        }
        let calls = want.get("tool_calls").and_then(Value::as_array).cloned().unwrap_or_default();
        assert_eq!(whole.tool_calls.len(), calls.len(), "#{id} tool calls");
        for (got, want) in whole.tool_calls.iter().zip(&calls) {
            assert_eq!(got.function.name, want["function"]["name"].as_str().unwrap_or(""), "#{id}");
            let args: Value = serde_json::from_str(&got.function.arguments).unwrap();
            assert!(same(&args, &want["function"]["arguments"]), "#{id}: {args} vs {}", want["function"]["arguments"]);
        }
        for step in [1usize, 2, 3, 7] {
            let cuts: Vec<usize> = (step..text.len()).step_by(step).collect();
            assert_eq!(run(&cuts), whole, "#{id} streamed in {step}-byte chunks");
        }
        checked += 1;
    }
    println!("transformers response-parsing cases through StreamParser: {checked} messages, stream == whole");
}
