//! Leniency for markers the model writes differently from the template's canonical rendering
//! (README "Leniency", rules R8–R12). Each accepted departure adds a diagnostic naming its rule.

pub mod dialect;
pub mod source_markers;
pub mod spelling;

use super::tool::{Closer, Closing, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::marker::{Expect, Marker};

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
                self.after_block = closer == Closer::Section;
                Step::Adv(0)
            }
        }
    }
}

impl AutoParser {
    /// A marker was consumed as `matched` (the span its `find` / `expect` reported): when that is
    /// another spelling of it, say so (rule R9).
    pub(super) fn note_spelling(&mut self, m: &Marker, matched: &str, abs: usize) {
        if let Some(v) = m.variant_in(matched) {
            self.diag(abs, format!("marker {:?} written as {v:?} (rule R9)", m.core));
        }
    }

    /// A marker that holds a list bracket was written with blanks between its token and the bracket
    /// (`<|tool_call_start|> [` for `<|tool_call_start|>[`): another spelling of it (rule R9).
    pub(super) fn note_blanks_inside(&mut self, core: &str, matched: &str, abs: usize) {
        let at = abs + (matched.len() - matched.trim_start_matches(crate::text::is_space).len());
        self.diag(at, format!("marker {core:?} written with blanks inside, as {:?} (rule R9)", matched.trim_matches(crate::text::is_space)));
    }
}

impl AutoParser {
    /// The reasoning start marker matched as `text[..n]` in another spelling, right before the start
    /// marker as the template writes it (`<|channel><|channel>thought`): the first is a stray token,
    /// dropped with a diagnostic, and the second opens reasoning. `None` when that is not the case.
    pub(super) fn respelled_opener_before_opener(&mut self, start: &Marker, text: &str, n: usize, abs: usize, eof: bool) -> Option<Step> {
        let spelled = start.variant_in(text.get(..n).unwrap_or(""))?;
        let rest = text.get(n..).unwrap_or("").trim_start_matches(crate::text::is_space);
        if rest.starts_with(start.core.as_str()) {
            let lead = text.len() - text.trim_start_matches(crate::text::is_space).len();
            self.diag(abs + lead, format!("stray {spelled:?} before the reasoning start marker dropped (rule R2)"));
            return Some(Step::Adv(n));
        }
        (!eof && start.core.starts_with(rest)).then_some(Step::Wait)
    }
}

impl AutoParser {
    /// A call starts at `s` in content: a source token right before it (`<|python_tag|>{…}`) is read
    /// as part of the call (rule R11). Returns where the call's text begins.
    pub(super) fn call_prefix_before(&mut self, text: &str, s: usize, abs: usize) -> usize {
        let before = text.get(..s).unwrap_or("");
        let Some(p) = self.cfg.call_prefixes.iter().find(|p| before.ends_with(p.as_str())).cloned() else { return s };
        let from = s - p.len();
        self.diag(abs + from, format!("token {p:?} before a tool call read as part of the call (rule R11)"));
        from
    }

    /// Content held back for `keep` bytes at its end (other markers' partial starts): also what may
    /// still be a call prefix token, and a whole one right before the held bytes, as a call may still
    /// follow it. Returns the bytes to hold in all.
    pub(super) fn call_prefix_holdback(&self, text: &str, keep: usize) -> usize {
        let prefixes = &self.cfg.call_prefixes;
        if prefixes.is_empty() {
            return keep;
        }
        let keep = keep.max(crate::parse::scan::held_back_len(text, &prefixes.iter().map(String::as_str).collect::<Vec<_>>()));
        let before = text.get(..text.len().saturating_sub(keep)).unwrap_or("");
        keep + prefixes.iter().find(|p| before.ends_with(p.as_str())).map_or(0, |p| p.len())
    }
}

impl AutoParser {
    /// After the calls of a template that writes no closer: the closer its opener pairs with by the
    /// template's token convention (`[TOOL_CALLS]…[/TOOL_CALLS]`, see `ParserConfig::unwritten_closer`)
    /// is dropped with a diagnostic (rule R9). `None` when it is not there.
    pub(super) fn unwritten_closer(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let cfg = std::rc::Rc::clone(&self.cfg);
        let m = &cfg.unwritten_closer;
        match m.expect(text, eof) {
            Expect::Matched(n) => {
                let at = abs + (text.len() - text.trim_start_matches(crate::text::is_space).len());
                self.diag(at, format!("closer {:?}, which the template does not write, dropped after the tool calls (rule R9)", m.core));
                let _ = self.end_call();
                Some(Step::Adv(n))
            }
            Expect::NeedMore => Some(Step::Wait),
            Expect::No => None,
        }
    }
}

impl AutoParser {
    /// A call trigger was found as `spelled`: in another spelling, the call section is read in that
    /// dialect (rule R9).
    pub(super) fn enter_dialect(&mut self, spelled: &str, abs: usize) {
        let spelled = spelled.trim_matches(crate::text::is_space);
        let Some(t) = self.cfg.tools.as_ref() else { return };
        if spelled == t.trigger.core || spelled == t.call_trigger.core {
            return;
        }
        if let Some(d) = dialect::dialect_of(&self.dialects, spelled).cloned() {
            let canonical = if t.call_trigger.spellings().any(|s| s == spelled) { t.call_trigger.core.clone() } else { t.trigger.core.clone() };
            match d.dialect_note {
                // Said when the call goes out (R29).
                _ if d.whole_call_note.is_some() => {}
                Some(note) => self.diag(abs, note),
                // A respelling keeps the spelling key; a dropped special-token part does not.
                None if spelling::spelling_key(spelled) == spelling::spelling_key(&canonical) => {
                    self.diag(abs, format!("tool-call markers written as {spelled:?} for {canonical:?} and alike (rule R9)"))
                }
                None => self.diag(abs, format!("tool-call markers written without their special-token part, {spelled:?} for {canonical:?} and alike (rule R33)")),
            }
            self.cfg = d;
        }
    }
}
