//! Routing of parsed text to deltas, shared by the format parsers.
//!
//! Parsers decide *what* a piece of text is (content, reasoning, a reasoning delimiter); the
//! [`Emitter`] decides *where* it goes given the request: `reasoningFormat: none` keeps reasoning and
//! its delimiters in content, and a response-format schema unwraps a fenced JSON answer
//! ([`FenceStrip`]). (`deepseek-legacy` is built from an extracting and a `none` parse, for every
//! format alike: see `inline_reasoning`.)

use crate::api::{Delta, ReasoningFormat};
use crate::parse::json_fence::FenceStrip;

/// Sends content and reasoning to the right deltas, and coalesces consecutive deltas of one kind
/// produced by one push (the one delta coalescer).
#[derive(Debug, Clone)]
pub struct Emitter {
    format: ReasoningFormat,
    fence: Option<FenceStrip>,
    /// Deltas before this index of `out` belong to the caller (an earlier push): never merged into.
    start: usize,
    /// A delta string the caller is done with (see [`crate::parse::OutputParser::recycle`]): the next
    /// content or reasoning delta is written into it instead of a new allocation.
    spare: Option<String>,
}

impl Emitter {
    /// `json_response`: the request has a response-format schema (strip a code fence around content).
    pub fn new(format: ReasoningFormat, json_response: bool) -> Self {
        Emitter { format, fence: json_response.then(FenceStrip::new), start: 0, spare: None }
    }

    /// A push (or the end of input) begins: its deltas go after `out_len`.
    pub fn begin(&mut self, out_len: usize) {
        self.start = out_len;
    }

    /// Keep `s` for the next delta's text.
    pub fn recycle(&mut self, mut s: String) {
        s.clear();
        self.spare = Some(s);
    }

    /// `s` as a delta's own string, in the recycled one when there is one.
    fn owned(&mut self, s: &str) -> String {
        match self.spare.take() {
            Some(mut spare) => {
                spare.push_str(s);
                spare
            }
            None => s.to_string(),
        }
    }

    /// The last delta of this push, if any (to extend it).
    fn last<'o>(&self, out: &'o mut [Delta]) -> Option<&'o mut Delta> {
        if out.len() > self.start { out.last_mut() } else { None }
    }

    /// Tool-call argument text for call `index`.
    pub fn tool_args(&mut self, index: usize, args: String, out: &mut Vec<Delta>) {
        if args.is_empty() {
            return;
        }
        if let Some(Delta::ToolCall { index: i, arguments: Some(a), .. }) = self.last(out) {
            if *i == index {
                a.push_str(&args);
                return;
            }
        }
        out.push(Delta::ToolCall { index, id: None, name: None, arguments: Some(args) });
    }

    /// Visible content.
    pub fn content(&mut self, s: &str, out: &mut Vec<Delta>) {
        let fenced = self.fence.as_mut().map(|f| f.push(s));
        self.push_content(fenced.as_deref().unwrap_or(s), out);
    }

    fn push_content(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        match self.last(out) {
            Some(Delta::Content(c)) => c.push_str(s),
            _ => {
                let owned = self.owned(s);
                out.push(Delta::Content(owned));
            }
        }
    }

    /// Reasoning text.
    pub fn reasoning(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        match (self.format, self.last(out)) {
            (ReasoningFormat::None, _) => self.content(s, out),
            (_, Some(Delta::Reasoning(r))) => r.push_str(s),
            _ => {
                let owned = self.owned(s);
                out.push(Delta::Reasoning(owned));
            }
        }
    }

    /// A reasoning delimiter as written: kept in content unless reasoning is extracted.
    pub fn reasoning_marker(&mut self, s: &str, out: &mut Vec<Delta>) {
        if self.format == ReasoningFormat::None {
            self.content(s, out);
        }
    }

    /// End of output: release what the fence stripper held.
    pub fn finish(&mut self, out: &mut Vec<Delta>) {
        if let Some(f) = &mut self.fence {
            let s = f.finish();
            self.push_content(&s, out);
        }
    }
}

/// Whitespace between structures (after a tool call, between messages) is held in `ws` and dropped if
/// a marker follows; once other text comes it is released with it. Returns the text to emit now (the
/// trailing whitespace of `text` is always held, so the result does not depend on chunking).
pub fn release_after_ws(ws: &mut String, text: &str) -> Option<String> {
    let body = text.trim_end();
    let released = if body.is_empty() {
        None
    } else {
        let mut s = std::mem::take(ws);
        s.push_str(body);
        Some(s)
    };
    ws.push_str(text.get(body.len()..).unwrap_or(""));
    released
}

/// Records diagnostics with their byte offsets in the model output; shared bookkeeping of the parsers.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    list: Vec<crate::api::Diagnostic>,
    /// Input offset where the model output starts (after the prefill).
    origin: usize,
}

impl Diagnostics {
    /// Add one at input offset `at` (a position inside the prefill counts as the output's start).
    /// The same message right after the last one is counted in it (see [`crate::api::Diagnostic`]):
    /// a marker repeated n times costs one diagnostic, not n.
    pub fn add(&mut self, at: usize, message: impl Into<String>) {
        let offset = at.saturating_sub(self.origin);
        let message = message.into();
        if let Some(last) = self.list.last_mut() {
            // (A parser may report a held marker after the next one: the run spans both ways.)
            if last.message == message {
                let end = last.last_offset.unwrap_or(last.offset).max(offset);
                last.offset = last.offset.min(offset);
                last.count += 1;
                last.last_offset = Some(end);
                return;
            }
        }
        self.list.push(crate::api::Diagnostic::new(offset, message));
    }

    /// The model output starts at input offset `origin`.
    pub fn set_origin(&mut self, origin: usize) {
        self.origin = origin;
    }

    /// Is this input offset in the generation prompt read before the model output?
    pub fn in_prompt(&self, at: usize) -> bool {
        at < self.origin
    }

    /// All so far.
    pub fn list(&self) -> &[crate::api::Diagnostic] {
        &self.list
    }
}
