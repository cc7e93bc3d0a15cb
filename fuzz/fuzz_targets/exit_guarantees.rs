//! The exit guarantees (issue #24) on arbitrary text for templates of every argument style (JSON,
//! tagged, literal and dedicated formats), through the public `StreamParser`: no panic, every call's
//! `arguments` valid JSON and never empty, a chunked parse (chunk size from the first byte) equal to
//! the whole-text parse, and deltas that rebuild the message. Seed the corpus with the corpus outputs
//! (tests/fixtures/real-outputs/*.jsonl `output`, prefixed with one byte) so libFuzzer's deletions,
//! insertions and cuts start from real calls.
#![no_main]
use chat_autoparser::api::{Delta, Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions, StreamParser};
use libfuzzer_sys::fuzz_target;

/// One template per argument style, with a tool whose parameters cover the value types.
const TEMPLATES: [&str; 6] = [
    "Qwen-Qwen3-0.6B.jinja",
    "Qwen3-Coder.jinja",
    "LFM2-8B-A1B.jinja",
    "google-gemma-4-31B-it.jinja",
    "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
    "openai-gpt-oss-120b.jinja",
];

struct Setup {
    template: ChatTemplate,
    gp: String,
    options: RequestOptions,
}

fn setups() -> Vec<Setup> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/conformance/templates/");
    let tools = vec![serde_json::json!({"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "s": {"type": "string"}, "n": {"type": "integer"}, "a": {"type": "array"}, "o": {"type": "object"}}}}})];
    TEMPLATES
        .iter()
        .filter_map(|name| {
            let template = ChatTemplate::new(&std::fs::read_to_string(format!("{dir}{name}")).ok()?, RenderOptions::default()).ok()?;
            let options = RequestOptions { tools: tools.clone(), parallel_tool_calls: true, ..RequestOptions::default() };
            let gp = template.generation_prompt(&options).ok()?;
            Some(Setup { template, gp, options })
        })
        .collect()
}

thread_local! {
    static SETUPS: Vec<Setup> = setups();
}

fn parse(s: &Setup, chunks: &[&str]) -> (Message, Vec<Delta>, Option<&'static str>) {
    let mut p = StreamParser::new(s.template.analysis().expect("analysis"), &s.gp, &s.options).expect("parser");
    let mut deltas = Vec::new();
    for c in chunks {
        p.push_into(c, &mut deltas);
    }
    deltas.extend(p.finish().expect("not strict"));
    (p.message().clone(), deltas, p.finish_reason())
}

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    SETUPS.with(|setups| {
        let Some(s) = setups.get(k as usize % setups.len().max(1)) else { return };
        let size = 1 + (k as usize / 8 % 8);
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).step_by(size).chain([text.len()]).collect();
        let chunks: Vec<&str> = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        let whole = parse(s, &[text]);
        for c in &whole.0.tool_calls {
            let a = &c.function.arguments;
            assert!(serde_json::from_str::<serde_json::Value>(a).is_ok(), "arguments {a:?} are not JSON");
        }
        assert_eq!(Message::from_deltas(&whole.1), whole.0, "deltas rebuild the message");
        let chunked = parse(s, &chunks);
        assert_eq!((&whole.0, whole.2), (&chunked.0, chunked.2), "stream ≡ whole");
    });
});
