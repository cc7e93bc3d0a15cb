//! Markers dropped from content where they show: the template's end-of-turn tokens (rule R7) and
//! its tool-result wrapper markers (rule R15). Neither carries text of its own: what surrounds
//! them stays content, and each drop is a diagnostic naming the marker.

use super::{AutoParser, Scope, Step};
use crate::api::Delta;
use std::rc::Rc;

impl AutoParser {
    /// A dropped marker as the first marker in content (`scope` ends at the first marker the
    /// content step looks for): the text before it is content, the marker goes with a diagnostic.
    /// - an end-of-turn token (`<|im_end|>`, or what ends a call turn, `<|tool_response>`): the
    ///   model ended its turn in writing (R7);
    /// - a tool-result wrapper marker (`<｜tool▁output▁begin｜>`): the model quotes a tool result;
    ///   the quoted text stays content (R15).
    pub(super) fn dropped_in_content(&mut self, text: &str, scope: Scope<'_>, abs: usize, out: &mut Vec<Delta>) -> Option<Step> {
        let cfg = Rc::clone(&self.cfg);
        let eot = cfg.turn_end.iter().map(|m| (m, true));
        let wrap = cfg.tool_result.iter().map(|m| (m, false));
        let ((m, ends_turn), (s, e)) = eot.chain(wrap).filter_map(|(m, k)| scope.find(m).map(|f| ((m, k), f))).min_by_key(|(_, (s, _))| *s)?;
        // Another marker starting at or before it wins (scope ends at the first marker found).
        if e < scope.len() {
            return None;
        }
        self.emit_content(text.get(..s).unwrap_or(""), out);
        if ends_turn {
            self.diag(abs + s, format!("end-of-turn token {:?} dropped (rule R7)", m.core));
        } else {
            self.diag(abs + s, format!("tool-result marker {:?} dropped, the text around it kept as content (rule R15)", m.core));
        }
        self.note_spelling(m, text.get(s..e).unwrap_or(""), abs + s);
        Some(Step::Adv(e))
    }
}
