//! Lets free functions take `templateOrSource`: a template source string, or a `ChatTemplate` object.
//!
//! A JS `ChatTemplate` carries a numeric handle into this registry (no unsafe pointer casts); the
//! entry goes away when the object is freed. Source strings are compiled and analysed once and kept in a
//! small most-recently-used cache, so calling `parseOutput(source, …)` per response does not re-analyse.

use super::convert::{js, to_js_error};
use crate::{ChatTemplate, Error, ErrorKind, RenderOptions};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsValue;

const SOURCE_CACHE: usize = 8;

thread_local! {
    static TEMPLATES: RefCell<HashMap<u32, Rc<ChatTemplate>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
    static BY_SOURCE: RefCell<Vec<(String, Rc<ChatTemplate>)>> = const { RefCell::new(Vec::new()) };
}

/// A registry entry, removed on drop (when the JS object is freed or garbage-collected).
pub struct Registered(u32);

impl Registered {
    pub fn new(t: Rc<ChatTemplate>) -> Self {
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1).max(1));
            id
        });
        TEMPLATES.with(|m| m.borrow_mut().insert(id, t));
        Registered(id)
    }

    pub fn id(&self) -> u32 {
        self.0
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        TEMPLATES.with(|m| m.borrow_mut().remove(&self.0));
    }
}

/// Resolve a `templateOrSource` argument.
pub fn template_arg(v: &JsValue) -> Result<Rc<ChatTemplate>, JsValue> {
    if let Some(source) = v.as_string() {
        return from_source(source);
    }
    let handle = js_sys::Reflect::get(v, &JsValue::from_str("__handle")).ok().and_then(|h| h.as_f64());
    let found = handle.and_then(|h| TEMPLATES.with(|m| m.borrow().get(&(h as u32)).cloned()));
    found.ok_or_else(|| {
        to_js_error(Error::new(
            ErrorKind::InvalidInput,
            "templateOrSource: expected a template source string or a live ChatTemplate",
        ))
    })
}

fn from_source(source: String) -> Result<Rc<ChatTemplate>, JsValue> {
    if let Some(t) = BY_SOURCE.with(|c| {
        let mut c = c.borrow_mut();
        let pos = c.iter().position(|(s, _)| crate::text::same_text(s, &source))?;
        let entry = c.remove(pos);
        let t = entry.1.clone();
        c.push(entry);
        Some(t)
    }) {
        return Ok(t);
    }
    let opts = RenderOptions { now: Some(js_sys::Date::now() / 1000.0), ..Default::default() };
    let t = Rc::new(js(ChatTemplate::new(&source, opts))?);
    BY_SOURCE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= SOURCE_CACHE {
            c.remove(0);
        }
        c.push((source, t.clone()));
    });
    Ok(t)
}

/// Forget every cached source template. Called after a wasm trap: the call that trapped may have left one
/// of them half-initialised (a lazy analysis mid-way), and sources are recompiled on their next use.
pub fn clear_source_cache() {
    BY_SOURCE.with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.clear();
        }
    });
}
