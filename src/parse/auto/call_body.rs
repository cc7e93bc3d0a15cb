//! The call body's states (`ToolStep::ArgsOpen` … `JsonEnd`): tagged and literal arguments, the
//! closing markers after them, and JSON call objects with what comes around and after them. Each
//! state is one method; `step_tool` (`tool.rs`) dispatches to them after the departures of its table
//! are tried.

use super::arg_value::ArgValue;
use super::tool::{goto, longest, name_window, past_name_limit, Closer, Closing, IdAt, ToolStep, MAX_NAME};
use super::untyped_value::Sniff;
use super::{AutoParser, State, Step};
use crate::findings::{CallIdPosition, ToolFormat};
use crate::parse::jsoncall::JsonCall;
use crate::parse::marker::Expect;
use crate::text::is_space;
use std::rc::Rc;

impl AutoParser {
    pub(super) fn step_args_open(&mut self, text: &str, _abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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

    pub(super) fn step_arg_next(&mut self, text: &str, _abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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

    pub(super) fn step_arg_name(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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
        let written = text.get(..s).unwrap_or("").trim_matches(is_space).trim_matches(|c| c == '"' || c == '\'');
        // A literal call's name written inside its string delimiter, closed or not (rule R45).
        let delimited = if t.literal { delimited_name(written, &t.string_delim) } else { None };
        let name = delimited.unwrap_or(written);
        // Another argument opened before this one's name was closed (the prefix's quote may
        // have gone to the value marker: `name="a<p name=" string="false">`).
        let opener = t.arg_name_prefix.core.trim_end_matches(['"', '\'']);
        if !opener.is_empty() && name.contains(opener) {
            return Step::Fail("argument name not closed", 0);
        }
        if t.literal && (name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')) {
            return Step::Fail("invalid argument name", 0);
        }
        if delimited.is_some() {
            self.diag(abs, format!("argument name {name:?} written inside the string delimiter {:?}: read as the name (rule R45)", t.string_delim));
        }
        let tool = self.call.data.tool.and_then(|i| t.tools.get(i));
        let is_string = !typed && (!t.typed_value_prefix.is_empty() || tool.is_none_or(|d| d.is_string(name)));
        let call = &mut self.call;
        call.data.args.push_str(if call.arg_count == 0 { "{" } else { "," });
        call.data.args.push_str(&serde_json::Value::from(name).to_string());
        call.data.args.push(':');
        call.data.args_seen = true;
        call.arg_count += 1;
        // No schema for it: a whole JSON object or array stays JSON (rule R14).
        let schemaless = is_string && t.typed_value_prefix.is_empty() && t.raw_value.0.is_empty() && tool.is_none_or(|d| !d.declares(name));
        let nullable = is_string && !t.literal && t.typed_value_prefix.is_empty() && tool.is_some_and(|d| d.is_nullable(name));
        let sniff = match () {
            _ if schemaless && !t.literal => Sniff::Pending,
            _ if nullable => Sniff::Null,
            _ => Sniff::Off,
        };
        call.value = ArgValue::new(is_string, tool.filter(|_| t.literal).and_then(|d| d.scalar(name)), sniff);
        if is_string && !t.literal && sniff == Sniff::Off {
            call.data.args.push('"');
        }
        self.trail = if typed { t.typed_value_prefix.trail.clone() } else { end.trail.clone() };
        let next = if !t.arg_name_suffix.is_empty() && !t.value_prefix.is_empty() { ToolStep::ValuePrefix } else { ToolStep::Value };
        goto(self, next, e)
    }

    pub(super) fn step_after_args(&mut self, k: Closing, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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
                if k == Closing::CallEnd {
                    match t.section_end.expect(text, eof) {
                        // The call's closer left out right before the section's (rule R31): the call
                        // ends here, the section's closer is read as always.
                        Expect::Matched(_) => {
                            let at = abs + (text.len() - text.trim_start_matches(is_space).len());
                            self.diag(at, format!("per-call end marker {:?} left out before the section's end marker (rule R31)", m.core.trim()));
                            return goto(self, ToolStep::AfterArgs(k.next()), 0);
                        }
                        Expect::NeedMore => return Step::Wait,
                        Expect::No => {}
                    }
                }
                self.closer_missing(&m.core, "tool-call arguments", text, abs, eof).unwrap_or_else(|| goto(self, ToolStep::AfterArgs(k.next()), 0))
            }
        }
    }

    pub(super) fn step_json_open(&mut self, text: &str, _abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        match rest.chars().next() {
            None if !eof => Step::Wait,
            Some('[') if t.json.array_wrapped && !self.in_array => {
                self.in_array = true;
                Step::Adv(skip + 1)
            }
            Some('{') => {
                self.call.json.object = JsonCall::default();
                goto(self, ToolStep::JsonObj, skip)
            }
            _ => Step::Fail("expected a JSON tool call object", 0),
        }
    }

    pub(super) fn step_json_after(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        match rest.chars().next() {
            None if !eof => Step::Wait,
            Some(',') => {
                self.begin_call(abs + skip, "");
                self.call.json.object = JsonCall::default();
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
                self.call.json.object = JsonCall::default();
                goto(self, ToolStep::JsonObj, skip)
            }
            // `[{…}{…}]`: the comma between two calls of the array left out (rule R8).
            Some('{') if self.in_array => {
                self.diag(abs + skip, "missing comma between two tool calls of the array (rule R8)");
                self.begin_call(abs + skip, "");
                self.call.json.object = JsonCall::default();
                goto(self, ToolStep::JsonObj, skip)
            }
            _ => goto(self, ToolStep::JsonEnd, 0),
        }
    }

    pub(super) fn step_json_end(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        let own_end = self.call.json.in_tagged || t.section_start.is_empty();
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
            Expect::No => self.closer_missing(&m.core, "the tool calls", text, abs, eof).unwrap_or_else(|| self.end_call()),
        }
    }

    /// A closing marker (`core`) is not where it is due after `what`: a call that counts only whole
    /// goes back to content (`Some`); otherwise the closing is skipped, said unless the output ends.
    fn closer_missing(&mut self, core: &str, what: &str, text: &str, abs: usize, eof: bool) -> Option<Step> {
        if let Some(step) = self.whole_call_not_closed() {
            return Some(step);
        }
        if !(eof && text.trim_matches(is_space).is_empty()) {
            self.diag(abs, format!("expected `{core}` after {what}: the call ends here (rule R52)"));
        }
        None
    }
}

/// An argument name `written` that opens with the string delimiter `delim` (`<|"|>flag`, or closed:
/// `<|"|>flag<|"|>`): the name inside it.
fn delimited_name<'a>(written: &'a str, delim: &str) -> Option<&'a str> {
    let inner = written.strip_prefix(delim).filter(|_| !delim.is_empty())?;
    Some(inner.strip_suffix(delim).unwrap_or(inner).trim_matches(is_space))
}
