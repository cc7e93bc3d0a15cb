//! The analysis-driven output parser: one state machine for whole text and streams.
//!
//! Configured from an `Analysis` (see [`ParserConfig`]), it walks the output once:
//! optional reasoning block → content (with optional wrapper markers) → tool calls in one of the
//! three formats, back to content. Every state consumes what it can decide and holds back only a
//! suffix that could still start a marker, so streaming in any chunking gives the same message in
//! O(n) total.
//!
//! Failure policy: while streaming nothing fails. A tool call that breaks before its header (name)
//! was emitted is rolled back into content; one that breaks later ends where it broke. Either way a
//! [`Diagnostic`] is recorded. Only `finish(is_partial = false)` inside an unfinished call errors.

use super::config::{ParserConfig, ToolConfig};
use super::json::{escape_inner, Feed, JsonValue, PyToJson};
use super::jsoncall::{CallData, CallFeed, JsonCall};
use super::literal::LiteralValue;
use super::marker::{is_space, Expect, Marker};
use super::OutputParser;
use crate::analysis::types::{Analysis, CallIdPosition, ToolFormat};
use crate::api::{Delta, Diagnostic, RequestOptions};
use crate::{Error, ErrorKind, Result};
use std::rc::Rc;

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolStep {
    /// Inside a section, between calls.
    Section,
    /// Call start marker consumed (or not needed): optional id before the name.
    CallOpen,
    NamePrefix,
    Name,
    NameSuffix,
    /// Optional call id: prefix, value, then suffix. The flag says where it sits.
    IdOpen(IdAt),
    IdValue(IdAt),
    IdClose(IdAt),
    ArgsOpen,
    /// TAG_WITH_JSON arguments.
    JsonArgs,
    /// TAG_WITH_TAGGED: next argument or end of arguments.
    ArgNext,
    ArgName,
    ValuePrefix,
    Value,
    /// Closing markers after the arguments: 0 args end, 1 id, 2 function close, 3 per-call end.
    AfterArgs(u8),
    /// JSON_NATIVE: optional `[` then a call object.
    JsonOpen,
    JsonObj,
    JsonAfter,
    JsonEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdAt {
    Pre,
    Mid,
    Post,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before anything: an optional reasoning start marker.
    Start,
    /// Reasoning without a start marker: undecided until its end marker (or a tool call) shows.
    DelimReasoning,
    Reasoning,
    Content,
    /// Inside content wrapper markers.
    Wrapped,
    Tool(ToolStep),
}

enum Step {
    /// Consumed this many bytes (0 only together with a state change).
    Adv(usize),
    /// Need more input.
    Wait,
    /// The current tool call is malformed at this byte offset (what came before it was consumed).
    Fail(&'static str, usize),
}

/// The tool call being parsed.
#[derive(Debug, Clone, Default)]
struct Call {
    data: CallData,
    json: JsonCall,
    /// TAG_WITH_JSON arguments value.
    json_args: JsonValue,
    /// Offset of the call's first byte in the model output.
    start: usize,
    /// Header (name) emitted: the call can no longer be rolled back.
    committed: bool,
    /// The header may be emitted (tag formats wait until the call id is known).
    header_ready: bool,
    index: usize,
    id_sent: bool,
    /// Text consumed since the call began, while uncommitted (rolled back into content on failure).
    raw: String,
    arg_count: usize,
    /// The numbered header's counter was read (see `ToolConfig::counter_head`).
    counted: bool,
    value_is_string: bool,
    value_empty: bool,
    /// The value's raw wrapper: 0 not yet looked for, 1 absent or closed, 2 inside it.
    raw_wrap: u8,
    value_norm: PyToJson,
    /// Literal-syntax argument value scanner.
    literal: LiteralValue,
}

/// The auto parser. Build it with [`AutoParser::new`]; use it through [`OutputParser`].
#[derive(Debug)]
pub struct AutoParser {
    /// Shared so states can read markers while mutating the parser.
    cfg: Rc<ParserConfig>,
    state: State,
    /// Unconsumed input (only what may still start a marker, between pushes).
    buf: String,
    /// Offset of `buf[0]` in prefill + output.
    base: usize,
    prefill_len: usize,
    /// Optional whitespace (a marker's trailing whitespace) to skip next.
    trail: String,
    /// Leading whitespace of the current reasoning block, held until something else shows.
    reasoning_ws: String,
    reasoning_started: bool,
    /// Bytes of `buf` already searched by the delimiter-reasoning state.
    scanned: usize,
    call: Call,
    calls: usize,
    in_array: bool,
    /// Calls sit in a section (entered by the section marker, not by a bare per-call marker).
    section_open: bool,
    /// Deltas produced by the prefill, handed out with the first push.
    pending: Vec<Delta>,
    out_start: usize,
    diags: Vec<Diagnostic>,
    failed: Option<Error>,
    /// Bytes that may start a marker of the text states (see [`AutoParser::plain_text`]).
    text_marker_bytes: Box<[bool; 256]>,
}

/// Consecutive zero-length steps tolerated before the parser stops (defends against loops).
const MAX_IDLE_STEPS: usize = 32;
/// Longest name / id / argument name read before giving up on a marker.
const MAX_NAME: usize = 512;

impl AutoParser {
    /// A parser for `analysis` and `options` that first consumes `prefill`: the part of the
    /// generation prompt the model's output continues (e.g. `<think>\n`; see `prompt::parser_prefill`).
    pub fn new(analysis: &Analysis, options: &RequestOptions, prefill: &str) -> AutoParser {
        Self::with_config(ParserConfig::new(analysis, options), prefill)
    }

    /// A parser from a prepared configuration.
    pub fn with_config(cfg: ParserConfig, prefill: &str) -> AutoParser {
        let mut p = AutoParser {
            cfg: Rc::new(cfg),
            state: State::Start,
            buf: String::new(),
            base: 0,
            prefill_len: prefill.len(),
            trail: String::new(),
            reasoning_ws: String::new(),
            reasoning_started: false,
            scanned: 0,
            call: Call::default(),
            calls: 0,
            in_array: false,
            section_open: false,
            pending: Vec::new(),
            out_start: 0,
            diags: Vec::new(),
            failed: None,
            text_marker_bytes: Box::new([false; 256]),
        };
        let cfg = Rc::clone(&p.cfg);
        let text_markers = cfg.reasoning.iter().chain(cfg.content_wrap.iter()).flat_map(|(s, e)| [s, e]);
        let tool_markers = cfg.tools.iter().flat_map(|t| [&t.trigger, &t.call_trigger]);
        for m in text_markers.chain(tool_markers) {
            m.mark_first_bytes(&mut p.text_marker_bytes);
        }
        let mut out = Vec::new();
        p.buf.push_str(prefill);
        p.run(false, &mut out);
        p.pending = out;
        p
    }

    fn tools(&self) -> Option<&ToolConfig> {
        self.cfg.tools.as_ref()
    }

    fn output_offset(&self, abs: usize) -> usize {
        abs.saturating_sub(self.prefill_len)
    }

    fn diag(&mut self, abs: usize, message: impl Into<String>) {
        let offset = self.output_offset(abs);
        self.diags.push(Diagnostic { offset, message: message.into() });
    }

    // ---- emission -------------------------------------------------------------------------

    fn emit_content(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        if out.len() > self.out_start {
            if let Some(Delta::Content(c)) = out.last_mut() {
                c.push_str(s);
                return;
            }
        }
        out.push(Delta::Content(s.to_string()));
    }

    fn emit_reasoning(&mut self, s: &str, out: &mut Vec<Delta>) {
        if s.is_empty() {
            return;
        }
        // Whitespace-only reasoning is dropped (llama.cpp discards e.g. `<think>\n</think>`).
        if !self.reasoning_started {
            if s.chars().all(is_space) {
                self.reasoning_ws.push_str(s);
                return;
            }
            self.reasoning_started = true;
        }
        let mut text = std::mem::take(&mut self.reasoning_ws);
        text.push_str(s);
        if out.len() > self.out_start {
            if let Some(Delta::Reasoning(r)) = out.last_mut() {
                r.push_str(&text);
                return;
            }
        }
        out.push(Delta::Reasoning(text));
    }

    fn end_reasoning(&mut self) {
        self.reasoning_ws.clear();
        self.reasoning_started = false;
    }

    /// Emit the call's header, id and pending argument text as far as they are known.
    fn flush_call(&mut self, out: &mut Vec<Delta>) {
        if !matches!(self.state, State::Tool(_)) && !self.call.committed {
            return;
        }
        let call = &mut self.call;
        if !call.committed {
            if !(call.header_ready && call.data.tool.is_some()) {
                return;
            }
            call.committed = true;
            call.raw.clear();
            call.index = self.calls;
            self.calls += 1;
            call.id_sent = !call.data.id.is_empty();
            let id = call.id_sent.then(|| call.data.id.clone());
            out.push(Delta::ToolCall { index: call.index, id, name: Some(call.data.name.clone()), arguments: None });
        }
        if !call.id_sent && !call.data.id.is_empty() {
            call.id_sent = true;
            out.push(Delta::ToolCall { index: call.index, id: Some(call.data.id.clone()), name: None, arguments: None });
        }
        if !call.data.args.is_empty() {
            let args = std::mem::take(&mut call.data.args);
            if out.len() > self.out_start {
                if let Some(Delta::ToolCall { index, arguments: Some(a), .. }) = out.last_mut() {
                    if *index == call.index {
                        a.push_str(&args);
                        return;
                    }
                }
            }
            out.push(Delta::ToolCall { index: call.index, id: None, name: None, arguments: Some(args) });
        }
    }

    // ---- driver ---------------------------------------------------------------------------

    /// Streaming fast path: in a text state with nothing held back, a chunk holding no byte that
    /// can start one of the text states' markers (reasoning, content wrapper, tool-call triggers)
    /// is plain text the text state would emit whole. Emitting it directly skips the buffer copy
    /// and the per-marker searches; the result is the same as [`AutoParser::run`].
    fn plain_text(&mut self, chunk: &str, out: &mut Vec<Delta>) -> bool {
        if !self.buf.is_empty() || !self.trail.is_empty() || chunk.bytes().any(|b| self.text_marker_bytes[usize::from(b)]) {
            return false;
        }
        match self.state {
            State::Content | State::Wrapped => self.emit_content(chunk, out),
            State::Reasoning => self.emit_reasoning(chunk, out),
            _ => return false,
        }
        self.base += chunk.len();
        self.scanned = self.scanned.saturating_sub(chunk.len());
        self.flush_call(out);
        true
    }

    fn run(&mut self, eof: bool, out: &mut Vec<Delta>) {
        let buf = std::mem::take(&mut self.buf);
        let mut pos = 0;
        let mut idle = 0;
        loop {
            let text = buf.get(pos..).unwrap_or("");
            // Text states have nothing to do without text: skip the empty step (streaming hot path).
            if text.is_empty() && !eof && matches!(self.state, State::Content | State::Reasoning | State::Wrapped) {
                break;
            }
            let uncommitted_call = matches!(self.state, State::Tool(_)) && !self.call.committed;
            let abs = self.base + pos;
            match self.step(text, abs, eof, out) {
                Step::Adv(n) => {
                    let n = n.min(text.len());
                    if uncommitted_call && !self.call.committed && matches!(self.state, State::Tool(_)) {
                        self.call.raw.push_str(text.get(..n).unwrap_or(""));
                    }
                    pos += n;
                    idle = if n == 0 { idle + 1 } else { 0 };
                }
                Step::Wait => break,
                Step::Fail(msg, n) => {
                    let n = n.min(text.len());
                    if !self.call.committed {
                        self.call.raw.push_str(text.get(..n).unwrap_or(""));
                    }
                    pos += n;
                    self.fail_call(abs + n, msg, out);
                    idle = if n == 0 { idle + 1 } else { 0 };
                }
            }
            self.flush_call(out);
            if idle > MAX_IDLE_STEPS {
                self.diag(abs, "parser made no progress; remaining text kept as content");
                let rest = buf.get(pos..).unwrap_or("").to_string();
                self.state = State::Content;
                self.emit_content(&rest, out);
                pos = buf.len();
                break;
            }
        }
        let mut buf = buf;
        let pos = pos.min(buf.len());
        self.base += pos;
        self.scanned = self.scanned.saturating_sub(pos);
        // Keep the allocation: only the held-back tail remains.
        buf.drain(..pos);
        self.buf = buf;
    }

    /// A tool call broke: roll it back into content if nothing of it was emitted yet.
    fn fail_call(&mut self, abs: usize, msg: &str, out: &mut Vec<Delta>) {
        self.diag(abs, msg);
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
        self.state = State::Content;
    }

    fn begin_call(&mut self, abs: usize, raw: &str) {
        self.call = Call { start: self.output_offset(abs), raw: raw.to_string(), ..Call::default() };
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
        match self.state {
            State::Start => self.step_start(text, abs, eof),
            State::DelimReasoning => self.step_delim_reasoning(text, eof, out),
            State::Reasoning => self.step_reasoning(text, eof, out),
            State::Content => self.step_content(text, abs, eof, out),
            State::Wrapped => self.step_wrapped(text, eof, out),
            State::Tool(t) => self.step_tool(t, text, abs, eof),
        }
    }

    fn step_start(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some((start, _)) = &cfg.reasoning else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        if start.is_empty() {
            self.state = State::DelimReasoning;
            return Step::Adv(0);
        }
        match start.expect(text, eof) {
            Expect::Matched(n) => {
                self.trail = start.trail.clone();
                self.state = State::Reasoning;
                Step::Adv(n)
            }
            Expect::No => {
                // `<|channel><|channel>thought`: a repeated head of the start marker is a stray token.
                if let Some(head) = start.token_head() {
                    let lead = text.len() - text.trim_start_matches(is_space).len();
                    if let Some(rest) = text.get(lead..).and_then(|t| t.strip_prefix(head)) {
                        match start.expect(rest, eof) {
                            Expect::Matched(_) => {
                                self.diag(abs + lead, format!("stray {head:?} before the reasoning start marker dropped"));
                                return Step::Adv(lead + head.len());
                            }
                            Expect::NeedMore => return Step::Wait,
                            Expect::No => {}
                        }
                    }
                }
                self.state = State::Content;
                Step::Adv(0)
            }
            Expect::NeedMore => Step::Wait,
        }
    }

    fn step_delim_reasoning(&mut self, text: &str, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some((_, end)) = &self.cfg.reasoning else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let from = floor_boundary(text, self.scanned);
        let found = end.find(text.get(from..).unwrap_or("")).map(|(s, e)| (s + from, e + from));
        let trigger = self.tools().and_then(|t| t.trigger.find(text.get(from..).unwrap_or(""))).map(|(s, _)| s + from);
        match found {
            Some((s, e)) if trigger.is_none_or(|t| t >= s) => {
                let trail = end.trail.clone();
                self.emit_reasoning(text.get(..s).unwrap_or(""), out);
                self.end_reasoning();
                self.trail = trail;
                self.state = State::Content;
                Step::Adv(e)
            }
            // No end marker before a tool call (or the end of the text): it was content all along.
            _ if trigger.is_some() || eof => {
                self.state = State::Content;
                Step::Adv(0)
            }
            _ => {
                // Both searches resume where a marker could still be starting.
                let longest = self.tools().map_or(0, |t| t.trigger.core.len()).max(end.core.len());
                self.scanned = text.len().saturating_sub(longest);
                Step::Wait
            }
        }
    }

    fn step_reasoning(&mut self, text: &str, eof: bool, out: &mut Vec<Delta>) -> Step {
        let cfg = Rc::clone(&self.cfg);
        self.until_end(text, cfg.reasoning.as_ref().map(|(_, e)| e), eof, out, true)
    }

    /// Shared by reasoning and wrapped content: emit text up to the block's end marker (holding back
    /// a possible partial marker), then continue with content.
    fn until_end(&mut self, text: &str, end: Option<&Marker>, eof: bool, out: &mut Vec<Delta>, reasoning: bool) -> Step {
        let Some(skipped) = self.skip_trail(text, eof) else { return Step::Wait };
        if skipped > 0 {
            return Step::Adv(skipped);
        }
        let Some(end) = end else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let call_tools = self.tools().filter(|t| reasoning && self.cfg.reasoning_ends_at_call && !t.trigger_is_body);
        let scope = match call_tools {
            Some(t) => search_scope(text, &[end, &t.trigger, &t.call_trigger]),
            None => search_scope(text, &[end]),
        };
        let found = end.find(scope);
        if let Some(t) = call_tools {
            let call = [&t.trigger, &t.call_trigger].iter().filter_map(|m| m.find(scope)).map(|(s, _)| s).min();
            if let Some(c) = call.filter(|c| found.is_none_or(|(s, _)| *c < s)) {
                // The call starts reasoning's end without the end marker.
                self.emit_reasoning(text.get(..c).unwrap_or(""), out);
                self.end_reasoning();
                self.state = State::Content;
                return Step::Adv(c);
            }
        }
        let call_keep = call_tools.map_or(0, |t| t.trigger.holdback(text).max(t.call_trigger.holdback(text)));
        let (n, consumed) = match found {
            Some((s, e)) => (s, Some(e)),
            None => (text.len() - if eof { 0 } else { end.holdback(text).max(call_keep) }, None),
        };
        let piece = text.get(..n).unwrap_or("");
        if reasoning {
            self.emit_reasoning(piece, out);
        } else {
            self.emit_content(piece, out);
        }
        match consumed {
            Some(e) => {
                if reasoning {
                    self.end_reasoning();
                }
                self.trail = end.trail.clone();
                self.state = State::Content;
                Step::Adv(e)
            }
            None if n == 0 => Step::Wait,
            None => Step::Adv(n),
        }
    }

    fn step_content(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some(skipped) = self.skip_trail(text, eof) else { return Step::Wait };
        if skipped > 0 {
            return Step::Adv(skipped);
        }
        // Every marker this step looks for is searched only up to the first one present (see search_scope).
        let cfg = Rc::clone(&self.cfg);
        let mut wanted: Vec<&Marker> = Vec::new();
        if let Some(t) = self.tools() {
            wanted.extend([&t.trigger, &t.call_trigger]);
        }
        wanted.extend(cfg.content_wrap.as_ref().map(|(s, _)| s));
        if let Some((s, e)) = cfg.reasoning.as_ref() {
            wanted.extend([s, e]);
        }
        let scope = search_scope(text, &wanted);
        let trigger = self.tools().and_then(|t| {
            let section = t.trigger.find(scope).map(|m| (m, t.trigger_is_body, true));
            let call = t.call_trigger.find(scope).map(|m| (m, false, false));
            match (section, call) {
                (Some(a), Some(b)) => Some(if b.0 .0 < a.0 .0 { b } else { a }),
                (a, b) => a.or(b),
            }
        });
        let wrap = self.cfg.content_wrap.as_ref().and_then(|(s, _)| s.find(scope));
        if let Some(step) = self.reasoning_in_content(text, scope, abs, trigger.map(|t| t.0 .0), wrap.map(|w| w.0), out) {
            return step;
        }
        match (trigger, wrap) {
            (Some(((s, e), body, section)), w) if w.is_none_or(|(ws, _)| s < ws) => {
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
                self.section_open = section_open;
                self.emit_content(text.get(..s).unwrap_or(""), out);
                let consumed = if body { s } else { e };
                self.begin_call(abs + s, text.get(s..consumed).unwrap_or(""));
                self.in_array = false;
                self.state = State::Tool(next);
                Step::Adv(consumed)
            }
            (_, Some((s, e))) => {
                let trail = self.cfg.content_wrap.as_ref().map(|(m, _)| m.trail.clone()).unwrap_or_default();
                self.emit_content(text.get(..s).unwrap_or(""), out);
                self.trail = trail;
                self.state = State::Wrapped;
                Step::Adv(e)
            }
            _ => {
                let keep = if eof {
                    0
                } else {
                    let t = self.tools().map_or(0, |t| t.trigger.holdback(text).max(t.call_trigger.holdback(text)));
                    let w = self.cfg.content_wrap.as_ref().map_or(0, |(s, _)| s.holdback(text));
                    t.max(w).max(self.reasoning_holdback(text))
                };
                let n = text.len() - keep;
                self.emit_content(text.get(..n).unwrap_or(""), out);
                if n == 0 { Step::Wait } else { Step::Adv(n) }
            }
        }
    }

    /// Reasoning markers met in content, when one comes before any tool call (`call_at`) or content
    /// wrapper (`wrap_at`): a start marker re-opens reasoning (interleaved thinking; an empty block
    /// vanishes, see `emit_reasoning`) and a stray end marker is dropped. Both are recognised markers,
    /// so nothing the model wrote is lost; each leaves a diagnostic except a re-opened block.
    /// `scope`: the start of `text` that holds the first of the markers the content step looks for.
    fn reasoning_in_content(&mut self, text: &str, scope: &str, abs: usize, call_at: Option<usize>, wrap_at: Option<usize>, out: &mut Vec<Delta>) -> Option<Step> {
        let cfg = Rc::clone(&self.cfg);
        let (start, end) = cfg.reasoning.as_ref()?;
        let open = start.find(scope).map(|m| (m, true));
        let close = end.find(scope).map(|m| (m, false));
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
                    self.diag(abs + b.len(), format!("stray {head:?} before the reasoning start marker dropped"));
                    before = b;
                }
            }
        }
        self.emit_content(before, out);
        if opens {
            self.end_reasoning();
            self.trail = start.trail.clone();
            self.state = State::Reasoning;
        } else {
            self.diag(abs + s, format!("reasoning end marker {:?} in content dropped", end.core));
            self.trail = end.trail.clone();
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

    fn step_wrapped(&mut self, text: &str, eof: bool, out: &mut Vec<Delta>) -> Step {
        let cfg = Rc::clone(&self.cfg);
        self.until_end(text, cfg.content_wrap.as_ref().map(|(_, e)| e), eof, out, false)
    }

    // ---- tool calls -----------------------------------------------------------------------

    fn step_tool(&mut self, step: ToolStep, text: &str, abs: usize, eof: bool) -> Step {
        let Some(t) = self.cfg.tools.as_ref() else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let goto = |p: &mut AutoParser, s: ToolStep, n: usize| {
            p.state = State::Tool(s);
            Step::Adv(n)
        };
        match step {
            ToolStep::Section => {
                let calls_start = if t.per_call_start.is_empty() { &t.name_prefix } else { &t.per_call_start };
                // Without any call marker a call starts with its name (`[f(a=1), g(b=2)]`).
                let bare = calls_start.is_empty();
                let (call_m, end_m) = (calls_start.expect(text, eof), t.section_end.expect(text, eof));
                if let Expect::Matched(n) = call_m {
                    let skip = text.len() - text.trim_start_matches(is_space).len();
                    let next = if t.per_call_start.is_empty() { ToolStep::Name } else { ToolStep::CallOpen };
                    self.begin_call(abs + skip, "");
                    return goto(self, next, n);
                }
                if let Expect::Matched(n) = end_m {
                    self.trail = t.section_end.trail.clone();
                    self.state = State::Content;
                    return Step::Adv(n);
                }
                let rest = text.trim_start_matches(is_space);
                if let Some(r) = rest.strip_prefix(',') {
                    return Step::Adv(text.len() - r.len());
                }
                if call_m == Expect::NeedMore || end_m == Expect::NeedMore || (rest.is_empty() && !eof) {
                    return Step::Wait;
                }
                if bare && !rest.is_empty() {
                    let skip = text.len() - rest.len();
                    self.begin_call(abs + skip, "");
                    return goto(self, ToolStep::Name, skip);
                }
                if !t.section_end.is_empty() && !(eof && rest.is_empty()) {
                    self.diag(abs, "tool-call section not closed");
                }
                self.state = State::Content;
                Step::Adv(0)
            }
            ToolStep::CallOpen => {
                let next = if t.id_pos == CallIdPosition::PreFuncName && !t.id_prefix.is_empty() {
                    // `<|tool_call:begin|>ID<|tool_call:name|>f`: the call start already opened the id.
                    if t.id_prefix.core == t.per_call_start.core { ToolStep::IdValue(IdAt::Pre) } else { ToolStep::IdOpen(IdAt::Pre) }
                } else {
                    ToolStep::NamePrefix
                };
                goto(self, next, 0)
            }
            ToolStep::NamePrefix => {
                if t.name_prefix.is_empty() {
                    return goto(self, ToolStep::Name, 0);
                }
                match t.name_prefix.expect(text, eof) {
                    Expect::Matched(n) => goto(self, ToolStep::Name, n),
                    Expect::NeedMore => Step::Wait,
                    Expect::No => Step::Fail("expected the function name marker", 0),
                }
            }
            ToolStep::Name => {
                let rest = text.trim_start_matches(is_space);
                let skip = text.len() - rest.len();
                match match_name(rest, t, eof) {
                    NameMatch::Found(i, n) => {
                        self.call.data.tool = Some(i);
                        self.call.data.name = t.tools.get(i).map(|d| d.name.clone()).unwrap_or_default();
                        goto(self, ToolStep::NameSuffix, skip + n)
                    }
                    NameMatch::NeedMore => Step::Wait,
                    NameMatch::No => Step::Fail("unknown function name in tool call", 0),
                }
            }
            ToolStep::NameSuffix => {
                if let Some(head) = t.counter_head.as_ref().filter(|_| !self.call.counted) {
                    let Some(rest) = text.strip_prefix(head.as_str()) else {
                        return if !eof && head.starts_with(text) { Step::Wait } else { Step::Fail("expected the call counter", 0) };
                    };
                    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                    if digits == rest.len() && !eof {
                        return if digits > MAX_NAME { Step::Fail("call counter too long", 0) } else { Step::Wait };
                    }
                    if digits == 0 {
                        return Step::Fail("expected the call counter", 0);
                    }
                    let n = head.len() + digits;
                    // The numbered header is the call id: `functions.f:0`.
                    self.call.data.id = format!("{}{}{}", t.name_prefix.core, self.call.data.name, text.get(..n).unwrap_or(""));
                    self.call.counted = true;
                    return Step::Adv(n);
                }
                let next = if t.id_pos == CallIdPosition::BetweenFuncAndArgs && !t.id_prefix.is_empty() {
                    ToolStep::IdOpen(IdAt::Mid)
                } else {
                    ToolStep::ArgsOpen
                };
                if t.name_suffix.is_empty() {
                    return goto(self, next, 0);
                }
                match t.name_suffix.expect(text, eof) {
                    Expect::Matched(n) => {
                        self.trail = t.name_suffix.trail.clone();
                        goto(self, next, n)
                    }
                    Expect::NeedMore => Step::Wait,
                    Expect::No => Step::Fail("expected the marker after the function name", 0),
                }
            }
            ToolStep::IdOpen(at) => match t.id_prefix.expect(text, eof) {
                Expect::Matched(n) => goto(self, ToolStep::IdValue(at), n),
                Expect::NeedMore => Step::Wait,
                Expect::No => goto(self, ToolStep::IdClose(at), 0),
            },
            ToolStep::IdValue(at) => {
                let ends: Vec<&Marker> = [&t.id_suffix, &t.args_start, &t.name_prefix, &t.close, &t.per_call_end, &t.section_end].into_iter().filter(|m| !m.is_empty()).collect();
                let scope = search_scope(text, &ends);
                let found = ends.iter().filter_map(|m| m.find(scope)).map(|(s, _)| s).min();
                // Without any end marker the id is one word (ends at whitespace or the arguments).
                let stop = if ends.is_empty() { text.find(|c: char| is_space(c) || c == '{' || c == '[') } else { found };
                match stop {
                    Some(s) => {
                        self.call.data.id = text.get(..s).unwrap_or("").trim_matches(is_space).to_string();
                        goto(self, ToolStep::IdClose(at), s)
                    }
                    None if eof => {
                        self.call.data.id = text.trim_matches(is_space).to_string();
                        goto(self, ToolStep::IdClose(at), text.len())
                    }
                    None if text.len() > MAX_NAME => Step::Fail("call id too long", 0),
                    None => Step::Wait,
                }
            }
            ToolStep::IdClose(at) => {
                let next = match at {
                    // The id's closing marker may be the name's opening one (`ID<|tool_call:name|>f`).
                    IdAt::Pre if t.id_suffix.core == t.name_prefix.core => ToolStep::Name,
                    IdAt::Pre => ToolStep::NamePrefix,
                    IdAt::Mid => ToolStep::ArgsOpen,
                    IdAt::Post => ToolStep::AfterArgs(2),
                };
                match t.id_suffix.expect(text, eof) {
                    Expect::Matched(n) => goto(self, next, n),
                    Expect::NeedMore => Step::Wait,
                    Expect::No => goto(self, next, 0),
                }
            }
            ToolStep::ArgsOpen => {
                self.call.header_ready = true;
                let next = if t.format == ToolFormat::TagWithTagged { ToolStep::ArgNext } else { ToolStep::JsonArgs };
                if t.args_start.is_empty() {
                    return goto(self, next, 0);
                }
                match t.args_start.expect(text, eof) {
                    Expect::Matched(n) => goto(self, next, n),
                    Expect::NeedMore => Step::Wait,
                    Expect::No => goto(self, next, 0),
                }
            }
            ToolStep::JsonArgs => {
                let mut value = std::mem::take(&mut self.call.json_args);
                let r = self.json_args(&mut value, text, eof);
                self.call.json_args = value;
                r
            }
            ToolStep::ArgNext => {
                if !t.arg_separator.is_empty() {
                    if let Expect::Matched(n) = t.arg_separator.expect(text, eof) {
                        if self.call.arg_count > 0 {
                            return Step::Adv(n);
                        }
                    }
                }
                if t.literal {
                    return match t.args_end.expect(text, eof) {
                        Expect::Matched(_) => {
                            let close = if self.call.arg_count == 0 { "{}" } else { "}" };
                            self.call.data.args.push_str(close);
                            self.call.data.args_complete = true;
                            goto(self, ToolStep::AfterArgs(0), 0)
                        }
                        Expect::NeedMore => Step::Wait,
                        Expect::No => {
                            let rest = text.trim_start_matches(is_space);
                            if rest.is_empty() { Step::Wait } else { goto(self, ToolStep::ArgName, text.len() - rest.len()) }
                        }
                    };
                }
                match t.arg_name_prefix.expect(text, eof) {
                    Expect::Matched(n) => goto(self, ToolStep::ArgName, n),
                    Expect::NeedMore => Step::Wait,
                    Expect::No => {
                        let close = if self.call.arg_count == 0 { "{}" } else { "}" };
                        self.call.data.args.push_str(close);
                        self.call.data.args_complete = true;
                        goto(self, ToolStep::AfterArgs(0), 0)
                    }
                }
            }
            ToolStep::ArgName => {
                let end = if t.arg_name_suffix.is_empty() { &t.value_prefix } else { &t.arg_name_suffix };
                let found = end.find(text).or_else(|| if eof && end.is_empty() { Some((text.len(), text.len())) } else { None });
                // A typed value prefix right after the name says the value is JSON.
                let typed = if t.arg_name_suffix.is_empty() { t.typed_value_prefix.find(text) } else { None };
                let (found, typed) = match (found, typed) {
                    (f, Some(ty)) if f.is_none_or(|(s, _)| ty.0 < s) => (Some(ty), true),
                    (f, _) => (f, false),
                };
                let Some((s, e)) = found else {
                    return if text.len() > MAX_NAME || eof { Step::Fail("argument name not closed", 0) } else { Step::Wait };
                };
                let name = text.get(..s).unwrap_or("").trim_matches(is_space).trim_matches(|c| c == '"' || c == '\'');
                // Another argument opened before this one's name was closed (the prefix's quote may
                // have gone to the value marker: `name="a<p name=" string="false">`).
                let opener = t.arg_name_prefix.core.trim_end_matches(['"', '\'']);
                if !opener.is_empty() && name.contains(opener) {
                    return Step::Fail("argument name not closed", 0);
                }
                if t.literal && (name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')) {
                    return Step::Fail("invalid argument name", 0);
                }
                let tool = self.call.data.tool.and_then(|i| t.tools.get(i));
                let is_string = !typed && (!t.typed_value_prefix.is_empty() || tool.is_none_or(|d| d.is_string(name)));
                let call = &mut self.call;
                call.data.args.push_str(if call.arg_count == 0 { "{" } else { "," });
                call.data.args.push_str(&serde_json::Value::from(name).to_string());
                call.data.args.push(':');
                call.data.args_seen = true;
                call.arg_count += 1;
                call.value_is_string = is_string;
                call.value_empty = true;
                call.raw_wrap = 0;
                call.value_norm = PyToJson::default();
                call.literal = LiteralValue::default();
                if is_string && !t.literal {
                    call.data.args.push('"');
                }
                self.trail = if typed { t.typed_value_prefix.trail.clone() } else { end.trail.clone() };
                let next = if !t.arg_name_suffix.is_empty() && !t.value_prefix.is_empty() { ToolStep::ValuePrefix } else { ToolStep::Value };
                goto(self, next, e)
            }
            ToolStep::ValuePrefix => match t.value_prefix.expect(text, eof) {
                Expect::Matched(n) => {
                    self.trail = t.value_prefix.trail.clone();
                    goto(self, ToolStep::Value, n)
                }
                Expect::NeedMore => Step::Wait,
                Expect::No => goto(self, ToolStep::Value, 0),
            },
            ToolStep::Value if t.literal => self.literal_value(text, eof),
            ToolStep::Value => self.tagged_value(text, eof),
            ToolStep::AfterArgs(k) => {
                let m = match k {
                    0 => &t.args_end,
                    1 => {
                        let next = if t.id_pos == CallIdPosition::PostArgs && !t.id_prefix.is_empty() {
                            ToolStep::IdOpen(IdAt::Post)
                        } else {
                            ToolStep::AfterArgs(2)
                        };
                        return goto(self, next, 0);
                    }
                    2 => &t.close,
                    3 => &t.per_call_end,
                    _ => return self.end_call(),
                };
                if m.is_empty() {
                    return goto(self, ToolStep::AfterArgs(k + 1), 0);
                }
                match m.expect(text, eof) {
                    Expect::Matched(n) => {
                        self.trail = m.trail.clone();
                        goto(self, ToolStep::AfterArgs(k + 1), n)
                    }
                    Expect::NeedMore => Step::Wait,
                    Expect::No => {
                        if !(eof && text.trim_matches(is_space).is_empty()) {
                            self.diag(abs, format!("expected `{}` after tool-call arguments", m.core));
                        }
                        goto(self, ToolStep::AfterArgs(k + 1), 0)
                    }
                }
            }
            ToolStep::JsonOpen => {
                let rest = text.trim_start_matches(is_space);
                let skip = text.len() - rest.len();
                match rest.chars().next() {
                    None if !eof => Step::Wait,
                    Some('[') if t.json.array_wrapped && !self.in_array => {
                        self.in_array = true;
                        Step::Adv(skip + 1)
                    }
                    Some('{') => {
                        self.call.json = JsonCall::default();
                        goto(self, ToolStep::JsonObj, skip)
                    }
                    _ => Step::Fail("expected a JSON tool call object", 0),
                }
            }
            ToolStep::JsonObj => {
                let mut json = std::mem::take(&mut self.call.json);
                let r = self.json_object(&mut json, text, eof);
                self.call.json = json;
                r
            }
            ToolStep::JsonAfter => {
                let rest = text.trim_start_matches(is_space);
                let skip = text.len() - rest.len();
                match rest.chars().next() {
                    None if !eof => Step::Wait,
                    Some(',') => {
                        self.begin_call(abs + skip, "");
                        self.call.json = JsonCall::default();
                        self.state = State::Tool(ToolStep::JsonObj);
                        Step::Adv(skip + 1)
                    }
                    Some(']') if self.in_array => {
                        self.in_array = false;
                        goto(self, ToolStep::JsonEnd, skip + 1)
                    }
                    _ => goto(self, ToolStep::JsonEnd, 0),
                }
            }
            ToolStep::JsonEnd => {
                let m = if !t.section_start.is_empty() { &t.section_end } else { &t.per_call_end };
                if m.is_empty() {
                    return self.end_call();
                }
                match m.expect(text, eof) {
                    Expect::Matched(n) => {
                        self.trail = m.trail.clone();
                        self.state = State::Content;
                        Step::Adv(n)
                    }
                    Expect::NeedMore => Step::Wait,
                    Expect::No => {
                        if !(eof && text.trim_matches(is_space).is_empty()) {
                            self.diag(abs, format!("expected `{}` after the tool calls", m.core));
                        }
                        self.end_call()
                    }
                }
            }
        }
    }

    /// The call's closing markers are done: back to the section or to content.
    fn end_call(&mut self) -> Step {
        let in_section = self.section_open && self.tools().is_some_and(|t| !t.section_start.is_empty() && t.format != ToolFormat::JsonNative);
        self.state = if in_section { State::Tool(ToolStep::Section) } else { State::Content };
        Step::Adv(0)
    }

    fn json_args(&mut self, value: &mut JsonValue, text: &str, eof: bool) -> Step {
        for (i, c) in text.char_indices() {
            match value.feed(c, &mut self.call.data.args) {
                Feed::More => self.call.data.args_seen = true,
                Feed::Done => {
                    self.call.data.args_complete = true;
                    self.state = State::Tool(ToolStep::AfterArgs(0));
                    return Step::Adv(i + c.len_utf8());
                }
                Feed::EndedBefore => {
                    self.call.data.args_complete = true;
                    self.state = State::Tool(ToolStep::AfterArgs(0));
                    return Step::Adv(i);
                }
                Feed::Invalid => return Step::Fail("invalid JSON arguments", i),
            }
        }
        if eof && value.complete_at_eof() {
            value.finish(&mut self.call.data.args);
            self.call.data.args_complete = true;
            self.state = State::Tool(ToolStep::AfterArgs(0));
        }
        if text.is_empty() { Step::Wait } else { Step::Adv(text.len()) }
    }

    fn json_object(&mut self, json: &mut JsonCall, text: &str, eof: bool) -> Step {
        let Some(t) = self.cfg.tools.as_ref() else { return Step::Fail("no tools", 0) };
        for (i, c) in text.char_indices() {
            match json.feed(c, t, &mut self.call.data) {
                CallFeed::More => {
                    if self.call.data.tool.is_some() && !self.call.header_ready {
                        // The name is known: stop here so the header goes out before more arguments.
                        self.call.header_ready = true;
                        return Step::Adv(i + c.len_utf8());
                    }
                }
                CallFeed::Done => {
                    if let Some(key) = json.unknown_key() {
                        // Its value was skipped: say so, the model wrote it.
                        let message = format!("tool call member {:?} not understood; its value is ignored", key);
                        self.diags.push(Diagnostic { offset: self.call.start, message });
                    }
                    if !self.call.data.args_seen {
                        self.call.data.args.push_str("{}");
                    }
                    self.call.data.args_complete = true;
                    self.call.header_ready = true;
                    self.state = State::Tool(ToolStep::JsonAfter);
                    return Step::Adv(i + c.len_utf8());
                }
                CallFeed::Invalid(msg) => return Step::Fail(msg, i),
            }
        }
        if eof {
            json.finish(&mut self.call.data);
        }
        if text.is_empty() { Step::Wait } else { Step::Adv(text.len()) }
    }

    /// A literal argument value: it ends by its own syntax (closing quote or bracket, end of a word).
    fn literal_value(&mut self, text: &str, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let delim = cfg.tools.as_ref().map_or("", |t| t.string_delim.as_str());
        let call = &mut self.call;
        for (i, c) in text.char_indices() {
            match call.literal.feed(c, delim, &mut call.data.args) {
                Feed::More => {}
                Feed::Done => {
                    self.state = State::Tool(ToolStep::ArgNext);
                    return Step::Adv(i + c.len_utf8());
                }
                Feed::EndedBefore => {
                    self.state = State::Tool(ToolStep::ArgNext);
                    return Step::Adv(i);
                }
                Feed::Invalid => return Step::Fail("invalid literal argument value", i),
            }
        }
        if eof && call.literal.complete_at_eof() {
            call.literal.finish(&mut call.data.args);
            self.state = State::Tool(ToolStep::ArgNext);
        }
        if text.is_empty() { Step::Wait } else { Step::Adv(text.len()) }
    }

    fn tagged_value(&mut self, text: &str, eof: bool) -> Step {
        let Some(skipped) = self.skip_trail(text, eof) else { return Step::Wait };
        if skipped > 0 {
            return Step::Adv(skipped);
        }
        if let Some(step) = self.raw_value(text, eof) {
            return step;
        }
        let Some(t) = self.cfg.tools.as_ref() else { return Step::Fail("no tools", 0) };
        // Without a value suffix the value runs to the next argument or the call's end (kept).
        let (found, keep) = if !t.value_suffix.is_empty() {
            (t.value_suffix.find(text), if eof { 0 } else { t.value_suffix.holdback(text) })
        } else {
            let ends = [&t.arg_name_prefix, &t.close, &t.per_call_end, &t.section_end];
            let scope = search_scope(text, &ends);
            let found = ends.iter().filter_map(|m| m.find(scope)).map(|(s, _)| (s, s)).min();
            (found, if eof { 0 } else { ends.iter().map(|m| m.holdback(text)).max().unwrap_or(0) })
        };
        let (value_end, consumed) = match found {
            Some((s, e)) => (s, Some(e)),
            None => (text.len() - keep, None),
        };
        let piece = text.get(..value_end).unwrap_or("");
        let call = &mut self.call;
        if !piece.is_empty() {
            call.value_empty = false;
            if call.value_is_string {
                escape_inner(piece, &mut call.data.args);
            } else {
                for c in piece.chars() {
                    call.value_norm.push(c, &mut call.data.args);
                }
            }
        }
        match consumed {
            Some(e) => {
                if call.value_is_string {
                    call.data.args.push('"');
                } else if !call.value_empty {
                    call.value_norm.flush(&mut call.data.args);
                } else {
                    call.data.args.push_str("null");
                }
                self.trail = t.value_suffix.trail.clone();
                self.state = State::Tool(ToolStep::ArgNext);
                Step::Adv(e)
            }
            None if value_end == 0 => Step::Wait,
            None => Step::Adv(value_end),
        }
    }

    /// A string value in the template's raw wrapper (`<![CDATA[…]]>`): its text is taken verbatim up
    /// to the wrapper's end. `None` when the value is not (or no longer) inside a wrapper.
    fn raw_value(&mut self, text: &str, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let (open, close) = (&t.raw_value.0, &t.raw_value.1);
        let call = &mut self.call;
        if open.is_empty() || close.is_empty() || !call.value_is_string || call.raw_wrap == 1 {
            return None;
        }
        if call.raw_wrap == 0 {
            if text.starts_with(open.as_str()) {
                call.raw_wrap = 2;
                return Some(Step::Adv(open.len()));
            }
            if !eof && open.starts_with(text) {
                return Some(Step::Wait);
            }
            call.raw_wrap = 1;
            return None;
        }
        let (n, consumed) = match text.find(close.as_str()) {
            Some(p) => (p, Some(p + close.len())),
            None => (text.len() - if eof { 0 } else { super::scan::held_back_len(text, &[close.as_str()]) }, None),
        };
        let piece = text.get(..n).unwrap_or("");
        if !piece.is_empty() {
            call.value_empty = false;
            escape_inner(piece, &mut call.data.args);
        }
        Some(match consumed {
            Some(e) => {
                call.raw_wrap = 1;
                Step::Adv(e)
            }
            None if n == 0 => Step::Wait,
            None => Step::Adv(n),
        })
    }

    /// End of input for a whole (non-partial) text: flush everything, error inside a call.
    fn finish_eof(&mut self, out: &mut Vec<Delta>) -> Result<()> {
        self.run(true, out);
        let rest = std::mem::take(&mut self.buf);
        let end_abs = self.base + rest.len();
        self.base = end_abs;
        match self.state {
            State::Reasoning => self.emit_reasoning(&rest, out),
            State::Tool(step) => {
                if let ToolStep::JsonObj = step {
                    let mut json = std::mem::take(&mut self.call.json);
                    json.finish(&mut self.call.data);
                    self.call.json = json;
                    if self.call.committed && self.call.data.args_complete {
                        // The arguments are whole, but what followed them in the object is cut off.
                        self.diags.push(Diagnostic { offset: self.call.start, message: "output ends inside a tool call object".into() });
                    }
                }
                let complete = self.call.data.args_complete;
                if !self.call.committed {
                    let raw = std::mem::take(&mut self.call.raw);
                    self.emit_content(&raw, out);
                    self.emit_content(&rest, out);
                    let in_call = !raw.trim_matches(is_space).is_empty() || !rest.trim_matches(is_space).is_empty();
                    if in_call && !matches!(step, ToolStep::Section | ToolStep::JsonAfter | ToolStep::JsonEnd) {
                        return Err(self.truncated(out));
                    }
                } else {
                    // A bare word still held by the value normalizer (`Tru`) is text too.
                    self.call.value_norm.flush(&mut self.call.data.args);
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
            _ => self.emit_content(&rest, out),
        }
        Ok(())
    }

    fn truncated(&mut self, _out: &mut [Delta]) -> Error {
        let offset = self.call.start;
        self.diags.push(Diagnostic { offset, message: "output ends inside a tool call".into() });
        Error::new(ErrorKind::Parse, "output ends inside a tool call").with_offset(offset)
    }
}

/// Outcome of matching a function name at the start of a text.
enum NameMatch {
    /// (tool index, bytes of the name)
    Found(usize, usize),
    NeedMore,
    No,
}

/// Match one of the configured tool names (longest wins) followed by the name suffix marker, or —
/// without a suffix — by anything that cannot continue a longer name.
fn match_name(text: &str, t: &ToolConfig, eof: bool) -> NameMatch {
    let mut best: Option<(usize, usize)> = None;
    let mut need = false;
    for (i, def) in t.tools.iter().enumerate() {
        let name = def.name.as_str();
        if name.is_empty() {
            continue;
        }
        if let Some(after) = text.strip_prefix(name) {
            // Literal calls (`f(…)`, `f{…}`): the name is followed by the arguments' opening.
            let follower = if t.name_suffix.is_empty() && t.literal { &t.args_start } else { &t.name_suffix };
            let ok = if let Some(head) = &t.counter_head {
                // Numbered header: the name is followed by `head` and a digit.
                match after.strip_prefix(head.as_str()) {
                    Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => true,
                    Some("") if !eof => {
                        need = true;
                        false
                    }
                    None if !eof && head.starts_with(after) => {
                        need = true;
                        false
                    }
                    _ => false,
                }
            } else if follower.is_empty() {
                if after.is_empty() && !eof {
                    need = true;
                }
                !after.is_empty() || eof
            } else {
                match follower.expect(after, eof) {
                    Expect::Matched(_) => true,
                    Expect::NeedMore => {
                        need = true;
                        false
                    }
                    Expect::No => false,
                }
            };
            if ok && best.is_none_or(|(_, l)| name.len() > l) {
                best = Some((i, name.len()));
            }
        } else if !eof && name.starts_with(text) {
            need = true;
        }
    }
    match best {
        _ if need && !eof => NameMatch::NeedMore,
        Some((i, n)) => NameMatch::Found(i, n),
        None => NameMatch::No,
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl OutputParser for AutoParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Delta>) {
        if self.failed.is_some() {
            return;
        }
        out.append(&mut self.pending);
        self.out_start = out.len();
        if self.plain_text(chunk, out) {
            return;
        }
        self.buf.push_str(chunk);
        self.run(false, out);
    }

    fn finish(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        out.append(&mut self.pending);
        self.out_start = out.len();
        if is_partial {
            // More may come: keep what could start a marker, report what is known.
            self.run(false, out);
            self.flush_call(out);
            return Ok(());
        }
        let r = self.finish_eof(out);
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }
}

/// The start of `text` up to the end of the first core of any of `markers` (all of `text` when none
/// occurs). A step that compares where several markers occur needs only the first one; searching each
/// marker through the whole text instead made a step cost the text's length whenever one of them was
/// absent, so whole-text parsing of a repeated marker was quadratic (issue #11 item 8). Leading
/// whitespace before a core lies inside the scope too.
fn search_scope<'t>(text: &'t str, markers: &[&Marker]) -> &'t str {
    let cores: Vec<&str> = markers.iter().map(|m| m.core.as_str()).filter(|c| !c.is_empty()).collect();
    match crate::parse::drive::next_marker(text, &cores) {
        Some((p, i)) => text.get(..p + cores.get(i).map_or(0, |c| c.len())).unwrap_or(text),
        None => text,
    }
}
