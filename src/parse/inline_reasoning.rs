//! `reasoningFormat: deepseek-legacy`, the same for every output format: reasoning as an extracting
//! parse reports it, content and tool calls as a non-extracting parse (`none`) reports them, so the
//! reasoning also stays inline in content with its markers. Two parsers of one format read the same
//! input (only in this mode); each is chunking-invariant and they fill disjoint message fields, so the
//! pair is too.

use super::OutputParser;
use crate::api::{Delta, Diagnostic};
use crate::Result;

/// An extracting parser and a `none` parser of the same format, fed the same input.
pub struct InlineReasoning {
    extract: Box<dyn OutputParser>,
    inline: Box<dyn OutputParser>,
    scratch: Vec<Delta>,
}

impl InlineReasoning {
    /// `extract` was built with reasoning extracted, `inline` with `reasoningFormat: none`.
    pub fn new(extract: Box<dyn OutputParser>, inline: Box<dyn OutputParser>) -> Self {
        InlineReasoning { extract, inline, scratch: Vec::new() }
    }

    /// The reasoning deltas of the extracting parser's last output.
    fn take_reasoning(&mut self, out: &mut Vec<Delta>) {
        out.extend(self.scratch.drain(..).filter(|d| matches!(d, Delta::Reasoning(_))));
    }

    /// Merge deltas produced before the first push (from each parser's prefill).
    pub fn initial(mut extract: Vec<Delta>, inline: Vec<Delta>) -> Vec<Delta> {
        extract.retain(|d| matches!(d, Delta::Reasoning(_)));
        extract.extend(inline);
        extract
    }
}

impl OutputParser for InlineReasoning {
    fn push(&mut self, chunk: &str, out: &mut Vec<Delta>) {
        self.extract.push(chunk, &mut self.scratch);
        self.take_reasoning(out);
        self.inline.push(chunk, out);
    }

    fn finish(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        let extracted = self.extract.finish(is_partial, &mut self.scratch);
        self.take_reasoning(out);
        self.inline.finish(is_partial, out).and(extracted)
    }

    /// The extracting parse's view (the one that understood the reasoning structure).
    fn diagnostics(&self) -> &[Diagnostic] {
        self.extract.diagnostics()
    }

    fn stopped(&self) -> bool {
        self.extract.stopped() || self.inline.stopped()
    }

    fn fork(&self) -> Option<Box<dyn OutputParser>> {
        Some(Box::new(InlineReasoning { extract: self.extract.fork()?, inline: self.inline.fork()?, scratch: self.scratch.clone() }))
    }
}
