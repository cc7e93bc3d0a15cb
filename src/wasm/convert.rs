//! The one conversion point between Rust and JS values and errors.

use crate::{Error, ErrorKind};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

/// Turn our error into a real JS `Error` with `name`, `kind` and, when known, `line`/`column`/`offset`.
pub fn to_js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("ChatAutoparserError");
    let obj: &JsValue = err.as_ref();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(obj, &JsValue::from_str(k), &v);
    };
    set("kind", JsValue::from_str(e.kind().name()));
    if let Some((line, col)) = e.location() {
        set("line", JsValue::from_f64(line as f64));
        set("column", JsValue::from_f64(col as f64));
    }
    if let Some(off) = e.offset() {
        set("offset", JsValue::from_f64(off as f64));
    }
    err.into()
}

/// Deserialize JSON text that the JS facade (`src/wasm/js/facade.js`) produced with `JSON.stringify`;
/// `field` names the argument in the error message. Serializing on the JS side keeps user code (getters,
/// `toJSON`, proxies) from ever running while wasm is on the stack, and serde_json reports unknown option
/// names and stops hostile nesting at depth 128 instead of overflowing the wasm stack.
pub fn from_json<T: DeserializeOwned>(text: &str, field: &str) -> Result<T, JsValue> {
    let invalid = |message: String| to_js_error(Error::new(ErrorKind::InvalidInput, message));
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| invalid(format!("{field}: {e}")))?;
    // The facade passes objects only (options, contexts, response templates). Deserializing from the map,
    // not from the `Value`, leaves serde's struct-from-array path out of the wasm (it could never run).
    let serde_json::Value::Object(map) = value else { return Err(invalid(format!("{field}: expected an object"))) };
    match T::deserialize(map.clone()) {
        Ok(v) => Ok(v),
        Err(e) => Err(invalid(format!("{}: {e}", failing_field_of::<T>(&map, field)))),
    }
}

/// For an options object whose fields all have defaults: the first key that fails on its own, as
/// `options.tools`, so the error names the field (serde_json's message does not).
fn failing_field_of<T: DeserializeOwned>(map: &serde_json::Map<String, serde_json::Value>, field: &str) -> String {
    for (k, v) in map {
        let single: serde_json::Map<String, serde_json::Value> = [(k.clone(), v.clone())].into_iter().collect();
        if T::deserialize(single).is_err() {
            return format!("{field}.{k}");
        }
    }
    field.to_string()
}

/// Deserialize optional JSON text (absent → default).
#[cfg(feature = "full")]
pub fn from_json_opt<T: DeserializeOwned + Default>(text: Option<String>, field: &str) -> Result<T, JsValue> {
    match text {
        None => Ok(T::default()),
        Some(text) => from_json(&text, field),
    }
}

/// Serialize to plain JS objects (no `Map`s), as JSON would look: serde_json writes the text and JS's
/// `JSON.parse` builds the objects in one call. Cheaper than one boundary crossing per property, and
/// one serializer (serde_json's, needed anyway) instead of a second set of per-type serialize code in
/// the wasm.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| to_js_error(Error::new(ErrorKind::InvalidInput, format!("cannot convert result: {e}"))))?;
    js_sys::JSON::parse(&text)
}

/// A JSON value as the plain JS value `to_js` would give, built directly: strings cross as strings, so a
/// 30 KB content is not escaped into JSON text and parsed again (most of a 30 KB `parseResponse`). A key
/// `__proto__` (an own property for JSON.parse, the prototype for a plain assignment) takes `to_js`'s path.
#[cfg(feature = "full")]
pub fn value_to_js(v: &serde_json::Value) -> Result<JsValue, JsValue> {
    fn build(v: &serde_json::Value) -> Option<JsValue> {
        use serde_json::Value;
        Some(match v {
            Value::Null => JsValue::NULL,
            Value::Bool(b) => JsValue::from_bool(*b),
            Value::Number(n) => JsValue::from_f64(n.as_f64()?),
            Value::String(s) => JsValue::from_str(s),
            Value::Array(items) => {
                let out = js_sys::Array::new();
                for item in items {
                    out.push(&build(item)?);
                }
                out.into()
            }
            Value::Object(map) => {
                let out = js_sys::Object::new();
                for (k, item) in map {
                    if k == "__proto__" {
                        return None;
                    }
                    js_sys::Reflect::set(&out, &JsValue::from_str(k), &build(item)?).ok()?;
                }
                out.into()
            }
        })
    }
    match build(v) {
        Some(js) => Ok(js),
        None => to_js(v),
    }
}

/// Map a core result into a JS result.
pub fn js<T>(r: crate::Result<T>) -> Result<T, JsValue> {
    r.map_err(to_js_error)
}

// Builders for the per-chunk path: one call into JS per delta (with its strings) instead of one per
// property, which was most of the cost of `StreamParser.push` from JS.
#[wasm_bindgen(inline_js = "
export function content_delta(s) { return { content: s }; }
export function reasoning_delta(s) { return { reasoning_content: s }; }
export function keyed_delta(k, s) { return { [k]: s }; }
export function tool_delta(index, id, name, args) {
  const f = {};
  if (name !== undefined) f.name = name;
  // The first delta (with the name) always has `arguments`, as OpenAI's chat.completion.chunk.
  if (args !== undefined) f.arguments = args; else if (name !== undefined) f.arguments = '';
  const c = { index };
  if (id !== undefined) c.id = id;
  if (name !== undefined) c.type = 'function';
  c.function = f;
  return { tool_calls: [c] };
}
export function one(x) { return [x]; }
export function message(role, content, key, reasoning) {
  return { role, content: content === '' ? null : content, [key]: reasoning === '' ? null : reasoning };
}
export function push_call(m, id, type, name, args) {
  (m.tool_calls ??= []).push({ id, type, function: { name, arguments: args } });
}
")]
extern "C" {
    fn content_delta(s: &str) -> JsValue;
    fn reasoning_delta(s: &str) -> JsValue;
    fn keyed_delta(k: &str, s: &str) -> JsValue;
    fn tool_delta(index: u32, id: Option<String>, name: Option<String>, args: Option<String>) -> JsValue;
    fn one(x: JsValue) -> JsValue;
    fn message(role: &str, content: &str, key: &str, reasoning: &str) -> JsValue;
    fn push_call(m: &JsValue, id: &str, kind: &str, name: &str, args: &str);
}

/// A message as the plain object `to_js` would give (same keys, order and nulls), built with one call
/// per message and per tool call: a 30 KB content crosses as one string, not as JSON text to re-parse.
pub fn message_to_js(m: &crate::api::Message, field: crate::api::ReasoningField) -> JsValue {
    let out = message(&m.role, &m.content, field.key(), &m.reasoning_content);
    for c in &m.tool_calls {
        push_call(&out, &c.id, &c.kind, &c.function.name, &c.function.arguments);
    }
    out
}

fn delta_to_js(d: &crate::api::Delta, field: crate::api::ReasoningField) -> JsValue {
    use crate::api::{Delta, ReasoningField};
    match d {
        Delta::Content(s) => content_delta(s),
        Delta::Reasoning(s) if field == ReasoningField::ReasoningContent => reasoning_delta(s),
        Delta::Reasoning(s) => keyed_delta(field.key(), s),
        Delta::ToolCall { index, id, name, arguments } => {
            tool_delta(*index as u32, id.clone(), name.clone(), arguments.clone())
        }
    }
}

/// Deltas as plain JS objects (`[{content}]`, `[{tool_calls: [...]}]`, …).
pub fn deltas_to_js(deltas: &[crate::api::Delta], field: crate::api::ReasoningField) -> JsValue {
    match deltas {
        [] => js_sys::Array::new().into(),
        [d] => one(delta_to_js(d, field)),
        _ => {
            let out = js_sys::Array::new_with_length(deltas.len() as u32);
            for (i, d) in deltas.iter().enumerate() {
                out.set(i as u32, delta_to_js(d, field));
            }
            out.into()
        }
    }
}
