//! Marker scanning shared by all parsers: find the next marker, and decide how much of the tail to
//! hold back.
//!
//! Holdback invariant: after `push`, every byte that can no longer be the start of a marker has been
//! emitted; only the longest suffix of the unconsumed text that is a *proper prefix* of some marker is
//! kept. Example with markers `<think>` and `</think>`: the text `"a <th"` emits `"a "` and holds
//! `"<th"`; the next chunk `"x"` makes `"<thx"` impossible, so it is emitted too.

/// Earliest occurrence of any marker in `text`: (byte position, marker index). On ties the longest
/// marker wins, so `</tool_call>` beats `</tool`.
pub fn find_first(text: &str, markers: &[&str]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, m) in markers.iter().enumerate() {
        if m.is_empty() {
            continue;
        }
        if let Some(p) = text.find(m) {
            best = match best {
                None => Some((p, i)),
                Some((bp, bi)) if p < bp || (p == bp && m.len() > markers[bi].len()) => Some((p, i)),
                b => b,
            };
        }
    }
    best
}

/// Length in bytes of the longest suffix of `text` that is a proper prefix of one of `markers`
/// (always a char boundary, since markers are valid UTF-8).
pub fn held_back_len(text: &str, markers: &[&str]) -> usize {
    let mut best = 0;
    for m in markers {
        let max = m.len().saturating_sub(1).min(text.len());
        for len in (best + 1..=max).rev() {
            let start = text.len() - len;
            if text.is_char_boundary(start) && m.as_bytes().starts_with(&text.as_bytes()[start..]) {
                best = len;
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdback_keeps_only_possible_marker_starts() {
        let m = ["<think>", "</think>"];
        assert_eq!(held_back_len("a <th", &m), 3);
        assert_eq!(held_back_len("a <thx", &m), 0);
        assert_eq!(held_back_len("a </", &m), 2);
        assert_eq!(held_back_len("<think>", &m), 0); // complete markers are found, not held
        assert_eq!(held_back_len("é<", &m), 1);
    }

    #[test]
    fn first_marker_prefers_earliest_then_longest() {
        assert_eq!(find_first("x</tool_call>", &["</tool", "</tool_call>"]), Some((1, 1)));
        assert_eq!(find_first("ab", &["c"]), None);
    }
}
