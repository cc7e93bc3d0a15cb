//! Grammar-check time for long valid tool calls (issue #11 item 9): for Qwen3-Coder (tagged arguments)
//! and Hermes 2 Pro (JSON arguments), build the grammar for one tool with a string parameter, make a
//! valid call whose string value is 1–64 KB, and time `check`. Flat time per KB means a linear check.
//! Run: `cargo run --profile bench --example check_long_calls [templates dir]`.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::build_grammar;
use chat_autoparser::gbnf::ParsedGrammar;
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "tests/fixtures/conformance/templates".into());
    let tool = json!({"type": "function", "function": {"name": "write_file", "parameters": {
        "type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}}});
    println!("{:<48} {:>6} {:>10} {:>10}", "template", "KB", "check", "ms/KB");
    for (file, tagged) in [("Qwen3-Coder.jinja", true), ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", false)] {
        let src = std::fs::read_to_string(format!("{dir}/{file}")).expect("template");
        let t = ChatTemplate::new(&src, RenderOptions::default()).expect("compiles");
        let opts = RequestOptions { tools: vec![tool.clone()], ..RequestOptions::default() };
        let g = build_grammar(t.analysis().expect("analysis"), &opts).expect("grammar");
        if std::env::var("PRINT_GBNF").is_ok() { println!("{}", g.gbnf); }
        let parsed = ParsedGrammar::parse(&g.gbnf).expect("parses");
        for kb in [1usize, 4, 16, 64] {
            let line = "The quick brown fox jumps over the lazy dog; a < b, c > d, x = \"y\".\n";
            let body: String = line.repeat(kb * 1024 / line.len() + 1)[..kb * 1024].to_string();
            let call = if tagged {
                format!("<tool_call>\n<function=write_file>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>")
            } else {
                format!("<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"content\": {}}}}}\n</tool_call>", json!(body))
            };
            let t0 = Instant::now();
            let r = parsed.check(&call);
            let dt = t0.elapsed();
            let verdict = match &r {
                Ok(r) if r.accepted => "accepted".to_string(),
                Ok(r) => format!("rejected at {:?}", r.error_at),
                Err(e) => format!("error: {e}"),
            };
            println!("{file:<48} {kb:>6} {:>10.1?} {:>10.3}  {verdict}", dt, dt.as_secs_f64() * 1000.0 / kb as f64);
        }
    }
}
