//! The call header's states (`ToolStep::Section` … `IdClose`): a call section between calls, the
//! call's opener, its name (with its prefix, suffix and a numbered header's counter) and its id.
//! Each state is one method; `step_tool` (`tool.rs`) dispatches to them after the departures of
//! its table are tried.

use super::tool::{goto, longest, match_name, name_window, past_name_limit, Closer, Closing, IdAt, NameMatch, ToolStep, MAX_NAME};
use super::{AutoParser, Scope, State, Step};
use crate::findings::CallIdPosition;
use crate::parse::jsoncall::UNDECLARED;
use crate::parse::marker::{Expect, Marker};
use crate::text::is_space;
use std::rc::Rc;

impl AutoParser {
    /// Rule R40: the section's end marker begins with the call list's `]` (`]<|tool_call_end|>`), and
    /// the model wrote the `]` but not the rest: the list is closed, so is the section.
    fn list_closed_without_section_end(&mut self, text: &str, abs: usize, end_m: Expect) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let rest = text.trim_start_matches(is_space);
        let core = t.section_end.core.trim_start_matches(is_space);
        let after = core.strip_prefix(']').filter(|a| !a.is_empty())?;
        if end_m != Expect::No || !rest.starts_with(']') {
            return None;
        }
        let skip = text.len() - rest.len();
        let message = format!("call list closed by `]` without {:?}, the rest of the section's end marker: the section ends there (rule R40)", after.trim());
        self.diag(abs + skip, message);
        self.state = State::Content;
        Some(Step::Adv(skip + 1))
    }

    pub(super) fn step_section(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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
            if super::call_syntax::blanks_inside(&t.section_end, text.get(..n).unwrap_or("")) {
                let core = t.section_end.core.clone();
                self.note_blanks_inside(&core, text.get(..n).unwrap_or(""), abs);
            }
            let Some(t) = self.cfg.tools.as_ref() else { return Step::Adv(0) };
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
        if let Some(step) = self.list_closed_without_section_end(text, abs, end_m) {
            return step;
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
            self.diag(abs, "tool-call section not closed: it ends here (rule R52)");
        }
        self.state = State::Content;
        Step::Adv(0)
    }

    pub(super) fn step_call_open(&mut self, _text: &str, _abs: usize, _eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        let next = if t.id_pos == CallIdPosition::PreFuncName && !t.id_prefix.is_empty() {
            // `<|tool_call:begin|>ID<|tool_call:name|>f`: the call start already opened the id.
            if t.id_prefix.core == t.per_call_start.core { ToolStep::IdValue(IdAt::Pre) } else { ToolStep::IdOpen(IdAt::Pre) }
        } else {
            ToolStep::NamePrefix
        };
        goto(self, next, 0)
    }

    pub(super) fn step_name_prefix(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        if t.name_prefix.is_empty() {
            return goto(self, ToolStep::Name, 0);
        }
        match t.name_prefix.expect(text, eof) {
            Expect::Matched(n) => goto(self, ToolStep::Name, n),
            Expect::NeedMore => Step::Wait,
            Expect::No => self.name_without_prefix(text, abs, eof).unwrap_or(Step::Fail("expected the function name marker", 0)),
        }
    }

    pub(super) fn step_name(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        match match_name(rest, t, eof) {
            NameMatch::Found(i, n) => {
                self.call.data.tool = Some(i);
                self.call.data.name = t.tools.get(i).map(|d| d.name.clone()).unwrap_or_default();
                if t.id_pos == CallIdPosition::InNamePlace {
                    self.id_head(rest.get(..n).unwrap_or(""), abs + skip);
                }
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

    pub(super) fn step_name_suffix(&mut self, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
        if let Some(head) = t.counter_head.as_ref().filter(|_| !self.call.counted) {
            let Some(rest) = text.strip_prefix(head.as_str()) else {
                if !eof && head.starts_with(text) {
                    return Step::Wait;
                }
                return self.name_without_counter(text, abs, eof).unwrap_or(Step::Fail("expected the call counter", 0));
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

    pub(super) fn step_id_value(&mut self, at: IdAt, text: &str, _abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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

    pub(super) fn step_id_close(&mut self, at: IdAt, text: &str, _abs: usize, eof: bool) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else { return self.no_tools() };
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
}
