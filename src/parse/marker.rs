//! Markers as the analysis reports them (`"\n</parameter>\n"`), matched by their non-blank core.
//!
//! Templates render markers with surrounding newlines that models do not always reproduce, so a
//! marker matches on its trimmed core; its leading whitespace is stripped from the text before it
//! when present (a tagged string value must not keep the `\n` of `"\n</parameter>"`), and its
//! trailing whitespace is skipped after it when present.

use crate::text::is_space;

/// A marker split into leading whitespace, core and trailing whitespace.
#[derive(Debug, Clone, Default)]
pub struct Marker {
    /// Without surrounding whitespace; empty for an all-blank marker (which then matches nothing).
    pub core: String,
    /// Whitespace before the core.
    pub lead: String,
    /// Whitespace after the core.
    pub trail: String,
    /// `lead + core`, precomputed for holdback checks.
    lead_core: String,
    /// Other spellings of the core the model may write (rule R9, see `parse::auto::markers::spelling`); matched like
    /// the core, the longest spelling winning at one position.
    pub alts: Vec<String>,
}

/// Result of expecting a marker at the start of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The marker (after optional whitespace) ends at this byte offset.
    Matched(usize),
    /// The text cannot start with the marker.
    No,
    /// The text is a proper prefix of whitespace + marker: wait for more.
    NeedMore,
}

impl Marker {
    /// Split `s` into lead / core / trail.
    pub fn new(s: &str) -> Marker {
        let core = s.trim_matches(is_space);
        let lead_len = s.len() - s.trim_start_matches(is_space).len();
        let (lead, trail) = if core.is_empty() {
            (s.to_string(), String::new())
        } else {
            (s.get(..lead_len).unwrap_or("").to_string(), s.get(lead_len + core.len()..).unwrap_or("").to_string())
        };
        let lead_core = format!("{lead}{core}");
        Marker { core: core.to_string(), lead, trail, lead_core, alts: Vec::new() }
    }

    /// This marker, also matching `alts` (other spellings of its core; the core itself and blanks are
    /// left out).
    pub fn with_alts(mut self, alts: Vec<String>) -> Marker {
        if !self.core.is_empty() {
            self.alts = alts.into_iter().filter(|a| !a.trim_matches(is_space).is_empty() && *a != self.core).collect();
        }
        self
    }

    /// The core and its other spellings.
    pub fn spellings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.core.as_str()).chain(self.alts.iter().map(String::as_str)).filter(|s| !s.is_empty())
    }

    /// Bytes of the longest spelling (a search resumed this far back finds one cut by a chunk end).
    pub fn max_len(&self) -> usize {
        self.spellings().map(str::len).max().unwrap_or(0)
    }

    /// The spelling `matched` (a span `find` or `expect` reported) uses, when it is not the core.
    pub fn variant_in<'t>(&self, matched: &'t str) -> Option<&'t str> {
        let m = matched.trim_matches(is_space);
        (!self.alts.is_empty() && m != self.core).then_some(m)
    }

    /// True when the marker has no core (absent or all whitespace).
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// Skip whitespace at the start of `text`, then match the core. At `eof` a partial match is `No`.
    pub fn expect(&self, text: &str, eof: bool) -> Expect {
        if self.core.is_empty() {
            return Expect::No;
        }
        let rest = text.trim_start_matches(is_space);
        let skipped = text.len() - rest.len();
        if self.alts.is_empty() {
            return if rest.starts_with(self.core.as_str()) {
                Expect::Matched(skipped + self.core.len())
            } else if !eof && self.core.starts_with(rest) {
                Expect::NeedMore
            } else {
                Expect::No
            };
        }
        // Several spellings: wait while a longer one than any complete match may still follow, so
        // that every chunking takes the spelling the whole text shows.
        let best = self.spellings().filter(|s| rest.starts_with(s)).map(str::len).max();
        let longer_possible = !eof && self.spellings().any(|s| s.len() > rest.len() && s.starts_with(rest));
        match best {
            _ if longer_possible => Expect::NeedMore,
            Some(n) => Expect::Matched(skipped + n),
            None => Expect::No,
        }
    }

    /// First occurrence of the core in `text`: (start, end) where `start` also covers the marker's
    /// leading whitespace when the text has it right before the core.
    pub fn find(&self, text: &str) -> Option<(usize, usize)> {
        self.find_from(text, 0)
    }

    /// [`Marker::find`] for a core that starts at or after `from` (a char boundary): a caller that
    /// knows no spelling starts earlier (`parse::auto`'s search scope) searches only the rest. The
    /// leading whitespace may still lie before `from`.
    pub fn find_from(&self, text: &str, from: usize) -> Option<(usize, usize)> {
        let p = if self.alts.is_empty() {
            text.get(from..)?.find(self.core.as_str()).filter(|_| !self.core.is_empty())? + from
        } else {
            let (p, len) = self.find_spelling(text, from)?;
            return Some((self.with_lead(text, p), p + len));
        };
        Some((self.with_lead(text, p), p + self.core.len()))
    }

    /// Where a core found at `p` starts together with its leading whitespace, when the text has it.
    fn with_lead(&self, text: &str, p: usize) -> usize {
        let before = text.get(..p).unwrap_or("");
        if !self.lead.is_empty() && before.ends_with(self.lead.as_str()) { p - self.lead.len() } else { p }
    }

    /// [`Marker::find_from`] over every spelling: the earliest, the longest there, as (start, length).
    /// A match that a longer spelling could still extend once more text comes (the text ends inside
    /// it) is not reported: [`Marker::holdback`] keeps it, so the whole text and every chunking see the
    /// same spelling.
    fn find_spelling(&self, text: &str, from: usize) -> Option<(usize, usize)> {
        // The earliest position where a spelling starts (the longest there). One pass that stops at the
        // first match: searching each spelling over the whole text made a spelling that never occurs
        // cost the rest of the output on every call (quadratic on repeated markers).
        let mut firsts = [false; 256];
        for b in self.spellings().filter_map(|s| s.as_bytes().first()) {
            firsts[usize::from(*b)] = true;
        }
        let bytes = text.as_bytes();
        let (p, len) = (from..bytes.len()).filter(|&i| bytes.get(i).is_some_and(|b| firsts[usize::from(*b)]) && text.is_char_boundary(i)).find_map(|i| {
            let rest = text.get(i..).unwrap_or("");
            self.spellings().filter(|s| rest.starts_with(*s)).map(str::len).max().map(|l| (i, l))
        })?;
        let tail = text.get(p..).unwrap_or("");
        if self.spellings().any(|s| s.len() > tail.len() && s.starts_with(tail)) {
            return None;
        }
        Some((p, len))
    }

    /// The special token a marker opens with when the marker is longer than it: `<|channel>` for
    /// `<|channel>thought`. Models sometimes emit that token twice, so a repeated head right before
    /// the marker is a stray token, not text.
    pub fn token_head(&self) -> Option<&str> {
        let close = match self.core.as_bytes().first()? {
            b'<' => '>',
            b'[' => ']',
            _ => return None,
        };
        let end = self.core.find(close)? + 1;
        self.core.get(..end).filter(|h| h.len() < self.core.len())
    }

    /// Mark in `set` every byte a match or a holdback of this marker must start with (the first
    /// byte of its core and of its leading whitespace): text without any of them is plain text.
    pub fn mark_first_bytes(&self, set: &mut [bool; 256]) {
        if self.core.is_empty() {
            return;
        }
        for b in [self.lead_core.as_bytes().first(), self.core.as_bytes().first()].into_iter().flatten() {
            set[usize::from(*b)] = true;
        }
        for b in self.alts.iter().filter_map(|a| a.as_bytes().first()) {
            set[usize::from(*b)] = true;
        }
    }

    /// How many trailing bytes of `text` could still be the start of this marker (its leading
    /// whitespace included), so they must be held back.
    pub fn holdback(&self, text: &str) -> usize {
        let tail = text.as_bytes();
        // Only spellings whose first byte is in the tail they could start in.
        let alts: Vec<&str> = self
            .alts
            .iter()
            .filter(|a| a.as_bytes().first().is_some_and(|f| tail.get(tail.len().saturating_sub(a.len())..).is_some_and(|w| w.contains(f))))
            .map(String::as_str)
            .collect();
        // With the marker's leading whitespace in front, as for the core.
        let with_lead: Vec<String> = if self.lead.is_empty() { Vec::new() } else { alts.iter().map(|a| format!("{}{a}", self.lead)).collect() };
        let alts = if alts.is_empty() { 0 } else { super::scan::held_back_len(text, &alts) };
        let alts = alts.max(super::scan::held_back_len(text, &with_lead.iter().map(String::as_str).collect::<Vec<_>>()));
        alts.max(self.core_holdback(text))
    }

    fn core_holdback(&self, text: &str) -> usize {
        let Some(&first) = self.lead_core.as_bytes().first().filter(|_| !self.core.is_empty()) else { return 0 };
        let tail = text.as_bytes();
        let window = tail.get(tail.len().saturating_sub(self.lead_core.len())..).unwrap_or(tail);
        let core_first = self.core.as_bytes().first().copied().unwrap_or(first);
        // Only a tail holding the marker's first byte can be a partial marker.
        if !window.contains(&first) && !window.contains(&core_first) {
            return 0;
        }
        let with_lead = if self.lead.is_empty() { 0 } else { super::scan::held_back_len(text, &[self.lead_core.as_str()]) };
        with_lead.max(super::scan::held_back_len(text, &[self.core.as_str()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_splits_and_matches_core() {
        let m = Marker::new("\n</parameter>\n");
        assert_eq!((m.lead.as_str(), m.core.as_str(), m.trail.as_str()), ("\n", "</parameter>", "\n"));
        assert_eq!(m.find("abc\n</parameter>"), Some((3, 16)));
        assert_eq!(m.find("abc</parameter>"), Some((3, 15)));
        assert_eq!(m.holdback("abc\n"), 1);
        assert_eq!(m.holdback("abc\n</par"), 6);
        assert_eq!(m.expect("  </parameter>x", false), Expect::Matched(14));
        assert_eq!(m.expect(" </para", false), Expect::NeedMore);
        assert_eq!(m.expect(" </para", true), Expect::No);
        assert_eq!(m.expect("x", false), Expect::No);
        assert!(Marker::new("\n").is_empty());
        assert_eq!(Marker::new("<|channel>thought\n").token_head(), Some("<|channel>"));
        assert_eq!(Marker::new("<think>").token_head(), None);
        assert_eq!(Marker::new("thought").token_head(), None);
    }

    #[test]
    fn other_spellings_match_longest_first_and_wait_while_ambiguous() {
        let m = Marker::new("<|channel>thought\n").with_alts(vec!["<|channel>".into()]);
        assert_eq!(m.expect("<|channel>thought\nx", false), Expect::Matched(17));
        assert_eq!(m.expect("<|channel>x", false), Expect::Matched(10));
        assert_eq!(m.expect("<|channel>", false), Expect::NeedMore);
        assert_eq!(m.expect("<|channel>", true), Expect::Matched(10));
        assert_eq!(m.find("a<|channel>b"), Some((1, 11)));
        // The text ends where the longer spelling may still follow: not found, held back.
        assert_eq!(m.find("a<|channel>"), None);
        assert_eq!(m.holdback("a<|channel>"), 10);
        let end = Marker::new("\n</think>").with_alts(vec!["</THINK>".into()]);
        assert_eq!(end.find("r\n</THINK>"), Some((1, 10)));
        assert_eq!(end.holdback("r\n</T"), 4);
    }
}
