//! What both modules' `parseOutput` and `StreamParser` do with a core [`StreamParser`]: one code path
//! from the parser to JS values (deltas, the message, `finishReason`, a strict finish's error). The JS
//! `StreamParser` class is defined here; each module adds its constructor (over a template, or over a
//! compiled parser spec), and the full package its region events.

use super::convert::{self, js};
use crate::api::{Delta, ReasoningField};
use crate::StreamParser;
use wasm_bindgen::prelude::*;

/// A whole parse: `text` pushed, the parser finished, the message with `finishReason` when the output
/// ended inside a tool call.
pub fn parse_whole(mut p: StreamParser, text: &str, field: ReasoningField) -> Result<JsValue, JsValue> {
    p.push(text);
    js(p.finish())?;
    let msg = convert::message_to_js(p.message(), field);
    if let Some(reason) = p.finish_reason() {
        let _ = js_sys::Reflect::set(&msg, &JsValue::from_str("finishReason"), &JsValue::from_str(reason));
    }
    Ok(msg)
}

/// `finish`'s deltas; its error (strict, cut off inside a call) carries the flushed deltas as `deltas`.
pub fn finish(p: &mut StreamParser, field: ReasoningField) -> Result<Vec<Delta>, JsValue> {
    p.finish().map_err(|e| {
        let err = convert::to_js_error(e);
        let deltas = convert::deltas_to_js(&p.take_failed_deltas(), field);
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("deltas"), &deltas);
        err
    })
}

/// Bytes of the input buffer: a chunk of up to 64 UTF-16 units is at most 192 bytes of UTF-8.
pub const INPUT_BYTES: usize = 256;

/// `pushCode`: the chunk's deltas stay in `scratch`; the result says what they are.
fn push_code(inner: &mut StreamParser, scratch: &mut Vec<Delta>, field: ReasoningField, chunk: &str) -> u32 {
    if let Some(Delta::Content(spare) | Delta::Reasoning(spare)) = scratch.pop() {
        inner.recycle(spare);
    }
    scratch.clear();
    inner.push_into(chunk, scratch);
    match scratch.as_slice() {
        [] => 0,
        [Delta::Content(s)] if s == chunk => 1,
        [Delta::Reasoning(s)] if s == chunk && field == ReasoningField::ReasoningContent => 2,
        _ => 3,
    }
}

/// Streaming parser: `push(chunk)` returns OpenAI `chat.completion.chunk` deltas; `finish()` flushes.
#[wasm_bindgen(js_name = StreamParser)]
pub struct JsStreamParser {
    pub(super) inner: StreamParser,
    /// Reused for every chunk's deltas (saves an allocation per push).
    pub(super) scratch: Vec<Delta>,
    /// The key reasoning deltas and the message use.
    pub(super) reasoning_field: ReasoningField,
    /// Where the facade writes a short chunk as UTF-8 before `pushCodeInput`: a chunk crosses without an
    /// allocation, a free and wasm-bindgen's string glue (at 4-byte chunks those cost as much as parsing).
    /// Fixed length, so its address stays valid for the parser's life.
    input: Vec<u8>,
    /// Keeps the template (and its analysis) alive while the parser lives.
    #[cfg(feature = "full")]
    _template: std::rc::Rc<crate::ChatTemplate>,
    /// transformers-style region events (`pushEvents` / `finishEvents`).
    #[cfg(feature = "full")]
    pub(super) regions: crate::response_template::RegionTracker,
}

impl JsStreamParser {
    /// Over a core parser; the full package also keeps its template alive.
    #[cfg(feature = "full")]
    pub(super) fn over(inner: StreamParser, reasoning_field: ReasoningField, template: std::rc::Rc<crate::ChatTemplate>) -> Self {
        JsStreamParser { inner, scratch: Vec::new(), reasoning_field, input: vec![0; INPUT_BYTES], _template: template, regions: Default::default() }
    }

    /// Over a core parser.
    #[cfg(not(feature = "full"))]
    pub(super) fn over(inner: StreamParser, reasoning_field: ReasoningField) -> Self {
        JsStreamParser { inner, scratch: Vec::new(), reasoning_field, input: vec![0; INPUT_BYTES] }
    }
}

#[wasm_bindgen(js_class = StreamParser)]
impl JsStreamParser {
    /// Consume a chunk; returns the deltas it completed (often none while a marker may be starting).
    /// Never throws on malformed output: see `diagnostics`.
    pub fn push(&mut self, chunk: &str) -> JsValue {
        self.scratch.clear();
        self.inner.push_into(chunk, &mut self.scratch);
        convert::deltas_to_js(&self.scratch, self.reasoning_field)
    }

    /// `push` for the facade's hot path, which builds the common deltas itself from the chunk it already
    /// holds: the deltas stay here and the result says what they are. 0: none; 1: one content delta that
    /// is the whole chunk; 2: one reasoning delta under `reasoning_content` that is the whole chunk;
    /// 3: anything else (`takeDeltas()` returns them). Most chunks of a reply pass through whole, and this
    /// spares them two calls into JS and a string decoded from wasm memory.
    #[wasm_bindgen(js_name = pushCode)]
    pub fn push_code(&mut self, chunk: &str) -> u32 {
        push_code(&mut self.inner, &mut self.scratch, self.reasoning_field, chunk)
    }

    /// The address of the input buffer (`INPUT_BYTES` long) `pushCodeInput` reads.
    #[wasm_bindgen(js_name = inputPtr)]
    pub fn input_ptr(&mut self) -> *mut u8 {
        self.input.as_mut_ptr()
    }

    /// `pushCode` of the first `len` bytes of the input buffer (UTF-8 the facade wrote; anything else is
    /// read as `from_utf8_lossy` does, as wasm-bindgen's string glue would have).
    #[wasm_bindgen(js_name = pushCodeInput)]
    pub fn push_code_input(&mut self, len: usize) -> u32 {
        let bytes = self.input.get(..len).unwrap_or(&[]);
        let chunk = String::from_utf8_lossy(bytes);
        push_code(&mut self.inner, &mut self.scratch, self.reasoning_field, &chunk)
    }

    /// The deltas of the last `pushCode`.
    #[wasm_bindgen(js_name = takeDeltas)]
    pub fn take_deltas(&self) -> JsValue {
        convert::deltas_to_js(&self.scratch, self.reasoning_field)
    }

    /// End of output: returns the remaining deltas. Output that ends inside a tool call sets
    /// `finishReason` to `'length'`; with `strict: true` and `isPartial: false` it throws a `Parse`
    /// error with `offset` instead, whose `deltas` property holds the flushed deltas.
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        finish(&mut self.inner, self.reasoning_field).map(|d| convert::deltas_to_js(&d, self.reasoning_field))
    }

    /// The message so far.
    #[wasm_bindgen(getter)]
    pub fn message(&self) -> JsValue {
        convert::message_to_js(self.inner.message(), self.reasoning_field)
    }

    /// Problems seen in the output so far: `[{offset, message, count?, lastOffset?, rule?}]`.
    #[wasm_bindgen(getter)]
    pub fn diagnostics(&self) -> Result<JsValue, JsValue> {
        convert::to_js(self.inner.diagnostics())
    }

    /// `'length'` after `finish()` when the output ended inside a tool call (the last call is
    /// incomplete), else `null`.
    #[wasm_bindgen(getter, js_name = finishReason)]
    pub fn finish_reason(&self) -> Option<String> {
        self.inner.finish_reason().map(str::to_string)
    }

    /// True once the output reached a stop marker (harmony `<|return|>` / `<|call|>`).
    #[wasm_bindgen(getter)]
    pub fn stopped(&self) -> bool {
        self.inner.stopped()
    }
}
