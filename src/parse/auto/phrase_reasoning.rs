//! Reasoning between plain phrases (rule R43): with thinking on, a template whose instructions teach
//! the model to write its reasoning after one quoted phrase and its answer after another
//! (`analysis.reasoning.phrases`, reasoning.7: `Here is my thought process:` … `Here is my
//! response:`, in their contracted spellings too, `parse::phrases`) has the text between the two
//! read as reasoning, the phrases dropped (with the blanks right after each), the rest content.
//!
//! Phrases are plain text a reply may also hold, so they count only as a pair: from the start phrase
//! the text is held until the end phrase shows (searched once, from where the last search stopped);
//! an output that ends first keeps all of it as content, start phrase included, and an end phrase
//! without a start phrase before it is content. Content holds back only what may still begin the
//! start phrase.

use super::{AutoParser, State, Step};
use crate::api::Delta;
use crate::parse::marker::{Expect, Marker};
use crate::text::is_space;
use std::rc::Rc;

impl AutoParser {
    /// The start phrase, when the request reads phrases.
    pub(super) fn start_phrase(&self) -> Option<&Marker> {
        self.cfg.reasoning_phrases.as_ref().map(|(s, _)| s)
    }

    /// In content: the start phrase at `s` of `text` (earlier than any other marker the content step
    /// found): content before it, then the held block from it.
    pub(super) fn enter_phrase_reasoning(&mut self, text: &str, abs: usize, s: usize, out: &mut Vec<Delta>) -> Step {
        self.emit_content(text.get(..s).unwrap_or(""), out);
        self.state = State::PhraseReasoning { scanned: abs + s };
        Step::Adv(s)
    }

    /// The held block (`text` starts at the start phrase; its end phrase was searched up to absolute
    /// `scanned`).
    pub(super) fn step_phrase_reasoning(&mut self, scanned: usize, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Step {
        let cfg = Rc::clone(&self.cfg);
        let Some((start, end)) = cfg.reasoning_phrases.as_ref() else { return self.phrase_block_as_content(text, out) };
        let opened = match start.expect(text, eof) {
            Expect::Matched(n) => n,
            Expect::NeedMore => return Step::Wait,
            Expect::No => return self.phrase_block_as_content(text, out),
        };
        // A spelling cut by the last search's end may start up to its length before it.
        let from = scanned.saturating_sub(abs).saturating_sub(end.max_len()).max(opened);
        let from = super::floor_boundary(text, from).max(opened);
        let Some((es, ee)) = end.find_from(text, from) else {
            if eof {
                self.diag(abs, format!("reasoning start phrase {:?} without its end phrase {:?}: kept as content (rule R43)", start.core, end.core));
                return self.phrase_block_as_content(text, out);
            }
            let keep = end.holdback(text);
            self.state = State::PhraseReasoning { scanned: abs + text.len() - keep };
            return Step::Wait;
        };
        // The blanks after the end phrase are layout, as after a marker: the block waits for the
        // first other byte (or the end of the output), so every chunking skips the same blanks.
        let after = text.get(ee..).unwrap_or("");
        let blanks = after.len() - after.trim_start_matches(is_space).len();
        if blanks == after.len() && !eof {
            self.state = State::PhraseReasoning { scanned: abs + es };
            return Step::Wait;
        }
        let reasoning = text.get(opened..es).unwrap_or("").trim_matches(is_space);
        self.diag(abs, format!("reasoning written between the phrases {:?} and {:?} the template's instructions teach: read as reasoning (rule R43)", start.core, end.core));
        self.emit_reasoning(reasoning, out);
        self.state = State::Content;
        Step::Adv(ee + blanks)
    }

    fn phrase_block_as_content(&mut self, text: &str, out: &mut Vec<Delta>) -> Step {
        self.emit_content(text, out);
        self.state = State::Content;
        Step::Adv(text.len())
    }
}
