//! JSON Schema → grammar rules, for tool parameters and `response_format` schemas.
//!
//! Supported: `type` (string, number, integer, boolean, null, object, array, and lists of types),
//! `enum`, `const`, `properties` / `required`, `additionalProperties` (default false, as llama.cpp),
//! `items` / `prefixItems` / `minItems` / `maxItems`, `anyOf` / `oneOf`, `allOf` of objects,
//! local `$ref` (`#/$defs/…`, `#/definitions/…`, any JSON pointer, recursion allowed), string
//! `minLength` / `maxLength`. Ignored (accepted as the plain type): `pattern`, `format`, numeric bounds. What
//! cannot be honoured (unknown types, unresolvable `$ref`) is rejected for every builder alike by
//! [`super::check_schema`] before a converter runs.
//!
//! Objects keep the declared property order. Optional properties use the chained-optional technique of
//! llama.cpp's json-schema-to-grammar: one "rest" rule per property position, so n optional properties
//! cost O(n) rules instead of 2^n alternatives.
//!
//! [`SchemaConverter::raw`] builds a value for tagged formats (`<parameter=k>value</parameter>`):
//! strings are written without JSON quotes, as raw text up to the value's closing marker.
//!
//! [`SchemaConverter::python`] converts to values as JSON or as Python's `str()` writes them (`{'k': True}`,
//! `['a', None]`: a template printing a dict with `{{ arguments }}` or a value with `| string`): the same
//! structure (properties, required, items), strings also in single quotes, `True` / `False` / `None`.

use super::builder::GrammarBuilder;
use super::ir::Expr;
use super::literal;
use crate::{Error, ErrorKind, Result};
use serde_json::Value;
use std::collections::HashMap;

/// Deepest schema nesting followed (recursion through `$ref` is a grammar rule, not nesting).
const MAX_DEPTH: usize = 64;

/// Converts schemas into rules of a [`GrammarBuilder`].
pub struct SchemaConverter<'a> {
    b: &'a mut GrammarBuilder,
    root: &'a Value,
    refs: HashMap<String, String>,
    depth: usize,
    python: bool,
}

fn schema_err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Schema, msg)
}

impl<'a> SchemaConverter<'a> {
    /// A converter resolving `$ref`s against `root`.
    pub fn new(b: &'a mut GrammarBuilder, root: &'a Value) -> Self {
        SchemaConverter { b, root, refs: HashMap::new(), depth: 0, python: false }
    }

    /// Values also as Python's `str()` writes them (see the module's note).
    pub fn python(mut self) -> Self {
        self.python = true;
        self
    }

    /// Any value.
    fn any(&mut self) -> Expr {
        if self.python {
            literal::any(self.b, "'")
        } else {
            self.b.json_value()
        }
    }

    /// A fixed value (`const`, an `enum` member).
    fn fixed_value(&self, v: &Value) -> Expr {
        if self.python {
            literal::python_or_json(v)
        } else {
            Expr::lit(json_text(v))
        }
    }

    /// An expression for a JSON value matching `schema`; rules are named after `hint`.
    ///
    /// # Errors
    /// `ErrorKind::Schema` for an unresolvable `$ref`, a `false` schema or excessive nesting.
    pub fn json(&mut self, schema: &Value, hint: &str) -> Result<Expr> {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH { Err(schema_err("schema nested too deeply")) } else { self.visit(schema, hint) };
        self.depth -= 1;
        r
    }

    /// A value for a tagged format, ended by `terminator`: string schemas become raw text (no quotes)
    /// that cannot contain the terminator; string enums / consts become their raw values; other
    /// schemas stay JSON.
    ///
    /// # Errors
    /// As [`SchemaConverter::json`].
    pub fn raw(&mut self, schema: &Value, hint: &str, terminator: &str) -> Result<Expr> {
        let schema = self.deref(schema)?;
        let strings = |v: &Value| -> Option<Vec<String>> {
            v.as_array()?.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>()
        };
        if let Some(values) = schema.get("enum").and_then(strings) {
            return Ok(Expr::alt(values.into_iter().map(Expr::lit)));
        }
        if let Some(c) = schema.get("const").and_then(Value::as_str) {
            return Ok(Expr::lit(c));
        }
        let is_string = match schema.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
            _ => false,
        };
        if is_string && !terminator.is_empty() {
            return Ok(self.b.until(terminator));
        }
        self.json(schema, hint)
    }

    /// Follow `$ref` chains (bounded) to the schema they name.
    fn deref(&self, mut schema: &'a Value) -> Result<&'a Value> {
        for _ in 0..MAX_DEPTH {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(r) => schema = self.resolve(r)?,
                None => return Ok(schema),
            }
        }
        Err(schema_err("$ref chain too long"))
    }

    fn resolve(&self, reference: &str) -> Result<&'a Value> {
        let pointer = reference.strip_prefix('#').ok_or_else(|| schema_err(format!("only local $ref is supported: {reference}")))?;
        self.root.pointer(pointer).ok_or_else(|| schema_err(format!("unresolved $ref {reference}")))
    }

    fn visit(&mut self, schema: &Value, hint: &str) -> Result<Expr> {
        let obj = match schema {
            Value::Bool(true) => return Ok(self.any()),
            Value::Bool(false) => return Err(schema_err("`false` schema matches nothing")),
            Value::Object(o) => o,
            _ => return Err(schema_err(format!("schema must be an object, got {schema}"))),
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            return self.reference(r);
        }
        if let Some(c) = obj.get("const") {
            return Ok(self.fixed_value(c));
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            let alts = Expr::alt(values.iter().map(|v| self.fixed_value(v)));
            return Ok(self.b.add(hint, alts));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(options) = obj.get(key).and_then(Value::as_array) {
                let mut alts = Vec::new();
                for (i, o) in options.iter().enumerate() {
                    alts.push(self.json(o, &format!("{hint}-{i}"))?);
                }
                return Ok(self.b.add(hint, Expr::alt(alts)));
            }
        }
        if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
            let merged = self.merge_all_of(parts)?;
            return self.json(&merged, hint);
        }
        match obj.get("type") {
            Some(Value::Array(types)) => {
                let mut alts = Vec::new();
                for t in types {
                    let mut single = obj.clone();
                    single.insert("type".into(), t.clone());
                    alts.push(self.json(&Value::Object(single), &format!("{hint}-{}", t.as_str().unwrap_or("t")))?);
                }
                Ok(self.b.add(hint, Expr::alt(alts)))
            }
            Some(Value::String(t)) => self.typed(t, obj, hint),
            Some(other) => Err(schema_err(format!("invalid `type`: {other}"))),
            None if obj.contains_key("properties") => self.typed("object", obj, hint),
            None if obj.contains_key("items") || obj.contains_key("prefixItems") => self.typed("array", obj, hint),
            None => Ok(self.any()),
        }
    }

    fn typed(&mut self, t: &str, obj: &serde_json::Map<String, Value>, hint: &str) -> Result<Expr> {
        match t {
            "string" if self.python => Ok(literal::string(self.b, "'")),
            "boolean" if self.python => Ok(literal::boolean(self.b)),
            "null" if self.python => Ok(literal::null(self.b)),
            "string" => {
                let min = obj.get("minLength").and_then(Value::as_u64).map_or(0, clamp);
                let max = obj.get("maxLength").and_then(Value::as_u64).map(clamp);
                if min == 0 && max.is_none() {
                    return Ok(self.b.json_string());
                }
                if max.is_some_and(|m| m < min) {
                    return Err(schema_err("maxLength below minLength"));
                }
                let ch = self.b.json_char();
                let body = Expr::seq([Expr::lit("\""), Expr::repeat(ch, min, max), Expr::lit("\"")]);
                Ok(self.b.add(hint, body))
            }
            "number" => Ok(self.b.json_number()),
            "integer" => Ok(self.b.json_integer()),
            "boolean" => Ok(self.b.json_boolean()),
            "null" => Ok(self.b.json_null()),
            "object" => self.object(obj, hint),
            "array" => self.array(obj, hint),
            other => Err(schema_err(format!("unknown type `{other}`"))),
        }
    }

    fn reference(&mut self, reference: &str) -> Result<Expr> {
        if let Some(name) = self.refs.get(reference) {
            return Ok(Expr::rule(name.clone()));
        }
        let target = self.resolve(reference)?;
        let last = reference.rsplit('/').next().unwrap_or("ref");
        let name = self.b.reserve(&format!("ref-{last}"));
        self.refs.insert(reference.to_string(), name.clone());
        let body = self.json(target, &name)?;
        self.b.set(&name, body);
        Ok(Expr::rule(name))
    }

    fn merge_all_of(&self, parts: &[Value]) -> Result<Value> {
        let mut props = serde_json::Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut additional: Option<Value> = None;
        for p in parts {
            let p = self.deref(p)?;
            if let Some(ps) = p.get("properties").and_then(Value::as_object) {
                for (k, v) in ps {
                    props.insert(k.clone(), v.clone());
                }
            }
            if let Some(rs) = p.get("required").and_then(Value::as_array) {
                required.extend(rs.iter().cloned());
            }
            if let Some(a) = p.get("additionalProperties") {
                additional = Some(a.clone());
            }
        }
        let mut merged = serde_json::json!({"type": "object", "properties": props, "required": required});
        if let (Some(a), Some(m)) = (additional, merged.as_object_mut()) {
            m.insert("additionalProperties".into(), a);
        }
        Ok(merged)
    }

    fn object(&mut self, obj: &serde_json::Map<String, Value>, hint: &str) -> Result<Expr> {
        let props: Vec<(String, Value)> = obj
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let required: Vec<&str> = obj.get("required").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let additional = match obj.get("additionalProperties") {
            None if !obj.contains_key("properties") => Some(self.any()),
            None | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(self.any()),
            Some(s) => Some(self.json(s, &format!("{hint}-additional"))?),
        };
        if props.is_empty() && additional.is_some() && !obj.contains_key("additionalProperties") {
            return Ok(if self.python { literal::object(self.b, "'") } else { self.b.json_object() });
        }
        let sp = self.b.space();
        let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
        let mut kvs = Vec::new();
        for (name, schema) in &props {
            let value = self.json(schema, &format!("{hint}-{name}"))?;
            let key = self.fixed_value(&Value::String(name.clone()));
            let kv = Expr::seq([key, sp.clone(), Expr::lit(":"), sp.clone(), value]);
            kvs.push((self.b.add(&format!("{hint}-{name}-kv"), kv), required.contains(&name.as_str())));
        }
        let extra_kv = match additional {
            Some(v) => {
                let s = if self.python { literal::string(self.b, "'") } else { self.b.json_string() };
                Some(self.b.add(&format!("{hint}-additional-kv"), Expr::seq([s, sp.clone(), Expr::lit(":"), sp.clone(), v])))
            }
            None => None,
        };
        // tails[i]: what may follow once the properties before i are settled.
        let n = kvs.len();
        let mut tails = vec![Expr::Empty; n + 1];
        if let Some(kv) = &extra_kv {
            tails[n] = Expr::star(Expr::seq([sep.clone(), kv.clone()]));
        }
        let mut chain_has_optional = extra_kv.is_some();
        for i in (0..n).rev() {
            let (kv, req) = &kvs[i];
            let next = tails[i + 1].clone();
            let body = if *req {
                Expr::seq([sep.clone(), kv.clone(), next])
            } else {
                chain_has_optional = true;
                Expr::seq([Expr::opt(Expr::seq([sep.clone(), kv.clone()])), next])
            };
            tails[i] = if chain_has_optional && i > 0 {
                let name = props.get(i).map(|p| p.0.as_str()).unwrap_or("p");
                self.b.add(&format!("{hint}-{name}-rest"), body)
            } else {
                body
            };
        }
        // The first property written is any optional one up to and including the first required.
        let mut firsts = Vec::new();
        let mut all_optional = true;
        for (i, (kv, req)) in kvs.iter().enumerate() {
            firsts.push(Expr::seq([kv.clone(), tails[i + 1].clone()]));
            if *req {
                all_optional = false;
                break;
            }
        }
        if all_optional {
            match &extra_kv {
                Some(kv) => firsts.push(Expr::opt(Expr::seq([kv.clone(), tails[n].clone()]))),
                None => firsts.push(Expr::Empty),
            }
        }
        let body = Expr::seq([Expr::lit("{"), sp.clone(), Expr::alt(firsts), sp, Expr::lit("}")]);
        Ok(self.b.add(hint, body))
    }

    fn array(&mut self, obj: &serde_json::Map<String, Value>, hint: &str) -> Result<Expr> {
        let sp = self.b.space();
        let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
        let list = if let Some(prefix) = obj.get("prefixItems").and_then(Value::as_array) {
            let mut items = Vec::new();
            for (i, s) in prefix.iter().enumerate() {
                if i > 0 {
                    items.push(sep.clone());
                }
                items.push(self.json(s, &format!("{hint}-{i}"))?);
            }
            Expr::seq(items)
        } else {
            let item = match obj.get("items") {
                Some(s) => self.json(s, &format!("{hint}-item"))?,
                None => self.any(),
            };
            let min = obj.get("minItems").and_then(Value::as_u64).map_or(0, clamp);
            let max = obj.get("maxItems").and_then(Value::as_u64).map(clamp);
            if max.is_some_and(|m| m < min) {
                return Err(schema_err("maxItems below minItems"));
            }
            if max == Some(0) {
                Expr::Empty
            } else {
                let rest = Expr::repeat(Expr::seq([sep, item.clone()]), min.saturating_sub(1), max.map(|m| m - 1));
                let list = Expr::seq([item, rest]);
                if min == 0 {
                    Expr::opt(list)
                } else {
                    list
                }
            }
        };
        Ok(self.b.add(hint, Expr::seq([Expr::lit("["), sp.clone(), list, sp, Expr::lit("]")])))
    }
}

/// Counts above this are treated as unbounded-ish caps (a grammar cannot usefully spell out more).
fn clamp(n: u64) -> u32 {
    n.min(10_000) as u32
}

/// Compact JSON text of a value, as the model is expected to write it (`json.dumps` spacing aside).
fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
