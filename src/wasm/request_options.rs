//! Request options as the JS facade sends them (JSON text), read and checked once per distinct text.
//!
//! A chat frontend parses every response of a conversation with the same options (tools, messages):
//! reading them again per call cost more than the parse of a short reply (serde_json's generic code in
//! wasm: ≈ 40 µs for three tools), so the last few are kept, keyed by their exact text. The text also
//! keys the request layer's parser cache (`ChatTemplate::stream_parser_keyed`).

use super::convert::{from_json, js};
use super::recent::Recent;
use crate::api::RequestOptions;
use std::rc::Rc;
use wasm_bindgen::JsValue;

thread_local! {
    static READ: Recent<Rc<RequestOptions>> = const { Recent::new(16) };
}

/// The options `text` holds (empty text: the defaults), checked; an error names the bad field.
pub fn read(text: &str) -> Result<Rc<RequestOptions>, JsValue> {
    READ.with(|r| {
        r.get_or_read(text, || {
            let opts: RequestOptions = if text.is_empty() { RequestOptions::default() } else { from_json(text, "options")? };
            js(opts.validate())?;
            Ok(Rc::new(opts))
        })
    })
}
