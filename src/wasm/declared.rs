//! Declared response templates of JS `ChatTemplate`s (`new ChatTemplate(source, {responseTemplate})`
//! or `new ChatTemplate({chat_template, response_template})`; the facade passes the template as JSON
//! text), looked up by the template's handle.

use super::convert::{from_json, js};
use crate::response_template::CompiledTemplate;
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

/// Compile a `response_template` given as JSON text by the facade.
pub fn compile(text: &str, field: &str) -> Result<Rc<CompiledTemplate>, JsValue> {
    let value: serde_json::Value = from_json(text, field)?;
    js(CompiledTemplate::from_value(&value)).map(Rc::new)
}
