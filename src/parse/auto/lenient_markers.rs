//! Leniency for markers the model writes differently from the template's canonical rendering
//! (README "Leniency", rules R8–R12). Each accepted departure adds a diagnostic naming its rule.

use super::tool::{Closer, Closing, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::marker::Expect;

impl AutoParser {
    /// Right after a call's (or a section's) end marker, the same marker written again closes nothing:
    /// it is dropped with a diagnostic (rule R10), as often as it repeats. Anything else continues
    /// where the end marker led.
    pub(super) fn step_repeated_close(&mut self, closer: Closer, text: &str, abs: usize, eof: bool) -> Step {
        let cfg = std::rc::Rc::clone(&self.cfg);
        let Some(t) = cfg.tools.as_ref() else {
            self.state = State::Content;
            return Step::Adv(0);
        };
        let m = match closer {
            Closer::Call => &t.per_call_end,
            Closer::Section => &t.section_end,
        };
        // A marker that also opens or ends something else is never a repeat.
        let shared = [&t.trigger, &t.call_trigger, &t.per_call_start, &t.section_start]
            .into_iter()
            .chain((closer == Closer::Call).then_some(&t.section_end))
            .any(|o| o.core == m.core);
        let repeated = if shared { Expect::No } else { m.expect(text, eof) };
        match repeated {
            Expect::Matched(n) => {
                let at = abs + (text.len() - text.trim_start_matches(crate::text::is_space).len());
                self.diag(at, format!("repeated end marker {:?} after a tool call dropped (rule R10)", m.core));
                self.trail = m.trail.clone();
                Step::Adv(n)
            }
            Expect::NeedMore => Step::Wait,
            Expect::No => {
                self.state = match closer {
                    Closer::Call => State::Tool(ToolStep::AfterArgs(Closing::Done)),
                    Closer::Section => State::Content,
                };
                Step::Adv(0)
            }
        }
    }
}
