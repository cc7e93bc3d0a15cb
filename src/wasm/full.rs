//! The full package's exports: templates, analysis, grammars, response templates, compiled parser
//! specs, and parsing by a template.

use super::convert::{self, from_json, from_json_opt, js, to_js};
use super::registry::{self, template_arg, Registered};
use super::parsing::{self, JsStreamParser};
use super::{declared, request_options};
use crate::api::RequestOptions;
use crate::template::RenderOptions;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

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
    analysis_with_verified(&t)
}

/// The analysis plus `verified`: the template's own round trip, per part, so an analysis that looks
/// complete but does not read back what the template writes says so.
fn analysis_with_verified(t: &crate::ChatTemplate) -> Result<JsValue, JsValue> {
    #[derive(serde::Serialize)]
    struct WithVerified<'a> {
        #[serde(flatten)]
        analysis: &'a crate::analysis::Analysis,
        verified: crate::session::Verified,
    }
    to_js(&WithVerified { analysis: js(t.analysis())?, verified: crate::verify_template(t).verified })
}

/// A compiled chat template.
#[wasm_bindgen(js_name = ChatTemplate)]
pub struct JsChatTemplate {
    inner: Rc<crate::ChatTemplate>,
    handle: Registered,
    /// The declared response template, if any (parsing then follows it).
    declared: Option<(Rc<crate::response_template::CompiledTemplate>, declared::DeclaredEntry)>,
}

#[wasm_bindgen(js_class = ChatTemplate)]
impl JsChatTemplate {
    /// Compile a template. Throws on a syntax error (with `line` and `column`).
    #[wasm_bindgen(constructor)]
    pub fn new(source: &str, options: Option<String>, response_template: Option<String>) -> Result<JsChatTemplate, JsValue> {
        let declared = response_template.map(|rt| declared::compile(&rt, "responseTemplate")).transpose()?;
        let inner = Rc::new(js(crate::ChatTemplate::new(source, render_options(options)?))?);
        let handle = Registered::new(inner.clone());
        let declared = declared.map(|d| (d.clone(), declared::DeclaredEntry::new(handle.id(), d)));
        Ok(JsChatTemplate { inner, handle, declared })
    }

    /// The declared response template (as given), or `undefined`.
    #[wasm_bindgen(getter, js_name = responseTemplate)]
    pub fn response_template(&self) -> Result<JsValue, JsValue> {
        match &self.declared {
            Some((t, _)) => to_js(&t.spec),
            None => Ok(JsValue::UNDEFINED),
        }
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
        analysis_with_verified(&self.inner)
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
    let (t, opts, _) = request(&template_or_source, options)?;
    #[cfg(feature = "size-probe-no-grammar")]
    return { let _ = t; Err(convert::to_js_error(crate::Error::new(crate::ErrorKind::InvalidInput, "not in this build (size probe)"))) };
    #[cfg(not(feature = "size-probe-no-grammar"))]
    to_js(&js(t.grammar(&opts))?)
}

/// Check whether `text` is accepted by a GBNF grammar: `{accepted, errorAt?}`.
#[wasm_bindgen(js_name = checkGrammar)]
pub fn check_grammar(gbnf: &str, text: &str) -> Result<JsValue, JsValue> {
    #[cfg(feature = "size-probe-no-grammar")]
    return { let _ = (gbnf, text); Err(convert::to_js_error(crate::Error::new(crate::ErrorKind::InvalidInput, "not in this build (size probe)"))) };
    #[cfg(not(feature = "size-probe-no-grammar"))]
    to_js(&js(crate::gbnf::check_grammar(gbnf, text))?)
}

/// The template and the checked request options of a call.
fn request(template_or_source: &JsValue, options: Option<String>) -> Result<(Rc<crate::ChatTemplate>, Rc<RequestOptions>, Rc<str>), JsValue> {
    let t = template_arg(template_or_source)?;
    let (opts, key) = request_options::read(&options.unwrap_or_default())?;
    Ok((t, opts, key))
}

/// What the template appends for the assistant's turn (the text the parser reads before the output).
#[wasm_bindgen(js_name = generationPrompt)]
pub fn generation_prompt(template_or_source: JsValue, options: Option<String>) -> Result<String, JsValue> {
    let (t, opts, _) = request(&template_or_source, options)?;
    js(t.generation_prompt(&opts))
}

/// The request's parser: by the declared response template when the `ChatTemplate` has one, else the
/// template's own (built once per options and copied, see `session::parser_cache`).
fn stream_parser(template_or_source: &JsValue, t: &crate::ChatTemplate, opts: &RequestOptions, key: &str) -> Result<crate::StreamParser, JsValue> {
    match declared::declared_for(template_or_source) {
        Some(d) => js(declared::stream_parser(d, &js(t.generation_prompt(opts))?, opts)),
        None => js(t.stream_parser_keyed(key, opts)),
    }
}

/// Parse a whole model output into an OpenAI-style assistant message. Output that ends inside a tool
/// call gives the message as parsed with `finishReason: 'length'`; with `strict: true` (and
/// `isPartial` false) it throws a `Parse` error with `offset` instead.
#[wasm_bindgen(js_name = parseOutput)]
pub fn parse_output(template_or_source: JsValue, text: &str, options: Option<String>) -> Result<JsValue, JsValue> {
    let (t, opts, key) = request(&template_or_source, options)?;
    parsing::parse_whole(stream_parser(&template_or_source, &t, &opts, &key)?, text, opts.reasoning_field)
}

/// Render assistant messages through the template and parse them back: the template's self-test.
#[wasm_bindgen(js_name = verifyTemplate)]
pub fn verify_template(template_or_source: JsValue) -> Result<JsValue, JsValue> {
    let t = template_arg(&template_or_source)?;
    let report = t.verify();
    let Some(d) = declared::declared_for(&template_or_source) else { return to_js(&report) };
    // Built with a declared response template: also where it and our analysis disagree.
    #[derive(serde::Serialize)]
    struct WithDeclared<'a> {
        #[serde(flatten)]
        report: &'a crate::VerifyReport,
        #[serde(rename = "responseTemplate")]
        response_template: crate::response_template::DeclaredCheck,
    }
    to_js(&WithDeclared { response_template: declared::check(d, &report), report: &report })
}

/// transformers' `parse_response`: parse `text` with a declared `response_template` object;
/// returns the message dict exactly as transformers builds it. Options: `{prefix, tools,
/// reasoningFormat}` (`reasoningFormat` as `parseOutput` applies it; `auto` by default, transformers' dict).
#[wasm_bindgen(js_name = parseResponse)]
pub fn parse_response(text: &str, response_template: &str, options: Option<String>) -> Result<JsValue, JsValue> {
    #[derive(serde::Deserialize, Default)]
    #[serde(default, deny_unknown_fields)]
    struct Opts {
        prefix: String,
        tools: Vec<serde_json::Value>,
        #[serde(rename = "reasoningFormat")]
        reasoning_format: crate::api::ReasoningFormat,
    }
    let opts: Opts = from_json_opt(options, "options")?;
    convert::value_to_js(&declared::parse_response(text, response_template, &opts.prefix, &opts.tools, opts.reasoning_format)?)
}

/// The analysis as a Hugging Face `response_template`: `{responseTemplate, losses}`.
#[wasm_bindgen(js_name = responseTemplate)]
pub fn response_template(template_or_source: JsValue, options: Option<String>) -> Result<JsValue, JsValue> {
    let t = template_arg(&template_or_source)?;
    let opts: crate::response_template::ResponseTemplateOptions = from_json_opt(options, "options")?;
    to_js(&js(declared::derive(&t, &opts))?)
}

/// The full package's `StreamParser` (see `parsing::JsStreamParser`): over a template, with region events.
#[wasm_bindgen(js_class = StreamParser)]
impl JsStreamParser {
    /// `templateOrSource`: a `ChatTemplate` or a template source string; `options`: request options.
    #[wasm_bindgen(constructor)]
    pub fn new(template_or_source: JsValue, options: Option<String>) -> Result<JsStreamParser, JsValue> {
        let (t, opts, key) = request(&template_or_source, options)?;
        let inner = stream_parser(&template_or_source, &t, &opts, &key)?;
        Ok(JsStreamParser::over(inner, opts.reasoning_field, t))
    }

    /// `push` that also returns transformers-style region events: `{deltas, events}` with events
    /// `region_open` / `region_chunk` (`dirty`) / `region_close` for `thinking` / `content` / `tool_calls`.
    #[wasm_bindgen(js_name = pushEvents)]
    pub fn push_events(&mut self, chunk: &str) -> Result<JsValue, JsValue> {
        self.scratch.clear();
        self.inner.push_into(chunk, &mut self.scratch);
        let mut events = Vec::new();
        self.regions.feed(&self.scratch, &mut events);
        self.deltas_and_events(events)
    }

    /// `finish` that also returns the last region events (the open region closes).
    #[wasm_bindgen(js_name = finishEvents)]
    pub fn finish_events(&mut self) -> Result<JsValue, JsValue> {
        self.scratch = parsing::finish(&mut self.inner, self.reasoning_field)?;
        let mut events = Vec::new();
        self.regions.feed(&self.scratch, &mut events);
        self.regions.finish(&mut events);
        self.deltas_and_events(events)
    }

    fn deltas_and_events(&self, events: Vec<crate::response_template::RegionEvent>) -> Result<JsValue, JsValue> {
        let out = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str("deltas"), &convert::deltas_to_js(&self.scratch, self.reasoning_field));
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str("events"), &to_js(&events)?);
        Ok(out.into())
    }
}
