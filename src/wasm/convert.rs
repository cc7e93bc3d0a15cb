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

/// Deserialize a JS value; `field` names the argument in the error message.
/// Goes through `JSON.stringify` + serde_json: unknown option names are reported (serde-wasm-bindgen only
/// reads the fields a struct declares), and hostile nesting or cycles fail cleanly (the JS engine throws on
/// cycles, serde_json stops at depth 128) instead of overflowing the wasm stack.
pub fn from_js<T: DeserializeOwned>(value: JsValue, field: &str) -> Result<T, JsValue> {
    let invalid = |e: String| to_js_error(Error::new(ErrorKind::InvalidInput, format!("{field}: {e}")));
    let text = js_sys::JSON::stringify(&value)
        .map_err(|e| invalid(e.as_string().unwrap_or_else(|| "cannot be converted to JSON".into())))?;
    let text = text.as_string().ok_or_else(|| invalid("cannot be converted to JSON".into()))?;
    serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))
}

/// Deserialize an optional JS value (undefined/null → default).
pub fn from_js_opt<T: DeserializeOwned + Default>(value: JsValue, field: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else {
        from_js(value, field)
    }
}

/// Serialize to plain JS objects (no `Map`s), as JSON would look.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&ser)
        .map_err(|e| to_js_error(Error::new(ErrorKind::InvalidInput, format!("cannot convert result: {e}"))))
}

/// Map a core result into a JS result.
pub fn js<T>(r: crate::Result<T>) -> Result<T, JsValue> {
    r.map_err(to_js_error)
}

thread_local! {
    /// Property names used for every delta, converted to JS strings once.
    static KEYS: [JsValue; 8] = ["content", "reasoning_content", "tool_calls", "index", "id", "type", "function", "name"]
        .map(JsValue::from_str);
    static KEY_ARGUMENTS: JsValue = JsValue::from_str("arguments");
    static FUNCTION: JsValue = JsValue::from_str("function");
}

fn set(obj: &JsValue, key: &JsValue, value: &JsValue) {
    let _ = js_sys::Reflect::set(obj, key, value);
}

/// Deltas as plain JS objects, built directly: the stream hot path (one call per chunk) avoids the
/// generic serializer, which was most of the per-chunk cost.
pub fn deltas_to_js(deltas: &[crate::api::Delta]) -> JsValue {
    use crate::api::Delta;
    let out = js_sys::Array::new_with_length(deltas.len() as u32);
    KEYS.with(|k| {
        for (i, d) in deltas.iter().enumerate() {
            let obj: JsValue = js_sys::Object::new().into();
            match d {
                Delta::Content(s) => set(&obj, &k[0], &JsValue::from_str(s)),
                Delta::Reasoning(s) => set(&obj, &k[1], &JsValue::from_str(s)),
                Delta::ToolCall { index, id, name, arguments } => {
                    let call: JsValue = js_sys::Object::new().into();
                    set(&call, &k[3], &JsValue::from_f64(*index as f64));
                    if let Some(id) = id {
                        set(&call, &k[4], &JsValue::from_str(id));
                    }
                    let function: JsValue = js_sys::Object::new().into();
                    if let Some(name) = name {
                        FUNCTION.with(|f| set(&call, &k[5], f));
                        set(&function, &k[7], &JsValue::from_str(name));
                    }
                    if let Some(a) = arguments {
                        KEY_ARGUMENTS.with(|key| set(&function, key, &JsValue::from_str(a)));
                    }
                    set(&call, &k[6], &function);
                    let calls = js_sys::Array::of1(&call);
                    set(&obj, &k[2], &calls);
                }
            }
            out.set(i as u32, obj);
        }
    });
    out.into()
}
