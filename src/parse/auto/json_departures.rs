//! Departures in JSON tool calls that the canonical layout does not show, accepted with a
//! diagnostic:
//! - rule R16, call layout: several call objects in one call block (`<tool_call>{…}\n{…}</tool_call>`),
//!   calls separated by `;` (JSON objects, or calls in a section: `[f(a=1); g()]`), an array of calls where the template writes one object, one object
//!   where it writes an array;
//! - rule R17, arguments written as a JSON-encoded string (`"arguments": "{\"city\": \"Paris\"}"`):
//!   a string that holds a JSON object becomes that object; any other string stays as written;
//! - rule R19, Python syntax in a JSON call (`{'name': 'f', 'arguments': {'a': None}}`): read as
//!   the JSON it stands for;
//! - rule R18, a JSON call object (`{"name": …, "arguments": {…}}`) where the template writes
//!   pythonic calls (`[get_weather(city="Paris")]`): read as a JSON call.

use super::{AutoParser, State, Step};
use super::tool::{match_name, NameMatch, ToolStep};
use crate::parse::jsoncall::JsonCall;
use crate::text::is_space;
use serde_json::Value;

impl AutoParser {
    /// Before a call object (`JsonOpen`): an array where the template writes one object, or one
    /// object where it writes an array. `None` lets the canonical step run.
    pub(super) fn json_open_departure(&mut self, text: &str, abs: usize) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        match rest.chars().next()? {
            '[' if !t.json.array_wrapped && !self.in_array => {
                // No marker at all: the array itself started the calls (`parse::auto::call_syntax`).
                let bare = t.trigger_is_body && t.section_start.is_empty() && t.per_call_start.is_empty();
                let what = if bare { "a bare array of tool calls where the template writes bare call objects (rule R21)" } else { "an array of tool calls where the template writes one call object (rule R16)" };
                self.diag(abs + skip, what);
                self.in_array = true;
                Some(Step::Adv(skip + 1))
            }
            '{' if t.json.array_wrapped && !self.in_array && !self.call.json.object_not_array_said => {
                self.call.json.object_not_array_said = true;
                self.diag(abs + skip, "a tool call object where the template writes an array of calls (rule R16)");
                None
            }
            _ => None,
        }
    }

    /// Between the calls of a section (`Section`): `;` where the template writes `,` or nothing.
    pub(super) fn section_separator_departure(&mut self, text: &str, abs: usize) -> Option<Step> {
        let rest = text.trim_start_matches(is_space);
        let after = rest.strip_prefix(';')?;
        let at = text.len() - rest.len();
        self.diag(abs + at, "tool calls separated by `;` (rule R16)");
        Some(Step::Adv(text.len() - after.len()))
    }

    /// Where a pythonic call's name is due (`Name`): a JSON call object instead (rule R18).
    pub(super) fn json_in_pythonic_departure(&mut self, text: &str, abs: usize) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let rest = text.trim_start_matches(is_space);
        if !t.literal || !rest.starts_with('{') {
            return None;
        }
        let skip = text.len() - rest.len();
        self.diag(abs + skip, "a JSON tool call object where the template writes pythonic calls (rule R18)");
        self.call.json.object = JsonCall::default();
        self.state = State::Tool(ToolStep::JsonObj);
        Some(Step::Adv(skip))
    }

    /// After a call object (`JsonAfter`): another object in the same block, after `;` or only
    /// whitespace, where the template closes the block first. `None` lets the canonical step run.
    pub(super) fn json_after_departure(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let rest = text.trim_start_matches(is_space);
        let (sep, after) = match rest.strip_prefix(';') {
            Some(a) => (1, a.trim_start_matches(is_space)),
            None => (0, rest),
        };
        if after.is_empty() {
            // `;` and nothing yet after it: wait to see whether a call follows.
            return (sep == 1 && !eof).then_some(Step::Wait);
        }
        let end = if !t.section_start.is_empty() { &t.section_end } else { &t.per_call_end };
        // Or a pythonic call of a declared tool (`f(…)`, rule R20) on the next line or after `;`.
        let pythonic = !after.starts_with('{') && (sep == 1 || text[..text.len() - rest.len()].contains('\n'));
        let pythonic = pythonic
            && match self.cfg.pythonic.as_ref().and_then(|v| v.tools.as_ref()).map(|vt| match_name(after, vt, eof)) {
                Some(NameMatch::NeedMore) => return Some(Step::Wait),
                Some(NameMatch::Found(..)) => true,
                _ => false,
            };
        // Without an end marker, back-to-back objects are the canonical layout (handled there).
        if !(after.starts_with('{') || pythonic) || (sep == 0 && (end.is_empty() || self.in_array)) {
            return None;
        }
        let at = text.len() - after.len();
        let what = if sep == 1 { "tool calls separated by `;`" } else { "another tool call object in the same call block" };
        self.diag(abs + at, format!("{what} (rule R16)"));
        self.begin_call(abs + at, "");
        self.call.json.object = JsonCall::default();
        self.state = State::Tool(ToolStep::JsonObj);
        Some(Step::Adv(at))
    }

    /// Whether the call's argument text is held back now: arguments that open as a JSON string are
    /// held until they end, then read as the object they encode (rule R17). Called before each
    /// flush of argument text.
    pub(super) fn hold_string_arguments(&mut self) -> bool {
        let call = &mut self.call;
        if !call.json.args_string {
            if call.json.args_checked || call.data.args.is_empty() {
                return false;
            }
            call.json.args_checked = true;
            if !call.data.args.starts_with('"') {
                return false;
            }
            call.json.args_string = true;
        }
        if !call.data.args_complete {
            return true;
        }
        call.json.args_string = false;
        let decoded = match serde_json::from_str::<Value>(&call.data.args) {
            Ok(Value::String(inner)) => serde_json::from_str::<Value>(&inner).ok().filter(Value::is_object),
            _ => None,
        };
        if let Some(v) = decoded {
            call.data.args = v.to_string();
            let at = call.start;
            self.diag(at, "tool-call arguments written as a JSON-encoded string: decoded to the object (rule R17)");
        }
        false
    }

    /// The output ended (or the call broke) while arguments are held as a string: whole ones are
    /// decoded as at any flush (so the result does not depend on when the last flush happened),
    /// cut-off ones go out as written.
    pub(super) fn release_string_arguments(&mut self) {
        if self.call.json.args_string && self.call.data.args_complete {
            self.hold_string_arguments();
        }
        self.call.json.args_string = false;
        self.release_wrapped_arguments();
    }

    /// A JSON call object or JSON arguments that were written with Python syntax (rule R19).
    pub(super) fn python_syntax_departure(&mut self, python: bool) {
        if python {
            let at = self.call.start;
            self.diag(at, "tool call written with Python syntax (single quotes, True / False / None): read as JSON (rule R19)");
        }
    }
}
