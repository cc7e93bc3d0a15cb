//! Request options as the JS facade sends them (JSON text), read and checked once per distinct text.
//!
//! A chat frontend parses every response of a conversation with the same options (tools, messages):
//! reading them again per call cost more than the parse of a short reply (serde_json's generic code in
//! wasm: ≈ 40 µs for three tools), so the last few are kept, keyed by their exact text. The text also
//! keys the request layer's parser cache (`ChatTemplate::stream_parser_keyed`).
//!
//! Crossing into wasm costs per byte too (encoding, comparing: ≈ 8 µs for the 5 KB of 32 tools, more
//! than the rest of a short parse's set-up), so the facade names options it sent before by an id of its
//! own (`src/wasm/js/facade.js` `requestOptionsArg`): `"\u{1}ID\u{1}JSON"` sends them with their id,
//! `"\u{1}ID"` names them again. An id this side no longer holds is an error the facade answers by
//! sending the options again ([`UNKNOWN_ID`]); it never reaches the caller.

use super::convert::{from_json, js, to_js_error};
use super::recent::Recent;
use crate::api::RequestOptions;
use crate::{Error, ErrorKind};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// Options read, and the text that keys them (the parser cache's key).
pub type Read = (Rc<RequestOptions>, Rc<str>);

/// The start of the error for an id not held (the facade matches it to send the options again).
pub const UNKNOWN_ID: &str = "options id not held";

thread_local! {
    static READ: Recent<Read> = const { Recent::new(16) };
    static BY_ID: Recent<Read> = const { Recent::new(16) };
}

/// The options `text` holds (empty text: the defaults), checked; an error names the bad field.
pub fn read(text: &str) -> Result<Read, JsValue> {
    let Some(named) = text.strip_prefix('\u{1}') else { return read_json(text) };
    match named.split_once('\u{1}') {
        Some((id, json)) => {
            let read = read_json(json)?;
            BY_ID.with(|r| r.insert(id, read.clone()));
            Ok(read)
        }
        None => BY_ID.with(|r| r.get(named)).ok_or_else(|| to_js_error(Error::new(ErrorKind::InvalidInput, format!("{UNKNOWN_ID}: {named}")))),
    }
}

fn read_json(text: &str) -> Result<Read, JsValue> {
    READ.with(|r| {
        r.get_or_read(text, || {
            let opts: RequestOptions = if text.is_empty() { RequestOptions::default() } else { from_json(text, "options")? };
            js(opts.validate())?;
            Ok((Rc::new(opts), Rc::from(text)))
        })
    })
}
