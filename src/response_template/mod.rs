//! Hugging Face `response_template`s (transformers ≥ 5.23 response parsing): derive one from a
//! template's analysis ([`derive_response_template`]), and parse model output with a declared one.
//!
//! - `spec.rs`: the JSON object transformers accepts, as serde types.
//! - `derive.rs`: analysis → template, plus what the spec cannot express ([`Loss`]).

mod derive;
mod spec;

pub use derive::{derive_response_template, derive_response_template_with, derive_spec, escape, DeriveOptions, Loss};
pub use spec::{Field, Literals, ResponseTemplate};

use crate::analysis::Analysis;
use crate::template::ChatTemplate;
use serde_json::{json, Value};

/// [`derive_response_template_with`] for a template: the analysis' assistant-turn marker is the
/// `start_anchor` only when the rendered prompt holds it; otherwise the generation prompt, or else
/// what the template writes after the last user message (`[/INST]`), is.
pub fn response_template_for(template: &ChatTemplate, options: &DeriveOptions) -> (Value, Vec<Loss>) {
    let analysis: &Analysis = template.analysis();
    let mut options = options.clone();
    if options.start_anchor.is_none() {
        options.start_anchor = anchor_from_render(template, analysis);
    }
    derive_response_template_with(analysis, &options)
}

fn anchor_from_render(template: &ChatTemplate, analysis: &Analysis) -> Option<String> {
    const MARK: &str = "\u{1}user-text\u{1}";
    let ctx = json!({ "messages": [{ "role": "user", "content": MARK }], "add_generation_prompt": true, "bos_token": "", "eos_token": "" });
    let prompt = template.render(&ctx).ok()?;
    let after_user = prompt.rsplit(MARK).next().unwrap_or("");
    let marker = analysis.assistant_start.trim();
    if !marker.is_empty() && after_user.contains(marker) {
        return None;
    }
    let gp = crate::parse::generation_prompt(template, analysis, &crate::api::RequestOptions::default()).unwrap_or_default();
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
