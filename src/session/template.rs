//! [`ChatTemplate`]: a compiled template with its cached analysis, and what it gives per request.

use super::prompt_cache::PromptCache;
use super::{generation_prompt, parser_cache, verify_template, StreamParser, VerifyReport};
use crate::analysis::analyze_template_with_caps;
use crate::api::{Message, RequestOptions};
use crate::findings::spec::GenerationPrompts;
use crate::findings::{Analysis, ParserSpec, PARSER_SPEC_VERSION};
use crate::gbnf::Grammar;
use crate::template::{RenderOptions, Template};
use crate::{Error, ErrorKind, Result};
use std::sync::OnceLock;

/// A compiled chat template with its analysis (computed on first use, then cached).
///
/// Dereferences to the [`Template`] it wraps, so `render`, `render_lenient`, `caps` and `source` are
/// available directly.
pub struct ChatTemplate {
    template: Template,
    /// The analysis or why it failed, kept either way (a failure is not retried).
    analysis: OnceLock<Result<Analysis>>,
    /// Generation prompts of recent requests (two renders each), keyed by the options they depend on.
    prompts: PromptCache,
    /// Names this template's parsers in the parser cache (`parser_cache`).
    id: u64,
}

impl Drop for ChatTemplate {
    fn drop(&mut self) {
        parser_cache::forget(self.id);
    }
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.template.fmt(f)
    }
}

impl std::ops::Deref for ChatTemplate {
    type Target = Template;
    fn deref(&self) -> &Template {
        &self.template
    }
}

impl From<Template> for ChatTemplate {
    fn from(template: Template) -> Self {
        ChatTemplate { template, analysis: OnceLock::new(), prompts: PromptCache::default(), id: parser_cache::new_template_id() }
    }
}

impl ChatTemplate {
    /// Compile `source`. Fails with [`crate::ErrorKind::TemplateSyntax`] naming line and column.
    pub fn new(source: &str, options: RenderOptions) -> Result<Self> {
        Template::new(source, options).map(Self::from)
    }

    /// The compiled template.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The differential analysis of this template, computed once on first use (dozens of renders, all
    /// held to one budget, `RenderOptions::analysis_fuel`). Fails with [`ErrorKind::Limit`] when a
    /// probe render hits a limit or the budget runs out, and with [`ErrorKind::Analysis`] when no
    /// probe conversation renders at all. The result, error included, is kept: later calls return it.
    pub fn analysis(&self) -> Result<&Analysis> {
        // Computed outside the cell so that a failure (or an unwinding trap) never leaves it mid-init.
        if self.analysis.get().is_none() {
            let t = &self.template;
            let computed = t.caps_checked().and_then(|caps| {
                let a = analyze_template_with_caps(t, caps);
                t.probe_failure().map_or(Ok(a), Err)
            });
            let _ = self.analysis.set(computed);
        }
        match self.analysis.get() {
            Some(Ok(a)) => Ok(a),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::new(ErrorKind::Analysis, "analysis unavailable")),
        }
    }

    /// What the template appends for the assistant's turn in this request (see [`generation_prompt`]).
    /// Rendered once per distinct conversation / tools / thinking / extra context / continuation, then
    /// reused (a bounded cache): a parser per response with the same options costs no render.
    pub fn generation_prompt(&self, options: &RequestOptions) -> Result<String> {
        let analysis = self.analysis()?;
        if options.generation_prompt.is_some() {
            // The caller's own prompt end: nothing to render, nothing to cache.
            return generation_prompt(&self.template, analysis, options);
        }
        self.prompts.get_or_render(options, || generation_prompt(&self.template, analysis, options))
    }

    /// A streaming parser for this request's model output, fed the request's generation prompt. Built
    /// once per distinct options, then copied (a bounded cache per thread): set-up costs a copy.
    pub fn stream_parser(&self, options: &RequestOptions) -> Result<StreamParser> {
        parser_cache::get_or_build_for(self.id, options, || parser_cache::build(self.id, self.analysis()?, &self.generation_prompt(options)?, options))
    }

    /// [`Self::stream_parser`] for a caller that already holds text determining `options` — the JSON
    /// they were read from — as the cache key, so that nothing is serialized per parse (the JS binding).
    pub fn stream_parser_keyed(&self, key: &str, options: &RequestOptions) -> Result<StreamParser> {
        parser_cache::get_or_build(self.id, key, || parser_cache::build(self.id, self.analysis()?, &self.generation_prompt(options)?, options))
    }

    /// Parse a whole model output of this request.
    pub fn parse_output(&self, text: &str, options: &RequestOptions) -> Result<Message> {
        self.stream_parser(options)?.parse_whole(text)
    }

    /// The GBNF grammar, lazy triggers and preserved tokens for this request.
    pub fn grammar(&self, options: &RequestOptions) -> Result<Grammar> {
        crate::formats::build_grammar(self.analysis()?, options)
    }

    /// What parsing this template's output needs, as a portable [`ParserSpec`]: the analysis (without its
    /// record of comparisons) and the generation prompt's tail per thinking mode, rendered for one user
    /// message, no tools and `extra_context` (what `extraContext` a request would add). A
    /// [`super::CompiledParser`] made from it parses as this template does, with no template engine.
    ///
    /// # Errors
    /// What [`Self::analysis`] and [`Self::generation_prompt`] fail with.
    pub fn compile_parser(&self, extra_context: &serde_json::Map<String, serde_json::Value>) -> Result<ParserSpec> {
        let mut analysis = self.analysis()?.clone();
        analysis.diffs.clear();
        let tail = |enable_thinking| {
            let options = RequestOptions { enable_thinking, extra_context: extra_context.clone(), ..RequestOptions::default() };
            self.generation_prompt(&options)
        };
        let default = tail(None)?;
        let other = |on: bool| tail(Some(on)).map(|t| (t != default).then_some(t));
        let generation_prompts = GenerationPrompts { thinking: other(true)?, no_thinking: other(false)?, default };
        Ok(ParserSpec { spec_version: PARSER_SPEC_VERSION, written_by: env!("CARGO_PKG_VERSION").to_string(), format: analysis.handler, generation_prompts, analysis })
    }

    /// The template's round-trip self-test.
    pub fn verify(&self) -> VerifyReport {
        verify_template(self)
    }
}
