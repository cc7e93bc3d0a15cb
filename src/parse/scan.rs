//! Marker holdback shared by all parsers: how much of the tail may still begin a marker.
//!
//! Holdback invariant: after `push`, every byte that can no longer be the start of a marker has been
//! emitted; only the longest suffix of the unconsumed text that is a *proper prefix* of some marker is
//! kept. Example with markers `<think>` and `</think>`: the text `"a <th"` emits `"a "` and holds
//! `"<th"`; the next chunk `"x"` makes `"<thx"` impossible, so it is emitted too.

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
}
