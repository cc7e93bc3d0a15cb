//! The JS binding: a thin layer over the core. Compiled only for wasm32.

mod convert;
mod registry;

use crate::api::RequestOptions;
use crate::template::RenderOptions;
use convert::{from_json, from_json_opt, js, to_js};
use registry::{template_arg, Registered};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Fill in `now` from the JS clock: std has no system clock on wasm32-unknown-unknown.
fn render_options(options: Option<String>) -> Result<RenderOptions, JsValue> {
    let mut opts: RenderOptions = from_json_opt(options, "options")?;
    if opts.now.is_none() {
        opts.now = Some(js_sys::Date::now() / 1000.0);
    }
    Ok(opts)
}

// The raw exports below take context and options as JSON text: the JS facade (src/wasm/js/facade.js)
// type-checks every argument and serializes it before anything crosses into wasm.

/// Internal, for the JS facade after a trap (see `registry::clear_source_cache`).
#[wasm_bindgen(js_name = "__resetAfterTrap")]
pub fn reset_after_trap() {
    registry::clear_source_cache();
}

/// Library version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Render a chat template once with a context object.
#[wasm_bindgen(js_name = renderTemplate)]
pub fn render_template(source: &str, context: &str, options: Option<String>) -> Result<String, JsValue> {
    let ctx: serde_json::Value = from_json(context, "context")?;
    js(crate::render_template(source, &ctx, render_options(options)?))
}

/// Analyse a template: how its model writes reasoning, content and tool calls, with every diff split.
#[wasm_bindgen(js_name = analyzeTemplate)]
pub fn analyze_template(source: &str, options: Option<String>) -> Result<JsValue, JsValue> {
    let t = js(crate::ChatTemplate::new(source, render_options(options)?))?;
    to_js(js(t.analysis())?)
}

/// A compiled chat template.
#[wasm_bindgen(js_name = ChatTemplate)]
pub struct JsChatTemplate {
    inner: Rc<crate::ChatTemplate>,
    handle: Registered,
}

#[wasm_bindgen(js_class = ChatTemplate)]
impl JsChatTemplate {
    /// Compile a template. Throws on a syntax error (with `line` and `column`).
    #[wasm_bindgen(constructor)]
    pub fn new(source: &str, options: Option<String>) -> Result<JsChatTemplate, JsValue> {
        let inner = Rc::new(js(crate::ChatTemplate::new(source, render_options(options)?))?);
        let handle = Registered::new(inner.clone());
        Ok(JsChatTemplate { inner, handle })
    }

    /// Render with a context object (`messages`, `tools`, `add_generation_prompt`, extras).
    pub fn render(&self, context: &str) -> Result<String, JsValue> {
        let ctx: serde_json::Value = from_json(context, "context")?;
        js(self.inner.render(&ctx))
    }

    /// Capabilities found by probing the template.
    #[wasm_bindgen(getter)]
    pub fn caps(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.caps())
    }

    /// The template's analysis (computed once, then cached).
    #[wasm_bindgen(getter)]
    pub fn analysis(&self) -> Result<JsValue, JsValue> {
        to_js(js(self.inner.analysis())?)
    }

    /// Internal: lets the free functions accept this object where they take `templateOrSource`.
    #[wasm_bindgen(getter, js_name = "__handle")]
    pub fn handle(&self) -> u32 {
        self.handle.id()
    }

    /// The template source.
    #[wasm_bindgen(getter)]
    pub fn source(&self) -> String {
        self.inner.source().to_string()
    }
}

/// Build the GBNF grammar, lazy triggers and preserved tokens for constrained tool calling.
#[wasm_bindgen(js_name = buildGrammar)]
pub fn build_grammar(template_or_source: JsValue, options: Option<String>) -> Result<JsValue, JsValue> {
    let t = template_arg(&template_or_source)?;
    let opts: RequestOptions = from_json_opt(options, "options")?;
    js(opts.validate())?;
    to_js(&js(t.grammar(&opts))?)
}

/// Check whether `text` is accepted by a GBNF grammar: `{accepted, errorAt?}`.
#[wasm_bindgen(js_name = checkGrammar)]
pub fn check_grammar(gbnf: &str, text: &str) -> Result<JsValue, JsValue> {
    to_js(&js(crate::gbnf::check_grammar(gbnf, text))?)
}

/// The analysis, generation prompt and request options for a parse.
fn parse_setup(template_or_source: &JsValue, options: Option<String>) -> Result<(Rc<crate::ChatTemplate>, String, RequestOptions), JsValue> {
    let t = template_arg(template_or_source)?;
    let opts: RequestOptions = from_json_opt(options, "options")?;
    js(opts.validate())?;
    let gp = js(t.generation_prompt(&opts))?;
    Ok((t, gp, opts))
}

/// What the template appends for the assistant's turn (the text the parser reads before the output).
#[wasm_bindgen(js_name = generationPrompt)]
pub fn generation_prompt(template_or_source: JsValue, options: Option<String>) -> Result<String, JsValue> {
    Ok(parse_setup(&template_or_source, options)?.1)
}

/// Parse a whole model output into an OpenAI-style assistant message.
/// Throws a `Parse` error (with `offset`) only when `isPartial` is false and the output ends inside a
/// tool call.
#[wasm_bindgen(js_name = parseOutput)]
pub fn parse_output(template_or_source: JsValue, text: &str, options: Option<String>) -> Result<JsValue, JsValue> {
    let (t, gp, opts) = parse_setup(&template_or_source, options)?;
    let msg = js(crate::parse_output(js(t.analysis())?, &gp, text, &opts))?;
    Ok(convert::message_to_js(&msg))
}

/// Render assistant messages through the template and parse them back: the template's self-test.
#[wasm_bindgen(js_name = verifyTemplate)]
pub fn verify_template(template_or_source: JsValue) -> Result<JsValue, JsValue> {
    let t = template_arg(&template_or_source)?;
    to_js(&t.verify())
}

/// Streaming parser: `push(chunk)` returns OpenAI `chat.completion.chunk` deltas; `finish()` flushes.
#[wasm_bindgen(js_name = StreamParser)]
pub struct JsStreamParser {
    inner: crate::StreamParser,
    // Keeps the template (and its analysis) alive while the parser lives.
    _template: Rc<crate::ChatTemplate>,
    /// Reused for every chunk's deltas (saves an allocation per push).
    scratch: Vec<crate::api::Delta>,
}

#[wasm_bindgen(js_class = StreamParser)]
impl JsStreamParser {
    /// `templateOrSource`: a `ChatTemplate` or a template source string; `options`: request options.
    #[wasm_bindgen(constructor)]
    pub fn new(template_or_source: JsValue, options: Option<String>) -> Result<JsStreamParser, JsValue> {
        let (t, gp, opts) = parse_setup(&template_or_source, options)?;
        let inner = js(crate::StreamParser::new(js(t.analysis())?, &gp, &opts))?;
        Ok(JsStreamParser { inner, _template: t, scratch: Vec::new() })
    }

    /// Consume a chunk; returns the deltas it completed (often none while a marker may be starting).
    /// Never throws on malformed output: see `diagnostics`.
    pub fn push(&mut self, chunk: &str) -> JsValue {
        self.scratch.clear();
        self.inner.push_into(chunk, &mut self.scratch);
        convert::deltas_to_js(&self.scratch)
    }

    /// End of output: returns the remaining deltas. With `isPartial: false`, output that ends inside a
    /// tool call throws a `Parse` error with `offset`; its `deltas` property holds the flushed deltas.
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        match self.inner.finish() {
            Ok(deltas) => Ok(convert::deltas_to_js(&deltas)),
            Err(e) => {
                let err = convert::to_js_error(e);
                let deltas = convert::deltas_to_js(&self.inner.take_failed_deltas());
                let _ = js_sys::Reflect::set(&err, &JsValue::from_str("deltas"), &deltas);
                Err(err)
            }
        }
    }

    /// The message so far.
    #[wasm_bindgen(getter)]
    pub fn message(&self) -> Result<JsValue, JsValue> {
        Ok(convert::message_to_js(self.inner.message()))
    }

    /// Problems seen in the output so far: `[{offset, message}]`.
    #[wasm_bindgen(getter)]
    pub fn diagnostics(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.diagnostics())
    }

    /// True once the output reached a stop marker (harmony `<|return|>` / `<|call|>`).
    #[wasm_bindgen(getter)]
    pub fn stopped(&self) -> bool {
        self.inner.stopped()
    }
}
