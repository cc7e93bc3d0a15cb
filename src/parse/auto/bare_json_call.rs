//! Marker-less JSON calls where the template HAS a marked tool format (issue #13):
//! - rule R28, a JSON call object (`{"name": …, "arguments": …}`), or a `[…]` array of them, at the
//!   start of a line, with none of the template's call markers (the model, or a decoder that skipped
//!   special tokens, left them out);
//! - rule R34, an output that is only a ```` ```json ```` fenced JSON call;
//! - rule R28 in rule R20's syntax: a `[…]` list of pythonic calls (`[get_weather(city="Paris")]`)
//!   alone on its line: the syntax dimension composed with the marker-less one. (A pythonic call
//!   without its list is not looked for: searching content for every tool's name cost 4-7x.)
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

use super::tool::{match_name, NameMatch, ToolStep};
use super::{AutoParser, State, Step};
use crate::api::Delta;
use crate::parse::config::{bare_call_configs, BareCallPlace, FallbackConfig, ToolConfig};
use crate::parse::json_extent::json_error;
use crate::parse::jsoncall::{CallData, CallFeed, JsonCall};
use crate::parse::pythonic_check::{starts_call, PyCheck, PythonicCall};
use crate::text::is_space;
use std::rc::Rc;

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

enum Verdict {
    NeedMore,
    Call,
    /// Not a call: the byte at this offset of the candidate shows it (`why`).
    Not(usize, &'static str),
}

impl Ahead {
    /// Feed the candidate's text from where the last call stopped.
    /// `pythonic`: the configuration also reads pythonic calls where a call object is due.
    fn check(&mut self, text: &str, t: &ToolConfig, place: BareCallPlace, pythonic: bool, eof: bool) -> Verdict {
        let from = self.fed;
        for (i, c) in text.get(from..).unwrap_or("").char_indices() {
            let at = from + i;
            self.fed = at + c.len_utf8();
            match self.phase {
                Phase::Open => match c {
                    _ if is_space(c) => {}
                    // At the output's start only the list-less pythonic call is looked for (R28 reads
                    // an object or a list at any line start).
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
                    PyCheck::Done if self.in_array => self.phase = Phase::After,
                    // After a call-prefix token the call needs no line of its own.
                    PyCheck::Done if place == BareCallPlace::AfterToken => return Verdict::Call,
                    PyCheck::Done => self.phase = Phase::LineEnd,
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
                        if !self.in_array && matches!(place, BareCallPlace::LineStart | BareCallPlace::AfterToken) {
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
                        if place == BareCallPlace::AfterToken {
                            return Verdict::Call;
                        }
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
            BareCallPlace::AfterToken => abs + s >= self.bare_from,
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
        let chosen;
        let f = if place == BareCallPlace::AfterToken {
            let rest = text.get(e..).unwrap_or("").trim_start_matches(is_space);
            if rest.is_empty() && !eof {
                return Step::Wait;
            }
            chosen = self.after_token_variant(f, rest.starts_with('['));
            &chosen
        } else {
            f
        };
        let Some(t) = f.cfg.tools.as_ref() else { return self.not_bare_call(place, text, (s, e), out) };
        let mut ahead = match self.ahead.take() {
            Some(a) if a.at == abs => a,
            _ => Ahead { at: abs, fed: if place == BareCallPlace::LineStart { 0 } else { e }, ..Ahead::default() },
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

    /// Of the two configurations of a call-prefix token, the one that reads a `[…]` list (`list`) or
    /// the one that reads a single call.
    fn after_token_variant(&self, f: &FallbackConfig, list: bool) -> FallbackConfig {
        let core = |g: &FallbackConfig| g.cfg.tools.as_ref().map(|t| t.trigger.core.clone());
        let wrapped = |g: &FallbackConfig| g.cfg.tools.as_ref().is_some_and(|t| t.json.array_wrapped);
        let found = self.fallback.iter().find(|g| g.bare == Some(BareCallPlace::AfterToken) && core(g) == core(f) && wrapped(g) == list);
        found.unwrap_or(f).clone()
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

/// The length of a special-token-shaped word at the start of `rest` (`<|python_tag|>`), 0 when there
/// is none; `None` when `rest` may still grow into one.
fn token_word(rest: &str, eof: bool) -> Option<usize> {
    const LONGEST: usize = 40;
    let Some(body) = rest.strip_prefix("<|") else {
        return Some(0).filter(|_| eof || !"<|".starts_with(rest) || rest.is_empty());
    };
    let word = body.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    match body.get(word..) {
        Some(after) if after.starts_with("|>") && word > 0 && word <= LONGEST => Some(2 + word + 2),
        Some(after) if !eof && word <= LONGEST && "|>".starts_with(after) => None,
        _ => Some(0),
    }
}

impl AutoParser {
    /// At the start of the content (rule R28 composed with R20's syntax, `BareCallPlace::OutputStart`):
    /// a pythonic call of a declared tool without its list, alone on its line, optionally after one
    /// special-token-shaped word the template does not write (`<|python_tag|>get_weather(…)`, read as
    /// part of the call: rule R11). Checked once, before anything else of the content; `None` lets the
    /// content step run as if there were no check (nothing was consumed).
    pub(super) fn output_start_call(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Option<Step> {
        if self.start_checked {
            return None;
        }
        if self.content_started || self.calls > 0 {
            self.start_checked = true;
            return None;
        }
        let rest = text.trim_start_matches(is_space);
        if rest.is_empty() {
            // Blanks first: what follows them decides (held, so that every chunking decides alike).
            return (!eof).then_some(Step::Wait);
        }
        let Some(token) = token_word(rest, eof) else { return Some(Step::Wait) };
        let known = token > 0 && self.is_template_marker(rest.get(..token).unwrap_or(""));
        let first = rest.get(token..).and_then(|r| r.chars().next());
        match first {
            None if !eof => return Some(Step::Wait),
            Some(c) if starts_call(c) && !known => {}
            _ => {
                self.start_checked = true;
                return None;
            }
        }
        // Most content starts with a word no tool's name begins with: said at its first letters,
        // before anything is built.
        match self.may_name_a_tool(rest.get(token..).unwrap_or(""), eof) {
            None => return Some(Step::Wait),
            Some(false) => {
                self.start_checked = true;
                return None;
            }
            Some(true) => {}
        }
        let lead = text.len() - rest.len();
        if lead > 0 {
            self.emit_content(text.get(..lead).unwrap_or(""), out);
            return Some(Step::Adv(lead));
        }
        if self.bare_unbuilt || self.fallback.is_empty() {
            self.bare_unbuilt = false;
            self.fallback = Rc::new(bare_call_configs(&self.base));
        }
        let Some(f) = self.fallback.iter().find(|g| g.bare == Some(BareCallPlace::OutputStart)).cloned() else {
            self.start_checked = true;
            return None;
        };
        let t = f.cfg.tools.as_ref()?;
        let named = f.cfg.pythonic.as_ref().and_then(|v| v.tools.as_ref()).map(|v| match_name(rest.get(token..).unwrap_or(""), v, eof));
        match named {
            Some(NameMatch::NeedMore) => return Some(Step::Wait),
            Some(NameMatch::Found(..)) => {}
            _ => {
                self.start_checked = true;
                return None;
            }
        }
        let mut ahead = match self.ahead.take() {
            Some(a) if a.at == abs => a,
            _ => Ahead { at: abs, fed: token, ..Ahead::default() },
        };
        match ahead.check(text, t, BareCallPlace::OutputStart, f.cfg.pythonic.is_some(), eof) {
            Verdict::NeedMore => {
                self.ahead = Some(ahead);
                Some(Step::Wait)
            }
            Verdict::Call => {
                self.start_checked = true;
                if token > 0 {
                    self.diag(abs, format!("token {:?} before a tool call read as part of the call (rule R11)", text.get(..token).unwrap_or("")));
                }
                self.cfg = Rc::clone(&f.cfg);
                self.begin_call(abs, text.get(..token).unwrap_or(""));
                self.in_array = false;
                self.section_open = false;
                self.state = State::Tool(ToolStep::JsonOpen);
                Some(Step::Adv(token))
            }
            Verdict::Not(..) => {
                self.start_checked = true;
                None
            }
        }
    }

    /// Whether `rest` starts with a declared tool's name followed by `(`; `None` while it may still.
    fn may_name_a_tool(&self, rest: &str, eof: bool) -> Option<bool> {
        let word = rest.find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))).unwrap_or(rest.len());
        let (w, after) = rest.split_at(word);
        let names = self.base.tools.iter().flat_map(|t| &t.tools).map(|d| d.name.as_str());
        let mut open = false;
        for name in names {
            if name == w && after.starts_with('(') {
                return Some(true);
            }
            open |= after.is_empty() && name.starts_with(w);
        }
        if open && !eof { None } else { Some(false) }
    }

    /// Whether `word` is one of the markers the configuration reads in content.
    fn is_template_marker(&self, word: &str) -> bool {
        let cfg = &self.base;
        let tools = cfg.tools.iter().flat_map(|t| [&t.trigger, &t.call_trigger, &t.wrapper_trigger, &t.section_start, &t.per_call_start]);
        let text = cfg.reasoning.iter().chain(cfg.content_wrap.iter()).flat_map(|(s, e)| [s, e]);
        // A call-prefix token is not among them: it is what may stand before a call (rule R11).
        tools.chain(text).chain(cfg.dropped_in_content()).any(|m| m.core.trim() == word)
    }
}
