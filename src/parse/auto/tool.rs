//! The tool-call states of the auto parser: a call section, the call's markers, name and id, and its
//! arguments in the analysed layout (JSON, tagged, literal, or a JSON-native call object).

use super::{AutoParser, Scope, State, Step};
use crate::findings::{CallIdPosition, ToolFormat};
use crate::parse::json::{escape_inner, Feed, JsonValue, PyToJson};
use crate::parse::config::{is_tool_name_char, ToolConfig, MAX_TOOL_NAME};
use crate::parse::jsoncall::{CallData, CallFeed, JsonCall, UNDECLARED};
use crate::parse::literal::LiteralValue;
use crate::parse::marker::{Expect, Marker};
use crate::text::is_space;
use std::rc::Rc;

/// Longest name / id / argument name read before giving up on a marker.
const MAX_NAME: usize = 512;

/// Whether a name, id or argument name that is still open can no longer end within `MAX_NAME`
/// bytes: a closing marker (up to `marker` bytes with its lead) starting by then would already be
/// in `text`. The limit is decided on the text position, never on how much happens to be buffered,
/// so every chunking (and the whole text) takes the same decision.
fn past_name_limit(text: &str, marker: usize) -> bool {
    text.len() > MAX_NAME + marker
}

/// The start of `text` in which a name, id or argument name within `MAX_NAME` and its closing marker
/// (up to `marker` bytes) can lie: searching further decides nothing more, and a call that fails
/// would otherwise search the rest of the output again each time.
fn name_window(text: &str, marker: usize) -> &str {
    text.get(..super::floor_boundary(text, MAX_NAME + marker + 4)).unwrap_or(text)
}

/// The longest `lead + core` among `markers`.
fn longest(markers: &[&Marker]) -> usize {
    markers.iter().map(|m| m.lead.len() + m.core.len()).max().unwrap_or(0)
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
    fn next(self) -> Closing {
        match self {
            Closing::ArgsEnd => Closing::Id,
            Closing::Id => Closing::FunctionClose,
            Closing::FunctionClose => Closing::CallEnd,
            Closing::CallEnd | Closing::Done => Closing::Done,
        }
    }
}

/// A string value's raw wrapper (`<![CDATA[…]]>`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RawWrap {
    /// Not looked for yet.
    #[default]
    Unchecked,
    /// Absent, or closed.
    Outside,
    Inside,
}

/// The tool call being parsed.
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub data: CallData,
    pub json: JsonCall,
    /// TAG_WITH_JSON arguments value.
    pub json_args: JsonValue,
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
    pub value_is_string: bool,
    pub value_empty: bool,
    pub raw_wrap: RawWrap,
    pub value_norm: PyToJson,
    /// A typed (non-string) tagged value's text, held until its end: it is written to the arguments
    /// only once known to be JSON (else as a JSON string), so `arguments` is always valid JSON.
    pub typed_raw: String,
    /// Where the held typed value began (for its diagnostic).
    pub typed_at: usize,
    /// Literal-syntax argument value scanner.
    pub literal: LiteralValue,
    /// A tagged value without a schema, maybe JSON (rule R14, `untyped_value.rs`).
    pub sniff: super::untyped_value::Sniff,
    /// The arguments' first byte was looked at; they open as a JSON string, held (rule R17).
    pub args_checked: bool,
    pub args_string: bool,
    /// The one-object-for-an-array departure was reported (rule R16).
    pub object_not_array_said: bool,
    /// The call's first byte was looked at for the other call syntax (rule R20).
    pub body_checked: bool,
    /// The configuration to go back to once a call read in the other syntax ends (rule R20).
    pub swapped_from: Option<Rc<crate::parse::config::ParserConfig>>,
    /// Why the call failed, in more words than the step's static message (serde's JSON error).
    pub fail_detail: Option<String>,
    /// The JSON arguments were checked (once, when they ended, before a held call goes out).
    pub args_validated: bool,
    /// JSON argument text already streamed before the check (`stream_arguments`), for the check.
    pub args_sent: String,
    /// The call is read as a JSON call object (whatever the format: also rules R16, R18), so its
    /// arguments are JSON.
    pub json_object: bool,
    /// A JSON call object read where the template writes a tagged call (rule R23): the call's own
    /// end marker closes it.
    pub json_in_tagged: bool,
}

impl AutoParser {
    pub(super) fn step_tool(&mut self, step: ToolStep, text: &str, abs: usize, eof: bool) -> Step {
        if step == ToolStep::JsonObj {
            self.call.json_object = true;
        }
        // Departures from the JSON call layout (rules R16, R18, `json_departures.rs`).
        let departure = match step {
            ToolStep::JsonOpen => self.json_open_departure(text, abs).or_else(|| self.pythonic_in_json(text, abs, eof)),
            ToolStep::JsonObj => self.pythonic_in_json(text, abs, eof),
            ToolStep::JsonAfter => self.bare_call_after().or_else(|| self.json_after_departure(text, abs, eof)),
            ToolStep::Name => self.json_in_pythonic_departure(text, abs).or_else(|| self.json_call_in_tagged(step, text, abs, eof)),
            ToolStep::NamePrefix => self.json_call_in_tagged(step, text, abs, eof),
            ToolStep::ArgNext => self.json_body_in_tagged(text, abs, eof).or_else(|| self.key_value_args(text, abs, eof)),
            ToolStep::Section => self.section_separator_departure(text, abs),
            ToolStep::AfterArgs(k) if k != Closing::ArgsEnd => self.literal_call_after_departure(text, abs, eof),
            _ => None,
        };
        if let Some(step) = departure {
            return step;
        }
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
                    let raw = self.section_raw();
                    self.begin_call(abs + skip, &raw);
                    return goto(self, next, n);
                }
                if let Expect::Matched(n) = end_m {
                    self.trail = t.section_end.trail.clone();
                    return goto(self, ToolStep::RepeatedClose(Closer::Section), n);
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
                    let raw = self.section_raw();
                    self.begin_call(abs + skip, &raw);
                    return goto(self, ToolStep::Name, skip);
                }
                if let Some(step) = self.call_without_opener(text, abs, eof) {
                    return step;
                }
                let Some(t) = self.cfg.tools.as_ref() else { return Step::Adv(0) };
                let unclosed = !t.section_end.is_empty() && !(eof && rest.is_empty());
                if unclosed && !self.call.committed {
                    // A section that read no call: its opener goes back to the content.
                    return Step::Fail("tool-call section not closed", 0);
                }
                if unclosed {
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
                    NameMatch::Undeclared(n) => {
                        self.call.data.tool = Some(UNDECLARED);
                        self.call.data.name = rest.get(..n).unwrap_or("").to_string();
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
                    // Decided on the digits' position alone: a counter longer than the limit fails
                    // whether or not its end is buffered yet.
                    if digits > MAX_NAME {
                        return Step::Fail("call counter too long", 0);
                    }
                    if digits == rest.len() && !eof {
                        return Step::Wait;
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
                // The id must end within the limit (one byte for the word end without markers).
                let reach = if ends.is_empty() { 1 } else { longest(&ends) };
                // Searched only as far as an id within the limit can end: the decisions below are the
                // same, and a call that fails here is not re-scanned to the end of the text each time
                // (repeated `[CALL_ID]` headers without their `[ARGS]` were quadratic).
                let window = name_window(text, reach);
                let scope = Scope::new(window, &ends);
                let found = ends.iter().filter_map(|m| scope.find(m)).map(|(s, _)| s).min();
                // Without any end marker the id is one word (ends at whitespace or the arguments).
                let stop = if ends.is_empty() { window.find(|c: char| is_space(c) || c == '{' || c == '[') } else { found };
                match stop {
                    Some(s) if s > MAX_NAME => Step::Fail("call id too long", 0),
                    Some(s) => {
                        self.call.data.id = text.get(..s).unwrap_or("").trim_matches(is_space).to_string();
                        goto(self, ToolStep::IdClose(at), s)
                    }
                    None if eof && text.len() > MAX_NAME => Step::Fail("call id too long", 0),
                    None if eof => {
                        self.call.data.id = text.trim_matches(is_space).to_string();
                        goto(self, ToolStep::IdClose(at), text.len())
                    }
                    None if past_name_limit(text, reach) => Step::Fail("call id too long", 0),
                    None => Step::Wait,
                }
            }
            ToolStep::IdClose(at) => {
                let next = match at {
                    // The id's closing marker may be the name's opening one (`ID<|tool_call:name|>f`).
                    IdAt::Pre if t.id_suffix.core == t.name_prefix.core => ToolStep::Name,
                    IdAt::Pre => ToolStep::NamePrefix,
                    IdAt::Mid => ToolStep::ArgsOpen,
                    IdAt::Post => ToolStep::AfterArgs(Closing::FunctionClose),
                };
                match t.id_suffix.expect(text, eof) {
                    Expect::Matched(n) => goto(self, next, n),
                    Expect::NeedMore => Step::Wait,
                    Expect::No => goto(self, next, 0),
                }
            }
            ToolStep::ArgsOpen => {
                // Tagged arguments: the header waits for the first argument (rule R26, `json_in_tagged.rs`).
                if !super::json_in_tagged::tagged(t) {
                    self.call.header_ready = true;
                }
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
                            goto(self, ToolStep::AfterArgs(Closing::ArgsEnd), 0)
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
                        goto(self, ToolStep::AfterArgs(Closing::ArgsEnd), 0)
                    }
                }
            }
            ToolStep::ArgName => {
                let end = if t.arg_name_suffix.is_empty() { &t.value_prefix } else { &t.arg_name_suffix };
                let reach = longest(&[end, &t.typed_value_prefix]);
                // Searched only as far as a name within the limit can end (the decisions below are the
                // same): a whole text is not scanned again for every call that breaks here.
                let window = name_window(text, reach);
                let found = end.find(window).or_else(|| if eof && end.is_empty() { Some((text.len(), text.len())) } else { None });
                // A typed value prefix right after the name says the value is JSON.
                let typed = if t.arg_name_suffix.is_empty() { t.typed_value_prefix.find(window) } else { None };
                let (found, typed) = match (found, typed) {
                    (f, Some(ty)) if f.is_none_or(|(s, _)| ty.0 < s) => (Some(ty), true),
                    (f, _) => (f, false),
                };
                let Some((s, e)) = found.filter(|&(s, _)| s <= MAX_NAME) else {
                    let closed_late = found.is_some();
                    return if closed_late || past_name_limit(text, reach) || eof { Step::Fail("argument name not closed", 0) } else { Step::Wait };
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
                call.raw_wrap = RawWrap::Unchecked;
                call.value_norm = PyToJson::default();
                call.typed_raw.clear();
                call.literal = LiteralValue::default();
                // No schema for it: a whole JSON object or array stays JSON (rule R14).
                let schemaless = is_string && t.typed_value_prefix.is_empty() && t.raw_value.0.is_empty() && tool.is_none_or(|d| !d.declares(name));
                let nullable = is_string && !t.literal && t.typed_value_prefix.is_empty() && tool.is_some_and(|d| d.is_nullable(name));
                call.sniff = match () {
                    _ if schemaless && !t.literal => super::untyped_value::Sniff::Pending,
                    _ if nullable => super::untyped_value::Sniff::Null,
                    _ => super::untyped_value::Sniff::Off,
                };
                if is_string && !t.literal && call.sniff == super::untyped_value::Sniff::Off {
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
            ToolStep::Value => self.tagged_value(text, abs, eof),
            ToolStep::AfterArgs(k) => {
                let m = match k {
                    Closing::ArgsEnd => &t.args_end,
                    Closing::Id => {
                        let next = if t.id_pos == CallIdPosition::PostArgs && !t.id_prefix.is_empty() {
                            ToolStep::IdOpen(IdAt::Post)
                        } else {
                            ToolStep::AfterArgs(Closing::FunctionClose)
                        };
                        return goto(self, next, 0);
                    }
                    Closing::FunctionClose => &t.close,
                    Closing::CallEnd => &t.per_call_end,
                    Closing::Done => return self.end_call(),
                };
                if m.is_empty() {
                    return goto(self, ToolStep::AfterArgs(k.next()), 0);
                }
                match m.expect(text, eof) {
                    Expect::Matched(n) => {
                        self.trail = m.trail.clone();
                        let next = if k == Closing::CallEnd { ToolStep::RepeatedClose(Closer::Call) } else { ToolStep::AfterArgs(k.next()) };
                        goto(self, next, n)
                    }
                    Expect::NeedMore => Step::Wait,
                    Expect::No => {
                        if let Some(step) = self.whole_call_not_closed() {
                            return step;
                        }
                        if !(eof && text.trim_matches(is_space).is_empty()) {
                            self.diag(abs, format!("expected `{}` after tool-call arguments", m.core));
                        }
                        goto(self, ToolStep::AfterArgs(k.next()), 0)
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
                    // Templates without a closing marker write parallel calls back to back
                    // (`{"name": …}{"name": …}`, Llama 4): another object is another call.
                    Some('{') if !self.in_array && (if !t.section_start.is_empty() { &t.section_end } else { &t.per_call_end }).is_empty() => {
                        self.begin_call(abs + skip, "");
                        self.call.json = JsonCall::default();
                        goto(self, ToolStep::JsonObj, skip)
                    }
                    // `[{…}{…}]`: the comma between two calls of the array left out (rule R8).
                    Some('{') if self.in_array => {
                        self.diag(abs + skip, "missing comma between two tool calls of the array (rule R8)");
                        self.begin_call(abs + skip, "");
                        self.call.json = JsonCall::default();
                        goto(self, ToolStep::JsonObj, skip)
                    }
                    _ => goto(self, ToolStep::JsonEnd, 0),
                }
            }
            ToolStep::RepeatedClose(closer) => self.step_repeated_close(closer, text, abs, eof),
            ToolStep::JsonEnd => {
                let own_end = self.call.json_in_tagged || t.section_start.is_empty();
                let m = if own_end { &t.per_call_end } else { &t.section_end };
                if m.is_empty() {
                    return self.unwritten_closer(text, abs, eof).unwrap_or_else(|| self.end_call());
                }
                match m.expect(text, eof) {
                    Expect::Matched(n) => {
                        self.trail = m.trail.clone();
                        let closer = if own_end { Closer::Call } else { Closer::Section };
                        goto(self, ToolStep::RepeatedClose(closer), n)
                    }
                    Expect::NeedMore => Step::Wait,
                    Expect::No => {
                        if let Some(step) = self.whole_call_not_closed() {
                            return step;
                        }
                        if !(eof && text.trim_matches(is_space).is_empty()) {
                            self.diag(abs, format!("expected `{}` after the tool calls", m.core));
                        }
                        self.end_call()
                    }
                }
            }
        }
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
                    if self.call.data.args_complete && !self.call.args_validated {
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
        if self.call.sniff != super::untyped_value::Sniff::Off {
            let trail = t.value_suffix.trail.clone();
            return self.untyped_value(piece, abs, consumed, &trail);
        }
        let call = &mut self.call;
        if !piece.is_empty() {
            call.value_empty = false;
            if call.value_is_string {
                escape_inner(piece, &mut call.data.args);
            } else {
                if call.typed_raw.is_empty() {
                    call.typed_at = abs;
                }
                call.typed_raw.push_str(piece);
            }
        }
        match consumed {
            Some(e) => {
                if call.value_is_string {
                    call.data.args.push('"');
                } else if !call.value_empty {
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

    /// Write the held typed value: its JSON form (Python literals mapped) when that parses as JSON,
    /// else the text as a JSON string with a diagnostic (`3 days`, `N/A` for an integer parameter).
    pub(super) fn finish_typed_value(&mut self) {
        let raw = std::mem::take(&mut self.call.typed_raw);
        if raw.is_empty() {
            return;
        }
        let mut norm = PyToJson::default();
        let mut json = String::new();
        for c in raw.chars() {
            norm.push(c, &mut json);
        }
        norm.flush(&mut json);
        if serde_json::from_str::<serde_json::Value>(&json).is_ok() {
            self.call.data.args.push_str(&json);
        } else {
            self.call.data.args.push_str(&serde_json::Value::from(raw.trim()).to_string());
            let at = self.call.typed_at;
            self.diag(at, "typed argument value is not valid JSON; kept as a string");
        }
    }

    /// A string value in the template's raw wrapper (`<![CDATA[…]]>`): its text is taken verbatim up
    /// to the wrapper's end. `None` when the value is not (or no longer) inside a wrapper.
    fn raw_value(&mut self, text: &str, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let (open, close) = (&t.raw_value.0, &t.raw_value.1);
        let call = &mut self.call;
        if open.is_empty() || close.is_empty() || !call.value_is_string || call.raw_wrap == RawWrap::Outside {
            return None;
        }
        if call.raw_wrap == RawWrap::Unchecked {
            if text.starts_with(open.as_str()) {
                call.raw_wrap = RawWrap::Inside;
                return Some(Step::Adv(open.len()));
            }
            if !eof && open.starts_with(text) {
                return Some(Step::Wait);
            }
            call.raw_wrap = RawWrap::Outside;
            return None;
        }
        let (n, consumed) = match text.find(close.as_str()) {
            Some(p) => (p, Some(p + close.len())),
            None => (text.len() - if eof { 0 } else { crate::parse::scan::held_back_len(text, &[close.as_str()]) }, None),
        };
        let piece = text.get(..n).unwrap_or("");
        if !piece.is_empty() {
            call.value_empty = false;
            escape_inner(piece, &mut call.data.args);
        }
        Some(match consumed {
            Some(e) => {
                call.raw_wrap = RawWrap::Outside;
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
                match counter_follows(after, head, eof) {
                    Expect::Matched(_) => true,
                    Expect::NeedMore => {
                        need = true;
                        false
                    }
                    Expect::No => false,
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
