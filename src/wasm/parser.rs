//! The parse-only module's exports (`chat-autoparser/parser`): `parseOutput` and `StreamParser` taking a
//! compiled parser spec (the JSON text of `compileParser`) where the full package takes a template.
//!
//! Specs are read once per distinct text and kept (most recently used first, a few), with the parsers
//! built for them (`CompiledParser`: built once per options, then copied), so parsing each response of
//! one conversation costs a copy, as with a template.

use super::convert::js;
use super::parsing::{self, JsStreamParser};
use super::recent::Recent;
use super::request_options;
use crate::api::RequestOptions;
use crate::CompiledParser;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    static SPECS: Recent<Rc<CompiledParser>> = const { Recent::new(8) };
}

/// The compiled parser of spec text `text`, read once.
fn compiled(text: &str) -> Result<Rc<CompiledParser>, JsValue> {
    SPECS.with(|r| r.get_or_read(text, || js(CompiledParser::from_json(text)).map(Rc::new)))
}

/// Internal, for the JS facade after a trap: forget the cached specs (one may be mid-update).
#[wasm_bindgen(js_name = "__resetAfterTrap")]
pub fn reset_after_trap() {
    SPECS.with(Recent::clear);
}

/// Library version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The parser of a request: the spec's, for the checked options.
fn stream_parser(spec: &str, options: Option<String>) -> Result<(crate::StreamParser, Rc<RequestOptions>), JsValue> {
    let p = compiled(spec)?;
    let (opts, key) = request_options::read(&options.unwrap_or_default())?;
    Ok((js(p.stream_parser_keyed(&key, &opts))?, opts))
}

/// Parse a whole model output with a compiled parser spec (see the full package's `parseOutput`).
#[wasm_bindgen(js_name = parseOutput)]
pub fn parse_output(spec: &str, text: &str, options: Option<String>) -> Result<JsValue, JsValue> {
    let (p, opts) = stream_parser(spec, options)?;
    parsing::parse_whole(p, text, opts.reasoning_field)
}

/// The generation prompt a parse with this spec and options starts from.
#[wasm_bindgen(js_name = generationPrompt)]
pub fn generation_prompt(spec: &str, options: Option<String>) -> Result<String, JsValue> {
    let p = compiled(spec)?;
    let (opts, _) = request_options::read(&options.unwrap_or_default())?;
    Ok(p.generation_prompt(&opts))
}

/// The parse-only module's `StreamParser` (see `parsing::JsStreamParser`): over a compiled parser spec.
#[wasm_bindgen(js_class = StreamParser)]
impl JsStreamParser {
    /// `spec`: a compiled parser spec (JSON text); `options`: request options.
    #[wasm_bindgen(constructor)]
    pub fn new(spec: &str, options: Option<String>) -> Result<JsStreamParser, JsValue> {
        let (inner, opts) = stream_parser(spec, options)?;
        Ok(JsStreamParser::over(inner, opts.reasoning_field))
    }
}
