//! Rule R47: the template's content label where the reply's content begins.
//!
//! Some templates write a label in their own words in front of every past reply (`Asistente: ` after
//! `<|im_start|>assistant\n`) while the generation prompt stops before it, and the system text tells
//! the model to begin with it: the model writes the label, and it is not content
//! (`analysis.contentLabel`, found by comparing a past reply's turn with the generation prompt). Where
//! the content begins (after leading blanks and any reasoning block), the label and one space after it
//! are dropped with a diagnostic. The decision needs at most the label and the character after it, so
//! every chunking decides alike; anything else there ends the check and is read as before.

use super::{AutoParser, Step};
use crate::api::Delta;
use crate::text::is_space;

impl AutoParser {
    pub(super) fn content_label(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Option<Step> {
        if self.label_checked {
            return None;
        }
        let cfg = std::rc::Rc::clone(&self.cfg);
        let label = cfg.content_label.as_str();
        if label.is_empty() {
            self.label_checked = true;
            return None;
        }
        let lead = text.len() - text.trim_start_matches(is_space).len();
        let rest = &text[lead..];
        if rest.is_empty() {
            // Only blanks so far: they are content's leading blanks, read as before.
            return None;
        }
        // A reasoning block may come first: the content begins after it.
        if let Some((start, _)) = cfg.reasoning.as_ref().filter(|(s, _)| !s.core.is_empty()) {
            if rest.starts_with(start.core.as_str()) || (!eof && start.core.starts_with(rest)) {
                return None;
            }
        }
        if !rest.starts_with(label) {
            if !eof && label.starts_with(rest) {
                // Could still be the label: hold it (after the blanks before it).
                self.emit_content(&text[..lead], out);
                return Some(if lead == 0 { Step::Wait } else { Step::Adv(lead) });
            }
            self.label_checked = true;
            return None;
        }
        let after = &rest[label.len()..];
        if after.is_empty() && !eof {
            return Some(Step::Wait);
        }
        self.label_checked = true;
        self.emit_content(&text[..lead], out);
        self.diag(abs + lead, format!("the template's content label {label:?} where the reply begins: dropped (rule R47)"));
        Some(Step::Adv(lead + label.len() + usize::from(after.starts_with(' '))))
    }
}
