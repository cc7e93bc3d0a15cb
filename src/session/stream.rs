//! The user-facing parsing API: [`StreamParser`] for streams, [`parse_output`] for whole texts.
//!
//! Both run the same state machine; a whole parse is `push(text)` + `finish()`.
//!
//! # Errors
//! Parsing never fails on model output: malformed output stays content and is reported by
//! [`StreamParser::diagnostics`]. Output that ends inside a tool call (cut off) ends with what was
//! parsed, a diagnostic, and [`StreamParser::finish_reason`] `"length"`. Only with
//! `RequestOptions::strict` does [`StreamParser::finish`] of a non-partial request fail there; the
//! error carries the call's byte offset in the output. After an error the parser is poisoned: later
//! calls return a clone of it.

use crate::findings::Analysis;
use crate::api::{Delta, Diagnostic, Message, ReasoningFormat, RequestOptions};
use crate::formats::format_of;
use crate::parse::call_ids::CallIds;
use crate::parse::exit::ExitCheck;
use crate::parse::inline_reasoning::InlineReasoning;
use crate::parse::OutputParser;
use crate::{Error, ErrorKind, Result};

/// Streaming parser of model output into an OpenAI-style message.
pub struct StreamParser {
    inner: Box<dyn OutputParser>,
    message: Message,
    is_partial: bool,
    strict: bool,
    /// `"length"` once `finish` found the output cut off inside a tool call.
    finish_reason: Option<&'static str>,
    /// Deltas produced before the first push (from the generation-prompt prefill).
    initial: Vec<Delta>,
    failed: Option<Error>,
    finished: bool,
    /// Deltas of a `finish` that failed (already applied to `message`), until taken.
    unreturned: Vec<Delta>,
    /// Gives every tool call an id (see [`super::call_ids`]).
    ids: CallIds,
    /// deepseek-legacy: reasoning deltas repeat text the content deltas hold.
    inline_reasoning: bool,
    /// The guarantees checked where calls leave the parser (see [`crate::parse::exit`]).
    exit: Exit,
}

/// [`ExitCheck`] with what it needs from the stream: the output's length so far, and the inner
/// parser's diagnostics followed by the check's own once it has any.
#[derive(Debug, Default, Clone)]
struct Exit {
    check: ExitCheck,
    pushed: usize,
    /// The call the last delta belonged to (none when text came after it).
    last_call: Option<usize>,
    diagnostics: Option<Vec<Diagnostic>>,
}

impl std::fmt::Debug for StreamParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamParser").field("message", &self.message).finish()
    }
}

impl StreamParser {
    /// A parser for a template described by `analysis`, whose prompt ended with `generation_prompt`
    /// (see [`super::generation_prompt`]; for continued messages, including the prefill).
    pub fn new(analysis: &Analysis, generation_prompt: &str, options: &RequestOptions) -> Result<StreamParser> {
        let format = format_of(analysis.handler);
        Self::over(options, |options| Ok(format.parser(analysis, options, generation_prompt)))
    }

    /// A parser over the output parsers `make` builds for the request's options, each with the deltas
    /// its construction produced (from the prompt): one, or for `deepseek-legacy` an extracting and a
    /// `none` one read side by side ([`InlineReasoning`]), whatever the parser (a format's, a declared
    /// response template's).
    pub fn over(options: &RequestOptions, mut make: impl FnMut(&RequestOptions) -> Result<(Box<dyn OutputParser>, Vec<Delta>)>) -> Result<StreamParser> {
        Self::over_dyn(options, &mut make)
    }

    /// [`Self::over`], compiled once (not per caller's closure: each copy cost the wasm ≈ 1 KB).
    fn over_dyn(options: &RequestOptions, make: &mut dyn FnMut(&RequestOptions) -> Result<(Box<dyn OutputParser>, Vec<Delta>)>) -> Result<StreamParser> {
        let (inner, mut initial) = if options.reasoning_format == ReasoningFormat::DeepseekLegacy {
            let with = |reasoning_format| RequestOptions { reasoning_format, ..options.clone() };
            let (extract, extract_initial) = make(&with(ReasoningFormat::Auto))?;
            let (inline, inline_initial) = make(&with(ReasoningFormat::None))?;
            let p: Box<dyn OutputParser> = Box::new(InlineReasoning::new(extract, inline));
            (p, InlineReasoning::initial(extract_initial, inline_initial))
        } else {
            make(options)?
        };
        let mut parser = StreamParser {
            inner,
            message: Message::default(),
            is_partial: options.is_partial,
            strict: options.strict,
            finish_reason: None,
            initial: Vec::new(),
            failed: None,
            finished: false,
            unreturned: Vec::new(),
            ids: CallIds::new(&options.messages),
            inline_reasoning: options.reasoning_format == ReasoningFormat::DeepseekLegacy,
            exit: Exit::default(),
        };
        parser.accept(&mut initial);
        parser.initial = initial;
        Ok(parser)
    }

    /// An independent copy in the same state, when its output parser can make one (see
    /// [`crate::parse::OutputParser::fork`]). A poisoned parser is not copied.
    pub fn fork(&self) -> Option<StreamParser> {
        if self.failed.is_some() {
            return None;
        }
        Some(StreamParser {
            inner: self.inner.fork()?,
            message: self.message.clone(),
            is_partial: self.is_partial,
            strict: self.strict,
            finish_reason: self.finish_reason,
            initial: self.initial.clone(),
            failed: None,
            finished: self.finished,
            unreturned: self.unreturned.clone(),
            ids: self.ids.clone(),
            inline_reasoning: self.inline_reasoning,
            exit: self.exit.clone(),
        })
    }

    /// Consume a chunk of model output; returns the deltas it completed.
    pub fn push(&mut self, chunk: &str) -> Vec<Delta> {
        let mut out = Vec::new();
        self.push_into(chunk, &mut out);
        out
    }

    /// [`Self::push`] appending to `out`: a caller that reuses one vector for every chunk saves an
    /// allocation per chunk.
    pub fn push_into(&mut self, chunk: &str, out: &mut Vec<Delta>) {
        out.append(&mut self.initial);
        if self.failed.is_some() || self.finished {
            return;
        }
        let start = out.len();
        self.exit.pushed += chunk.len();
        self.inner.push(chunk, out);
        self.accept(out.get_mut(start..).unwrap_or(&mut []));
    }

    /// A delta's string the caller is done with: the parser writes its next delta into it (see
    /// [`crate::parse::OutputParser::recycle`]).
    pub fn recycle(&mut self, spare: String) {
        self.inner.recycle(spare);
    }

    /// The one place every format's deltas pass: give new calls their id, then apply to the message.
    fn accept(&mut self, deltas: &mut [Delta]) {
        for d in deltas {
            // With reasoning also inline in content (deepseek-legacy), the content stream already holds
            // it: ids follow that stream alone, which is the same in any chunking (and as under `none`).
            if !(self.inline_reasoning && matches!(d, Delta::Reasoning(_))) {
                self.ids.stamp(d);
            }
            match d {
                Delta::ToolCall { index, .. } => self.exit.last_call = Some(*index),
                Delta::Content(s) | Delta::Reasoning(s) if !s.is_empty() => self.exit.last_call = None,
                _ => {}
            }
            self.message.apply(d);
        }
    }

    /// End of output: flush what was held back. Fails only for a strict, non-partial request whose
    /// output ends inside a tool call (the deltas up to there were already applied to
    /// [`Self::message`]); without `strict` that sets [`Self::finish_reason`] instead.
    pub fn finish(&mut self) -> Result<Vec<Delta>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let mut out = std::mem::take(&mut self.initial);
        if self.finished {
            return Ok(out);
        }
        let start = out.len();
        let r = self.inner.finish(self.is_partial, &mut out);
        self.accept(out.get_mut(start..).unwrap_or(&mut []));
        let cut_off = self.check_exit(&mut out);
        self.finished = true;
        let r = match r {
            Ok(()) if cut_off => Err(Error::new(ErrorKind::Parse, "output ends inside a tool call").with_offset(self.exit.pushed)),
            r => r,
        };
        match r {
            Ok(()) => Ok(out),
            // The parser already said where with a diagnostic; the incomplete call stays as parsed.
            Err(_) if !self.strict => {
                self.finish_reason = Some("length");
                Ok(out)
            }
            Err(e) => {
                self.failed = Some(e.clone());
                self.unreturned = out;
                Err(e)
            }
        }
    }

    /// The exit guarantees (see [`crate::parse::exit`]): every call's arguments valid JSON, fixed by
    /// deltas appended to `out` (a partial request is left as parsed). True when the last call was
    /// cut off inside its arguments.
    fn check_exit(&mut self, out: &mut Vec<Delta>) -> bool {
        if self.is_partial {
            return false;
        }
        let start = out.len();
        let cut_off = self.exit.check.finish(&self.message, self.exit.pushed, self.exit.last_call, out);
        self.accept(out.get_mut(start..).unwrap_or(&mut []));
        if !self.exit.check.diagnostics().is_empty() {
            self.exit.diagnostics = Some(self.inner.diagnostics().iter().chain(self.exit.check.diagnostics()).cloned().collect());
        }
        cut_off
    }

    /// The deltas produced by a [`Self::finish`] that returned an error (they come before the
    /// error: the message already contains them). Empty once taken.
    pub fn take_failed_deltas(&mut self) -> Vec<Delta> {
        std::mem::take(&mut self.unreturned)
    }

    /// `Some("length")` when the output ended inside a tool call (the last call is incomplete: its
    /// arguments are what was written); `None` otherwise. Set by [`Self::finish`].
    pub fn finish_reason(&self) -> Option<&'static str> {
        self.finish_reason
    }

    /// The message as parsed so far.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// `text` as the whole output: `push(text)`, `finish()`, the message.
    pub fn parse_whole(mut self, text: &str) -> Result<Message> {
        self.push(text);
        self.finish()?;
        Ok(self.message)
    }

    /// The message, taking it out of the parser.
    pub fn into_message(self) -> Message {
        self.message
    }

    /// True once the output reached a stop marker after which nothing more is expected.
    pub fn stopped(&self) -> bool {
        self.inner.stopped()
    }

    /// Problems seen in the output so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.exit.diagnostics.as_deref().unwrap_or(self.inner.diagnostics())
    }
}

/// Parse a whole model output: `push(text)` then `finish()`.
pub fn parse_output(analysis: &Analysis, generation_prompt: &str, text: &str, options: &RequestOptions) -> Result<Message> {
    StreamParser::new(analysis, generation_prompt, options)?.parse_whole(text)
}
