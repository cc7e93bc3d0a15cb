//! The differential (auto) format: everything about it comes from the template's [`Analysis`].
//! Its parser is the analysis-driven machine (`parse::auto`), its grammar [`super::auto_grammar`].

use super::Format;
#[cfg(feature = "full")]
use super::auto_grammar;
#[cfg(feature = "full")]
use crate::analysis::fallback_grammar_applies;
use crate::findings::Analysis;
#[cfg(feature = "full")]
use crate::findings::{fallback_formats, ReasoningMode, ToolFormat};
use crate::api::{Delta, RequestOptions};
#[cfg(feature = "full")]
use crate::gbnf::{token_units, Expr, Shape, Tool, ToolGrammar};
use crate::parse::auto::AutoParser;
use crate::parse::marker::Marker;
use crate::text::is_space;
use crate::parse::OutputParser;
#[cfg(feature = "full")]
use crate::Result;

/// The format the analysis describes.
pub struct Auto;

impl Format for Auto {
    fn parser(&self, a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        self.prime(Box::new(AutoParser::new(a, options)), a, options, generation_prompt)
    }

    /// Building the machine (configurations, marker respellings, per-tool readers: 40–120 µs natively)
    /// reads the analysis and the request's tools, thinking and format options, never the conversation:
    /// a new conversation with the same request shape copies it.
    fn unprimed(&self, a: &Analysis, options: &RequestOptions) -> Option<Box<dyn OutputParser>> {
        Some(Box::new(AutoParser::new(a, options)))
    }

    fn prime(&self, mut parser: Box<dyn OutputParser>, a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        let mut initial = Vec::new();
        parser.prime(&parser_prefill(a, generation_prompt, options), &mut initial);
        (parser, initial)
    }

    /// Rebuilt from the analysis' reasoning markers, as llama.cpp does:
    /// `prompt-up-to-reasoning-start + start + reasoning [+ end + content]`.
    fn continuation_prefill(&self, a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
        let mut gp = generation_prompt.to_string();
        let r = &a.reasoning;
        if !r.start.is_empty() {
            let cut = gp.find(r.start.as_str()).unwrap_or(gp.len());
            gp.truncate(cut);
            gp.push_str(&r.start);
            gp.push_str(reasoning);
            if content.is_some() {
                gp.push_str(&r.end);
            }
        }
        gp.push_str(content.unwrap_or(""));
        gp
    }

    #[cfg(feature = "full")]
    fn reasoning_markers(&self, a: &Analysis) -> Option<(String, String)> {
        let reasons = a.reasoning.mode != ReasoningMode::None && !a.reasoning.end.trim().is_empty();
        reasons.then(|| (a.reasoning.start.clone(), a.reasoning.end.clone()))
    }

    #[cfg(feature = "full")]
    /// Only when thinking is on: the template then opens or allows the block.
    fn reasoning_block(&self, g: &mut ToolGrammar, a: &Analysis, thinking: bool) -> Expr {
        g.reasoning_block(self.reasoning_markers(a).filter(|_| thinking))
    }

    #[cfg(feature = "full")]
    /// Without a tool format, the fallback's grammar format ([`fallback_grammar`]).
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        if a.tools.format.mode == ToolFormat::None {
            let Some(with) = fallback_grammar(a) else { return Ok(None) };
            return auto_grammar::shape(g, &with, tools).map(Some);
        }
        auto_grammar::shape(g, a, tools).map(Some)
    }

    #[cfg(feature = "full")]
    /// The analysis' markers, as the special tokens they are made of (with the fallback's grammar
    /// format's, when that is the format).
    fn preserved_tokens(&self, a: &Analysis) -> Vec<String> {
        let mut out: Vec<String> = a.preserved_tokens.iter().flat_map(|m| token_units(m)).collect();
        if let Some(f) = fallback_grammar(a).filter(|_| a.tools.format.mode == ToolFormat::None) {
            let fmt = &f.tools.format;
            for m in [&fmt.section_start, &fmt.section_end, &fmt.per_call_start, &fmt.per_call_end] {
                out.extend(token_units(m).into_iter().filter(|t| t.len() > 1));
            }
        }
        out
    }

    #[cfg(feature = "full")]
    /// With a tool format, or without one where the fallback also builds a grammar.
    fn writes_calls(&self, a: &Analysis) -> bool {
        a.tools.format.mode != ToolFormat::None || fallback_grammar_applies(a)
    }
}

#[cfg(feature = "full")]
/// The format a grammar constrains calls to when the template has no tool format: the fallback's
/// first (see `analysis::fallback_formats`) — the markers the template source names, else the first
/// convention — where `analysis::fallback_grammar_applies`.
fn fallback_grammar(a: &Analysis) -> Option<Analysis> {
    if !fallback_grammar_applies(a) {
        return None;
    }
    let first = fallback_formats(a).into_iter().next()?;
    Some(Analysis { tools: first.tools, reasoning: a.reasoning.clone(), content: a.content.clone(), ..Analysis::default() })
}

/// The part of `generation_prompt` the parser consumes before the model output: from the reasoning
/// start marker on (so the output starts inside reasoning), else the continued message's content.
pub fn parser_prefill(analysis: &Analysis, generation_prompt: &str, options: &RequestOptions) -> String {
    let start = analysis.reasoning.start.trim_matches(is_space);
    if !start.is_empty() {
        // The last occurrence: a continued message may repeat the marker after the template's own.
        if let Some(p) = generation_prompt.rfind(start) {
            let prefill = generation_prompt.get(p..).unwrap_or("");
            // Whitespace the prompt wrote after closing the reasoning it opened (thinking off:
            // `<think>\n\n</think>\n`) is the template's layout, not model output: it must not become
            // content. The end marker's own trailing whitespace (`</think>\n\n`) stays, since the parser
            // skips it there and cutting it would make it skip the model's; a continued message's text is kept.
            let end = Marker::new(&analysis.reasoning.end);
            if !end.core.is_empty() && options.continued_content().is_none() {
                if let Some(q) = prefill.rfind(end.core.as_str()).map(|q| q + end.core.len()) {
                    let after = &prefill[q..];
                    if q > start.len() && after.chars().all(is_space) {
                        let kept = after.bytes().zip(end.trail.bytes()).take_while(|(a, b)| a == b).count();
                        return prefill[..q + kept].to_string();
                    }
                }
            }
            return prefill.to_string();
        }
    }
    if let Some(content) = options.continued_content() {
        if generation_prompt.ends_with(&content) {
            return content;
        }
    }
    String::new()
}
