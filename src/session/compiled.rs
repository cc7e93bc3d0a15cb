//! [`CompiledParser`]: parsing from a [`ParserSpec`], the parse-only counterpart of `ChatTemplate`.

use super::{parser_cache, prompt_tail, StreamParser};
use crate::api::{Message, RequestOptions};
use crate::findings::ParserSpec;
use crate::Result;

/// A parser spec, ready to parse: the same parsers, built and prefilled once per request options and
/// then copied, as a `ChatTemplate`'s are. The generation prompt comes from the spec (see
/// [`prompt_tail::spec_generation_prompt`]) or the request's `generation_prompt`.
pub struct CompiledParser {
    spec: ParserSpec,
    /// Names this spec's parsers in the parser cache.
    id: u64,
}

impl Drop for CompiledParser {
    fn drop(&mut self) {
        parser_cache::forget(self.id);
    }
}

impl std::fmt::Debug for CompiledParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledParser").field("format", &self.spec.format).finish()
    }
}

impl From<ParserSpec> for CompiledParser {
    fn from(spec: ParserSpec) -> Self {
        CompiledParser { spec, id: parser_cache::new_template_id() }
    }
}

impl CompiledParser {
    /// Read a spec's JSON text (see [`ParserSpec::from_json`] for its errors).
    pub fn from_json(text: &str) -> Result<CompiledParser> {
        ParserSpec::from_json(text).map(CompiledParser::from)
    }

    /// The spec.
    pub fn spec(&self) -> &ParserSpec {
        &self.spec
    }

    /// The generation prompt a parser of this request starts from.
    pub fn generation_prompt(&self, options: &RequestOptions) -> String {
        prompt_tail::spec_generation_prompt(&self.spec, options)
    }

    /// A streaming parser for this request's model output.
    pub fn stream_parser(&self, options: &RequestOptions) -> Result<StreamParser> {
        parser_cache::get_or_build_for(self.id, options, || parser_cache::build(self.id, &self.spec.analysis, &self.generation_prompt(options), options))
    }

    /// [`Self::stream_parser`] keyed by text that determines `options` (the JSON they were read from).
    pub fn stream_parser_keyed(&self, key: &str, options: &RequestOptions) -> Result<StreamParser> {
        parser_cache::get_or_build(self.id, key, || parser_cache::build(self.id, &self.spec.analysis, &self.generation_prompt(options), options))
    }

    /// Parse a whole model output of this request.
    pub fn parse_output(&self, text: &str, options: &RequestOptions) -> Result<Message> {
        self.stream_parser(options)?.parse_whole(text)
    }
}
