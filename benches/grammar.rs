//! Grammar size and build time for 1, 10 and 100 tools with several optional parameters each, on a
//! JSON format, a tagged-JSON format and a tagged-arguments format. Also times checking a call.
//! Run: `cargo bench --bench grammar`.

use chat_autoparser::analysis::{Analysis, ToolFormat};
use chat_autoparser::api::RequestOptions;
use chat_autoparser::build_grammar;
use chat_autoparser::gbnf::{ParsedGrammar};
use serde_json::json;
use std::time::Instant;

fn analysis(mode: ToolFormat) -> Analysis {
    let mut a = Analysis::default();
    let f = &mut a.tools.format;
    f.mode = mode;
    f.per_call_start = "<tool_call>\n".into();
    f.per_call_end = "</tool_call>".into();
    f.name_field = "name".into();
    f.args_field = "arguments".into();
    if mode != ToolFormat::JsonNative {
        a.tools.function.name_prefix = "<function=".into();
        a.tools.function.name_suffix = ">\n".into();
        a.tools.function.close = "</function>\n".into();
        a.tools.arguments.name_prefix = "<parameter=".into();
        a.tools.arguments.name_suffix = ">\n".into();
        a.tools.arguments.value_suffix = "\n</parameter>\n".into();
    }
    a
}

fn tools(n: usize) -> Vec<serde_json::Value> {
    (0..n)
        .map(|i| {
            json!({"type": "function", "function": {"name": format!("tool_{i}"), "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "mode": {"enum": ["fast", "exact", "fuzzy"]},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                    "verbose": {"type": "boolean"},
                    "filter": {"type": "object", "properties": {"field": {"type": "string"}, "value": {"type": "number"}}},
                },
                "required": ["query"],
            }}})
        })
        .collect()
}

fn main() {
    println!("{:<16} {:>6} {:>10} {:>8} {:>12} {:>12}", "format", "tools", "bytes", "rules", "build", "check call");
    for (label, mode) in [("json", ToolFormat::JsonNative), ("tag+json", ToolFormat::TagWithJson), ("tag+tagged", ToolFormat::TagWithTagged)] {
        let a = analysis(mode);
        for n in [1, 10, 100] {
            let opts = RequestOptions { tools: tools(n), parallel_tool_calls: true, ..RequestOptions::default() };
            let runs = if n == 100 { 5 } else { 50 };
            let t0 = Instant::now();
            let mut g = None;
            for _ in 0..runs {
                g = Some(build_grammar(&a, &opts).expect("builds"));
            }
            let build = t0.elapsed() / runs;
            let g = g.expect("built");
            let parsed = ParsedGrammar::parse(&g.gbnf).expect("parses");
            let last = n - 1;
            let call = match mode {
                ToolFormat::JsonNative => format!(
                    "<tool_call>\n{{\"name\": \"tool_{last}\", \"arguments\": {{\"query\": \"weather in Paris\", \"mode\": \"fast\", \"verbose\": true}}}}\n</tool_call>"
                ),
                ToolFormat::TagWithJson => format!("<tool_call>\n<function=tool_{last}>\n{{\"query\": \"weather in Paris\", \"limit\": 3}}</function>\n</tool_call>"),
                _ => format!(
                    "<tool_call>\n<function=tool_{last}>\n<parameter=query>\nweather in Paris\n</parameter>\n<parameter=limit>\n3\n</parameter>\n</function>\n</tool_call>"
                ),
            };
            let t1 = Instant::now();
            let r = parsed.check(&call).expect("checks");
            let check = t1.elapsed();
            assert!(r.accepted, "{label} {n}: {call}");
            let rules = g.gbnf.lines().count();
            println!("{label:<16} {n:>6} {:>10} {rules:>8} {:>12?} {:>12?}", g.gbnf.len(), build, check);
        }
    }
}
