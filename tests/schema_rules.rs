//! Issue #11 item 15: every grammar builder treats what it cannot honour in a JSON Schema the same way.
//! An unknown `type` (alone or in a list), a `$ref` that does not resolve or is not local: an error of
//! kind `Schema` naming the path, for tool parameters and `jsonSchema` alike, whatever the format
//! (before, the literal-syntax and tagged builders ignored some of these while the others raised).
//! `pattern` and `format` are the documented permissive fallback: accepted as the plain type.

mod common;
use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, ErrorKind, RenderOptions};
use serde_json::{json, Value};

/// One template per builder: JSON calls, tag + JSON, two tagged styles, DSML, Pythonic literals,
/// Gemma 4, and the three dedicated handlers.
const BUILDERS: &[&str] = &[
    "Qwen-Qwen3-0.6B.jinja",
    "moonshotai-Kimi-K2.jinja",
    "Qwen3-Coder.jinja",
    "GLM-4.6.jinja",
    "deepseek-ai-DeepSeek-V3.2.jinja",
    "LFM2.5-8B-A1B.jinja",
    "google-gemma-4-31B-it.jinja",
    "openai-gpt-oss-120b.jinja",
    "meetkai-functionary-medium-v3.2.jinja",
    "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
];

#[test]
fn unhonourable_schemas_fail_alike_and_constraints_are_accepted() {
    let rejected = [
        (json!({"type": "object", "properties": {"a": {"type": "foo"}}}), ".properties.a.type: unknown type `foo`"),
        (json!({"type": "object", "properties": {"a": {"type": ["string", "foo"]}}}), ".properties.a.type[1]: unknown type"),
        (json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}), ".properties.a.$ref: unresolved $ref #/$defs/nope"),
        (json!({"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "http://x/y"}}}}), ".properties.a.items.$ref: only local $ref"),
    ];
    let accepted = [
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]+$"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "date"}, "b": {"type": "integer", "minimum": 1}}}),
    ];
    for name in BUILDERS {
        let t = ChatTemplate::new(&common::template_source(name), RenderOptions::default()).unwrap();
        let with_tool = |s: &Value| RequestOptions { tools: vec![json!({"type": "function", "function": {"name": "f", "parameters": s}})], ..Default::default() };
        let with_schema = |s: &Value| RequestOptions { json_schema: Some(s.clone()), ..Default::default() };
        for (schema, says) in &rejected {
            for (options, path) in [(with_tool(schema), "tools[0].function.parameters"), (with_schema(schema), "jsonSchema")] {
                let e = t.grammar(&options).map(|g| g.gbnf.len()).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Schema, "{name} {schema}: {e}");
                assert!(e.to_string().contains(&format!("{path}{says}")), "{name}: {e}");
            }
        }
        for schema in &accepted {
            assert!(t.grammar(&with_tool(schema)).is_ok_and(|g| !g.gbnf.is_empty()), "{name} {schema}");
            assert!(t.grammar(&with_schema(schema)).is_ok_and(|g| !g.gbnf.is_empty()), "{name} {schema}");
        }
    }
}
