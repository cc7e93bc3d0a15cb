//! The push loop shared by the marker-level state machines (handlers and the generic parser).
//!
//! A parser keeps one `pending` buffer: the unconsumed tail of its input. [`drive`] appends a chunk and
//! hands the rest of the buffer to the parser's `step` until a step asks for more input; what is left
//! is the held-back suffix (see [`crate::parse::scan`] for the holdback invariant). Each step scans only
//! up to the first marker it finds ([`next_marker`]), so a whole parse stays O(n · markers).

/// Earliest occurrence of any of `markers` in `text`: (byte position, marker index), longest marker
/// on ties. It stops at the first hit instead of searching the whole text for every marker, so
/// repeated steps over one long chunk stay linear. Plain text is
/// skipped to the next byte a marker can start with (`memchr` when they all share one ASCII first
/// byte, as `<|…|>` markers do), so long runs between markers cost about a byte compare per byte.
pub fn next_marker(text: &str, markers: &[&str]) -> Option<(usize, usize)> {
    find_marker(text, markers, &FirstBytes::new(markers))
}

fn find_marker(text: &str, markers: &[&str], firsts: &FirstBytes) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some(p) = firsts.next_candidate(text, pos) {
        let mut best: Option<(usize, usize)> = None;
        for (i, m) in markers.iter().enumerate() {
            let mb = m.as_bytes();
            if !mb.is_empty() && bytes.get(p..p + mb.len()) == Some(mb) && best.map_or(true, |(_, l)| l < mb.len()) {
                best = Some((i, mb.len()));
            }
        }
        if let Some((i, _)) = best {
            return Some((p, i));
        }
        pos = p + 1;
    }
    None
}

/// The set of first bytes of a marker list, to skip text no marker can start in.
struct FirstBytes {
    set: [u64; 4],
    /// The only first byte, when all markers share one ASCII byte.
    single: Option<char>,
}

impl FirstBytes {
    fn new(markers: &[&str]) -> Self {
        let mut set = [0u64; 4];
        let (mut distinct, mut last) = (0, 0u8);
        for b in markers.iter().filter_map(|m| m.as_bytes().first().copied()) {
            if let Some(w) = set.get_mut(usize::from(b >> 6)) {
                if *w >> (b & 63) & 1 == 0 {
                    distinct += 1;
                    last = b;
                }
                *w |= 1 << (b & 63);
            }
        }
        let single = (distinct == 1 && last.is_ascii()).then(|| char::from(last));
        FirstBytes { set, single }
    }

    fn has(&self, b: u8) -> bool {
        self.set.get(usize::from(b >> 6)).map_or(false, |w| w >> (b & 63) & 1 == 1)
    }

    /// The first position at or after `from` whose byte starts some marker.
    fn next_candidate(&self, text: &str, from: usize) -> Option<usize> {
        // `from` follows an ASCII byte (or is 0), so it is a char boundary; `get` guards it anyway.
        if let (Some(c), Some(rest)) = (self.single, text.get(from..)) {
            return rest.find(c).map(|p| from + p);
        }
        let rest = text.as_bytes().get(from..)?;
        rest.iter().position(|&b| self.has(b)).map(|p| from + p)
    }
}

/// What a step found at the start of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Marker `idx` starts right here.
    Marker(usize),
    /// The first `n` bytes are plain text (no marker starts in them, none can still start there).
    Text(usize),
    /// Nothing can be decided yet: the whole text may still become a marker.
    Wait,
}

/// Classify the start of `text` against `markers`, applying the holdback rule. With `at_end`, nothing
/// is held back (no more input will come).
pub fn scan(text: &str, markers: &[&str], at_end: bool) -> Scan {
    let firsts = FirstBytes::new(markers);
    match find_marker(text, markers, &firsts) {
        Some((0, i)) => Scan::Marker(i),
        Some((p, _)) => Scan::Text(p),
        None => {
            // A held-back marker prefix starts with a marker's first byte within the last
            // (longest marker − 1) bytes; most chunks of plain text have none, so skip the full check.
            let window = markers.iter().map(|m| m.len()).max().unwrap_or(0).saturating_sub(1);
            let tail_bytes = text.as_bytes().get(text.len().saturating_sub(window)..).unwrap_or(&[]);
            let keep = if at_end || !tail_bytes.iter().any(|&b| firsts.has(b)) {
                0
            } else {
                crate::parse::scan::held_back_len(text, markers)
            };
            match text.len() - keep {
                0 => Scan::Wait,
                n => Scan::Text(n),
            }
        }
    }
}

/// Append `chunk` to `pending` and run `step(rest, offset)` until it returns `None` (wait for more
/// input) or the buffer is used up; `offset` is the absolute byte offset of `rest` in the whole input,
/// given `base` (bytes consumed before `pending`). Returns the new `base`. A step returns how many bytes
/// it consumed; `Some(0)` is allowed for a pure state change (a few in a row stop the loop, so a faulty
/// step cannot spin). A length past `rest` or off a char boundary also stops it (no panic).
pub fn drive(
    pending: &mut String,
    base: usize,
    chunk: &str,
    mut step: impl FnMut(&str, usize) -> Option<usize>,
) -> usize {
    pending.push_str(chunk);
    let mut i = 0;
    let mut idle = 0;
    while let Some(rest) = pending.get(i..) {
        if rest.is_empty() {
            break;
        }
        match step(rest, base + i) {
            Some(0) if idle < 4 => idle += 1,
            Some(n) if n > 0 && n <= rest.len() && rest.is_char_boundary(n) => {
                idle = 0;
                i += n;
            }
            _ => break,
        }
    }
    pending.drain(..i);
    base + i
}

/// The input side of a marker machine: held-back text, bytes consumed, whether input ended.
#[derive(Debug, Default)]
pub struct Input {
    pending: String,
    base: usize,
    finished: bool,
}

impl Input {
    /// Bytes of input consumed so far (the offset of the held-back text).
    pub fn offset(&self) -> usize {
        self.base
    }
}

/// A marker-level state machine fed through [`drive`]: implement `input` and `step`, get the
/// chunk loop and the end-of-input flush.
pub trait Machine {
    /// The machine's input buffer.
    fn input(&mut self) -> &mut Input;
    /// The machine's delta emitter.
    fn emitter(&mut self) -> &mut super::emit::Emitter;
    /// At end of input, after the held-back tail was stepped through: settle what the current state
    /// left open (a header, a call) — the machine-specific part of [`Machine::finish_machine`].
    fn settle(&mut self, is_partial: bool, out: &mut Vec<crate::api::Delta>) -> crate::Result<()>;
    /// Consume the start of `rest` (at absolute offset `at`); see [`drive`]. `at_end`: no more input.
    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<crate::api::Delta>) -> Option<usize>;

    /// Handle marker `m`, found at offset `at`.
    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<crate::api::Delta>);
    /// Handle plain text; returns the bytes consumed (0 only after a state change).
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<crate::api::Delta>) -> usize;

    /// The usual step: the marker, or the text before it, at the start of `rest`.
    fn scan_step(
        &mut self,
        rest: &str,
        markers: &[&str],
        at: usize,
        at_end: bool,
        out: &mut Vec<crate::api::Delta>,
    ) -> Option<usize> {
        match scan(rest, markers, at_end) {
            Scan::Marker(i) => {
                let m = markers.get(i).copied().unwrap_or("");
                self.on_marker(m, at, out);
                Some(m.len())
            }
            Scan::Text(n) => Some(self.on_text(head(rest, n), at, out)),
            Scan::Wait => None,
        }
    }

    /// Feed a chunk (ignored once input ended).
    fn run(&mut self, chunk: &str, at_end: bool, out: &mut Vec<crate::api::Delta>) {
        let mut input = std::mem::take(self.input());
        if !input.finished {
            input.base = drive(&mut input.pending, input.base, chunk, |rest, at| self.step(rest, at, at_end, out));
        }
        *self.input() = input;
    }

    /// End of input. Partial output drops the held-back tail (it may still become a marker); complete
    /// output steps through it as text. Returns false if input had already ended.
    fn end_input(&mut self, is_partial: bool, out: &mut Vec<crate::api::Delta>) -> bool {
        if self.input().finished {
            return false;
        }
        if is_partial {
            let input = self.input();
            input.base += input.pending.len();
            input.pending.clear();
        } else {
            self.run("", true, out);
        }
        self.input().finished = true;
        true
    }

    /// `OutputParser::finish` for a machine: end the input, settle the open state, flush the emitter.
    fn finish_machine(&mut self, is_partial: bool, out: &mut Vec<crate::api::Delta>) -> crate::Result<()> {
        if !self.end_input(is_partial, out) {
            return Ok(());
        }
        let result = self.settle(is_partial, out);
        self.emitter().finish(out);
        result
    }
}

/// The first `n` bytes of `s`, or all of it if `n` is not a char boundary inside `s` (never panics).
pub fn head(s: &str, n: usize) -> &str {
    s.get(..n).unwrap_or(s)
}

/// Everything after the first `n` bytes of `s`, or "" if `n` is not a char boundary inside `s`.
pub fn tail(s: &str, n: usize) -> &str {
    s.get(n..).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_marker_prefers_earliest_then_longest() {
        assert_eq!(next_marker("ab<|end|>", &["<|e", "<|end|>"]), Some((2, 1)));
        assert_eq!(next_marker("abc", &["x"]), None);
        assert_eq!(next_marker("é>>>", &[">>>"]), Some((2, 0)));
        // Candidates that fail, several first bytes, a non-ASCII first byte, an empty marker.
        assert_eq!(next_marker("<|x <|en <|end|>", &["<|end|>", "<|start|>"]), Some((9, 0)));
        assert_eq!(next_marker("a[b]c[TOOL]", &["]]", "[TOOL]"]), Some((5, 1)));
        assert_eq!(next_marker("aé«x«b»", &["«b»", ""]), Some((6, 0)));
        assert_eq!(next_marker("abc", &[""]), None);
    }

    #[test]
    fn scan_holds_back_possible_marker_starts() {
        assert_eq!(scan("ab<th", &["<think>"], false), Scan::Text(2));
        assert_eq!(scan("<th", &["<think>"], false), Scan::Wait);
        assert_eq!(scan("<th", &["<think>"], true), Scan::Text(3));
        assert_eq!(scan("<think>x", &["<think>"], false), Scan::Marker(0));
    }

    #[test]
    fn drive_keeps_unconsumed_tail() {
        let mut pending = String::new();
        let base = drive(&mut pending, 0, "abc<t", |rest, _| match scan(rest, &["<think>"], false) {
            Scan::Text(n) => Some(n),
            _ => None,
        });
        assert_eq!((base, pending.as_str()), (3, "<t"));
    }
}
