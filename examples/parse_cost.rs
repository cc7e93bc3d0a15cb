//! Per-call cost of parsing through the request layer, natively: set-up (a tiny parse, a parser built
//! and dropped) and a whole 30 KB parse, for the bench inputs, with the request the Node bench sends
//! (three tools, a two-message conversation), and with no options.
//! `cargo run --release --example parse_cost [reps]`; `… parse_cost 1 soup`: 5K–40K bytes of `\n{` (a
//! marker-less call candidate per line) streamed in 64-byte chunks, to see the growth stay linear;
//! `… parse_cost 200 response`: the declared-response-template path (`parse_response` with the response
//! template we derive, prefix = the generation prompt), per 30 KB input; `… parse_cost 200 stream`: each 30 KB
//! input streamed in 4-byte chunks through `StreamParser::push_into` (the Node bench's 8K stream, natively);
//! `… parse_cost 200 early`: the 30 KB whole parse with tools and messages as is, and with a `{`, a `[` or a
//! backtick written in its first line (mid-line), so the marker-less calls' configurations (rules R28, R34) are
//! built from the start and every later content step has them.
use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;
use std::time::Instant;

fn median(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut v: Vec<f64> = (0..reps).map(|_| { let t = Instant::now(); f(); t.elapsed().as_secs_f64() * 1e6 }).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    if std::env::args().nth(2).as_deref() == Some("soup") {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let src = std::fs::read_to_string(root.join("conformance/templates/Qwen3-Coder.jinja")).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        let opts = RequestOptions { tools: vec![json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}})], ..Default::default() };
        for n in [5_000, 10_000, 20_000, 40_000] {
            let soup = "\n{".repeat(n);
            let t0 = Instant::now();
            let mut p = t.stream_parser(&opts).unwrap();
            for chunk in soup.as_bytes().chunks(64) { p.push(std::str::from_utf8(chunk).unwrap()); }
            p.finish().unwrap();
            println!("soup {n}: {:?}", t0.elapsed());
        }
        return;
    }
    match std::env::args().nth(2).as_deref() {
        Some("response") => return response_cost(reps),
        Some("stream") => return stream_cost(reps),
        Some("tools32") => return tools32_cost(reps),
        Some("early") => return early_cost(reps),
        Some("fresh") => return fresh_conversation_cost(reps),
        Some("uncached") => return uncached_cost(reps),
        _ => {}
    }
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}});
    let tools = vec![tool("get_weather"), tool("get_time"), tool("search")];
    let messages = vec![json!({"role": "system", "content": "You are a helpful assistant."}), json!({"role": "user", "content": "What is the weather in Paris?"})];
    for (name, family) in [("Qwen3.5-4B.jinja", "qwen3.5-4b"), ("Qwen3-Coder.jinja", "qwen3-coder"), ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "hermes-2-pro"), ("openai-gpt-oss-120b.jinja", "gpt-oss")] {
        let src = std::fs::read_to_string(root.join("conformance/templates").join(name)).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        let text = std::fs::read_to_string(root.join(format!("bench/inputs/{family}-8k.txt"))).unwrap();
        for (label, opts) in [("tools+messages", RequestOptions { tools: tools.clone(), messages: messages.clone(), ..Default::default() }), ("none", RequestOptions::default())] {
            let tiny = median(|| { std::hint::black_box(t.parse_output("Hi", &opts).unwrap()); }, reps);
            let build = median(|| { std::hint::black_box(t.stream_parser(&opts).unwrap()); }, reps);
            let whole = median(|| { std::hint::black_box(t.parse_output(&text, &opts).unwrap()); }, reps);
            println!("{name:<55} {label:<15} tiny {tiny:8.1} µs  build {build:8.1} µs  whole {whole:8.1} µs  {:7.0} MB/s", text.len() as f64 / whole);
        }
    }
}

const BENCH: [(&str, &str); 4] = [("Qwen3.5-4B.jinja", "qwen3.5-4b"), ("Qwen3-Coder.jinja", "qwen3-coder"), ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "hermes-2-pro"), ("openai-gpt-oss-120b.jinja", "gpt-oss")];

fn response_cost(reps: usize) {
    use chat_autoparser::response_template::{parse_response, response_template, ResponseTemplateOptions};
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let tools = vec![json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}})];
    // PARSE_COST_ONLY=gpt-oss: one input (for a profile).
    let only = std::env::var("PARSE_COST_ONLY").unwrap_or_default();
    for (name, family) in BENCH.into_iter().filter(|(_, f)| f.contains(only.as_str())) {
        let src = std::fs::read_to_string(root.join("conformance/templates").join(name)).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        let rt = response_template(&t, &ResponseTemplateOptions::default()).unwrap().response_template;
        let prefix = t.generation_prompt(&RequestOptions::default()).unwrap();
        let text = std::fs::read_to_string(root.join(format!("bench/inputs/{family}-8k.txt"))).unwrap();
        let tiny = median(|| { std::hint::black_box(parse_response("Hi", &rt, &prefix, &tools).unwrap()); }, reps);
        let whole = median(|| { std::hint::black_box(parse_response(&text, &rt, &prefix, &tools).unwrap()); }, reps);
        println!("{name:<55} parse_response  tiny {tiny:8.1} µs  whole {whole:8.1} µs  {:7.0} MB/s", text.len() as f64 / whole);
    }
}

/// `… parse_cost 2000 uncached`: a parser built from the analysis with `StreamParser::new` (no request-layer
/// cache: what the Rust API's low-level constructor costs, and what benches/report.rs times per parse).
fn uncached_cost(reps: usize) {
    use chat_autoparser::{generation_prompt, StreamParser};
    let opts = one_tool_request();
    for (name, t, _) in bench_cases() {
        let a = t.analysis().unwrap().clone();
        let gp = generation_prompt(&t, &a, &opts).unwrap();
        let build = median(|| { std::hint::black_box(StreamParser::new(&a, &gp, &opts).unwrap()); }, reps);
        println!("{name:<55} StreamParser::new from the analysis: {build:8.1} µs");
    }
}

/// `… parse_cost 300 fresh`: set-up when every reply belongs to a new conversation (a chat frontend parses each
/// reply once, with the conversation so far): the generation prompt rendered for it, the parser built and fed it.
fn fresh_conversation_cost(reps: usize) {
    let tools = ["get_weather", "get_time", "search"].map(|n| json!({"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}}));
    let mut n = 0;
    let mut request = || {
        n += 1;
        let messages = vec![json!({"role": "system", "content": "You are a helpful assistant."}), json!({"role": "user", "content": format!("What is the weather in city {n}?")})];
        RequestOptions { tools: tools.to_vec(), messages, ..Default::default() }
    };
    for (name, t, _) in bench_cases() {
        let prompt = median(|| { std::hint::black_box(t.generation_prompt(&request()).unwrap()); }, reps);
        let tiny = median(|| { std::hint::black_box(t.parse_output("Hi", &request()).unwrap()); }, reps);
        println!("{name:<55} new conversation per reply: generation prompt {prompt:8.1} µs, tiny parse {tiny:8.1} µs");
    }
}

/// The request the bench outputs answer: one get_weather tool.
fn one_tool_request() -> RequestOptions {
    let tools = vec![json!({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}})];
    RequestOptions { tools, ..Default::default() }
}

/// The bench templates (PARSE_COST_ONLY=gpt-oss: one, for a profile) with their 30 KB input.
fn bench_cases() -> Vec<(&'static str, ChatTemplate, String)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let only = std::env::var("PARSE_COST_ONLY").unwrap_or_default();
    BENCH.into_iter().filter(|(_, f)| f.contains(only.as_str())).map(|(name, family)| {
        let src = std::fs::read_to_string(root.join("conformance/templates").join(name)).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        (name, t, std::fs::read_to_string(root.join(format!("bench/inputs/{family}-8k.txt"))).unwrap())
    }).collect()
}

fn stream_cost(reps: usize) {
    let opts = one_tool_request();
    for (name, t, text) in bench_cases() {
        let chunks: Vec<String> = text.chars().collect::<Vec<_>>().chunks(4).map(|c| c.iter().collect()).collect();
        let mut out = Vec::new();
        let stream = median(|| {
            let mut p = t.stream_parser(&opts).unwrap();
            for c in &chunks {
                out.clear();
                p.push_into(c, &mut out);
            }
            std::hint::black_box(p.finish().unwrap());
        }, reps);
        println!("{name:<55} stream, {} chunks of 4 characters: {stream:8.1} µs ({:.0} ns per push)", chunks.len(), stream * 1e3 / chunks.len() as f64);
    }
}

/// `… parse_cost 2000 tools32`: a tiny parse through the keyed parser cache (as wasm calls it: the options'
/// JSON text as the key), with 3 and with 32 declared tools: what the Rust side adds per declared tool.
fn tools32_cost(reps: usize) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let tool = |name: String| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}});
    let messages = vec![json!({"role": "system", "content": "You are a helpful assistant."}), json!({"role": "user", "content": "What is the weather in Paris?"})];
    for name in ["Qwen3.5-4B.jinja", "Qwen3-Coder.jinja", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "openai-gpt-oss-120b.jinja"] {
        let src = std::fs::read_to_string(root.join("conformance/templates").join(name)).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        let mut line = format!("{name:<55}");
        for n in [3, 32] {
            let opts = RequestOptions { tools: (0..n).map(|i| tool(format!("tool_{i}"))).collect(), messages: messages.clone(), ..Default::default() };
            let key = serde_json::to_string(&opts).unwrap();
            let tiny = median(|| { std::hint::black_box(t.stream_parser_keyed(&key, &opts).unwrap().parse_whole("Hi").unwrap()); }, reps);
            line += &format!("  {n} tools {tiny:6.2} µs");
        }
        println!("{line}");
    }
}

/// `… parse_cost 100 early`: the 30 KB whole parse with tools as is and with a `{`, `[` or backtick in
/// its first line, so the marker-less calls' configurations (R28, R34) are built from the start.
fn early_cost(reps: usize) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}}}});
    let opts = RequestOptions { tools: vec![tool("get_weather"), tool("get_time"), tool("search")], messages: vec![json!({"role": "system", "content": "You are a helpful assistant."}), json!({"role": "user", "content": "What is the weather in Paris?"})], ..Default::default() };
    let only = std::env::var("PARSE_COST_ONLY").unwrap_or_default();
    for (name, family) in BENCH.into_iter().filter(|(_, f)| f.contains(only.as_str())) {
        let src = std::fs::read_to_string(root.join("conformance/templates").join(name)).unwrap();
        let t = ChatTemplate::new(&src, RenderOptions::default()).unwrap();
        let text = std::fs::read_to_string(root.join(format!("bench/inputs/{family}-8k.txt"))).unwrap();
        let mut line = format!("{name:<55} whole");
        // PARSE_COST_EARLY={: that variant only (for a profile).
        let which = std::env::var("PARSE_COST_EARLY").unwrap_or_default();
        for (label, insert) in [("as is", ""), ("{", " {a}"), ("[", " [1]"), ("`", " `x`")].into_iter().filter(|(l, _)| which.is_empty() || *l == which) {
            // After the first word of the text's first line that is not markup.
            let at = text.find(" ").unwrap_or(0);
            let variant = format!("{}{insert}{}", &text[..at], &text[at..]);
            let whole = median(|| { std::hint::black_box(t.parse_output(&variant, &opts).unwrap()); }, reps);
            line.push_str(&format!("  {label} {whole:7.1} µs"));
        }
        println!("{line}");
    }
}
