//! A call in another of the template's own tags (rule R29, `parse::tag_wrappers`) counts only whole:
//! held — still roll-back-able into content — until its closing tag is read, and given back to the
//! content, as written, when anything else comes where that tag is due.

use super::tool::{Closer, ToolStep};
use super::{AutoParser, State, Step};

impl AutoParser {
    /// Whether the current call is one that counts only whole and its closing marker is not read yet.
    pub(super) fn held_until_closed(&self) -> bool {
        self.cfg.whole_call_note.is_some() && self.state != State::Tool(ToolStep::RepeatedClose(Closer::Call))
    }

    /// Where the call's closing marker is due and something else is written: for a call that counts
    /// only whole, the step that gives it back to the content. `None` for any other call.
    pub(super) fn whole_call_not_closed(&self) -> Option<Step> {
        self.cfg.whole_call_note.is_some().then_some(Step::Fail("tool call in a role tag of the template not closed right after it: kept as content", 0))
    }
}
