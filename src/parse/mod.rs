//! The output-parsing engine: one O(n) state machine per format, used for both whole text and streams,
//! and the pieces they share (the push loop, delta routing, marker holdback, incremental JSON).
//!
//! Every parser implements [`OutputParser`]: `push` consumes a chunk and appends deltas; `finish`
//! flushes what was held back. A whole-text parse is `push(text)` + `finish()`, so there is one code
//! path. Parsers never re-read text they have already consumed; they hold back only the suffix that
//! could still begin a marker.

use crate::api::{Delta, Diagnostic};
use crate::Result;

pub mod call_ids;
pub mod drive;
pub mod emit;
pub mod exit;
#[cfg(feature = "full")]
pub mod generic;
pub mod inline_reasoning;
pub mod json_complete;
pub mod json_extent;
pub mod json_fence;
pub mod json_numbers;
pub mod missing_opener;
pub mod pythonic_check;
pub mod raw_code;
pub mod scan;

/// A streaming output parser.
pub trait OutputParser {
    /// Consume `chunk`, appending the deltas it completes to `out`. Never fails: malformed output is
    /// kept as content and reported through [`OutputParser::diagnostics`].
    fn push(&mut self, chunk: &str, out: &mut Vec<Delta>);
    /// End of input: flush held-back text. With `is_partial == false`, a truncated tool call is an
    /// error naming its byte offset (the deltas are still appended first).
    fn finish(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()>;
    /// Problems seen so far (malformed markers, broken JSON, …).
    fn diagnostics(&self) -> &[Diagnostic];
    /// True once the output reached a stop marker after which nothing more is expected
    /// (harmony `<|return|>` / `<|call|>`).
    fn stopped(&self) -> bool {
        false
    }
    /// An independent copy in the same state, when the parser can make one: a parser built and
    /// prefilled once per request options is copied for each response instead of built again
    /// (`session`'s parser cache). `None`: build a new one each time.
    fn fork(&self) -> Option<Box<dyn OutputParser>> {
        None
    }
    /// Read the part of the generation prompt the output continues, before any output: how a parser
    /// from [`crate::formats::Format::unprimed`] (built once per request shape and copied) is made ready
    /// for one prompt. Parsers no format hands out unprimed ignore it.
    fn prime(&mut self, _prefill: &str, _out: &mut Vec<Delta>) {}
    /// A delta's string the caller no longer needs, for the parser to write its next delta into: a
    /// stream of short chunks then allocates no string per chunk. Parsers may ignore it.
    fn recycle(&mut self, _spare: String) {}
}

pub mod auto;
pub mod config;
pub mod json;
pub mod jsoncall;
pub mod literal;
pub mod marker;
