//! Marker-less JSON calls where the template HAS a marked tool format (issue #13):
//! - rule R28, a JSON call object (`{"name": …, "arguments": …}`), or a `[…]` array of them, at the
//!   start of a line, with none of the template's call markers (the model, or a decoder that skipped
//!   special tokens, left them out);
//! - rule R34, an output that is only a ```` ```json ```` fenced JSON call;
//! - rule R28 in rule R20's syntax: a `[…]` list of pythonic calls (`[get_weather(city="Paris")]`)
//!   alone on its line: the syntax dimension composed with the marker-less one. (A pythonic call
//!   without its list is looked for only where the content starts, `output_start_call.rs`:
//!   searching all content for every tool's name cost 4-7x.)
//!
//! Ordinary text holds JSON too, so such a candidate is read as a call only once all of it is seen
//! to be one: every object a call naming a declared tool, with valid JSON arguments and no member a
//! call does not have (its value would be dropped) (the fenced one
//! closed and followed by nothing but blanks up to the end of the output). Until then it is held; a
//! candidate that is not a call gives back only its first byte, and the content step reads the rest
//! as it always does, so nothing of it needs re-reading and every chunking decides alike (the
//! verdict is a function of the text from the candidate on). A validated candidate is read by the
//! ordinary JSON call states, which cannot fail on it. The scan is incremental (`Ahead` resumes
//! where it stopped), and no candidate starts inside a rejected one, so the cost stays O(n).
//!
//! Configuration half (below the imports): where such a call may stand ([`BareCallPlace`]) and the
//! configurations that read it, derived from the parser's own ([`bare_call_configs`]).

use super::tool::ToolStep;
use super::{AutoParser, State, Step};
use crate::api::Delta;
use crate::findings::{CallIdPosition, ToolFormat};
use crate::parse::auto::call_syntax;
use crate::parse::config::{FallbackConfig, JsonLayout, ParserConfig, ToolConfig};
use crate::parse::marker::Marker;
use crate::parse::json_extent::json_error;
use crate::parse::jsoncall::{CallData, CallFeed, JsonCall};
use crate::parse::pythonic_check::{starts_call, PyCheck, PythonicCall};
use crate::text::is_space;
use std::rc::Rc;

/// Where a marker-less call stands in the output of a template that HAS a marked tool format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BareCallPlace {
    /// A JSON call object, or a `[…]` array of them, at the start of a line (rule R28).
    LineStart,
    /// A ```` ```json ```` fenced JSON call that is the whole output (rule R34).
    WholeOutputFence,
    /// A pythonic call without its list where the content starts (after reasoning), alone on its
    /// line, after one special-token-shaped word the template does not write as a marker
    /// (`<|python_tag|>get_weather(city="Paris")`; rules R28 and R20, R11 for the word). It has no
    /// trigger: the content step checks there once (`parse::auto::output_start_call`).
    OutputStart,
}

/// Rule R28: a bare JSON call (or array of calls) with none of the template's call markers.
pub const BARE_CALL_NOTE: &str = "a tool call with none of the template's call markers, naming a declared tool: read as a call (rule R28)";
/// Rule R34: an output that is only a fenced JSON call.
pub const FENCED_CALL_NOTE: &str = "an output that is only a ```json fenced JSON tool call naming a declared tool: read as a call (rule R34)";

/// Whether `base` reads marker-less calls (rules R28, R34): its request has tools and its template a
/// tool format whose own calls are not bare JSON (that format reads those already).
pub fn bare_calls_apply(base: &ParserConfig) -> bool {
    base.tools.as_ref().is_some_and(|t| !t.trigger_is_body && !t.tools.is_empty())
}

/// The first bytes of the marker-less calls' triggers and of a code fence (`{`, `[`, `` ` ``).
pub const BARE_CALL_FIRST_BYTES: [u8; 3] = [b'{', b'[', b'`'];

/// The marker-less calls of a template that has a marked tool format (rules R28, R34): a JSON call
/// object, a `[…]` array of them, and a ```` ```json ```` fence, each in the template's own call
/// object where it writes JSON calls, else `{"name", "arguments", "id"}`. Each is `base` with those
/// tools (its tool definitions kept), derived from it rather than anew since every request with tools
/// pays for it (the parser builds them only once content holds one of their first bytes); only
/// declared names make them calls. None without [`bare_calls_apply`].
pub fn bare_call_configs(base: &ParserConfig) -> Vec<FallbackConfig> {
    if !bare_calls_apply(base) {
        return Vec::new();
    }
    [("", "", false, BareCallPlace::LineStart), ("", "", true, BareCallPlace::LineStart), ("```json", "```", false, BareCallPlace::WholeOutputFence)]
        .into_iter()
        .filter_map(|(open, close, array, place)| bare_variant(base, open, close, array, place))
        .collect()
}

/// One marker-less call configuration of `base`: `open`/`close` around the call (a fence), or
/// none; an array of calls or one; read at `place`.
pub(super) fn bare_variant(base: &ParserConfig, open: &str, close: &str, array: bool, place: BareCallPlace) -> Option<FallbackConfig> {
    let own = base.tools.as_ref().filter(|t| !t.tools.is_empty())?;
    let mut json = if own.format == ToolFormat::JsonNative {
        own.json.clone()
    } else {
        JsonLayout { name_key: "name".into(), args_key: "arguments".into(), nested: false, nest_key: "function".into(), id_keys: Vec::new(), fun_name_is_key: false, args_direct: false, array_wrapped: false }
    };
    if json.id_keys.is_empty() {
        json.id_keys.push("id".into());
    }
    let blank = Marker::default;
    let body = open.is_empty();
    // A pythonic list (rule R20's syntax) starts as the array does, with `[`; a pythonic call without
    // its list has no trigger (searching content for every tool's name made parsing 4-7x slower):
    // it is looked for only where the content starts, by the content step itself.
    let trigger = Marker::new(if place == BareCallPlace::OutputStart {
        ""
    } else if !body {
        open
    } else if array {
        "["
    } else {
        "{"
    });
    let t = ToolConfig {
        format: ToolFormat::JsonNative,
        section_start: blank(),
        section_end: blank(),
        per_call_start: Marker::new(open),
        per_call_end: Marker::new(close),
        name_prefix: blank(),
        name_suffix: blank(),
        close: blank(),
        args_start: blank(),
        args_end: blank(),
        arg_name_prefix: blank(),
        arg_name_suffix: blank(),
        value_prefix: blank(),
        typed_value_prefix: blank(),
        raw_value: (String::new(), String::new()),
        value_suffix: blank(),
        arg_separator: blank(),
        literal: false,
        string_delim: String::new(),
        id_pos: CallIdPosition::None,
        id_prefix: blank(),
        id_suffix: blank(),
        json: JsonLayout { array_wrapped: array, ..json.clone() },
        tools: own.tools.clone(),
        trigger,
        trigger_is_body: body,
        call_trigger: blank(),
        wrapper_trigger: blank(),
        marked_call_separator: blank(),
        counter_head: None,
        undeclared: false,
    };
    let note = if place == BareCallPlace::WholeOutputFence { FENCED_CALL_NOTE } else { BARE_CALL_NOTE };
    let mut cfg = ParserConfig {
        tools: Some(t),
        bare_note: Some(note),
        fallback_rule: None,
        dialect_note: None,
        pythonic: None,
        call_prefixes: Vec::new(),
        unwritten_closer: blank(),
        ..base.clone()
    };
    if place != BareCallPlace::WholeOutputFence {
        // The syntax dimension composes with this one: pythonic calls where an object is due (R20).
        cfg.pythonic = call_syntax::pythonic_variant(&cfg).map(Rc::new);
    }
    Some(FallbackConfig { cfg: Rc::new(cfg), line_start: place == BareCallPlace::LineStart, bare: Some(place) })
}

/// The closing fence of a fenced call.
const FENCE: &str = "```";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// Before a call object (or the array's `[`).
    #[default]
    Open,
    Object,
    /// A pythonic call (rule R20's syntax, where the configuration reads one).
    Pythonic,
    /// After a pythonic call or list: only blanks up to the end of the line (or of the output).
    LineEnd,
    /// After a call object: `,` or `]` in an array, the closing fence, or the end.
    After,
    /// Backticks of the closing fence read so far.
    Fence(usize),
    /// After the closing fence: only blanks up to the end of the output.
    Trailing,
}

/// The incremental check of one candidate.
#[derive(Debug, Clone, Default)]
pub(super) struct Ahead {
    /// Absolute offset of the candidate's first byte.
    at: usize,
    /// Bytes of the candidate checked so far.
    fed: usize,
    phase: Phase,
    in_array: bool,
    /// Call objects begun.
    objects: usize,
    json: JsonCall,
    data: CallData,
    /// A pythonic call was begun (the candidate must then end its line).
    pythonic: bool,
    call: PythonicCall,
}

pub(super) enum Verdict {
    NeedMore,
    Call,
    /// Not a call: the byte at this offset of the candidate shows it (`why`).
    Not(usize, &'static str),
}

impl Ahead {
    /// A candidate at absolute offset `at`, checked from its byte `fed` on (what comes before is its
    /// trigger).
    pub(super) fn new(at: usize, fed: usize) -> Ahead {
        Ahead { at, fed, ..Ahead::default() }
    }

    /// Where the candidate starts (absolute).
    pub(super) fn at(&self) -> usize {
        self.at
    }

    /// Feed the candidate's text from where the last call stopped.
    /// `pythonic`: the configuration also reads pythonic calls where a call object is due.
    pub(super) fn check(&mut self, text: &str, t: &ToolConfig, place: BareCallPlace, pythonic: bool, eof: bool) -> Verdict {
        let from = self.fed;
        for (i, c) in text.get(from..).unwrap_or("").char_indices() {
            let at = from + i;
            self.fed = at + c.len_utf8();
            match self.phase {
                Phase::Open => match c {
                    _ if is_space(c) => {}
                    // Where the content starts only a pythonic call without its list is looked for
                    // (an object or a list is R28's at any line start).
                    '[' | '{' if place == BareCallPlace::OutputStart => return Verdict::Not(at, "no pythonic call"),
                    '[' if !self.in_array && self.objects == 0 => self.in_array = true,
                    '{' => {
                        self.objects += 1;
                        self.json = JsonCall::default();
                        self.data = CallData::default();
                        self.phase = Phase::Object;
                        if let CallFeed::Invalid(why) = self.json.feed(c, t, &mut self.data) {
                            return Verdict::Not(at, why);
                        }
                    }
                    _ if pythonic && starts_call(c) => {
                        self.objects += 1;
                        self.pythonic = true;
                        self.call = PythonicCall::default();
                        self.phase = Phase::Pythonic;
                        if let PyCheck::Not(why) = self.call.feed(c, t) {
                            return Verdict::Not(at, why);
                        }
                    }
                    _ => return Verdict::Not(at, "no call object"),
                },
                Phase::Pythonic => match self.call.feed(c, t) {
                    PyCheck::More => {}
                    PyCheck::Not(why) => return Verdict::Not(at, why),
                    PyCheck::Done => self.phase = if self.in_array { Phase::After } else { Phase::LineEnd },
                },
                Phase::LineEnd => match c {
                    '\n' => return Verdict::Call,
                    _ if is_space(c) => {}
                    _ => return Verdict::Not(at, "text after the pythonic call on its line"),
                },
                Phase::Object => match self.json.feed(c, t, &mut self.data) {
                    CallFeed::More => {}
                    CallFeed::Invalid(why) => return Verdict::Not(at, why),
                    CallFeed::Done => {
                        if self.data.args_seen && json_error(&self.data.args).is_some() {
                            return Verdict::Not(at, "arguments not valid JSON");
                        }
                        // Read without markers, a call must hold nothing it would drop.
                        if self.json.unknown_key().is_some() {
                            return Verdict::Not(at, "a member no call object has");
                        }
                        if !self.in_array && place == BareCallPlace::LineStart {
                            return Verdict::Call;
                        }
                        self.phase = Phase::After;
                    }
                },
                Phase::After => match c {
                    _ if is_space(c) => {}
                    ',' if self.in_array => self.phase = Phase::Open,
                    ']' if self.in_array => {
                        self.in_array = false;
                        if self.pythonic {
                            self.phase = Phase::LineEnd;
                            continue;
                        }
                        if place == BareCallPlace::LineStart {
                            return Verdict::Call;
                        }
                        self.phase = Phase::Fence(0);
                    }
                    '`' if !self.in_array => self.phase = Phase::Fence(1),
                    _ => return Verdict::Not(at, "not a call list"),
                },
                Phase::Fence(n) => match c {
                    _ if n == 0 && is_space(c) => {}
                    '`' if n < FENCE.len() => self.phase = if n + 1 == FENCE.len() { Phase::Trailing } else { Phase::Fence(n + 1) },
                    _ => return Verdict::Not(at, "no closing fence"),
                },
                Phase::Trailing if is_space(c) => {}
                Phase::Trailing => return Verdict::Not(at, "text after the fenced call"),
            }
        }
        match (eof, self.phase) {
            (false, _) => Verdict::NeedMore,
            (true, Phase::Trailing | Phase::LineEnd) => Verdict::Call,
            (true, _) => Verdict::Not(text.len(), "cut off"),
        }
    }
}

impl AutoParser {
    /// A candidate of `f` (a marker-less call, rules R28 / R34) whose trigger is at `s..e` of `text`,
    /// the first marker of the content step. Held until it is known to be a call (then read as one)
    /// or not (then text, as if there were no candidate).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bare_candidate(&mut self, f: &FallbackConfig, place: BareCallPlace, text: &str, (s, e): (usize, usize), abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let before = text.get(..s).unwrap_or("");
        let here = match place {
            BareCallPlace::LineStart => self.line_start_after(before) && abs + s >= self.bare_from,
            BareCallPlace::WholeOutputFence => !self.content_started && self.calls == 0 && before.chars().all(is_space),
            // Never a trigger's place: `output_start_call` checks there.
            BareCallPlace::OutputStart => false,
        };
        if !here {
            return self.not_bare_call(place, text, (s, e), out);
        }
        if s > 0 {
            // The candidate is checked from the start of a step's text.
            self.emit_content(before, out);
            return Step::Adv(s);
        }
        let Some(t) = f.cfg.tools.as_ref() else { return self.not_bare_call(place, text, (s, e), out) };
        let mut ahead = match self.ahead.take() {
            Some(a) if a.at == abs => a,
            _ => Ahead::new(abs, if place == BareCallPlace::WholeOutputFence { e } else { 0 }),
        };
        match ahead.check(text, t, place, f.cfg.pythonic.is_some(), eof) {
            Verdict::NeedMore => {
                self.ahead = Some(ahead);
                Step::Wait
            }
            Verdict::Call => {
                self.cfg = Rc::clone(&f.cfg);
                let body = t.trigger_is_body;
                self.enter_call(text, abs, (s, e), body, true, out)
            }
            Verdict::Not(at, why) => {
                // No candidate starts inside it again (the scan would repeat); its text is read as
                // content from its second byte on, markers and all.
                self.bare_from = abs + at;
                if why == "call of an unknown function" {
                    let message = "a JSON tool call with none of the template's call markers names a tool the request did not declare: kept as content (rule R28)";
                    self.diag(abs, message);
                }
                self.not_bare_call(place, text, (s, e), out)
            }
        }
    }

    /// The trigger at `s..e` starts no call: text (a fence's opener also opens a code block).
    fn not_bare_call(&mut self, place: BareCallPlace, text: &str, (s, e): (usize, usize), out: &mut Vec<Delta>) -> Step {
        if place == BareCallPlace::WholeOutputFence && self.line_start_after(text.get(..s).unwrap_or("")) {
            self.in_code = !self.in_code;
        } else if place == BareCallPlace::LineStart {
            // Only the bracket: what follows may still hold a marker of the template.
            let first = text.get(s..).and_then(|r| r.chars().next()).map_or(1, char::len_utf8);
            let end = (s + first).min(text.len());
            self.emit_content(text.get(..end).unwrap_or(""), out);
            return Step::Adv(end);
        }
        self.emit_content(text.get(..e).unwrap_or(""), out);
        Step::Adv(e)
    }

    /// After a validated marker-less call object (`JsonAfter`): the call ends there. Another object
    /// after it is a candidate of its own, checked as the first was. `None` lets the canonical step
    /// run (inside a checked array).
    pub(super) fn bare_call_after(&mut self) -> Option<Step> {
        if self.cfg.bare_note.is_none() || self.in_array {
            return None;
        }
        self.state = State::Tool(ToolStep::JsonEnd);
        Some(Step::Adv(0))
    }
}
