//! Other spellings of a marker (rule R9): models write a template's special tokens in another
//! generation's or tokenizer's spelling — ASCII `|` for the full-width `｜`, `_` or a space for the
//! SentencePiece `▁`, another letter case — or the spelling some other branch of the template source
//! writes. A spelling is a variant of a marker when both normalise to the same key; the variants are
//! the marker's generated respellings plus the template's own literals with its key.

use crate::findings::Analysis;
use crate::parse::config::ParserConfig;
use crate::parse::marker::Marker;

/// The key two spellings of one token share: letters in lower case, `｜` as `|`, `▁`, `-` and spaces
/// as `_`, other whitespace removed.
pub fn spelling_key(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            '｜' => Some('|'),
            '▁' | '-' | ' ' => Some('_'),
            c if c.is_whitespace() => None,
            c => Some(c.to_ascii_lowercase()),
        })
        .collect()
}

/// Whether `core` looks like a special token (`<|…|>`, `<…>`, `[…]`): only those are respelled.
fn token_like(core: &str) -> bool {
    (core.starts_with('<') && core.ends_with('>')) || (core.starts_with('[') && core.ends_with(']')) || core.contains('｜')
}

/// The respellings models apply to a whole set of special tokens alike: ASCII `|` for `｜` (with `▁`
/// as `_` or a space, or kept), full-width `｜` for ASCII `|`, `▁` as `_` or a space, lower and upper
/// case.
pub const RESPELLINGS: [fn(&str) -> String; 8] = [
    |s| s.replace('｜', "|"),
    |s| s.replace('｜', "|").replace('▁', "_"),
    |s| s.replace('｜', "|").replace('▁', " "),
    |s| s.replace("<|", "<｜").replace("|>", "｜>"),
    |s| s.replace('▁', "_"),
    |s| s.replace('▁', " "),
    |s| s.to_ascii_lowercase(),
    |s| s.to_ascii_uppercase(),
];

/// The marker without its special-token part (rule R33): a tag whose name carries a special token
/// (`<｜DSML｜invoke name="`, `</｜DSML｜parameter>`, ASCII `|` alike) written as the tag alone
/// (`<invoke name="`, `</parameter>`), as text decoded with special tokens skipped reads. Only a
/// pipe-delimited word right after `<` or `</` and followed by the tag's own name is dropped, so a
/// marker that is a token itself (`<|tool_call_start|>`) is unchanged.
pub fn without_special_part(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        let (before, tag) = rest.split_at(i);
        out.push_str(before);
        let open = if tag.starts_with("</") { 2 } else { 1 };
        let (head, body) = tag.split_at(open);
        out.push_str(head);
        rest = body;
        let Some(pipe) = body.chars().next().filter(|c| matches!(c, '|' | '｜')) else { continue };
        let inner = &body[pipe.len_utf8()..];
        let word = inner.find(|c: char| c == pipe || matches!(c, '<' | '>' | '|' | '｜') || c.is_whitespace()).unwrap_or(inner.len());
        let after = inner.get(word..).and_then(|a| a.strip_prefix(pipe));
        if let Some(after) = after.filter(|a| word > 0 && a.starts_with(|c: char| c.is_alphanumeric() || c == '_')) {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `core` in respelling `f` when it is a token-like marker, else unchanged.
pub fn respell(core: &str, f: fn(&str) -> String) -> String {
    if token_like(core) { f(core) } else { core.to_string() }
}

/// Spellings of `core` other than itself: its [`RESPELLINGS`] and the `mined` literals with the same
/// key, minus any spelling in `taken` (another marker's core). Empty for a marker that is not
/// token-like.
pub fn variants(core: &str, mined: &[String], taken: &[&str]) -> Vec<String> {
    if core.is_empty() || !token_like(core) {
        return Vec::new();
    }
    let key = spelling_key(core);
    let mut out: Vec<String> = Vec::new();
    let candidates = RESPELLINGS.iter().map(|f| f(core)).chain(mined.iter().filter(|m| spelling_key(m) == key).cloned());
    for s in candidates {
        if s != core && !s.is_empty() && !out.contains(&s) && !taken.contains(&s.as_str()) {
            out.push(s);
        }
    }
    out
}

/// Configuration half of rule R9 for the text states' markers.
impl ParserConfig {
    /// Other spellings of the markers the text states look for (rule R9, `parse::auto::markers::spelling`):
    /// respellings and mined literals of each, and for a reasoning start marker that is a token and a
    /// word (`<|channel>thought`) the token alone. None that is another marker or a role marker.
    pub(crate) fn respell_text_markers(&mut self, analysis: &Analysis) {
        let mut taken: Vec<String> = [&analysis.user_start, &analysis.assistant_start].iter().map(|s| s.trim().to_string()).collect();
        let pairs = self.reasoning.iter().chain(self.content_wrap.iter());
        taken.extend(pairs.flat_map(|(s, e)| [s.core.clone(), e.core.clone()]));
        taken.extend(self.turn_end.iter().map(|m| m.core.clone()));
        if let Some(t) = &self.tools {
            let markers = [&t.section_start, &t.section_end, &t.per_call_start, &t.per_call_end, &t.name_prefix, &t.name_suffix, &t.close, &t.args_start, &t.args_end];
            taken.extend(markers.iter().map(|m| m.core.clone()));
        }
        taken.retain(|t| !t.is_empty());
        let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
        let mined = &analysis.source_tokens;
        let respell = |m: &Marker, extra: Option<String>| {
            let mut alts = variants(&m.core, mined, &taken);
            alts.extend(extra.filter(|h| !taken.iter().any(|t| *t != m.core && t.contains(h.as_str()))));
            m.clone().with_alts(alts)
        };
        if let Some((s, e)) = &self.reasoning {
            let head = s.token_head().map(str::to_string);
            self.reasoning = Some((respell(s, head), respell(e, None)));
        }
        if let Some((s, e)) = &self.content_wrap {
            self.content_wrap = Some((respell(s, None), respell(e, None)));
        }
        self.turn_end = self.turn_end.iter().map(|m| respell(m, None)).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respellings_and_mined_literals() {
        let v = variants("<｜tool▁sep｜>", &[], &[]);
        assert!(v.contains(&"<|tool▁sep|>".to_string()) && v.contains(&"<|tool_sep|>".to_string()), "{v:?}");
        assert!(variants("thought", &[], &[]).is_empty());
        let mined = vec!["<|Tool-Call|>".to_string(), "<|other|>".to_string()];
        assert!(variants("<|tool_call|>", &mined, &[]).contains(&"<|Tool-Call|>".to_string()));
        assert!(!variants("<|tool_call|>", &[], &["<|TOOL_CALL|>"]).contains(&"<|TOOL_CALL|>".to_string()));
    }

    #[test]
    fn special_part_dropped_only_inside_a_tag() {
        assert_eq!(without_special_part("<｜DSML｜invoke name=\""), "<invoke name=\"");
        assert_eq!(without_special_part("</｜DSML｜parameter>"), "</parameter>");
        assert_eq!(without_special_part("<|DSML|tool_calls>"), "<tool_calls>");
        for same in ["<|tool_call_start|>", "<｜tool▁calls▁begin｜>", "a | b |c", "<||x>", "<|a b|c>", "\" string=\"true\">"] {
            assert_eq!(without_special_part(same), same);
        }
    }
}
