//! The diff engine every analysis step is built on: split two renders into common prefix, common
//! suffix and the parts unique to each side, without ever cutting a `<…>` / `[…]` marker in half.
//!
//! The split works on *segments* (markers and the text between them): whole equal segments are
//! peeled off both ends first, then plain text is compared character by character only where both
//! sides end (or start) in text. That is what keeps `<|tool_call_begin|>` whole when the two renders
//! differ right after `<|tool_call_`.

use crate::text::is_space;
use serde::{Deserialize, Serialize};

/// Result of [`calculate_diff_split`]: `left == prefix + left + suffix` and likewise for `right`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffSplit {
    pub prefix: String,
    pub suffix: String,
    pub left: String,
    pub right: String,
}

/// Kind of a [`Segment`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    Text,
    /// `<…>` or `[…]`, delimiters included.
    Marker,
}

/// A piece of text: a marker or the text between markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub value: String,
}

/// Split `text` into markers (`<…>`, `[…]`) and text. An opener inside a marker is plain content
/// (`<a[b>` is one marker); an unclosed marker at the end is text.
pub fn segmentize_markers(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut border = 0;
    let mut closer: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match closer {
            None if b == b'<' || b == b'[' => {
                if border < i {
                    out.push(Segment { kind: SegmentKind::Text, value: text[border..i].to_string() });
                }
                border = i;
                closer = Some(if b == b'<' { b'>' } else { b']' });
            }
            Some(c) if b == c => {
                out.push(Segment { kind: SegmentKind::Marker, value: text[border..=i].to_string() });
                border = i + 1;
                closer = None;
            }
            _ => {}
        }
    }
    if border < text.len() {
        out.push(Segment { kind: SegmentKind::Text, value: text[border..].to_string() });
    }
    out
}

/// Drop segments that are only whitespace.
pub fn prune_whitespace_segments(segments: Vec<Segment>) -> Vec<Segment> {
    segments.into_iter().filter(|s| !s.value.trim_matches(is_space).is_empty()).collect()
}


/// Trim ASCII whitespace at both ends.
pub fn trim_ws(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Trim ASCII whitespace at the start.
pub fn trim_leading_ws(s: &str) -> &str {
    s.trim_start_matches(is_space)
}

/// Length in bytes of the common prefix of `a` and `b`, at a char boundary.
pub fn common_prefix_len(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    floor_boundary(a, n)
}

/// Length in bytes of the common suffix of `a` and `b`, at a char boundary.
pub fn common_suffix_len(a: &str, b: &str) -> usize {
    let n = a.bytes().rev().zip(b.bytes().rev()).take_while(|(x, y)| x == y).count();
    let mut n = n;
    while n > 0 && !a.is_char_boundary(a.len() - n) {
        n -= 1;
    }
    n
}

fn floor_boundary(s: &str, mut n: usize) -> usize {
    while n > 0 && !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Longest common prefix / suffix split of two strings on marker boundaries (see module docs).
pub fn calculate_diff_split(left: &str, right: &str) -> DiffSplit {
    let mut res = DiffSplit::default();
    let ls = segmentize_markers(left);
    let rs = segmentize_markers(right);
    if ls.is_empty() {
        res.right = right.to_string();
        return res;
    }
    if rs.is_empty() {
        res.left = left.to_string();
        return res;
    }
    // Inclusive segment windows [l0, l1] and [r0, r1] still undecided.
    let (mut l0, mut l1, mut r0, mut r1) = (0usize, ls.len() - 1, 0usize, rs.len() - 1);
    let (mut left_done, mut right_done) = (false, false);
    let mut suffix_parts: Vec<&str> = Vec::new();
    while l0 != l1 && r0 != r1 {
        let mut advanced = false;
        if ls[l0] == rs[r0] {
            res.prefix.push_str(&ls[l0].value);
            l0 += 1;
            r0 += 1;
            advanced = true;
        }
        if ls[l1] == rs[r1] {
            suffix_parts.push(&ls[l1].value);
            if l0 != l1 {
                l1 -= 1;
            } else {
                left_done = true;
            }
            if r0 != r1 {
                r1 -= 1;
            } else {
                right_done = true;
            }
            advanced = true;
        }
        if !advanced {
            break;
        }
    }
    // One side is down to a single segment: it may still match the other side's first or last.
    if l0 == l1 && r0 != r1 {
        if ls[l0] == rs[r1] {
            suffix_parts.push(&rs[r1].value);
            r1 -= 1;
            left_done = true;
        } else if ls[l0] == rs[r0] {
            res.prefix.push_str(&rs[r0].value);
            r0 += 1;
            left_done = true;
        }
    } else if r0 == r1 && l0 != l1 {
        if ls[l1] == rs[r0] {
            suffix_parts.push(&ls[l1].value);
            l1 -= 1;
            right_done = true;
        } else if ls[l0] == rs[r0] {
            res.prefix.push_str(&ls[l0].value);
            l0 += 1;
            right_done = true;
        }
    } else if l0 == l1 && r0 == r1 && ls[l0] == rs[r0] && ls[l0].kind == SegmentKind::Marker {
        res.prefix.push_str(&rs[r0].value);
        left_done = true;
        right_done = true;
    }
    let text_suffix_ok = ls[l1].kind == SegmentKind::Text && rs[r1].kind == SegmentKind::Text;
    let text_prefix_ok = ls[l0].kind == SegmentKind::Text && rs[r0].kind == SegmentKind::Text;
    let concat = |segs: &[Segment], from: usize, to_incl: usize, done: bool| -> String {
        let end = if done { to_incl } else { to_incl + 1 };
        segs.get(from..end.max(from)).map(|s| s.iter().map(|x| x.value.as_str()).collect()).unwrap_or_default()
    };
    let rem_l = concat(&ls, l0, l1, left_done);
    let rem_r = concat(&rs, r0, r1, right_done);
    let suf_len = if text_suffix_ok { common_suffix_len(&rem_l, &rem_r) } else { 0 };
    let pre_len = if text_prefix_ok {
        let a = rem_l.get(..rem_l.len() - suf_len).unwrap_or("");
        let b = rem_r.get(..rem_r.len() - suf_len).unwrap_or("");
        common_prefix_len(a, b)
    } else {
        0
    };
    res.prefix.push_str(rem_l.get(..pre_len).unwrap_or(""));
    let mut suffix = rem_l.get(rem_l.len() - suf_len..).unwrap_or("").to_string();
    for part in suffix_parts.iter().rev() {
        suffix.push_str(part);
    }
    res.suffix = suffix;
    res.left = rem_l.get(pre_len..rem_l.len() - suf_len).unwrap_or("").to_string();
    res.right = rem_r.get(pre_len..rem_r.len() - suf_len).unwrap_or("").to_string();
    if res.left.is_empty() && res.right.is_empty() {
        // No difference: represent it as all prefix.
        res.prefix = left.to_string();
        res.suffix.clear();
    }
    // Left entirely shared with right: peeling matching tails may have rotated the split (e.g. a
    // trailing "\n" in both); when left is a prefix of right, say exactly that.
    if res.left.is_empty() && !res.right.is_empty() && right.starts_with(left) {
        res.prefix = left.to_string();
        res.suffix.clear();
        res.right = right[left.len()..].to_string();
    }
    res
}

/// The part of `full` before the first occurrence of the common prefix of `left` and `right`
/// (empty if they share no prefix or `full` lacks it).
pub fn until_common_prefix<'a>(full: &'a str, left: &str, right: &str) -> &'a str {
    let n = common_prefix_len(left, right);
    if n == 0 {
        return "";
    }
    match full.find(&left[..n]) {
        Some(p) => &full[..p],
        None => "",
    }
}

/// The part of `full` after the last occurrence of the common suffix of `left` and `right`
/// (empty if they share no suffix or `full` lacks it).
pub fn after_common_suffix<'a>(full: &'a str, left: &str, right: &str) -> &'a str {
    let n = common_suffix_len(left, right);
    if n == 0 {
        return "";
    }
    let common = &left[left.len() - n..];
    match full.rfind(common) {
        Some(p) => &full[p + n..],
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_markers_whole() {
        let d = calculate_diff_split("<a><|x_begin|>A", "<a><|x_end|>B");
        assert_eq!(d.prefix, "<a>");
        assert_eq!(d.left, "<|x_begin|>A");
        assert_eq!(d.right, "<|x_end|>B");
    }

    #[test]
    fn multibyte_never_split() {
        let d = calculate_diff_split("xé", "xè");
        assert_eq!((d.prefix.as_str(), d.left.as_str(), d.right.as_str()), ("x", "é", "è"));
    }
}
