//! Hugging Face `response_template`s (transformers ≥ 5.23 response parsing): derive one from a
//! template's analysis ([`derive_response_template`]), and parse model output with a declared one.
//!
//! - `spec.rs`: the JSON object transformers accepts, as serde types.
//! - `derive.rs`: analysis → template, plus what the spec cannot express ([`Loss`]).
//! - `regions.rs`: transformers-style `region_*` streaming events from our deltas.
//! - `pattern.rs` (with `case_fold.rs` for `(?i)`), `content.rs`, `interpret.rs`: parsing with a declared template (transformers'
//!   semantics, streamed with partial-match holdback); `declared.rs`: that parser as a
//!   [`crate::parse::StreamParser`] (OpenAI deltas); `verify.rs`: where a declared template and our
//!   analysis read the template's round-trip outputs differently.

mod case_fold;
mod content;
mod declared;
mod derive;
mod interpret;
mod pattern;
mod regions;
mod spec;
mod verify;

pub use derive::{derive_response_template, derive_response_template_with, derive_spec, escape, DeriveOptions, Loss};
pub use declared::DeclaredParser;
pub use interpret::{compiled_by_key, parse_response, parse_response_with, CompiledTemplate, ResponseParser};
pub use pattern::translate as translate_pattern;
pub use regions::{RegionEvent, RegionTracker};
pub use spec::{Field, Literals, ResponseTemplate};
pub use verify::{check_declared, DeclaredCheck, DeclaredDisagreement};

use crate::analysis::Analysis;
use crate::api::{ReasoningFormat, RequestOptions};
use crate::session::ChatTemplate;
use serde_json::{json, Value};

/// [`derive_response_template_with`] for a template: the analysis' assistant-turn marker is the
/// `start_anchor` only when the rendered prompt holds it; otherwise the generation prompt, or else
/// what the template writes after the last user message (`[/INST]`), is.
pub fn response_template_for(template: &ChatTemplate, options: &DeriveOptions) -> crate::Result<(Value, Vec<Loss>)> {
    let analysis: &Analysis = template.analysis()?;
    let mut options = options.clone();
    if options.start_anchor.is_none() {
        options.start_anchor = anchor_from_render(template, analysis);
    }
    options.prompt_closes_reasoning |= prompt_closes_reasoning(template, analysis);
    Ok(derive_response_template_with(analysis, &options))
}

/// Whether a generation prompt (thinking as the template defaults, or off) writes the reasoning end
/// marker without its start marker.
fn prompt_closes_reasoning(template: &ChatTemplate, analysis: &Analysis) -> bool {
    let (start, end) = (analysis.reasoning.start.trim(), analysis.reasoning.end.trim());
    if start.is_empty() || end.is_empty() {
        return false;
    }
    [None, Some(false)].into_iter().any(|enable_thinking| {
        let options = RequestOptions { enable_thinking, ..Default::default() };
        crate::session::generation_prompt(template, analysis, &options).is_ok_and(|gp| gp.contains(end) && !gp.contains(start))
    })
}

fn anchor_from_render(template: &ChatTemplate, analysis: &Analysis) -> Option<String> {
    const MARK: &str = "\u{1}user-text\u{1}";
    // As a text part for templates that render only typed content (otherwise the mark is not printed).
    let content = if template.caps().supports_typed_content { json!([{ "type": "text", "text": MARK }]) } else { json!(MARK) };
    let ctx = json!({ "messages": [{ "role": "user", "content": content }], "add_generation_prompt": true, "bos_token": "", "eos_token": "" });
    let prompt = template.render(&ctx).ok()?;
    let after_user = prompt.rsplit(MARK).next().unwrap_or("");
    let marker = analysis.assistant_start.trim();
    if !marker.is_empty() && after_user.contains(marker) {
        return None;
    }
    let gp = crate::session::generation_prompt(template, analysis, &RequestOptions::default()).unwrap_or_default();
    let candidate = if !gp.trim().is_empty() && after_user.contains(gp.trim()) { gp.as_str() } else { after_user };
    // Up to the reasoning opener: whether the prompt opens (or closes) reasoning depends on the request.
    let start = analysis.reasoning.start.trim();
    let candidate = match candidate.find(start) {
        Some(at) if !start.is_empty() => &candidate[..at],
        _ => candidate,
    };
    let candidate = candidate.trim();
    (!candidate.is_empty()).then(|| candidate.to_string())
}

/// Options of `responseTemplate(templateOrSource, options?)` (camelCase in JS).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ResponseTemplateOptions {
    /// Name of the reasoning field: `thinking` (default), `reasoning` or `reasoning_content`.
    pub reasoning_field: Option<String>,
    /// Override the derived `start_anchor`.
    pub start_anchor: Option<String>,
}

/// What `responseTemplate` returns: the template and what it cannot express.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DerivedResponseTemplate {
    /// The `response_template` object (as transformers' `parse_response` takes it).
    pub response_template: Value,
    /// Per feature, what the template loses against our parser.
    pub losses: Vec<Loss>,
}

/// The request-facing entry point (JS `responseTemplate`, CLI `response-template`).
pub fn response_template(template: &ChatTemplate, options: &ResponseTemplateOptions) -> crate::Result<DerivedResponseTemplate> {
    let reasoning_field = options.reasoning_field.clone().unwrap_or_else(|| "thinking".into());
    if !["thinking", "reasoning", "reasoning_content"].contains(&reasoning_field.as_str()) {
        return Err(crate::Error::new(
            crate::ErrorKind::InvalidInput,
            format!("options.reasoningField: expected \"thinking\", \"reasoning\" or \"reasoning_content\", got {reasoning_field:?}"),
        ));
    }
    let derive = DeriveOptions { reasoning_field, start_anchor: options.start_anchor.clone(), ..Default::default() };
    let (response_template, losses) = response_template_for(template, &derive)?;
    Ok(DerivedResponseTemplate { response_template, losses })
}

/// A [`crate::parse::StreamParser`] that parses with a declared template; `prefix` is the prompt
/// the output continues (the generation prompt, or the whole rendered prompt). Its text goes through
/// the emitter as every format's does, so `reasoningFormat` means the same (`deepseek-legacy`: an
/// extracting and a `none` parse side by side, as for every format).
pub fn declared_stream_parser(t: std::rc::Rc<CompiledTemplate>, prefix: &str, options: &RequestOptions) -> crate::Result<crate::session::StreamParser> {
    crate::session::StreamParser::over(options, |options| {
        let mut initial = Vec::new();
        let p = DeclaredParser::new(t.clone(), prefix, options, &mut initial)?;
        Ok((Box::new(p) as Box<dyn crate::parse::OutputParser>, initial))
    })
}

/// [`parse_response_with`] under a request's `reasoningFormat`, routed as `parseOutput` routes it:
/// `auto` and `deepseek` give transformers' dict as it is; `none` drops the reasoning fields
/// (`thinking`, `reasoning`, `reasoning_content`) and `content` is the reply's text as the emitter
/// sends it under `none` (the reasoning where it stands, see [`DeclaredParser`]); `deepseek-legacy`
/// keeps the reasoning fields with that `content`.
pub fn parse_response_as(t: std::rc::Rc<CompiledTemplate>, text: &str, prefix: &str, tools: &[Value], reasoning_format: ReasoningFormat) -> crate::Result<Value> {
    let mut dict = parse_response_with(t.clone(), text, prefix, tools)?;
    if matches!(reasoning_format, ReasoningFormat::Auto | ReasoningFormat::Deepseek) {
        return Ok(dict);
    }
    let options = RequestOptions { reasoning_format: ReasoningFormat::None, tools: tools.to_vec(), ..Default::default() };
    let mut inline = declared_stream_parser(t, prefix, &options)?;
    inline.push(text);
    inline.finish()?;
    let content = inline.message().content.clone();
    if let Value::Object(fields) = &mut dict {
        if reasoning_format == ReasoningFormat::None {
            fields.retain(|name, value| !(declared::is_reasoning(name) && value.is_string()));
        }
        if content.is_empty() {
            fields.remove("content");
        } else {
            fields.insert("content".into(), content.into());
        }
    }
    Ok(dict)
}
