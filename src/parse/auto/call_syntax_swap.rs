//! A call written in the other call syntax than the template's (see `parse::call_syntax`):
//! pythonic calls where the template writes JSON call objects (rule R20) are read with the
//! pythonic variant of the configuration for the call itself, the JSON states reading what is
//! around it; the reverse, a JSON object where pythonic calls are due, is rule R18
//! (`json_departures.rs`).

use super::tool::{match_name, NameMatch, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::marker::Expect;
use crate::text::is_space;
use std::rc::Rc;

impl AutoParser {
    /// Where a JSON call object is due (`JsonOpen`, or `JsonObj` before its first byte): a pythonic
    /// call of a declared tool (`get_weather(`) is read as the call instead. `None` lets the JSON
    /// step run (it fails on anything but an object, as before).
    pub(super) fn pythonic_in_json(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        if self.call.body_checked {
            return None;
        }
        let variant = self.cfg.pythonic.clone()?;
        let rest = text.trim_start_matches(is_space);
        let first = rest.chars().next();
        if first.is_none() {
            return (!eof).then_some(Step::Wait);
        }
        if first == Some('[') {
            // The array's opener (JSON states read it): the call comes after it.
            return None;
        }
        if !first.is_some_and(|c| c.is_alphabetic() || c == '_') {
            self.call.body_checked = true;
            return None;
        }
        let t = variant.tools.as_ref()?;
        match match_name(rest, t, eof) {
            NameMatch::NeedMore => return Some(Step::Wait),
            // The variant reads declared names only (`undeclared` off): the other syntax is a guess.
            NameMatch::No | NameMatch::Undeclared(_) => {
                self.call.body_checked = true;
                return None;
            }
            NameMatch::Found(..) => {}
        }
        // The name is followed by `(`: the arguments' opening, as `match_name` checked.
        debug_assert!(matches!(t.args_start.expect("(", true), Expect::Matched(_)));
        self.call.body_checked = true;
        let skip = text.len() - rest.len();
        // Marker-less (R28), the template's own calls need not be JSON: the departure is the syntax.
        let message = if self.cfg.bare_note.is_some() { "a pythonic tool call where a JSON call object is read (rule R20)" } else { "a pythonic tool call where the template writes JSON call objects (rule R20)" };
        self.diag(abs + skip, message);
        self.call.swapped_from = Some(Rc::clone(&self.cfg));
        self.cfg = variant;
        self.state = State::Tool(ToolStep::Name);
        Some(Step::Adv(skip))
    }

    /// A call read in the other syntax ended: the template's layout continues after it (`,`, `]`,
    /// the closing markers). `None` when the call was read in the template's own syntax.
    pub(super) fn end_swapped_call(&mut self) -> Option<Step> {
        let prev = self.call.swapped_from.take()?;
        self.cfg = prev;
        self.state = State::Tool(ToolStep::JsonAfter);
        Some(Step::Adv(0))
    }
}
