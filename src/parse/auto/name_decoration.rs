//! A call's name without the decoration the template writes around it (rule R35): the name prefix
//! (`get_weather:0` where the template writes `functions.get_weather:0`, `<｜tool▁call▁begin｜>f` for
//! `…function<｜tool▁sep｜>f`, `<|tool_call>f{…}` for `<|tool_call>call:f{…}`) or a numbered header's
//! counter (`functions.get_weather<|tool_call_argument_begin|>` without `:0`). The call opener was
//! read, so a call is due; the name must still be declared or delimited by the layout (rule R22), as
//! `match_name` decides, so text that merely follows an opener is not taken for a call.

use super::tool::{match_name, NameMatch, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::marker::Expect;
use crate::text::is_space;

impl AutoParser {
    /// Where the name prefix is due and absent: a name right there is read as the call's name.
    /// `None` when none is (the call fails as before).
    pub(super) fn name_without_prefix(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        let rest = text.trim_start_matches(is_space);
        match match_name(rest, t, eof) {
            NameMatch::NeedMore => Some(Step::Wait),
            NameMatch::No => None,
            NameMatch::Found(..) | NameMatch::Undeclared(_) => {
                let message = format!("tool call name without the template's name prefix {:?} (rule R35)", t.name_prefix.core);
                self.diag(abs + (text.len() - rest.len()), message);
                self.state = State::Tool(ToolStep::Name);
                Some(Step::Adv(0))
            }
        }
    }

    /// Where a numbered header's counter is due (`:0`) and the marker after it comes instead: the
    /// header without its counter (the call id is then generated). `None` otherwise.
    pub(super) fn name_without_counter(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        match t.name_suffix.expect(text, eof) {
            Expect::Matched(_) => {
                let head = t.counter_head.clone().unwrap_or_default();
                self.diag(abs, format!("tool call header without its counter ({head:?} and a number) (rule R35)"));
                self.call.counted = true;
                Some(Step::Adv(0))
            }
            Expect::NeedMore => Some(Step::Wait),
            Expect::No => None,
        }
    }
}
