//! Declared response templates of JS `ChatTemplate`s (`new ChatTemplate(source, {responseTemplate})`
//! or `new ChatTemplate({chat_template, response_template})`), looked up by the template's handle.

use super::convert::{from_js, js, to_js_error};
use crate::response_template::CompiledTemplate;
use crate::{Error, ErrorKind};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsValue;

thread_local! {
    static DECLARED: RefCell<HashMap<u32, Rc<CompiledTemplate>>> = RefCell::new(HashMap::new());
}

/// The declared template of a live `ChatTemplate` handle, removed when dropped.
pub struct DeclaredEntry(u32);

impl DeclaredEntry {
    pub fn new(handle: u32, t: Rc<CompiledTemplate>) -> Self {
        DECLARED.with(|m| m.borrow_mut().insert(handle, t));
        DeclaredEntry(handle)
    }
}

impl Drop for DeclaredEntry {
    fn drop(&mut self) {
        DECLARED.with(|m| m.borrow_mut().remove(&self.0));
    }
}

/// The declared template of a `templateOrSource` argument, if it is a `ChatTemplate` that has one.
pub fn declared_for(v: &JsValue) -> Option<Rc<CompiledTemplate>> {
    if v.is_string() {
        return None;
    }
    let handle = js_sys::Reflect::get(v, &JsValue::from_str("__handle")).ok()?.as_f64()? as u32;
    DECLARED.with(|m| m.borrow().get(&handle).cloned())
}

/// Compile a `response_template` object given from JS.
pub fn compile(v: JsValue, field: &str) -> Result<Rc<CompiledTemplate>, JsValue> {
    let value: serde_json::Value = from_js(v, field)?;
    js(CompiledTemplate::from_value(&value)).map(Rc::new)
}

/// Split the `ChatTemplate` constructor arguments: the template source (a string, or a
/// tokenizer_config.json-like object's `chat_template`), the render options without
/// `responseTemplate`, and the declared template (`options.responseTemplate` or the object's
/// `response_template`).
pub fn split_args(source: &JsValue, options: JsValue) -> Result<(String, JsValue, Option<Rc<CompiledTemplate>>), JsValue> {
    let bad = |m: &str| to_js_error(Error::new(ErrorKind::InvalidInput, m.to_string()));
    let (text, mut declared) = match source.as_string() {
        Some(s) => (s, None),
        None if source.is_object() => {
            let ct = js_sys::Reflect::get(source, &JsValue::from_str("chat_template")).unwrap_or(JsValue::UNDEFINED);
            let Some(text) = ct.as_string() else {
                return Err(bad("source: expected a template string or an object with a string `chat_template` (a named-template list must be resolved first)"));
            };
            let rt = js_sys::Reflect::get(source, &JsValue::from_str("response_template")).unwrap_or(JsValue::UNDEFINED);
            let declared = if rt.is_undefined() || rt.is_null() { None } else { Some(compile(rt, "source.response_template")?) };
            (text, declared)
        }
        None => return Err(bad("source: expected a template string or a tokenizer_config.json-like object")),
    };
    let mut options = options;
    if options.is_object() {
        let rt = js_sys::Reflect::get(&options, &JsValue::from_str("responseTemplate")).unwrap_or(JsValue::UNDEFINED);
        if !rt.is_undefined() {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), &options.clone().into());
            let _ = js_sys::Reflect::delete_property(&copy, &JsValue::from_str("responseTemplate"));
            options = copy.into();
            if !rt.is_null() {
                declared = Some(compile(rt, "options.responseTemplate")?);
            }
        }
    }
    Ok((text, options, declared))
}
