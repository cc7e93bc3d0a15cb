//! # chat-autoparser
//!
//! Give it any LLM chat template (Jinja) and it works out — by rendering the template with controlled
//! variations and diffing the outputs, never by matching model names — how that model writes reasoning,
//! content and tool calls. From that analysis it parses model output (whole or streamed, in O(n)) into
//! OpenAI-style messages and deltas, and emits GBNF grammars for constrained tool calling.
//!
//! # Key types
//! - [`ChatTemplate`]: a compiled template with its cached analysis; `render`, `caps`, `analysis`,
//!   and per request `generation_prompt`, `stream_parser`, `parse_output`, `grammar`, `verify`.
//! - [`StreamParser`]: model output, chunk by chunk, to [`api::Delta`]s and an [`api::Message`].
//! - [`Error`] / [`ErrorKind`]: the one error type.
//! - [`api`]: wire types (`Message`, `Delta`, `RequestOptions`).
//! - [`build_grammar`] → [`gbnf::Grammar`]: GBNF, lazy triggers and preserved tokens for tool
//!   calls or a response schema; [`gbnf::check_grammar`] checks a text against any GBNF grammar.
//!
//! - [`ParserSpec`] / [`CompiledParser`]: a template's parser compiled once
//!   ([`ChatTemplate::compile_parser`]) and parsed from without the template.
//!
//! Stages, each folder importing only the ones before it (see ARCHITECTURE.md):
//! `findings` → `template` → `analysis` → `parse` / `gbnf` → `formats` → `session` → `wasm` / CLI.
//!
//! # Features
//! `full` (default): everything. Without it (`--no-default-features --features parser`) the crate is
//! the parse-only runtime: [`CompiledParser`], [`StreamParser`], [`parse_output`] and the wire types, with
//! no template engine, analysis, grammars or response templates (the wasm of `chat-autoparser/parser`).

#[cfg(feature = "full")]
pub mod analysis;
pub mod api;
mod error;
mod findings;
mod formats;
mod mru;
#[cfg(feature = "full")]
pub mod gbnf;
mod parse;
#[cfg(feature = "full")]
pub mod response_template;
pub mod rules;
mod session;
#[cfg(feature = "full")]
mod template;
mod text;

#[cfg(target_arch = "wasm32")]
mod wasm;

/// The analysis' types without the analysis: what a parse-only build (no `full` feature) has of it.
#[cfg(not(feature = "full"))]
pub mod analysis {
    pub use crate::findings::*;
}

pub use error::{Error, ErrorKind, Result};
pub use findings::spec::GenerationPrompts;
pub use findings::{ParserSpec, PARSER_SPEC_VERSION};
#[cfg(feature = "full")]
pub use formats::build_grammar;
pub use session::{parse_output, CompiledParser, StreamParser};
#[cfg(feature = "full")]
pub use session::{generation_prompt, request_prompt, verify_template, ChatTemplate, PartStatus, Verified, VerifyReport, VerifyResult};
#[cfg(feature = "full")]
pub use template::{render_template, RenderOptions, Template, MAX_EXPRESSION_DEPTH};
pub use findings::Caps;

/// Crate version.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Internals that the crate's own integration tests, benchmarks and fuzz targets drive directly.
/// Not part of the API: no stability promise.
#[doc(hidden)]
#[cfg(feature = "full")]
pub mod testing {
    pub use crate::formats::{parser_prefill, FunctionaryParser, HarmonyParser};
    pub use crate::parse::generic::{GenericConfig, GenericParser};
    pub use crate::parse::auto::markers::spelling::without_special_part;
    pub use crate::parse::OutputParser;
    pub use crate::session::fixture_tools;

    use crate::analysis::{Analysis, Handler};
    use crate::api::{Delta, Diagnostic, RequestOptions};
    use crate::parse::drive::Machine;

    /// `text` cut into chunks of about `n` bytes (at least 1), each ending on a char boundary: the
    /// chunkings tests and benchmarks stream.
    pub fn chunks(text: &str, n: usize) -> Vec<&str> {
        let mut out = Vec::with_capacity(text.len() / n.max(1) + 1);
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + n.max(1)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            out.push(&text[start..end]);
            start = end;
        }
        out
    }

    /// The analysis-driven parser, having read `prefill` (see [`parser_prefill`]); the deltas that
    /// gave come out with the first `push` or `finish`.
    pub fn auto_parser(analysis: &Analysis, options: &RequestOptions, prefill: &str) -> Box<dyn OutputParser> {
        let mut parser = crate::parse::auto::AutoParser::new(analysis, options);
        let mut initial = Vec::new();
        parser.prefill(prefill, &mut initial);
        Box::new(Prefilled { parser: Box::new(parser), initial })
    }

    /// The parser a request gets for its template's format (`Format::parser`: the dedicated
    /// handler's or the auto parser, having read the generation prompt's part it continues).
    pub fn format_parser(analysis: &Analysis, options: &RequestOptions, generation_prompt: &str) -> Box<dyn OutputParser> {
        let (parser, initial) = crate::formats::format_of(analysis.handler).parser(analysis, options, generation_prompt);
        Box::new(Prefilled { parser, initial })
    }

    /// A parser with deltas to hand out before its own.
    struct Prefilled<P> {
        parser: P,
        initial: Vec<Delta>,
    }

    impl<P: OutputParser + ?Sized> OutputParser for Prefilled<Box<P>> {
        fn push(&mut self, chunk: &str, out: &mut Vec<Delta>) {
            out.append(&mut self.initial);
            self.parser.push(chunk, out);
        }
        fn finish(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> crate::Result<()> {
            out.append(&mut self.initial);
            self.parser.finish(is_partial, out)
        }
        fn diagnostics(&self) -> &[Diagnostic] {
            self.parser.diagnostics()
        }
    }

    /// A fresh parser for `handler` (nothing read yet): the dedicated format's, or for a format whose
    /// markers come from an analysis the template-free [`GenericParser`]. `generation_prompt` is only
    /// used by formats whose prompt holds a role header to skip (Functionary).
    pub fn make_parser(handler: Handler, options: &RequestOptions, generation_prompt: &str) -> Box<dyn OutputParser> {
        crate::formats::format_of(handler).fresh_parser(options, generation_prompt).unwrap_or_else(|| {
            let config = GenericConfig { reasoning: options.reasoning_format, json_response: options.json_schema.is_some(), ..GenericConfig::default() };
            Box::new(GenericParser::new(config))
        })
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
