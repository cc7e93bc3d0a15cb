//! One rule for what a grammar cannot honour in a JSON Schema, checked once before any builder runs
//! (issue #11 item 15): every format's builder — JSON, tagged, literal-syntax (Pythonic, Gemma), the
//! dedicated handlers, `response_format` — sees the same schemas, so they all fail alike.
//!
//! - An unknown `type` (alone or in a list), a `$ref` that is not local or does not resolve, and a
//!   `type` that is neither a string nor a list: `ErrorKind::Schema`, naming the path
//!   (`tools[0].function.parameters.properties.a.type`).
//! - Constraints a grammar does not enforce (`pattern`, `format`, numeric bounds, `not`,
//!   `if`/`then`/`else`, unknown keywords): accepted as the plain type, documented, never an error.
//!
//! Only what a grammar follows is walked: `properties`, `additionalProperties`, `items`,
//! `prefixItems`, `anyOf` / `oneOf` / `allOf` and `$ref` targets (each once), to a bounded depth.

use crate::{Error, ErrorKind, Result};
use serde_json::Value;
use std::collections::HashSet;

const KNOWN_TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "null", "object", "array"];

/// Deepest nesting walked (as the converter's own limit).
const MAX_DEPTH: usize = 64;

/// Check `schema` (whose `$ref`s resolve against itself), reporting problems under `path`.
pub fn check_schema(schema: &Value, path: &str) -> Result<()> {
    let mut seen = HashSet::new();
    walk(schema, schema, path.to_string(), 0, &mut seen)
}

fn err(path: &str, what: String) -> Error {
    Error::new(ErrorKind::Schema, format!("{path}: {what}"))
}

fn walk<'a>(root: &'a Value, schema: &'a Value, path: String, depth: usize, seen: &mut HashSet<&'a str>) -> Result<()> {
    let Value::Object(obj) = schema else { return Ok(()) };
    if depth > MAX_DEPTH {
        return Ok(()); // the converter reports "nested too deeply"
    }
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        let Some(pointer) = r.strip_prefix('#') else {
            return Err(err(&format!("{path}.$ref"), format!("only local $ref is supported: {r}")));
        };
        let Some(target) = root.pointer(pointer) else {
            return Err(err(&format!("{path}.$ref"), format!("unresolved $ref {r}")));
        };
        if seen.insert(r) {
            walk(root, target, format!("{path}.$ref({r})"), depth + 1, seen)?;
        }
        return Ok(());
    }
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if KNOWN_TYPES.contains(&t.as_str()) => {}
        Some(Value::String(t)) => return Err(err(&format!("{path}.type"), format!("unknown type `{t}`"))),
        Some(Value::Array(types)) => {
            for (i, t) in types.iter().enumerate() {
                if !t.as_str().is_some_and(|t| KNOWN_TYPES.contains(&t)) {
                    return Err(err(&format!("{path}.type[{i}]"), format!("unknown type {t}")));
                }
            }
        }
        Some(other) => return Err(err(&format!("{path}.type"), format!("invalid `type`: {other}"))),
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (k, v) in props {
            walk(root, v, format!("{path}.properties.{k}"), depth + 1, seen)?;
        }
    }
    for key in ["additionalProperties", "items"] {
        if let Some(v) = obj.get(key) {
            walk(root, v, format!("{path}.{key}"), depth + 1, seen)?;
        }
    }
    for key in ["prefixItems", "items", "anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = obj.get(key) {
            for (i, v) in list.iter().enumerate() {
                walk(root, v, format!("{path}.{key}[{i}]"), depth + 1, seen)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_path_of_what_cannot_be_honoured() {
        let e = |s: Value| check_schema(&s, "jsonSchema").unwrap_err().to_string();
        assert!(e(json!({"properties": {"a": {"type": "foo"}}})).contains("jsonSchema.properties.a.type: unknown type `foo`"));
        assert!(e(json!({"items": {"type": ["string", "foo"]}})).contains("jsonSchema.items.type[1]"));
        assert!(e(json!({"anyOf": [{"$ref": "#/$defs/x"}]})).contains("jsonSchema.anyOf[0].$ref: unresolved $ref #/$defs/x"));
        assert!(e(json!({"$ref": "http://x/y"})).contains("only local $ref"));
        assert!(e(json!({"$defs": {"n": {"properties": {"b": {"type": 3}}}}, "$ref": "#/$defs/n"})).contains(".properties.b.type: invalid `type`"));
        // Constraints a grammar does not enforce are accepted; recursion through $ref terminates.
        check_schema(&json!({"type": "string", "pattern": "^a$", "format": "date", "minimum": 3, "not": {"type": "foo"}}), "s").unwrap();
        check_schema(&json!({"$defs": {"t": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}}}}, "$ref": "#/$defs/t"}), "s").unwrap();
    }
}
