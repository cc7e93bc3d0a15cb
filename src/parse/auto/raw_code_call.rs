//! A code-interpreter call written as raw code (rule R41, `parse::raw_code`): the template's raw-code
//! call start (`<|python_tag|>`, a call header ending in a ```` ```python ```` fence) in content opens it;
//! the code runs to the template's end of such a call (or, when it writes none, to an end-of-turn token
//! or the end of the output). The call goes out whole once its code ends, so whole and streamed output
//! read the same.

use super::{floor_boundary, AutoParser, Scope, State, Step};
use crate::api::Delta;
use crate::parse::marker::Marker;
use crate::parse::raw_code::{note, RawCodeConfig};
use std::rc::Rc;

impl AutoParser {
    /// The raw-code call's start, when it is the first marker of `scope` (it wins over a shorter
    /// marker it begins with, such as the call section's start); `Wait` while the text at the first
    /// marker may still grow into it.
    pub(super) fn raw_code_in_content(&mut self, text: &str, scope: Scope<'_>, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Option<Step> {
        let rc = Rc::clone(self.cfg.raw_code.as_ref()?);
        match scope.find(&rc.start) {
            Some((s, e)) if e.saturating_sub(rc.start.core.len()) == scope.from => {
                self.emit_content(text.get(..s).unwrap_or(""), out);
                self.diag(abs + s, note(&rc.name));
                self.state = State::RawCode { scanned: abs + e };
                Some(Step::Adv(e))
            }
            _ => {
                let rest = text.get(scope.from..).unwrap_or("");
                let may_grow = !eof && !rest.is_empty() && rest.len() < rc.start.core.len() && rc.start.core.starts_with(rest);
                may_grow.then_some(Step::Wait)
            }
        }
    }

    /// Trailing bytes of `text` that may begin the raw-code call's start.
    pub(super) fn raw_code_holdback(&self, text: &str) -> usize {
        self.cfg.raw_code.as_ref().map_or(0, |rc| rc.start.holdback(text))
    }

    /// Inside the code (searched for its end up to absolute `scanned`).
    pub(super) fn step_raw_code(&mut self, scanned: usize, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let Some(rc) = self.cfg.raw_code.clone() else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let from = floor_boundary(text, scanned.saturating_sub(abs));
        // The template's end of the call, else the turn's end (left to the content state, rule R7).
        let ends: Vec<&Marker> = if rc.end.is_empty() { self.cfg.turn_end.iter().collect() } else { vec![&rc.end] };
        let found = ends.iter().filter_map(|m| m.find_from(text, from)).min_by_key(|(s, _)| *s);
        match found {
            Some((s, e)) => {
                self.end_raw_code(&rc, text.get(..s).unwrap_or(""), out);
                Step::Adv(if rc.end.is_empty() { s } else { e })
            }
            None if eof => {
                self.end_raw_code(&rc, text, out);
                Step::Adv(text.len())
            }
            None => {
                let keep = ends.iter().map(|m| m.holdback(text)).max().unwrap_or(0);
                self.state = State::RawCode { scanned: abs + text.len() - keep };
                Step::Wait
            }
        }
    }

    /// The code ended: the call goes out, and content follows.
    pub(super) fn end_raw_code(&mut self, rc: &RawCodeConfig, code: &str, out: &mut Vec<Delta>) {
        let index = self.calls;
        self.calls += 1;
        out.push(Delta::ToolCall { index, id: None, name: Some(rc.name.clone()), arguments: None });
        self.emit.tool_args(index, rc.arguments(code), out);
        self.state = State::Content;
        self.after_block = true;
        self.line_start = true;
    }
}
