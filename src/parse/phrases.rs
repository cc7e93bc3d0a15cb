//! Reasoning markers that are plain phrases (`analysis.reasoning.phrases`, reasoning.7: `Here is my
//! thought process:` … `Here is my response:`, taught by a template's thinking-on instructions), and
//! the spellings a model writes them in: English contractions of the phrase's words (`Here is` →
//! `Here's`, `I am` → `I'm`, `do not` → `don't`), with a straight or a typographic apostrophe. The
//! parser reads them with thinking on only, and only as a pair (rule R43, `parse/auto/phrase_reasoning.rs`).

use super::marker::Marker;

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
