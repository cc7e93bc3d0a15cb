//! Other spellings of a marker (rule R9): models write a template's special tokens in another
//! generation's or tokenizer's spelling — ASCII `|` for the full-width `｜`, `_` or a space for the
//! SentencePiece `▁`, another letter case — or the spelling some other branch of the template source
//! writes. A spelling is a variant of a marker when both normalise to the same key; the variants are
//! the marker's generated respellings plus the template's own literals with its key.

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

/// Spellings of `core` other than itself: respellings (`｜`↔`|`, `▁` as `_` or a space, lower and
/// upper case) and the `mined` literals with the same key, minus any spelling in `taken` (another
/// marker's core). Empty for a marker that is not token-like.
pub fn variants(core: &str, mined: &[String], taken: &[&str]) -> Vec<String> {
    if core.is_empty() || !token_like(core) {
        return Vec::new();
    }
    let key = spelling_key(core);
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if s != core && !s.is_empty() && !out.contains(&s) && !taken.contains(&s.as_str()) {
            out.push(s);
        }
    };
    let ascii = core.replace('｜', "|");
    add(ascii.clone());
    if core.contains("<|") || core.contains("|>") {
        add(core.replace("<|", "<｜").replace("|>", "｜>"));
    }
    for base in [core, ascii.as_str()] {
        if base.contains('▁') {
            add(base.replace('▁', "_"));
            add(base.replace('▁', " "));
        }
    }
    if core.chars().any(|c| c.is_ascii_alphabetic()) {
        add(core.to_ascii_lowercase());
        add(core.to_ascii_uppercase());
    }
    for m in mined {
        if spelling_key(m) == key {
            add(m.clone());
        }
    }
    out
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
}
