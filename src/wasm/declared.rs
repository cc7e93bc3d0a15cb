//! Declared response templates of JS `ChatTemplate`s (`new ChatTemplate(source, {responseTemplate})`
//! or `new ChatTemplate({chat_template, response_template})`; the facade passes the template as JSON
//! text), looked up by the template's handle.

use super::convert::from_json;
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
    #[cfg(feature = "size-probe-no-declared")]
    return { let _ = value; Err(super::convert::to_js_error(probe_error())) };
    #[cfg(not(feature = "size-probe-no-declared"))]
    super::convert::js(CompiledTemplate::from_value(&value)).map(Rc::new)
}

// The declared-template entry points of the binding. The `size-probe-*` features (never shipped, never
// default) cut them out only to measure what they cost in the wasm (BENCHMARKS.md "Package size").
pub use crate::response_template::{DeclaredCheck, ResponseTemplateOptions};
use crate::{api::RequestOptions, session::StreamParser, ChatTemplate, Result as CoreResult, VerifyReport};

#[cfg(any(feature = "size-probe-no-declared", feature = "size-probe-no-derive"))]
fn probe_error() -> crate::Error {
    crate::Error::new(crate::ErrorKind::InvalidInput, "not in this build (size probe)")
}

pub fn stream_parser(t: Rc<CompiledTemplate>, prefix: &str, options: &RequestOptions) -> CoreResult<StreamParser> {
    #[cfg(feature = "size-probe-no-declared")]
    return { let _ = (t, prefix, options); Err(probe_error()) };
    #[cfg(not(feature = "size-probe-no-declared"))]
    crate::response_template::declared_stream_parser(t, prefix, options)
}

pub fn check(t: Rc<CompiledTemplate>, report: &VerifyReport) -> DeclaredCheck {
    #[cfg(feature = "size-probe-no-declared")]
    return { let _ = (t, report); DeclaredCheck { agree: false, checked: 0, disagreements: Vec::new() } };
    #[cfg(not(feature = "size-probe-no-declared"))]
    crate::response_template::check_declared(t, report)
}

/// `parseResponse`: the template arrives as JSON text, which keys the compiled templates (read and
/// compiled once per distinct text: both cost more than parsing a reply).
pub fn parse_response(text: &str, rt_json: &str, prefix: &str, tools: &[serde_json::Value], reasoning_format: crate::api::ReasoningFormat) -> Result<serde_json::Value, JsValue> {
    #[cfg(feature = "size-probe-no-declared")]
    return { let _ = (text, rt_json, prefix, tools, reasoning_format); Err(super::convert::to_js_error(probe_error())) };
    #[cfg(not(feature = "size-probe-no-declared"))]
    {
        let t = crate::response_template::compiled_by_key(rt_json, || compile(rt_json, "responseTemplate"))?;
        super::convert::js(crate::response_template::parse_response_as(t, text, prefix, tools, reasoning_format))
    }
}

pub fn derive(t: &ChatTemplate, options: &ResponseTemplateOptions) -> CoreResult<crate::response_template::DerivedResponseTemplate> {
    #[cfg(feature = "size-probe-no-derive")]
    return { let _ = (t, options); Err(probe_error()) };
    #[cfg(not(feature = "size-probe-no-derive"))]
    crate::response_template::response_template(t, options)
}
