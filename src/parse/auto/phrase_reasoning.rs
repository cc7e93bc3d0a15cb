//! Reasoning between plain phrases (rule R43): with thinking on, a template whose instructions teach
//! the model to write its reasoning after one quoted phrase and its answer after another
//! (`analysis.reasoning.phrases`, reasoning.7: `Here is my thought process:` … `Here is my
//! response:`, in their contracted spellings too) has the text between the two
//! read as reasoning, the phrases dropped (with the blanks right after each), the rest content.
//!
//! Phrases are plain text a reply may also hold, so they count only as a pair: from the start phrase
//! the text is held until the end phrase shows (searched once, from where the last search stopped);
//! an output that ends first keeps all of it as content, start phrase included, and an end phrase
//! without a start phrase before it is content. Content holds back only what may still begin the
//! start phrase.
//!
//! Configuration half: the phrase markers with their spellings, a model writing English contractions
//! of the phrase's words (`Here is` → `Here's`, `I am` → `I'm`, `do not` → `don't`), with a straight
//! or a typographic apostrophe; the request reads them with thinking on only.

use super::{AutoParser, State, Step};
use crate::api::{Delta, ReasoningFormat, RequestOptions};
use crate::findings::{Analysis, THINKING_SWITCHES};
use serde_json::Value;
use crate::parse::marker::{Expect, Marker};
use crate::text::is_space;
use std::rc::Rc;

/// The phrase markers of `analysis` when the request turns thinking on (`enableThinking`, or a switch
/// of [`THINKING_SWITCHES`] in `extraContext`) and extracts reasoning.
pub(crate) fn reasoning_phrases(analysis: &Analysis, options: &RequestOptions) -> Option<(Marker, Marker)> {
    let [start, end] = analysis.reasoning.phrases.as_slice() else { return None };
    let switched = THINKING_SWITCHES.iter().any(|s| options.extra_context.get(*s) == Some(&Value::Bool(true)));
    let on = options.enable_thinking == Some(true) || (options.enable_thinking.is_none() && switched);
    (on && options.reasoning_format != ReasoningFormat::None).then(|| (phrase_marker(start), phrase_marker(end)))
}

/// Word pairs a contraction joins: the second word and what replaces ` second`.
const CONTRACTIONS: &[(&str, &str)] = &[("is", "'s"), ("am", "'m"), ("are", "'re"), ("will", "'ll"), ("have", "'ve"), ("would", "'d"), ("not", "n't")];

/// At most this many spellings of one phrase (the phrase itself included).
const MAX_SPELLINGS: usize = 16;

/// The phrase as a marker, its contracted spellings as the marker's other spellings.
pub fn phrase_marker(phrase: &str) -> Marker {
    Marker::new(phrase).with_alts(spellings(phrase.trim()))
}

/// Every spelling of `phrase` with any of its contractible word pairs contracted (straight and
/// typographic apostrophe), the phrase first.
fn spellings(phrase: &str) -> Vec<String> {
    let mut out = vec![phrase.to_string()];
    let words: Vec<&str> = phrase.split(' ').collect();
    // Word indices (≥ 1) that may join the word before them.
    let sites: Vec<(usize, &str)> = words.iter().enumerate().skip(1).filter_map(|(i, w)| CONTRACTIONS.iter().find(|(full, _)| w.eq_ignore_ascii_case(full)).map(|(_, short)| (i, *short))).filter(|(i, _)| words.get(i - 1).is_some_and(|w| w.chars().last().is_some_and(char::is_alphabetic))).collect();
    for mask in 1..(1u32 << sites.len().min(4)) {
        let mut text = String::new();
        for (i, w) in words.iter().enumerate() {
            match sites.iter().position(|(at, _)| *at == i).filter(|k| mask & (1 << k) != 0) {
                Some(k) => text.push_str(sites[k].1),
                None => {
                    if i > 0 {
                        text.push(' ');
                    }
                    text.push_str(w);
                }
            }
        }
        for spelling in [text.replace('\'', "\u{2019}"), text] {
            if out.len() < MAX_SPELLINGS && !out.contains(&spelling) {
                out.push(spelling);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_are_spelled_out() {
        let s = spellings("Here is my response:");
        assert_eq!(s, vec!["Here is my response:", "Here\u{2019}s my response:", "Here's my response:"]);
        assert!(spellings("I am not sure:").contains(&"I'm not sure:".to_string()));
        assert_eq!(spellings("Thoughts:"), vec!["Thoughts:"]);
    }
}

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
