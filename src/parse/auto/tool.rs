//! The tool-call states of the auto parser: a call section, the call's markers, name and id, and its
//! arguments in the analysed layout (JSON, tagged, literal, or a JSON-native call object).

use super::{AutoParser, Scope, State, Step};
use crate::findings::{CallIdPosition, ToolFormat};
use super::arg_value::RawWrap;
use crate::parse::json::{escape_inner, Feed, JsonValue};
use crate::parse::config::{is_tool_name_char, ToolConfig, MAX_TOOL_NAME};
use crate::parse::jsoncall::{CallData, CallFeed, JsonCall};
use crate::parse::marker::{Expect, Marker};
use crate::text::is_space;
use std::rc::Rc;

/// Longest name / id / argument name read before giving up on a marker.
pub(super) const MAX_NAME: usize = 512;

/// Go to call state `s` having consumed `n` bytes.
pub(super) fn goto(p: &mut AutoParser, s: ToolStep, n: usize) -> Step {
    p.state = State::Tool(s);
    Step::Adv(n)
}

/// Whether a name, id or argument name that is still open can no longer end within `MAX_NAME`
/// bytes: a closing marker (up to `marker` bytes with its lead) starting by then would already be
/// in `text`. The limit is decided on the text position, never on how much happens to be buffered,
/// so every chunking (and the whole text) takes the same decision.
pub(super) fn past_name_limit(text: &str, marker: usize) -> bool {
    text.len() > MAX_NAME + marker
}

/// The start of `text` in which a name, id or argument name within `MAX_NAME` and its closing marker
/// (up to `marker` bytes) can lie: searching further decides nothing more, and a call that fails
/// would otherwise search the rest of the output again each time.
pub(super) fn name_window(text: &str, marker: usize) -> &str {
    text.get(..super::floor_boundary(text, MAX_NAME + marker + 4)).unwrap_or(text)
}

/// The longest `lead + core` among `markers`.
pub(super) fn longest(markers: &[&Marker]) -> usize {
    markers.iter().map(|m| m.lead.len() + m.core.len()).max().unwrap_or(0)
}

/// A departure from the call layout, tried at a call state before the template's own reading of it
/// (README "Leniency"; each names its rule in the diagnostic it adds when taken).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Departure {
    /// An array where one call object is due, or the reverse (R16, R21; `json_departures.rs`).
    ArrayForObject,
    /// A pythonic call where a JSON call object is due (R20; `call_syntax.rs`).
    PythonicForJson,
    /// A marker-less call ends after its object (R28; `bare_json_call.rs`).
    BareCallEnd,
    /// After a call object: `;`, a JSON call in a pythonic section, … (R8, R16; `json_departures.rs`).
    AfterJsonCall,
    /// A JSON call object where a pythonic call is due (R18; `json_departures.rs`).
    JsonForPythonic,
    /// A JSON call object right after a tagged call's opener (R23; `json_in_tagged.rs`).
    JsonCallInTagged,
    /// A JSON object where a tagged call's first argument is due (R26; `json_in_tagged.rs`).
    JsonArgsInTagged,
    /// `key=value` pairs after a tagged call's name (R24; `key_value_args.rs`).
    KeyValueArgs,
    /// Calls of a section separated by `;` (R16; `json_departures.rs`).
    SemicolonBetweenCalls,
    /// Another literal call in the same call block (R16; `tool.rs`).
    LiteralCallAfter,
}

/// The departures tried at each call state, in order: the one table of their priority. A state's
/// own reading comes after them; what a state reads when its own marker is absent (R31 a call without
/// its opener, R35 a name without its decoration) is tried there, after the canonical reading fails.
pub fn departures_at(step: ToolStep) -> &'static [Departure] {
    use Departure::*;
    match step {
        ToolStep::JsonOpen => &[ArrayForObject, PythonicForJson],
        ToolStep::JsonObj => &[PythonicForJson],
        ToolStep::JsonAfter => &[BareCallEnd, AfterJsonCall],
        ToolStep::Name => &[JsonForPythonic, JsonCallInTagged],
        ToolStep::NamePrefix => &[JsonCallInTagged],
        ToolStep::ArgNext => &[JsonArgsInTagged, KeyValueArgs],
        ToolStep::Section => &[SemicolonBetweenCalls],
        ToolStep::AfterArgs(k) if k != Closing::ArgsEnd => &[LiteralCallAfter],
        _ => &[],
    }
}

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStep {
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
    /// Closing markers after the arguments.
    AfterArgs(Closing),
    /// JSON_NATIVE: optional `[` then a call object.
    JsonOpen,
    JsonObj,
    JsonAfter,
    JsonEnd,
    /// A call or section end marker was just read: the same marker written again is dropped (rule R10).
    RepeatedClose(Closer),
}

/// Which end marker [`ToolStep::RepeatedClose`] looks for again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closer {
    /// The per-call end marker: then the call's closing is done.
    Call,
    /// The section end marker: then content follows.
    Section,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdAt {
    Pre,
    Mid,
    Post,
}

/// The closing markers after a call's arguments, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    ArgsEnd,
    /// A call id after the arguments.
    Id,
    FunctionClose,
    CallEnd,
    /// All closed: back to the section or to content.
    Done,
}

impl Closing {
    pub(super) fn next(self) -> Closing {
        match self {
            Closing::ArgsEnd => Closing::Id,
            Closing::Id => Closing::FunctionClose,
            Closing::FunctionClose => Closing::CallEnd,
            Closing::CallEnd | Closing::Done => Closing::Done,
        }
    }
}

/// The tool call being parsed.
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub data: CallData,
    /// The call's reader when it is written as JSON (a call object, or JSON arguments).
    pub json: super::json_read::JsonRead,
    /// The reader of the argument value being read (tagged and literal calls).
    pub value: super::arg_value::ArgValue,
    /// Input offset of the call's first byte (diagnostics and errors report it in the output).
    pub start: usize,
    /// Header (name) emitted: the call can no longer be rolled back.
    pub committed: bool,
    /// The header may be emitted (tag formats wait until the call id is known).
    pub header_ready: bool,
    pub index: usize,
    pub id_sent: bool,
    /// Text consumed since the call began, while uncommitted (rolled back into content on failure).
    pub raw: String,
    pub arg_count: usize,
    /// The numbered header's counter was read (see `ToolConfig::counter_head`).
    pub counted: bool,
    /// The call's first byte was looked at for the other call syntax (rule R20).
    pub body_checked: bool,
    /// The configuration to go back to once a call read in the other syntax ends (rule R20).
    pub swapped_from: Option<Rc<crate::parse::config::ParserConfig>>,
}

impl AutoParser {
    /// One step of a call: the departures the table tries at `step` ([`departures_at`]), in order,
    /// then the template's own state.
    pub(super) fn step_tool(&mut self, step: ToolStep, text: &str, abs: usize, eof: bool) -> Step {
        if step == ToolStep::JsonObj {
            self.call.json.is_object = true;
        }
        for &d in departures_at(step) {
            if let Some(taken) = self.try_departure(d, step, text, abs, eof) {
                return taken;
            }
        }
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        match step {
            ToolStep::Section => self.step_section(text, abs, eof),
            ToolStep::CallOpen => self.step_call_open(text, abs, eof),
            ToolStep::NamePrefix => self.step_name_prefix(text, abs, eof),
            ToolStep::Name => self.step_name(text, abs, eof),
            ToolStep::NameSuffix => self.step_name_suffix(text, abs, eof),
            ToolStep::IdOpen(at) => match t.id_prefix.expect(text, eof) {
                Expect::Matched(n) => goto(self, ToolStep::IdValue(at), n),
                Expect::NeedMore => Step::Wait,
                Expect::No => goto(self, ToolStep::IdClose(at), 0),
            },
            ToolStep::IdValue(at) => self.step_id_value(at, text, abs, eof),
            ToolStep::IdClose(at) => self.step_id_close(at, text, abs, eof),
            ToolStep::ArgsOpen => self.step_args_open(text, abs, eof),
            ToolStep::JsonArgs => {
                let mut value = std::mem::take(&mut self.call.json.value);
                let r = self.json_args(&mut value, text, eof);
                self.call.json.value = value;
                r
            }
            ToolStep::ArgNext => self.step_arg_next(text, abs, eof),
            ToolStep::ArgName => self.step_arg_name(text, abs, eof),
            ToolStep::ValuePrefix => match t.value_prefix.expect(text, eof) {
                Expect::Matched(n) => {
                    self.trail = t.value_prefix.trail.clone();
                    goto(self, ToolStep::Value, n)
                }
                Expect::NeedMore => Step::Wait,
                Expect::No => goto(self, ToolStep::Value, 0),
            },
            ToolStep::Value if t.literal => self.literal_value(text, abs, eof),
            ToolStep::Value => self.tagged_value(text, abs, eof),
            ToolStep::AfterArgs(k) => self.step_after_args(k, text, abs, eof),
            ToolStep::JsonOpen => self.step_json_open(text, abs, eof),
            ToolStep::JsonObj => {
                let mut json = std::mem::take(&mut self.call.json.object);
                let r = self.json_object(&mut json, text, eof);
                self.call.json.object = json;
                r
            }
            ToolStep::JsonAfter => self.step_json_after(text, abs, eof),
            ToolStep::RepeatedClose(closer) => self.step_repeated_close(closer, text, abs, eof),
            ToolStep::JsonEnd => self.step_json_end(text, abs, eof),
        }
    }

    /// Try departure `d` at `step`: `None` when the text does not take it.
    fn try_departure(&mut self, d: Departure, step: ToolStep, text: &str, abs: usize, eof: bool) -> Option<Step> {
        match d {
            Departure::ArrayForObject => self.json_open_departure(text, abs),
            Departure::PythonicForJson => self.pythonic_in_json(text, abs, eof),
            Departure::BareCallEnd => self.bare_call_after(),
            Departure::AfterJsonCall => self.json_after_departure(text, abs, eof),
            Departure::JsonForPythonic => self.json_in_pythonic_departure(text, abs),
            Departure::JsonCallInTagged => self.json_call_in_tagged(step, text, abs, eof),
            Departure::JsonArgsInTagged => self.json_body_in_tagged(text, abs, eof),
            Departure::KeyValueArgs => self.key_value_args(text, abs, eof),
            Departure::SemicolonBetweenCalls => self.section_separator_departure(text, abs),
            Departure::LiteralCallAfter => self.literal_call_after_departure(text, abs, eof),
        }
    }

    /// A call state without tool configuration (a defect): back to content.
    pub(super) fn no_tools(&mut self) -> Step {
        self.state = State::Content;
        Step::Adv(0)
    }

    /// The text read since the section opened, when no call of it was emitted yet: it belongs to the
    /// first call, so a rollback of that call gives it back to content (`[` of `[unknown(x=1)]`).
    pub(super) fn section_raw(&mut self) -> String {
        if self.call.committed { String::new() } else { std::mem::take(&mut self.call.raw) }
    }

    /// After a literal call's arguments, where its end marker is due: the name marker and a
    /// declared name start another call in the same block (`call:f{…}call:g{…}`, rule R16).
    /// `None` lets the canonical step run.
    fn literal_call_after_departure(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        if !t.literal || t.name_prefix.is_empty() || !self.call.committed || !self.call.data.args_complete {
            return None;
        }
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        let n = match t.name_prefix.expect(rest, eof) {
            Expect::Matched(n) => n,
            Expect::NeedMore => return Some(Step::Wait),
            Expect::No => return None,
        };
        match match_name(rest.get(n..).unwrap_or(""), t, eof) {
            NameMatch::Found(..) => {}
            NameMatch::NeedMore => return Some(Step::Wait),
            // A departure of the layout is read for declared names only (not rule R22).
            NameMatch::No | NameMatch::Undeclared(_) => return None,
        }
        self.diag(abs + skip, "another tool call in the same call block (rule R16)");
        self.begin_call(abs + skip, "");
        self.state = State::Tool(ToolStep::Name);
        Some(Step::Adv(skip + n))
    }

    /// The call's closing markers are done: back to the section or to content.
    pub(super) fn end_call(&mut self) -> Step {
        if let Some(step) = self.end_swapped_call() {
            return step;
        }
        let in_section = self.section_open && self.tools().is_some_and(|t| !t.section_start.is_empty() && t.format != ToolFormat::JsonNative);
        self.state = if in_section { State::Tool(ToolStep::Section) } else { State::Content };
        self.after_block = !in_section;
        Step::Adv(0)
    }

    fn json_args(&mut self, value: &mut JsonValue, text: &str, eof: bool) -> Step {
        for (i, c) in text.char_indices() {
            match value.feed(c, &mut self.call.data.args) {
                Feed::More => self.call.data.args_seen = true,
                Feed::Done => return self.json_args_done(value.rewrote_python(), i + c.len_utf8()),
                Feed::EndedBefore => return self.json_args_done(value.rewrote_python(), i),
                Feed::Invalid => return Step::Fail("invalid JSON arguments", i),
            }
        }
        if eof && value.complete_at_eof() {
            value.finish(&mut self.call.data.args);
            return match self.json_args_done(value.rewrote_python(), text.len()) {
                Step::Adv(_) => Step::Adv(text.len()),
                fail => fail,
            };
        }
        if text.is_empty() { Step::Wait } else { Step::Adv(text.len()) }
    }

    /// The JSON arguments value ended after `n` bytes of this step's text: whole if valid.
    fn json_args_done(&mut self, python: bool, n: usize) -> Step {
        if let Some(fail) = self.check_json_args(n) {
            return fail;
        }
        self.python_syntax_departure(python);
        self.call.data.args_complete = true;
        self.state = State::Tool(ToolStep::AfterArgs(Closing::ArgsEnd));
        Step::Adv(n)
    }

    fn json_object(&mut self, json: &mut JsonCall, text: &str, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return Step::Fail("no tools", 0) };
        for (i, c) in text.char_indices() {
            match json.feed(c, t, &mut self.call.data) {
                CallFeed::More => {
                    // The arguments value just ended: checked before the call can go out.
                    if self.call.data.args_complete && !self.call.json.args_validated {
                        if let Some(fail) = self.check_json_args(i + c.len_utf8()) {
                            return fail;
                        }
                        // Stop here so the call goes out at this point whatever the chunking.
                        if self.call.header_ready {
                            return Step::Adv(i + c.len_utf8());
                        }
                    }
                    if self.call.data.tool.is_some() && !self.call.header_ready {
                        // The name is known: stop here so the header goes out before more arguments.
                        self.call.header_ready = true;
                        return Step::Adv(i + c.len_utf8());
                    }
                }
                CallFeed::Done => {
                    self.python_syntax_departure(json.python());
                    for l in json.leniencies() {
                        self.diags.add(self.call.start, format!("tool call object: {l}"));
                    }
                    if let Some(key) = json.unknown_key() {
                        // Its value was skipped: say so, the model wrote it.
                        let message = format!("tool call member {:?} not understood; its value is ignored", key);
                        self.diags.add(self.call.start, message);
                    }
                    if !self.call.data.args_seen {
                        self.call.data.args.push_str("{}");
                    }
                    if let Some(fail) = self.check_json_args(i + c.len_utf8()) {
                        return fail;
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
    fn literal_value(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let delim = cfg.tools.as_ref().map_or("", |t| t.string_delim.as_str());
        for (i, c) in text.char_indices() {
            let call = &mut self.call;
            let (whole, used) = match call.value.feed_literal(c, delim, &mut call.data.args) {
                Feed::More => continue,
                Feed::Done => (true, i + c.len_utf8()),
                Feed::EndedBefore => {
                    call.value.scalar.unread_last();
                    (true, i)
                }
                Feed::Invalid => (false, i),
            };
            if let Some(note) = call.value.scalar.release(&mut call.data.args, whole) {
                self.diag(abs + i, note);
            }
            if !whole {
                return Step::Fail("invalid literal argument value", i);
            }
            self.state = State::Tool(ToolStep::ArgNext);
            return Step::Adv(used);
        }
        let call = &mut self.call;
        if eof {
            let whole = call.value.finish_literal(&mut call.data.args);
            if whole {
                self.state = State::Tool(ToolStep::ArgNext);
            }
            // Cut off inside a held value: what was read goes out as written (the exit closes it).
            if let Some(note) = call.value.scalar.release(&mut call.data.args, whole) {
                self.diag(abs + text.len(), note);
            }
        }
        if text.is_empty() { Step::Wait } else { Step::Adv(text.len()) }
    }

    fn tagged_value(&mut self, text: &str, abs: usize, eof: bool) -> Step {
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
            let scope = Scope::new(text, &ends);
            let found = ends.iter().filter_map(|m| scope.find(m)).map(|(s, _)| (s, s)).min();
            (found, if eof { 0 } else { ends.iter().map(|m| m.holdback(text)).max().unwrap_or(0) })
        };
        let (value_end, consumed) = match found {
            Some((s, e)) => (s, Some(e)),
            None => (text.len() - keep, None),
        };
        let piece = text.get(..value_end).unwrap_or("");
        if self.call.value.sniff != super::untyped_value::Sniff::Off {
            let trail = t.value_suffix.trail.clone();
            return self.untyped_value(piece, abs, consumed, &trail);
        }
        let call = &mut self.call;
        call.value.push_piece(piece, abs, &mut call.data.args);
        match consumed {
            Some(e) => {
                if call.value.is_string {
                    call.data.args.push('"');
                } else if !call.value.empty {
                    let trail = t.value_suffix.trail.clone();
                    self.finish_typed_value();
                    self.trail = trail;
                    self.state = State::Tool(ToolStep::ArgNext);
                    return Step::Adv(e);
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

    /// Write the held typed value (`ArgValue::finish_typed`), with its diagnostic when kept as a string.
    pub(super) fn finish_typed_value(&mut self) {
        let call = &mut self.call;
        if let Some(at) = call.value.finish_typed(&mut call.data.args) {
            self.diag(at, "typed argument value is not valid JSON; kept as a string (rule R14)");
        }
    }

    /// A string value in the template's raw wrapper (`<![CDATA[…]]>`): its text is taken verbatim up
    /// to the wrapper's end. `None` when the value is not (or no longer) inside a wrapper.
    fn raw_value(&mut self, text: &str, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let (open, close) = (&t.raw_value.0, &t.raw_value.1);
        let call = &mut self.call;
        if open.is_empty() || close.is_empty() || !call.value.is_string || call.value.raw_wrap == RawWrap::Outside {
            return None;
        }
        if call.value.raw_wrap == RawWrap::Unchecked {
            if text.starts_with(open.as_str()) {
                call.value.raw_wrap = RawWrap::Inside;
                return Some(Step::Adv(open.len()));
            }
            if !eof && open.starts_with(text) {
                return Some(Step::Wait);
            }
            call.value.raw_wrap = RawWrap::Outside;
            return None;
        }
        let (n, consumed) = match text.find(close.as_str()) {
            Some(p) => (p, Some(p + close.len())),
            None => (text.len() - if eof { 0 } else { crate::parse::scan::held_back_len(text, &[close.as_str()]) }, None),
        };
        let piece = text.get(..n).unwrap_or("");
        if !piece.is_empty() {
            call.value.empty = false;
            escape_inner(piece, &mut call.data.args);
        }
        Some(match consumed {
            Some(e) => {
                call.value.raw_wrap = RawWrap::Outside;
                Step::Adv(e)
            }
            None if n == 0 => Step::Wait,
            None => Step::Adv(n),
        })
    }
}

/// Outcome of matching a function name at the start of a text.
pub(super) enum NameMatch {
    /// (tool index, bytes of the name)
    Found(usize, usize),
    /// A well-formed name the request did not declare, delimited by the layout (rule R22): its bytes.
    Undeclared(usize),
    NeedMore,
    No,
}

/// Match one of the configured tool names (longest wins) followed by the name suffix marker, or —
/// without a suffix — by anything that cannot continue a longer name.
/// A character that can continue a tool name (OpenAI's `[A-Za-z0-9_-]`, and `.`).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

pub(super) fn match_name(text: &str, t: &ToolConfig, eof: bool) -> NameMatch {
    if t.id_pos == CallIdPosition::InNamePlace {
        // The head is the call's id, naming the tool (rule R48).
        return super::id_head::match_id_head(text, t, eof);
    }
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
                // Without its counter the name suffix may follow right away (rule R35).
                match counter_follows(after, head, eof) {
                    Expect::Matched(_) => true,
                    Expect::NeedMore => {
                        need = true;
                        false
                    }
                    Expect::No => match t.name_suffix.expect(after, eof) {
                        Expect::Matched(_) => true,
                        Expect::NeedMore => {
                            need = true;
                            false
                        }
                        Expect::No => false,
                    },
                }
            } else if follower.is_empty() {
                if after.is_empty() && !eof {
                    need = true;
                }
                // With nothing written after the name, the written name must end here: a declared
                // name is not read as the start of a longer one (`get_weatherX`).
                (!after.is_empty() || eof) && !after.starts_with(is_name_char)
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
        None => match_undeclared(text, t, eof),
    }
}

/// Numbered header: whether the text after a name is `head` and a digit.
fn counter_follows(after: &str, head: &str, eof: bool) -> Expect {
    match after.strip_prefix(head) {
        Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => Expect::Matched(0),
        Some("") if !eof => Expect::NeedMore,
        None if !eof && head.starts_with(after) => Expect::NeedMore,
        _ => Expect::No,
    }
}

/// A name the request did not declare (rule R22), where the layout delimits it: followed by the name
/// suffix marker, the numbered header's counter, a literal call's arguments opening, or — in a call
/// opened by a marker, with nothing between name and arguments (`<tool_call>f<arg_key>`) — the
/// arguments' first marker (not the call's end: `<tool_call>get_weatherX</tool_call>` reads as a
/// misspelt declared name as much as another tool). Never more than [`MAX_TOOL_NAME`] bytes are
/// held to decide.
fn match_undeclared(text: &str, t: &ToolConfig, eof: bool) -> NameMatch {
    if !t.undeclared {
        return NameMatch::No;
    }
    let opened = !t.per_call_start.is_empty() || !t.name_prefix.is_empty();
    let args = if t.args_start.is_empty() { &t.arg_name_prefix } else { &t.args_start };
    let followers: Vec<&Marker> = if !t.name_suffix.is_empty() {
        vec![&t.name_suffix]
    } else if t.literal {
        vec![&t.args_start]
    } else if opened {
        vec![args]
    } else {
        Vec::new()
    };
    let followers: Vec<&Marker> = followers.into_iter().filter(|m| !m.is_empty()).collect();
    if followers.is_empty() && t.counter_head.is_none() {
        return NameMatch::No;
    }
    let n = text.len() - text.trim_start_matches(is_tool_name_char).len();
    let after = &text[n..];
    if n > MAX_TOOL_NAME {
        return NameMatch::No;
    }
    if after.is_empty() {
        return if eof { NameMatch::No } else { NameMatch::NeedMore };
    }
    if n == 0 {
        return NameMatch::No;
    }
    let delimited = match &t.counter_head {
        Some(head) => counter_follows(after, head, eof),
        None => {
            let seen: Vec<Expect> = followers.iter().map(|m| m.expect(after, eof)).collect();
            if seen.iter().any(|e| matches!(e, Expect::Matched(_))) {
                Expect::Matched(0)
            } else if seen.contains(&Expect::NeedMore) {
                Expect::NeedMore
            } else {
                Expect::No
            }
        }
    };
    match delimited {
        Expect::Matched(_) => NameMatch::Undeclared(n),
        Expect::NeedMore => NameMatch::NeedMore,
        Expect::No => NameMatch::No,
    }
}
