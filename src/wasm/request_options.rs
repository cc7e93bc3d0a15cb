//! Request options as the JS facade sends them (JSON text), read and checked once per distinct text.
//!
//! A chat frontend parses every response of a conversation with the same options (tools, messages):
//! reading them again per call cost more than the parse of a short reply (serde_json's generic code in
//! wasm: ≈ 40 µs for three tools), so the last few are kept, keyed by their exact text. The text also
//! keys the request layer's parser cache (`ChatTemplate::stream_parser_keyed`).

use super::convert::{from_json, js};
use crate::api::RequestOptions;
use crate::mru::Mru;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;

const CAPACITY: usize = 16;

thread_local! {
    static READ: RefCell<Mru<String, Rc<RequestOptions>>> = const { RefCell::new(Mru::new(CAPACITY)) };
}

/// The options `text` holds (empty text: the defaults), checked; an error names the bad field.
pub fn read(text: &str) -> Result<Rc<RequestOptions>, JsValue> {
    let hit = READ.with(|c| {
        c.try_borrow_mut().ok()?.find(|k| k == text).cloned()
    });
    if let Some(opts) = hit {
        return Ok(opts);
    }
    let opts: RequestOptions = if text.is_empty() { RequestOptions::default() } else { from_json(text, "options")? };
    js(opts.validate())?;
    let opts = Rc::new(opts);
    READ.with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.insert(text.to_string(), opts.clone());
        }
    });
    Ok(opts)
}
