//! A call written without its per-call opener inside a call section (rule R31):
//! `<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` where the template writes
//! `<｜tool▁call▁begin｜>` before every call. What the opener would have introduced comes right
//! away — the template's name marker, or the name of a declared tool followed by what follows a
//! name — so the call is read from there. A declared name is required (without a name marker),
//! so text that merely follows a section opener is not taken for a call; a call read this way
//! that breaks rolls back into content like any other.

use super::tool::{match_name, NameMatch, ToolStep};
use super::{AutoParser, State, Step};
use crate::findings::CallIdPosition;
use crate::parse::marker::Expect;
use crate::text::is_space;

impl AutoParser {
    /// In a section where neither a call opener nor the section's end came: a call that starts
    /// without its opener. `None` when the text does not start one.
    pub(super) fn call_without_opener(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        // Only where calls have an opener of their own, and no id comes between it and the name.
        if t.per_call_start.is_empty() || (t.id_pos == CallIdPosition::PreFuncName && !t.id_prefix.is_empty()) {
            return None;
        }
        let rest = text.trim_start_matches(is_space);
        let skip = text.len() - rest.len();
        let next = if t.name_prefix.is_empty() {
            match match_name(rest, t, eof) {
                NameMatch::Found(..) => ToolStep::Name,
                NameMatch::NeedMore => return Some(Step::Wait),
                _ => return None,
            }
        } else {
            match t.name_prefix.expect(rest, eof) {
                Expect::Matched(_) => ToolStep::NamePrefix,
                Expect::NeedMore => return Some(Step::Wait),
                Expect::No => return None,
            }
        };
        self.diag(abs + skip, "a tool call without its call opener, read from what follows it (rule R31)");
        let raw = self.section_raw();
        self.begin_call(abs + skip, &raw);
        self.state = State::Tool(next);
        Some(Step::Adv(skip))
    }
}
