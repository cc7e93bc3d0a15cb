//! Helpers for the leniency tests: parse a model output whole and in chunkings (all must agree), and
//! read the calls and the rules the diagnostics name.

use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::Value;

/// Parse `output` for `template` whole and in chunks of each of `sizes` characters (all must give the
/// same message); the whole parse's message and diagnostics.
pub fn parse_chunked(template: &str, options: &RequestOptions, output: &str, sizes: &[usize]) -> (Message, Vec<String>) {
    let t = ChatTemplate::new(&super::template_source(template), RenderOptions::default()).expect("compiles");
    parse_chunked_with(&t, options, output, sizes)
}

/// [`parse_chunked`] for a compiled template.
pub fn parse_chunked_with(t: &ChatTemplate, options: &RequestOptions, output: &str, sizes: &[usize]) -> (Message, Vec<String>) {
    let run = |size: usize| {
        let mut p = t.stream_parser(options).expect("parser");
        let mut start = 0;
        for (k, (i, _)) in output.char_indices().enumerate().skip(1) {
            if k % size == 0 {
                p.push(&output[start..i]);
                start = i;
            }
        }
        p.push(&output[start..]);
        p.finish().expect("never throws on model output");
        (p.message().clone(), p.diagnostics().iter().map(|d| d.message.clone()).collect::<Vec<_>>())
    };
    let whole = run(usize::MAX);
    for &size in sizes {
        assert_eq!(run(size).0, whole.0, "chunks of {size} characters ≡ whole for {output:?}");
    }
    whole
}

/// `(name, arguments as JSON)` of every call.
pub fn calls(m: &Message) -> Vec<(String, Value)> {
    m.tool_calls.iter().map(|c| (c.function.name.clone(), serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null))).collect()
}

/// Whether a diagnostic names `rule`.
pub fn has(diags: &[String], rule: &str) -> bool {
    diags.iter().any(|d| d.contains(&format!("rule {rule}")))
}
