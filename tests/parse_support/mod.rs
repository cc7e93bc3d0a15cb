//! Helpers for the output-parser tests: run a parser whole or chunked, compare messages the way
//! llama.cpp's harness does.
#![allow(dead_code)]

use chat_autoparser::api::{Delta, Message};
use chat_autoparser::testing::OutputParser;

/// Result of one run: the deltas, the message they build, and finish's error text.
pub struct Run {
    pub deltas: Vec<Delta>,
    pub message: Message,
    pub error: Option<String>,
}

/// Feed `chunks` to `parser`, then finish.
pub fn run_chunks(mut parser: Box<dyn OutputParser>, chunks: &[&str], is_partial: bool) -> Run {
    let mut deltas = Vec::new();
    for c in chunks {
        parser.push(c, &mut deltas);
    }
    let error = parser.finish(is_partial, &mut deltas).err().map(|e| e.to_string());
    let message = Message::from_deltas(&deltas);
    Run { deltas, message, error }
}

/// Deterministic xorshift generator (tests must not depend on an RNG crate).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Split `text` at char boundaries into random chunks of 1..=max_len chars.
pub fn random_chunks<'a>(text: &'a str, rng: &mut Rng, max_len: usize) -> Vec<&'a str> {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bounds.len() {
        let j = (i + 1 + rng.below(max_len)).min(bounds.len() - 1);
        out.push(&text[bounds[i]..bounds[j]]);
        i = j;
    }
    out
}

/// One chunk per char.
pub fn char_chunks(text: &str) -> Vec<&str> {
    text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]).collect()
}

fn normalize_args(s: &str) -> String {
    serde_json::from_str::<serde_json::Value>(s).map(|v| v.to_string()).unwrap_or_default()
}

fn trim_ascii(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// llama.cpp harness comparison: trimmed content/reasoning, exact names and ids, arguments as JSON.
/// Returns a description of the first difference.
pub fn harness_diff(actual: &Message, expected: &serde_json::Value) -> Option<String> {
    let exp_str = |k: &str| expected.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    if trim_ascii(&actual.content) != trim_ascii(&exp_str("content")) {
        return Some(format!("content {:?} != {:?}", actual.content, exp_str("content")));
    }
    if trim_ascii(&actual.reasoning_content) != trim_ascii(&exp_str("reasoning_content")) {
        return Some(format!("reasoning {:?} != {:?}", actual.reasoning_content, exp_str("reasoning_content")));
    }
    let calls = expected.get("tool_calls").and_then(|v| v.as_array()).cloned().unwrap_or_default();
    if calls.len() != actual.tool_calls.len() {
        return Some(format!("{} tool calls, expected {}: {:?}", actual.tool_calls.len(), calls.len(), actual.tool_calls));
    }
    for (a, e) in actual.tool_calls.iter().zip(&calls) {
        let g = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
        // Ids only where the case gives one: these parsers run below StreamParser, which generates
        // the missing ones (see tests/call_ids.rs).
        if a.function.name != g("name") || (!g("id").is_empty() && a.id != g("id")) {
            return Some(format!("call {:?}/{:?} != {:?}/{:?}", a.function.name, a.id, g("name"), g("id")));
        }
        if normalize_args(&a.function.arguments) != normalize_args(&g("arguments")) {
            return Some(format!("args {:?} != {:?}", a.function.arguments, g("arguments")));
        }
    }
    None
}

/// Merge adjacent deltas of the same kind (and call), so delta sequences from different chunkings
/// can be compared.
pub fn coalesce(deltas: &[Delta]) -> Vec<Delta> {
    let mut out: Vec<Delta> = Vec::new();
    for d in deltas {
        match (out.last_mut(), d) {
            (Some(Delta::Content(a)), Delta::Content(b)) | (Some(Delta::Reasoning(a)), Delta::Reasoning(b)) => {
                a.push_str(b)
            }
            (
                Some(Delta::ToolCall { index: i, arguments: Some(a), .. }),
                Delta::ToolCall { index: j, id: None, name: None, arguments: Some(b) },
            ) if i == j => a.push_str(b),
            (
                Some(Delta::ToolCall { index: i, arguments: a @ None, .. }),
                Delta::ToolCall { index: j, id: None, name: None, arguments: Some(b) },
            ) if i == j => *a = Some(b.clone()),
            _ => out.push(d.clone()),
        }
    }
    out
}

/// Parse `text` whole, one char at a time and in seeded random chunkings; assert all give the same
/// message, error and diagnostics count, and return the whole-text run.
pub fn parse_every_way(make: &dyn Fn() -> Box<dyn OutputParser>, text: &str, is_partial: bool) -> Run {
    let whole = run_chunks(make(), &[text], is_partial);
    let mut chunkings = vec![char_chunks(text)];
    let mut rng = Rng::new(text.len() as u64 + 7);
    for max in [2, 3, 5, 9] {
        for _ in 0..8 {
            chunkings.push(random_chunks(text, &mut rng, max));
        }
    }
    for chunks in chunkings {
        let run = run_chunks(make(), &chunks, is_partial);
        assert_eq!(run.message, whole.message, "chunks {chunks:?}");
        assert_eq!(coalesce(&run.deltas), coalesce(&whole.deltas), "chunks {chunks:?}");
        assert_eq!(run.error, whole.error, "chunks {chunks:?}");
    }
    whole
}
