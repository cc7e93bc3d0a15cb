//! The analysis-driven output parser: one state machine for whole text and streams.
//!
//! Configured from an `Analysis` (see [`ParserConfig`]), it walks the output once:
//! optional reasoning block → content (with optional wrapper markers) → tool calls in one of the
//! three formats, back to content. Every state consumes what it can decide and holds back only a
//! suffix that could still start a marker, so streaming in any chunking gives the same message in
//! O(n) total.
//!
//! It is a [`Machine`] on the shared driver and [`Emitter`], like the dedicated format parsers. The
//! text states (reasoning, content, wrapped content) live here; the tool-call states in [`tool`].
//!
//! Failure policy: while streaming nothing fails. A tool call that breaks before its header (name)
//! was emitted is rolled back into content; one that breaks later ends where it broke. Either way a
//! [`Diagnostic`] is recorded. Only `finish(is_partial = false)` inside an unfinished call errors.

mod arg_value;
pub(crate) mod bare_json_call;
mod call_body;
mod call_header;
pub(crate) mod call_syntax;
mod content_label;
mod dropped;
mod fallback;
mod id_head;
mod json_departures;
mod json_hold;
mod json_in_tagged;
mod json_read;
mod key_value_args;
pub mod markers;
pub(crate) mod tag_wrapped_call;
mod missing_call_opener;
mod name_decoration;
mod output_start_call;
mod raw_code_call;
pub(crate) mod scalar_coercion;
pub(crate) mod phrase_reasoning;
mod tool;
mod untyped_value;
mod wrapped_args;

use super::config::{FallbackConfig, ParserConfig, ToolConfig};
use bare_json_call::{bare_call_configs, bare_calls_apply, BareCallPlace, BARE_CALL_FIRST_BYTES};
use fallback::fallback_configs;
use super::drive::{machine_parts, Input, Machine};
use super::emit::{Diagnostics, Emitter};
use super::marker::{Expect, Marker};
use super::missing_opener::{self, Reading};
use crate::findings::{Analysis, ToolFormat};
use crate::api::{Delta, ReasoningFormat, RequestOptions};
use crate::text::is_space;
use crate::{Error, ErrorKind, Result};
use std::cell::OnceCell;
use std::rc::Rc;
use tool::{Call, ToolStep};

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Before anything: an optional reasoning start marker.
    Start,
    /// Reasoning without a start marker: undecided until its end marker (or a tool call) shows.
    DelimReasoning {
        /// Absolute offset up to which the end marker (and a call trigger) were searched.
        scanned: usize,
    },
    Reasoning {
        /// Something other than whitespace was read in the block (the blank before it is layout, and
        /// whitespace-only reasoning is dropped).
        started: bool,
        /// The block's start was checked for a repeated start marker (rule R2).
        checked: bool,
    },
    /// A call marker inside open reasoning: reasoning if an end marker still follows, else the
    /// model forgot to close reasoning before the call (rule R1).
    ReasoningCall {
        /// Absolute offset up to which the end marker was searched.
        scanned: usize,
    },
    /// From a reasoning start phrase, held until its end phrase (rule R43, `phrase_reasoning.rs`).
    PhraseReasoning {
        /// Absolute offset up to which the end phrase was searched.
        scanned: usize,
    },
    Content,
    /// Inside content wrapper markers.
    Wrapped,
    Tool(ToolStep),
    /// Inside a code-interpreter call written as raw code (rule R41, `raw_code_call.rs`).
    RawCode {
        /// Absolute offset up to which the call's end was searched.
        scanned: usize,
    },
}

enum Step {
    /// Consumed this many bytes (0 only together with a state change).
    Adv(usize),
    /// Need more input.
    Wait,
    /// The current tool call is malformed at this byte offset (what came before it was consumed).
    Fail(&'static str, usize),
}

/// The auto parser. Build it with [`AutoParser::new`]; use it as an
/// [`OutputParser`](super::OutputParser) (after [`Machine::prefill`]).
#[derive(Debug, Clone)]
pub struct AutoParser {
    /// Shared so states can read markers while mutating the parser.
    cfg: Rc<ParserConfig>,
    state: State,
    input: Input,
    emit: Emitter,
    /// Optional whitespace (a marker's trailing whitespace) to skip next.
    trail: String,
    /// A call, call section or reasoning block just ended: whitespace up to the next call or the end
    /// of the output is layout, not content (see `layout_after_block`).
    after_block: bool,
    /// The delimiter-reasoning state stands in for a missing start marker (rule R5).
    opener_missing: bool,
    /// A stray reasoning end marker in content, with thinking on, and the whitespace after it: kept
    /// as content once other text follows, dropped if the output ends here (rule R4).
    stray_close: Option<(String, String, usize)>,
    /// `(end marker, from, to)`: the reasoning end marker starts nowhere in absolute `[from, to)`.
    /// Every call opener inside open reasoning searches for it (rule R1); without this, repeated
    /// openers would each search the rest of the output again (quadratic).
    end_absent: Option<(String, usize, usize)>,
    call: Call,
    /// `settle(is_partial)`: a JSON call still being written is reported with its arguments so far.
    flush_partial: bool,
    calls: usize,
    in_array: bool,
    /// Calls sit in a section (entered by the section marker, not by a bare per-call marker).
    section_open: bool,
    diags: Diagnostics,
    /// Bytes that may start a marker of the text states (see [`AutoParser::plain_text`]).
    text_marker_bytes: Box<[bool; 256]>,
    /// The configuration of the text states, as the template spells its markers; `cfg` is one of
    /// `fallback`'s while it reads a fallback call (rule R13), or a dialect of it while it reads a call
    /// section written in another spelling (rule R9, `parse::auto::markers::dialect`).
    base: Rc<ParserConfig>,
    /// The tool formats of the fallback for a template without one (rule R13), tried side by side.
    fallback: Rc<Vec<FallbackConfig>>,
    /// Content so far ends at the start of a line (or right after reasoning or a call).
    line_start: bool,
    /// Inside a ```` ``` ```` code block of content (fallback calls are not read there).
    in_code: bool,
    /// The code fence as a marker (empty without a fallback).
    fence: Rc<Marker>,
    dialects: Vec<Rc<ParserConfig>>,
    /// The marker-less call candidate being checked (rules R28, R34, `bare_json_call.rs`).
    ahead: Option<bare_json_call::Ahead>,
    /// The marker-less calls apply but this parse has not taken their configurations yet: taken (into
    /// `fallback`) once content holds one of their first bytes, so a request whose output has none
    /// does not pay for them.
    bare_unbuilt: bool,
    /// Those configurations, built once by the first parse that needs them and shared by every copy
    /// of the parser (`session/parser_cache.rs` copies one per response): derived from `base` alone,
    /// they are the same for every response, and building them (five whole configurations) cost a
    /// parse about as much as reading 30 KB.
    bare_configs: Rc<OnceCell<Rc<Vec<FallbackConfig>>>>,
    /// No marker-less call candidate starts before this absolute offset (inside a rejected one).
    bare_from: usize,
    /// Content other than blanks was emitted.
    content_started: bool,
    /// Where the reply's content begins was passed: no content label (rule R47) is looked for after it.
    label_checked: bool,
    /// The content's start was checked for a pythonic call without markers (`output_start_call`).
    start_checked: bool,
    /// The ids the model wrote for this message's calls, as sent.
    sent_ids: Vec<String>,
}

/// A call id the model wrote that an earlier call of the message already has is replaced by a generated
/// one (ids must tell a message's calls apart: a client answers each by its id), said so; a new one is
/// remembered.
fn unique_id(call: &mut Call, sent: &mut Vec<String>, diags: &mut Diagnostics) {
    // No id written: one is generated (generated ids never repeat).
    if call.data.id.is_empty() {
        return;
    }
    if sent.contains(&call.data.id) {
        diags.add(call.start, format!("tool call id {:?} repeats an earlier call's: replaced by a generated id (rule R46)", call.data.id));
        call.data.id.clear();
    } else {
        sent.push(call.data.id.clone());
    }
}

/// A code fence: calls written inside a fenced block are examples, not calls.
const FENCE: &str = "```";

/// Rule R25: the template's tool-call opener ended open reasoning in a request without tools.
const NO_TOOLS_OPENER: &str = "tool-call opener inside open reasoning, no tools in the request: reasoning ended at the opener, the markup kept as content (rule R25)";


impl AutoParser {
    /// A parser for `analysis` and `options`. Feed it the part of the generation prompt the model's
    /// output continues (e.g. `<think>\n`; see `formats::parser_prefill`) with [`Machine::prefill`].
    pub fn new(analysis: &Analysis, options: &RequestOptions) -> AutoParser {
        // Reasoning is extracted or left in content (`none`); `deepseek-legacy` is built above.
        let format = if options.reasoning_format == ReasoningFormat::None { ReasoningFormat::None } else { ReasoningFormat::Auto };
        let mut cfg = ParserConfig::new(analysis, options);
        let mut dialects: Vec<Rc<ParserConfig>> = markers::dialect::tool_dialects(&mut cfg).into_iter().map(Rc::new).collect();
        dialects.extend(call_syntax::bracket_departures(&mut cfg).map(Rc::new));
        let cfg = Rc::new(cfg);
        let fallback = fallback_configs(analysis, options);
        let bare_unbuilt = bare_calls_apply(&cfg);
        let start_checked = !output_start_call::start_calls_apply(&cfg);
        let mut p = AutoParser {
            base: Rc::clone(&cfg),
            dialects,
            fence: Rc::new(Marker::new(if fallback.is_empty() && !bare_unbuilt { "" } else { FENCE })),
            fallback: Rc::new(fallback),
            line_start: true,
            in_code: false,
            cfg,
            state: State::Start,
            input: Input::default(),
            emit: Emitter::new(format, false),
            trail: String::new(),
            after_block: false,
            opener_missing: false,
            stray_close: None,
            end_absent: None,
            call: Call::default(),
            flush_partial: false,
            calls: 0,
            in_array: false,
            section_open: false,
            diags: Diagnostics::default(),
            text_marker_bytes: Box::new([false; 256]),
            ahead: None,
            bare_unbuilt,
            bare_configs: Rc::default(),
            bare_from: 0,
            content_started: false,
            label_checked: false,
            start_checked,
            sent_ids: Vec::new(),
        };
        let cfg = Rc::clone(&p.cfg);
        let text_markers = cfg.reasoning.iter().chain(cfg.content_wrap.iter()).flat_map(|(s, e)| [s, e]);
        let tool_markers = cfg.tools.iter().flat_map(|t| [&t.trigger, &t.call_trigger, &t.wrapper_trigger]).chain(&cfg.reasoning_call_openers);
        let phrase = cfg.reasoning_phrases.iter().map(|(s, _)| s);
        for m in text_markers.chain(tool_markers).chain(cfg.dropped_in_content()).chain(cfg.raw_code.as_ref().map(|r| &r.start)).chain(phrase) {
            m.mark_first_bytes(&mut p.text_marker_bytes);
        }
        for b in cfg.call_prefixes.iter().filter_map(|t| t.as_bytes().first()) {
            p.text_marker_bytes[usize::from(*b)] = true;
        }
        let fallback = Rc::clone(&p.fallback);
        for t in fallback.iter().filter_map(|f| f.cfg.tools.as_ref()) {
            t.trigger.mark_first_bytes(&mut p.text_marker_bytes);
        }
        if !fallback.is_empty() {
            p.text_marker_bytes[usize::from(b'`')] = true;
        }
        if p.bare_unbuilt {
            for b in BARE_CALL_FIRST_BYTES {
                p.text_marker_bytes[usize::from(b)] = true;
            }
        }
        p
    }

    fn tools(&self) -> Option<&ToolConfig> {
        self.cfg.tools.as_ref()
    }

    fn diag(&mut self, abs: usize, message: impl Into<String>) {
        self.diags.add(abs, message);
    }

    // ---- emission -------------------------------------------------------------------------

    fn emit_content(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        if !self.fallback.is_empty() || self.bare_unbuilt {
            self.line_start = self.line_start_after(s);
            self.content_started = self.content_started || !s.chars().all(is_space);
        }
        if let Some((_, ws, _)) = &mut self.stray_close {
            if s.chars().all(is_space) {
                ws.push_str(s);
                return;
            }
            if let Some((marker, ws, at)) = self.stray_close.take() {
                self.diag(at, format!("stray reasoning end marker {:?} kept as content (rule R4)", marker.trim_matches(is_space)));
                self.emit.content(&marker, out);
                self.emit.content(&ws, out);
            }
        }
        self.emit.content(s, out);
    }

    /// End of a complete output: a stray reasoning end marker with only whitespace after it ends a
    /// reasoning block the model closed twice (llama.cpp drops it too); it is dropped, said so.
    fn settle_stray_close(&mut self, out: &mut Vec<Delta>) {
        if let Some((marker, ws, at)) = self.stray_close.take() {
            self.diag(at, format!("stray reasoning end marker {:?} at the end of the output dropped (rule R4)", marker.trim_matches(is_space)));
            self.emit.content(&ws, out);
        }
    }

    /// Whether content ends at the start of a line once `s` follows what was emitted.
    fn line_start_after(&self, s: &str) -> bool {
        // From the end: blanks up to a line break (a multi-byte character is never a blank).
        for &b in s.as_bytes().iter().rev() {
            match b {
                b'\n' => return true,
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => {}
                _ => return false,
            }
        }
        self.line_start
    }

    fn emit_reasoning(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        // Content after a reasoning block starts a line of its own.
        self.line_start = true;
        let State::Reasoning { started, .. } = &mut self.state else {
            // A whole block at once (delimiter-style reasoning). Whitespace-only reasoning is
            // dropped (llama.cpp discards e.g. `<think>\n</think>`).
            if !s.chars().all(is_space) {
                self.emit.reasoning(s, out);
            }
            return;
        };
        if *started {
            self.emit.reasoning(s, out);
            return;
        }
        // The blank between the opener and the first word is layout (`<think>\n`, the prompt's own
        // line break where the template opened the block), not reasoning text; a block of nothing
        // but blanks is dropped.
        let text = s.trim_start_matches(is_space);
        if !text.is_empty() {
            *started = true;
            self.emit.reasoning(text, out);
        }
    }

    /// A reasoning block opening at `abs` in the output of a request that turned thinking off: its
    /// canonical output has none, but what the model wrote there is still reasoning, not content
    /// (issue #13), read with a diagnostic. The prompt's own closed block is no departure.
    fn note_thinking_off_block(&mut self, abs: usize) {
        if !self.cfg.thinking && !self.diags.in_prompt(abs) {
            self.diag(abs, "reasoning block although the request turned thinking off: read as reasoning (rule R27)");
        }
    }

    /// A reasoning block opens (its whitespace not yet seen).
    fn reasoning_state() -> State {
        State::Reasoning { started: false, checked: false }
    }

    /// Emit the call's header, id and pending argument text as far as they are known.
    fn flush_call(&mut self, out: &mut Vec<Delta>) {
        if !matches!(self.state, State::Tool(_)) && !self.call.committed {
            return;
        }
        // JSON arguments cannot be taken back once streamed, so a JSON call goes out once they are
        // whole and valid; until then it can still be rolled back into content (`json_hold.rs`).
        let holds_json = self.holds_json_call();
        let held_whole = self.held_until_closed() || self.json_call_in_tagged_open();
        let call = &mut self.call;
        if !call.committed {
            if held_whole || !(call.header_ready && call.data.tool.is_some()) {
                return;
            }
            if holds_json && !call.data.args_complete && !self.flush_partial {
                return;
            }
            call.committed = true;
            call.raw.clear();
            call.index = self.calls;
            self.calls += 1;
            self.line_start = true;
            if let Some(note) = &self.cfg.whole_call_note {
                self.diags.add(call.start, note.clone());
            }
            if let Some(note) = self.cfg.bare_note {
                self.diags.add(call.start, note);
            }
            if let Some(rule) = &self.cfg.fallback_rule {
                let message = format!("tool call read by the fallback for a template without a tool format: {rule} (rule R13)");
                self.diags.add(call.start, message);
            }
            if call.data.tool == Some(crate::parse::jsoncall::UNDECLARED) {
                let message = format!("tool call of {:?}, a tool the request did not declare (rule R22)", call.data.name);
                self.diags.add(call.start, message);
            }
            unique_id(call, &mut self.sent_ids, &mut self.diags);
            call.id_sent = !call.data.id.is_empty();
            let id = call.id_sent.then(|| call.data.id.clone());
            out.push(Delta::ToolCall { index: call.index, id, name: Some(call.data.name.clone()), arguments: None });
        }
        if !call.id_sent && !call.data.id.is_empty() {
            unique_id(call, &mut self.sent_ids, &mut self.diags);
        }
        if !call.id_sent && !call.data.id.is_empty() {
            call.id_sent = true;
            out.push(Delta::ToolCall { index: call.index, id: Some(call.data.id.clone()), name: None, arguments: None });
        }
        if self.hold_string_arguments() || self.hold_wrapped_arguments() {
            return;
        }
        if !self.call.data.args.is_empty() {
            let args = std::mem::take(&mut self.call.data.args);
            self.keep_streamed_args(&args);
            self.emit.tool_args(self.call.index, args, out);
        }
    }

    // ---- driver ---------------------------------------------------------------------------

    /// One step, with the bookkeeping every step shares: text read by a call that may still be
    /// rolled back is kept, a broken call is settled, and what is known of a call goes out.
    fn step_once(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let uncommitted_call = matches!(self.state, State::Tool(_)) && !self.call.committed;
        let consumed = match self.step(text, abs, eof, out) {
            Step::Adv(n) => {
                let n = n.min(text.len());
                if uncommitted_call && !self.call.committed && matches!(self.state, State::Tool(_)) {
                    self.call.raw.push_str(text.get(..n).unwrap_or(""));
                }
                Some(n)
            }
            Step::Wait => None,
            Step::Fail(msg, n) => {
                let n = n.min(text.len());
                if !self.call.committed {
                    self.call.raw.push_str(text.get(..n).unwrap_or(""));
                }
                self.fail_call(abs + n, msg, out);
                Some(n)
            }
        };
        self.flush_call(out);
        // A fallback call or a call section in another spelling ended: the text states read with
        // the base configuration again.
        if !matches!(self.state, State::Tool(_)) && !Rc::ptr_eq(&self.cfg, &self.base) {
            self.cfg = Rc::clone(&self.base);
        }
        consumed
    }

    /// A tool call broke: roll it back into content if nothing of it was emitted yet.
    fn fail_call(&mut self, abs: usize, msg: &str, out: &mut Vec<Delta>) {
        let mut message = self.broken_call_message(msg);
        if self.call.json.in_tagged && !self.call.committed {
            message.push_str("; a JSON call object in a tagged call's markers that does not parse stays content (rule R23)");
        } else if self.call.committed && crate::rules::rule_named_in(&message).is_none() {
            message.push_str("; the call ends where it broke (rule R52)");
        } else if !self.call.committed && !message.contains("kept as content") {
            message.push_str("; kept as content");
        }
        self.diag(abs, message);
        self.release_string_arguments();
        if self.call.committed {
            // Argument text read before the break goes out as a stream would have sent it: how much
            // was already flushed depends on the chunking, so all of it must be.
            self.flush_call(out);
        } else {
            let raw = std::mem::take(&mut self.call.raw);
            self.emit_content(&raw, out);
        }
        self.call = Call::default();
        self.in_array = false;
        // Whitespace a marker of the broken call would have skipped is text now.
        self.trail.clear();
        self.state = State::Content;
    }

    fn begin_call(&mut self, abs: usize, raw: &str) {
        self.call = Call { start: abs, raw: raw.to_string(), ..Call::default() };
    }

    /// Skip the pending optional whitespace. Returns bytes skipped, or `None` to wait.
    fn skip_trail(&mut self, text: &str, eof: bool) -> Option<usize> {
        if self.trail.is_empty() {
            return Some(0);
        }
        let n = text.bytes().zip(self.trail.bytes()).take_while(|(a, b)| a == b).count();
        if n == text.len() && n < self.trail.len() && !eof {
            self.trail.drain(..n);
            return if n == 0 { None } else { Some(n) };
        }
        self.trail.clear();
        Some(n)
    }

    fn step(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        match &self.state {
            State::Start => self.step_start(text, abs, eof),
            &State::DelimReasoning { scanned } => self.step_delim_reasoning(scanned, text, abs, eof, out),
            &State::Reasoning { started, checked, .. } => self.step_reasoning(started || checked, text, abs, eof, out),
            &State::ReasoningCall { scanned } => self.step_reasoning_call(scanned, text, abs, eof, out),
            State::Content => self.step_content(text, abs, eof, out),
            &State::PhraseReasoning { scanned } => self.step_phrase_reasoning(scanned, text, abs, eof, out),
            State::Wrapped => self.step_wrapped(text, abs, eof, out),
            &State::Tool(t) => self.step_tool(t, text, abs, eof),
            &State::RawCode { scanned } => self.step_raw_code(scanned, text, abs, eof, out),
        }
    }

    fn step_start(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some((start, _)) = &cfg.reasoning else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        if start.is_empty() {
            self.state = State::DelimReasoning { scanned: 0 };
            return Step::Adv(0);
        }
        match start.expect(text, eof) {
            Expect::Matched(n) => {
                if let Some(step) = self.respelled_opener_before_opener(start, text, n, abs, eof) {
                    return step;
                }
                self.note_spelling(start, text.get(..n).unwrap_or(""), abs);
                let lead = text.len() - text.trim_start_matches(is_space).len();
                self.note_thinking_off_block(abs + lead);
                self.trail = start.trail.clone();
                self.state = Self::reasoning_state();
                Step::Adv(n)
            }
            Expect::No => {
                // `<|channel><|channel>thought`: a repeated head of the start marker is a stray token.
                if let Some(head) = start.token_head() {
                    let lead = text.len() - text.trim_start_matches(is_space).len();
                    if let Some(rest) = text.get(lead..).and_then(|t| t.strip_prefix(head)) {
                        match start.expect(rest, eof) {
                            Expect::Matched(_) => {
                                self.diag(abs + lead, format!("stray {head:?} before the reasoning start marker dropped (rule R2)"));
                                return Step::Adv(lead + head.len());
                            }
                            Expect::NeedMore => return Step::Wait,
                            Expect::No => {}
                        }
                    }
                }
                if self.cfg.thinking {
                    // Thinking is on but the prompt did not open reasoning: reasoning up to an end
                    // marker, if one comes before a tool call or an opener (rule R5).
                    self.opener_missing = true;
                    self.state = State::DelimReasoning { scanned: 0 };
                } else {
                    self.state = State::Content;
                }
                Step::Adv(0)
            }
            Expect::NeedMore => Step::Wait,
        }
    }

    fn step_reasoning_call(&mut self, scanned: usize, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some((_, end)) = &self.cfg.reasoning else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        // Skip what an earlier search already found free of the end marker.
        let known = self.end_absent.as_ref().filter(|(core, a, b)| *core == end.core && *a <= scanned && scanned < *b).map(|(_, a, b)| (*a, *b));
        let from_abs = known.map_or(scanned, |(_, b)| b);
        let from = floor_boundary(text, from_abs.saturating_sub(abs));
        let absent_from = known.map_or(scanned, |(a, _)| a);
        match end.find(text.get(from..).unwrap_or("")).map(|(s, e)| (s + from, e + from)) {
            Some((s, e)) => {
                // Closed later: the call was part of the reasoning (a call the model thought about).
                let trail = end.trail.clone();
                let end = end.clone();
                self.note_spelling(&end, text.get(s..e).unwrap_or(""), abs + s);
                self.emit_reasoning(text.get(..s).unwrap_or(""), out);
                self.trail = trail;
                self.state = State::Content;
                Step::Adv(e)
            }
            None if eof => {
                self.end_absent = Some((end.core.clone(), absent_from, abs + text.len()));
                let message = if self.tools().is_some() { "tool call inside open reasoning: reasoning ended at the call (rule R1)" } else { NO_TOOLS_OPENER };
                self.diag(abs, message);
                self.state = State::Content;
                Step::Adv(0)
            }
            None => {
                let upto = abs + text.len().saturating_sub(end.max_len());
                if upto > absent_from {
                    self.end_absent = Some((end.core.clone(), absent_from, upto));
                }
                self.state = State::ReasoningCall { scanned: upto.max(scanned) };
                Step::Wait
            }
        }
    }

    fn step_delim_reasoning(&mut self, scanned: usize, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some((_, end)) = &self.cfg.reasoning else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let from = floor_boundary(text, scanned.saturating_sub(abs));
        let found = end.find(text.get(from..).unwrap_or("")).map(|(s, e)| (s + from, e + from));
        let mut trigger = self.tools().and_then(|t| t.trigger.find(text.get(from..).unwrap_or(""))).map(|(s, _)| s + from);
        if self.opener_missing {
            // The model opens reasoning itself later: what came before it is content.
            let opener = self.cfg.reasoning.as_ref().and_then(|(s, _)| s.find(text.get(from..).unwrap_or(""))).map(|(s, _)| s + from);
            trigger = trigger.into_iter().chain(opener).min();
        }
        match (missing_opener::read(found.map(|(s, _)| s), trigger, eof), found) {
            (Reading::Reasoning, Some((s, e))) => {
                let trail = end.trail.clone();
                let end = end.clone();
                self.note_spelling(&end, text.get(s..e).unwrap_or(""), abs + s);
                if std::mem::take(&mut self.opener_missing) {
                    self.diag(abs, missing_opener::diagnostic(self.cfg.reasoning.as_ref().map_or("", |(s, _)| s.core.as_str())));
                }
                self.emit_reasoning(text.get(..s).unwrap_or(""), out);
                self.trail = trail;
                self.state = State::Content;
                Step::Adv(e)
            }
            // No end marker before a tool call (or the end of the text): it was content all along.
            (Reading::Content, _) => {
                self.opener_missing = false;
                self.state = State::Content;
                Step::Adv(0)
            }
            _ => {
                // Both searches resume where a marker could still be starting.
                let opener = self.cfg.reasoning.as_ref().map_or(0, |(s, _)| s.max_len());
                let longest = self.tools().map_or(0, |t| t.trigger.max_len()).max(end.max_len()).max(opener);
                self.state = State::DelimReasoning { scanned: abs + text.len().saturating_sub(longest) };
                Step::Wait
            }
        }
    }

    /// `checked`: the block's start was already checked for a repeated start marker, or text began.
    fn step_reasoning(&mut self, checked: bool, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let cfg = Rc::clone(&self.cfg);
        if !checked {
            if let Some(step) = self.repeated_opener(text, abs, eof) {
                return step;
            }
        }
        self.until_end(text, abs, cfg.reasoning.as_ref().map(|(_, e)| e), eof, out, true)
    }

    /// At the start of a reasoning block, the start marker written again (the prompt had opened the
    /// block): dropped with a diagnostic (rule R2). An empty repeated block (`<think>\n\n</think>`)
    /// keeps its opener as reasoning text, as llama.cpp's tests expect.
    fn repeated_opener(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let cfg = Rc::clone(&self.cfg);
        let (start, end) = cfg.reasoning.as_ref().filter(|(s, _)| !s.is_empty())?;
        let empty_after = |n: usize| {
            let after = text.get(n..).unwrap_or("");
            if after.trim_start_matches(is_space).is_empty() && !eof {
                return Expect::NeedMore;
            }
            end.expect(after, eof)
        };
        let drop = match start.expect(text, eof) {
            Expect::NeedMore => return Some(Step::Wait),
            Expect::No => None,
            Expect::Matched(n) => match empty_after(n) {
                Expect::NeedMore => return Some(Step::Wait),
                Expect::Matched(_) => None,
                Expect::No => Some(n),
            },
        };
        if let State::Reasoning { checked, .. } = &mut self.state {
            *checked = true;
        }
        let n = drop?;
        let lead = text.len() - text.trim_start_matches(is_space).len();
        self.diag(abs + lead, format!("repeated reasoning start marker {:?} dropped (rule R2)", start.core));
        self.trail = start.trail.clone();
        Some(Step::Adv(n))
    }

    /// Shared by reasoning and wrapped content: emit text up to the block's end marker (holding back
    /// a possible partial marker), then continue with content.
    fn until_end(&mut self, text: &str, abs: usize, end: Option<&Marker>, eof: bool, out: &mut Vec<Delta>, reasoning: bool) -> Step {
        let Some(skipped) = self.skip_trail(text, eof) else { return Step::Wait };
        if skipped > 0 {
            return Step::Adv(skipped);
        }
        let Some(end) = end else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        // A call marker inside open reasoning ends it: templates that render reasoning only before
        // calls say so (reasoning_ends_at_call); elsewhere only if reasoning is never closed (rule R1).
        // With no tools in the request the template's call openers decide the same (rule R25).
        let cfg = Rc::clone(&self.cfg);
        let openers: Vec<&Marker> = match cfg.tools.as_ref() {
            _ if !reasoning => Vec::new(),
            Some(t) if t.trigger_is_body => Vec::new(),
            Some(t) => vec![&t.trigger, &t.call_trigger],
            None => cfg.reasoning_call_openers.iter().collect(),
        };
        let scope = Scope::new(text, &[&[end], openers.as_slice()].concat());
        let found = scope.find(end);
        if !reasoning {
            // Wrapped content: the turn ended (an end-of-turn token) before the wrapper's end marker.
            let hay = found.map_or(text, |(_, e)| text.get(..e).unwrap_or(text));
            let eot = cfg.turn_end.iter().filter_map(|m| m.find(hay).map(|f| (m, f))).min_by_key(|(_, (s, _))| *s);
            if let Some((m, (s, e))) = eot.filter(|(_, (s, _))| found.is_none_or(|(f, _)| *s < f)) {
                self.emit_content(text.get(..s).unwrap_or(""), out);
                self.diag(abs + s, format!("end-of-turn token {:?} before the content end marker {:?}: block closed, token dropped (rule R7)", m.core, end.core));
                self.note_spelling(m, text.get(s..e).unwrap_or(""), abs + s);
                self.state = State::Content;
                return Step::Adv(e);
            }
        }
        let call = openers.iter().filter_map(|m| scope.find(m)).map(|(s, _)| s).min();
        if let Some(c) = call.filter(|c| found.is_none_or(|(s, _)| *c < s)) {
            self.emit_reasoning(text.get(..c).unwrap_or(""), out);
            if !cfg.reasoning_ends_at_call {
                // Undecided until an end marker or the end of the output shows.
                self.state = State::ReasoningCall { scanned: abs + c };
                return Step::Adv(c);
            }
            if cfg.tools.is_none() {
                self.diag(abs + c, NO_TOOLS_OPENER);
            }
            self.state = State::Content;
            return Step::Adv(c);
        }
        let call_keep = openers.iter().map(|m| m.holdback(text)).max().unwrap_or(0);
        let (n, consumed) = match found {
            Some((s, e)) => (s, Some(e)),
            None => {
                let eot_keep = if reasoning { 0 } else { self.cfg.turn_end.iter().map(|m| m.holdback(text)).max().unwrap_or(0) };
                (text.len() - if eof { 0 } else { end.holdback(text).max(call_keep).max(eot_keep) }, None)
            }
        };
        let piece = text.get(..n).unwrap_or("");
        if reasoning {
            self.emit_reasoning(piece, out);
        } else {
            self.emit_content(piece, out);
        }
        match consumed {
            Some(e) => {
                self.note_spelling(end, text.get(n..e).unwrap_or(""), abs + n);
                self.trail = end.trail.clone();
                self.state = State::Content;
                self.after_block = reasoning;
                Step::Adv(e)
            }
            None if n == 0 => Step::Wait,
            None => Step::Adv(n),
        }
    }

    /// Right after a call or a reasoning block: whitespace followed by the next call's opener, or by
    /// the end of the output, is the layout between blocks (templates write a line break there), not
    /// content — a message of reasoning and calls alone has no content. So is the separator the
    /// template writes between two marked calls (tools.12) when the next call follows it. Held until
    /// that is known; followed by anything else it is content as usual.
    fn layout_after_block(&mut self, text: &str, eof: bool) -> Option<Step> {
        if !self.after_block {
            return None;
        }
        let mut ws = text.len() - text.trim_start_matches(is_space).len();
        let next = if ws == text.len() {
            if !eof {
                return Some(Step::Wait);
            }
            Expect::Matched(0)
        } else {
            let Some(t) = self.tools() else {
                self.after_block = false;
                return None;
            };
            // The template's separator between two marked calls (tools.12) is layout too.
            let sep = t.marked_call_separator.core.as_str();
            let after = text.get(ws..).unwrap_or("");
            if !sep.is_empty() && after.starts_with(sep) {
                let rest = after.get(sep.len()..).unwrap_or("");
                ws += sep.len() + rest.len() - rest.trim_start_matches(is_space).len();
            } else if !sep.is_empty() && sep.starts_with(after) && !eof {
                return Some(Step::Wait);
            }
            let rest = text.get(ws..).unwrap_or("");
            let (a, b) = (t.trigger.expect(rest, eof), t.call_trigger.expect(rest, eof));
            match (a, b) {
                (Expect::Matched(n), _) | (_, Expect::Matched(n)) => Expect::Matched(n),
                (Expect::NeedMore, _) | (_, Expect::NeedMore) => Expect::NeedMore,
                _ => Expect::No,
            }
        };
        match next {
            Expect::NeedMore => Some(Step::Wait),
            Expect::Matched(_) if ws > 0 => {
                self.after_block = false;
                Some(Step::Adv(ws))
            }
            _ => {
                self.after_block = false;
                None
            }
        }
    }

    fn step_content(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some(skipped) = self.skip_trail(text, eof) else { return Step::Wait };
        if skipped > 0 {
            return Step::Adv(skipped);
        }
        if let Some(step) = self.layout_after_block(text, eof) {
            return step;
        }
        if let Some(step) = self.content_label(text, abs, eof, out) {
            return step;
        }
        if let Some(step) = self.output_start_call(text, abs, eof, out) {
            return step;
        }
        // Every marker this step looks for is searched only up to the first one present (see Scope).
        let cfg = Rc::clone(&self.cfg);
        let mut wanted: Vec<&Marker> = Vec::new();
        if let Some(t) = cfg.tools.as_ref() {
            wanted.extend([&t.trigger, &t.call_trigger, &t.wrapper_trigger]);
        }
        wanted.extend(cfg.content_wrap.as_ref().map(|(s, _)| s));
        if let Some((s, e)) = cfg.reasoning.as_ref() {
            wanted.extend([s, e]);
        }
        wanted.extend(cfg.dropped_in_content());
        wanted.extend(cfg.raw_code.as_ref().map(|r| &r.start));
        wanted.extend(cfg.reasoning_phrases.as_ref().map(|(s, _)| s));
        let others = wanted.len();
        // The marker-less calls' configurations are built once what this step reads (up to its first
        // marker) holds one of their first bytes; until then no trigger or fence can be in it, so that
        // scope is this step's scope.
        let mut unbuilt_scope = None;
        if self.bare_unbuilt {
            let s = Scope::new(text, &wanted);
            if has_any_byte(s.text().as_bytes(), &BARE_CALL_FIRST_BYTES) {
                self.bare_unbuilt = false;
                let built = Rc::clone(&self.bare_configs);
                self.fallback = Rc::clone(built.get_or_init(|| Rc::new(bare_call_configs(&self.base))));
            } else {
                unbuilt_scope = Some(s);
            }
        }
        let (fallback, fence) = (Rc::clone(&self.fallback), Rc::clone(&self.fence));
        // Triggers that count only at the start of a line (a bare `{` or `[`, a code fence, the fenced
        // call of an output's start) are looked for only there: elsewhere they are text, and searched
        // for everywhere they made every byte of content cost a compare more (no `memchr`) and every
        // bracket a step (the 30 KB parse 1.6-3x slower once their configurations were built).
        let mut at_line_starts: Vec<&Marker> = Vec::new();
        // Inside a code block only its closing fence counts (a trigger there must not end the scope:
        // the markers after it are still to be looked for).
        if !self.in_code {
            for f in fallback.iter() {
                let Some(t) = f.cfg.tools.as_ref() else { continue };
                if f.line_start || f.bare == Some(BareCallPlace::WholeOutputFence) {
                    at_line_starts.push(&t.trigger);
                } else {
                    wanted.push(&t.trigger);
                }
            }
        }
        at_line_starts.push(&fence);
        let scope = unbuilt_scope.unwrap_or_else(|| Scope::with_line_starts(text, &wanted, &at_line_starts, self.line_start));
        if let Some(step) = self.raw_code_in_content(text, scope, abs, eof, out) {
            return step;
        }
        if let Some(step) = self.fallback_in_content(text, scope, abs, eof, wanted.get(..others).unwrap_or(&[]), &fence, out) {
            return step;
        }
        if let Some(step) = self.dropped_in_content(text, scope, abs, out) {
            return step;
        }
        let trigger = self.tools().and_then(|t| {
            let section = scope.find(&t.trigger).map(|m| (m, t.trigger_is_body, true));
            let call = scope.find(&t.call_trigger).map(|m| (m, false, false));
            // A call in another of the template's tags (rule R29) starts as a call of its own.
            let wrapped = scope.find(&t.wrapper_trigger).map(|m| (m, false, true));
            [section, call, wrapped].into_iter().flatten().min_by_key(|((s, _), _, _)| *s)
        });
        let wrap = self.cfg.content_wrap.as_ref().and_then(|(s, _)| scope.find(s));
        let phrase = self.start_phrase().and_then(|m| scope.find(m)).map(|(s, _)| s);
        if let Some(s) = phrase.filter(|&s| trigger.is_none_or(|((t, _), _, _)| s < t) && wrap.is_none_or(|(w, _)| s < w)) {
            return self.enter_phrase_reasoning(text, abs, s, out);
        }
        if let Some(step) = self.reasoning_in_content(text, scope, abs, trigger.map(|t| t.0 .0), wrap.map(|w| w.0), out) {
            return step;
        }
        match (trigger, wrap) {
            (Some(((s, e), body, section)), w) if w.is_none_or(|(ws, _)| s < ws) => self.enter_call(text, abs, (s, e), body, section, out),
            (_, Some((s, e))) => {
                let trail = self.cfg.content_wrap.as_ref().map(|(m, _)| m.trail.clone()).unwrap_or_default();
                self.emit_content(text.get(..s).unwrap_or(""), out);
                if let Some((m, _)) = cfg.content_wrap.as_ref() {
                    self.note_spelling(m, text.get(s..e).unwrap_or(""), abs + s);
                }
                self.trail = trail;
                self.state = State::Wrapped;
                Step::Adv(e)
            }
            _ => {
                let keep = if eof {
                    0
                } else {
                    let t = self.tools().map_or(0, |t| t.trigger.holdback(text).max(t.call_trigger.holdback(text)).max(t.wrapper_trigger.holdback(text)));
                    let w = self.cfg.content_wrap.as_ref().map_or(0, |(s, _)| s.holdback(text));
                    let eot = self.cfg.dropped_in_content().map(|m| m.holdback(text)).max().unwrap_or(0);
                    let phrase = self.start_phrase().map_or(0, |m| m.holdback(text));
                    let keep = t.max(w).max(self.reasoning_holdback(text)).max(eot).max(self.fallback_holdback(text)).max(self.raw_code_holdback(text)).max(phrase);
                    self.call_prefix_holdback(text, keep)
                };
                let n = text.len() - keep;
                self.emit_content(text.get(..n).unwrap_or(""), out);
                if n == 0 { Step::Wait } else { Step::Adv(n) }
            }
        }
    }

    /// A tool-call trigger at `s..e` of `text`: content before it, then the call's first state.
    /// `body`: the trigger is the call's own first text (a bare `{`); `section`: it is the section
    /// (or only) start marker, not a per-call marker.
    fn enter_call(&mut self, text: &str, abs: usize, (s, e): (usize, usize), body: bool, section: bool, out: &mut Vec<Delta>) -> Step {
        let Some(tools) = self.tools() else { return Step::Wait };
        let section_open = section && !tools.section_start.is_empty();
        let next = if body {
            ToolStep::JsonOpen
        } else if !section {
            ToolStep::CallOpen
        } else if !tools.section_start.is_empty() {
            if tools.format == ToolFormat::JsonNative { ToolStep::JsonOpen } else { ToolStep::Section }
        } else if !tools.per_call_start.is_empty() {
            if tools.format == ToolFormat::JsonNative { ToolStep::JsonOpen } else { ToolStep::CallOpen }
        } else {
            ToolStep::Name
        };
        let spelled = text.get(s..e).unwrap_or("");
        let blanks = (section && call_syntax::blanks_inside(&tools.section_start, spelled)).then(|| tools.section_start.core.clone());
        self.section_open = section_open;
        if section_open && self.calls > 0 {
            // The template writes all of a message's calls in one section.
            self.diag(abs + s, "a second tool-call section after the first one closed: its calls read as well (rule R12)");
        }
        if let Some(core) = blanks {
            self.note_blanks_inside(&core, spelled, abs + s);
        }
        self.enter_dialect(spelled, abs + s);
        let from = self.call_prefix_before(text, s, abs);
        self.emit_content(text.get(..from).unwrap_or(""), out);
        let consumed = if body { s } else { e };
        self.begin_call(abs + from, text.get(from..consumed).unwrap_or(""));
        self.in_array = false;
        self.state = State::Tool(next);
        Step::Adv(consumed)
    }

    /// Reasoning markers met in content, when one comes before any tool call (`call_at`) or content
    /// wrapper (`wrap_at`): a start marker re-opens reasoning (interleaved thinking; an empty block
    /// vanishes, see `emit_reasoning`); a stray end marker closes nothing and stays in content as
    /// written, with a diagnostic (rule R4).
    /// `scope`: the start of `text` that holds the first of the markers the content step looks for.
    fn reasoning_in_content(&mut self, text: &str, scope: Scope<'_>, abs: usize, call_at: Option<usize>, wrap_at: Option<usize>, out: &mut Vec<Delta>) -> Option<Step> {
        let cfg = Rc::clone(&self.cfg);
        let (start, end) = cfg.reasoning.as_ref()?;
        let open = scope.find(start).map(|m| (m, true));
        let close = scope.find(end).map(|m| (m, false));
        let ((s, e), opens) = match (open, close) {
            (Some(a), Some(b)) => if b.0 .0 < a.0 .0 { b } else { a },
            (a, b) => a.or(b)?,
        };
        if call_at.is_some_and(|c| c <= s) || wrap_at.is_some_and(|w| w <= s) {
            return None;
        }
        let mut before = text.get(..s).unwrap_or("");
        if opens {
            if let Some(head) = start.token_head() {
                while let Some(b) = before.strip_suffix(head) {
                    self.diag(abs + b.len(), format!("stray {head:?} before the reasoning start marker dropped (rule R2)"));
                    before = b;
                }
            }
        }
        self.emit_content(before, out);
        if opens {
            self.note_spelling(start, text.get(s..e).unwrap_or(""), abs + s);
            self.note_thinking_off_block(abs + s);
            self.trail = start.trail.clone();
            self.state = Self::reasoning_state();
        } else {
            // A close marker after reasoning ended (or with thinking off) closes nothing: it is text.
            let marker = text.get(s..e).unwrap_or("");
            if cfg.thinking && self.stray_close.is_none() {
                // Text if more text follows it, dropped at the very end (see `settle_stray_close`).
                self.stray_close = Some((marker.to_string(), String::new(), abs + s));
            } else {
                self.diag(abs + s, format!("stray reasoning end marker {:?} kept as content (rule R4)", end.core));
                self.emit_content(marker, out);
            }
        }
        Some(Step::Adv(e))
    }

    /// Trailing bytes of content that may still become a reasoning marker (with stray start heads
    /// in front of it, which are dropped together with the marker).
    fn reasoning_holdback(&self, text: &str) -> usize {
        let Some((start, end)) = self.cfg.reasoning.as_ref() else { return 0 };
        let mut keep = start.holdback(text);
        if let Some(head) = start.token_head() {
            // Held heads wait for the marker they may precede.
            while text.get(..text.len().saturating_sub(keep)).is_some_and(|t| t.ends_with(head)) {
                keep += head.len();
            }
        }
        keep.max(end.holdback(text))
    }

    fn step_wrapped(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let cfg = Rc::clone(&self.cfg);
        self.until_end(text, abs, cfg.content_wrap.as_ref().map(|(_, e)| e), eof, out, false)
    }

    /// End of input for a whole (non-partial) text, after the held-back text was stepped through:
    /// flush everything, error inside a call.
    fn settle_complete(&mut self, out: &mut Vec<Delta>) -> Result<()> {
        let rest = self.input.take_pending();
        let end_abs = self.input.offset();
        match self.state.clone() {
            State::Reasoning { .. } => self.emit_reasoning(&rest, out),
            State::Tool(step) => {
                if let ToolStep::JsonObj = step {
                    let mut json = std::mem::take(&mut self.call.json.object);
                    json.finish(&mut self.call.data);
                    self.call.json.object = json;
                    if self.call.committed && self.call.data.args_complete {
                        // The arguments are whole, but what followed them in the object is cut off.
                        self.diags.add(self.call.start, "output ends inside a tool call object (rule R53)");
                    }
                }
                let complete = self.call.data.args_complete;
                let named = !self.call.committed && self.call.header_ready && self.call.data.tool.is_some();
                if named && self.held_call_broken_at_end() {
                    // Its JSON was broken before the output ended: text, not a cut-off call.
                    let message = self.broken_call_message("");
                    self.diag(self.call.start, message);
                    let raw = std::mem::take(&mut self.call.raw);
                    self.emit_content(&raw, out);
                    self.emit_content(&rest, out);
                    self.state = State::Content;
                    return Ok(());
                }
                if named {
                    // Cut off inside a JSON call whose name is known: it is reported as far as it
                    // goes (a truncated call, `finishReason: length`), not rolled back into content.
                    self.flush_partial = true;
                    self.flush_call(out);
                }
                if !self.call.committed {
                    let raw = std::mem::take(&mut self.call.raw);
                    self.emit_content(&raw, out);
                    self.emit_content(&rest, out);
                    let in_call = !raw.trim_matches(is_space).is_empty() || !rest.trim_matches(is_space).is_empty();
                    if in_call && !matches!(step, ToolStep::Section | ToolStep::JsonAfter | ToolStep::JsonEnd) {
                        return Err(self.truncated(out));
                    }
                } else {
                    // A typed value still held (`Tru`, `3 da`) is text too; a schema-less one held
                    // (it shares the buffer) goes out as the string it began.
                    if !self.cut_untyped_value() {
                        self.finish_typed_value();
                    }
                    self.release_string_arguments();
                    self.flush_call(out);
                    if !complete {
                        return Err(self.truncated(out));
                    }
                    if !rest.trim_matches(is_space).is_empty() {
                        self.diag(end_abs, "text after an unfinished tool call kept as content");
                        self.emit_content(&rest, out);
                    }
                }
                self.state = State::Content;
            }
            State::RawCode { .. } => {
                if let Some(rc) = self.cfg.raw_code.clone() {
                    self.end_raw_code(&rc, &rest, out);
                }
            }
            _ => self.emit_content(&rest, out),
        }
        Ok(())
    }

    fn truncated(&mut self, _out: &mut [Delta]) -> Error {
        let offset = self.call.start;
        self.diags.add(offset, "output ends inside a tool call (rule R53)");
        Error::new(ErrorKind::Parse, "output ends inside a tool call").with_offset(offset)
    }
}

pub(super) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl Machine for AutoParser {
    machine_parts!();

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        self.step_once(rest, at, at_end, out)
    }

    /// Its states settle by stepping on the empty rest (closing markers that may be left out).
    fn steps_at_end(&self) -> bool {
        true
    }

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        if is_partial {
            // More may come: report what is known (the held-back tail was dropped), a JSON call's
            // arguments so far included.
            self.flush_partial = true;
            self.flush_call(out);
            return Ok(());
        }
        let r = self.settle_complete(out);
        self.settle_stray_close(out);
        r
    }


    /// Streaming fast path: in a text state with nothing held back, a chunk holding no byte that
    /// can start one of the text states' markers (reasoning, content wrapper, tool-call triggers)
    /// is plain text the text state would emit whole. Emitting it directly skips the buffer copy
    /// and the per-marker searches; the result is the same as stepping.
    fn fast_path(&mut self, chunk: &str, out: &mut Vec<Delta>) -> bool {
        if !self.trail.is_empty() || self.after_block || chunk.bytes().any(|b| self.text_marker_bytes[usize::from(b)]) {
            return false;
        }
        // Until the content label's place is passed (rule R47), and the content's start checked for
        // a call without markers (`output_start_call`), content is stepped.
        if !self.label_checked && !self.cfg.content_label.is_empty() || !self.start_checked && matches!(self.state, State::Content | State::Wrapped) {
            return false;
        }
        match self.state {
            State::Content | State::Wrapped => self.emit_content(chunk, out),
            // A block's start is first checked for a repeated start marker (rule R2).
            State::Reasoning { started: false, checked: false, .. } => return false,
            State::Reasoning { .. } => self.emit_reasoning(chunk, out),
            _ => return false,
        }
        self.flush_call(out);
        true
    }

    /// Steps stopped making progress (a defect): the rest is kept as content, with a diagnostic.
    fn stalled(&mut self, rest: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        self.diag(at, "parser made no progress; remaining text kept as content");
        self.state = State::Content;
        self.emit_content(rest, out);
        rest.len()
    }
}

/// The first place at or before `limit` where a line of `text` starts with one of `lines` (after its
/// blanks: a line break's, or `text`'s own when `line_start`), and the longest of them there.
fn first_at_line_start<'a>(text: &str, lines: &[&'a str], limit: usize, line_start: bool) -> Option<(usize, &'a str)> {
    if lines.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let (mut pos, mut at_start) = (0, line_start);
    loop {
        if at_start {
            // The blanks `AutoParser::line_start_after` skips.
            let q = pos + bytes.get(pos..)?.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')).count();
            if q > limit {
                return None;
            }
            let rest = bytes.get(q..).unwrap_or(&[]);
            let mut best: Option<&'a str> = None;
            for &m in lines {
                if !m.is_empty() && rest.starts_with(m.as_bytes()) && best.is_none_or(|b| m.len() > b.len()) {
                    best = Some(m);
                }
            }
            if let Some(m) = best {
                return Some((q, m));
            }
        }
        let nl = pos + text.get(pos..)?.find('\n')?;
        if nl >= limit {
            return None;
        }
        (pos, at_start) = (nl + 1, true);
    }
}

/// Whether `hay` holds one of `needles`: one `memchr` pass per needle (std's byte search, a word at a
/// time) instead of a loop testing every byte against every needle.
fn has_any_byte(hay: &[u8], needles: &[u8]) -> bool {
    needles.iter().any(|n| hay.contains(n))
}

/// The part of a step's text that holds the first core of any of the markers it looks for: `text` up
/// to the end of that core (all of `text` when none occurs), and where that core starts. A step that
/// compares where several markers occur needs only the first one; searching each marker through the
/// whole text instead made a step cost the text's length whenever one of them was absent (quadratic
/// on a repeated marker, issue #11 item 8), and searching each from the start of the text made a step
/// cost the text's length once per marker. Leading whitespace before a core lies inside the scope too.
#[derive(Clone, Copy)]
pub(super) struct Scope<'t> {
    text: &'t str,
    /// No spelling of the markers the scope was made for starts before this byte.
    from: usize,
}

impl<'t> Scope<'t> {
    /// The scope of `markers` in `text` (the markers searched in it must be among them).
    pub(super) fn new(text: &'t str, markers: &[&Marker]) -> Scope<'t> {
        Scope::with_line_starts(text, markers, &[], false)
    }

    /// The scope of `markers` anywhere in `text` and of `line_markers` where a line starts (after a
    /// line break and blanks, or after blanks at the start of `text` when `line_start`: where
    /// `AutoParser::line_start_after` says a line starts); `line_markers` elsewhere in it are text.
    /// At one place the longest spelling is the first, the one listed first on a tie, as `next_marker`
    /// takes it. The line starts are found by a `memchr` for line breaks, so a line marker costs a
    /// test per line, not a compare per byte.
    pub(super) fn with_line_starts(text: &'t str, markers: &[&Marker], line_markers: &[&Marker], line_start: bool) -> Scope<'t> {
        let cores: Vec<&str> = markers.iter().flat_map(|m| m.spellings()).collect();
        let lines: Vec<&str> = line_markers.iter().flat_map(|m| m.spellings()).collect();
        let anywhere = crate::parse::drive::next_marker(text, &cores).map(|(p, i)| (p, cores.get(i).copied().unwrap_or("")));
        let line = first_at_line_start(text, &lines, anywhere.map_or(text.len(), |(p, _)| p), line_start);
        let first = match (anywhere, line) {
            (Some((p, c)), Some((q, l))) if p == q => Some((p, if l.len() > c.len() { l } else { c })),
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        match first {
            Some((p, first)) => {
                // A spelling that is the start of a longer one (`<|channel>`, `<|channel>thought`, rule
                // R9): the scope reaches as far as the longer one could, so that a search in it can tell.
                let reach = cores.iter().chain(&lines).filter(|c| c.len() > first.len() && c.starts_with(first)).map(|c| c.len()).max().unwrap_or(first.len());
                Scope { text: text.get(..(p + reach).min(text.len())).unwrap_or(text), from: p }
            }
            None => Scope { text, from: text.len() },
        }
    }

    /// [`Marker::find`] of one of the scope's markers in it.
    pub(super) fn find(&self, m: &Marker) -> Option<(usize, usize)> {
        m.find_from(self.text, self.from)
    }

    /// Its text.
    pub(super) fn text(&self) -> &'t str {
        self.text
    }

    /// Its length in bytes.
    pub(super) fn len(&self) -> usize {
        self.text.len()
    }
}
