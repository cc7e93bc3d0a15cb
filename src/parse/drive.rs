//! The one streaming engine every output parser runs on: the push loop, the prefill, the end of input.
//!
//! A parser is a [`Machine`]: it keeps one `pending` buffer (the unconsumed tail of its input, in
//! [`Input`]). [`drive`] appends a chunk and hands the rest of the buffer to the machine's `step`
//! until a step asks for more input; what is left is the held-back suffix (see [`crate::parse::scan`]
//! for the holdback invariant). Each step scans only up to the first marker it finds
//! ([`next_marker`]), so a whole parse stays O(n · markers). Every machine is an
//! [`OutputParser`](super::OutputParser) through one blanket implementation, so prefill, end of input
//! and the emitter's delta coalescing are the same for all of them.

use crate::text::ByteSet;

/// Earliest occurrence of any of `markers` in `text`: (byte position, marker index), longest marker
/// on ties. It stops at the first hit instead of searching the whole text for every marker, so
/// repeated steps over one long chunk stay linear. Plain text is
/// skipped to the next byte a marker can start with (`memchr` when they all share one ASCII first
/// byte, as `<|…|>` markers do), so long runs between markers cost about a byte compare per byte.
pub fn next_marker(text: &str, markers: &[&str]) -> Option<(usize, usize)> {
    find_marker(text, markers, &ByteSet::first_bytes_of(markers))
}

/// Markers with what [`scan_in`] derives from them, computed once (at compile time for a format's constant
/// lists): their first bytes and the holdback window (longest marker − 1).
#[derive(Debug, Clone)]
pub struct MarkerSet<'a> {
    markers: &'a [&'a str],
    firsts: ByteSet,
    window: usize,
}

impl<'a> MarkerSet<'a> {
    pub const fn new(markers: &'a [&'a str]) -> Self {
        let (mut longest, mut i) = (0, 0);
        while i < markers.len() {
            if markers[i].len() > longest {
                longest = markers[i].len();
            }
            i += 1;
        }
        MarkerSet { markers, firsts: ByteSet::first_bytes_of(markers), window: longest.saturating_sub(1) }
    }

    /// Whether one of the markers could start in `text` (or continue from a prefix before it): false means
    /// all of `text` is plain text.
    pub fn may_start_in(&self, text: &str) -> bool {
        self.firsts.next_in(text, 0).is_some()
    }
}

fn find_marker(text: &str, markers: &[&str], firsts: &ByteSet) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some(p) = firsts.next_in(text, pos) {
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

/// [`scan_in`] over a plain list (tests).
#[cfg(test)]
pub fn scan(text: &str, markers: &[&str], at_end: bool) -> Scan {
    scan_in(text, &MarkerSet::new(markers), at_end)
}

/// Classify the start of `text` against the markers of `set`, applying the holdback rule. With
/// `at_end`, nothing is held back (no more input will come).
pub fn scan_in(text: &str, set: &MarkerSet, at_end: bool) -> Scan {
    let (markers, firsts) = (set.markers, &set.firsts);
    match find_marker(text, markers, firsts) {
        Some((0, i)) => Scan::Marker(i),
        Some((p, _)) => Scan::Text(p),
        None => {
            // A held-back marker prefix starts with a marker's first byte within the last
            // (longest marker − 1) bytes; most chunks of plain text have none, so skip the full check.
            let tail_bytes = text.as_bytes().get(text.len().saturating_sub(set.window)..).unwrap_or(&[]);
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

/// Consecutive zero-length steps tolerated before [`drive`] stops (a faulty step cannot spin).
const MAX_IDLE_STEPS: usize = 32;

/// How a [`drive`] loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drove {
    /// The buffer is used up or a step waits for more input.
    Waiting,
    /// Steps stopped making progress at this byte of `pending` (a defect; see [`Machine::stalled`]).
    Stalled(usize),
}

/// Append `chunk` to `pending` and run `step(rest, offset)` until it returns `None` (wait for more
/// input) or the buffer is used up; `offset` is the absolute byte offset of `rest` in the whole input,
/// given `*base` (bytes consumed before `pending`), which is advanced. A step returns how many bytes
/// it consumed; `Some(0)` is allowed for a pure state change (too many in a row stop the loop, so a
/// faulty step cannot spin). A length past `rest` or off a char boundary also stops it (no panic).
/// With `step_empty`, the step is also called on an empty rest (at the end of input, for machines
/// whose states settle by stepping).
pub fn drive(
    pending: &mut String,
    base: &mut usize,
    chunk: &str,
    step_empty: bool,
    mut step: impl FnMut(&str, usize) -> Option<usize>,
) -> Drove {
    pending.push_str(chunk);
    let mut i = 0;
    let mut idle = 0;
    let mut drove = Drove::Waiting;
    while let Some(rest) = pending.get(i..) {
        if rest.is_empty() && !step_empty {
            break;
        }
        match step(rest, *base + i) {
            Some(0) if idle < MAX_IDLE_STEPS => idle += 1,
            Some(0) => {
                drove = Drove::Stalled(i);
                break;
            }
            Some(n) if n <= rest.len() && rest.is_char_boundary(n) => {
                idle = 0;
                i += n;
            }
            _ => break,
        }
    }
    pending.drain(..i);
    *base += i;
    drove
}

/// The input side of a machine: held-back text, bytes consumed, the prefill, whether input ended.
#[derive(Debug, Default, Clone)]
pub struct Input {
    pending: String,
    base: usize,
    /// Bytes of the generation prompt read before the model output (see [`Machine::prefill`]).
    prefill_len: usize,
    finished: bool,
}

impl Input {
    /// Bytes of input consumed so far (the offset of the held-back text).
    pub fn offset(&self) -> usize {
        self.base
    }

    /// The held-back text.
    pub fn pending(&self) -> &str {
        &self.pending
    }

    /// Take the held-back text (at the end of input), counting it as consumed.
    pub fn take_pending(&mut self) -> String {
        self.base += self.pending.len();
        std::mem::take(&mut self.pending)
    }

    /// An absolute input offset as an offset in the model output (the prefill excluded).
    pub fn output_offset(&self, at: usize) -> usize {
        at.saturating_sub(self.prefill_len)
    }
}

/// The four accessors of a [`Machine`] whose parts are the fields `input`, `emit` and `diags`.
macro_rules! machine_parts {
    () => {
        fn input(&mut self) -> &mut $crate::parse::drive::Input {
            &mut self.input
        }

        fn emitter(&mut self) -> &mut $crate::parse::emit::Emitter {
            &mut self.emit
        }

        fn diagnostics_mut(&mut self) -> &mut $crate::parse::emit::Diagnostics {
            &mut self.diags
        }

        fn diagnostic_list(&self) -> &[$crate::api::Diagnostic] {
            self.diags.list()
        }
    };
}
pub(crate) use machine_parts;

/// A state machine fed through [`drive`]: implement `input`, `emitter`, `step` and `settle`, get the
/// chunk loop, the prefill and the end-of-input flush.
pub trait Machine: Clone + 'static {
    /// The machine's input buffer.
    fn input(&mut self) -> &mut Input;
    /// The machine's delta emitter.
    fn emitter(&mut self) -> &mut super::emit::Emitter;
    /// At end of input, after the held-back tail was stepped through: settle what the current state
    /// left open (a header, a call) — the machine-specific part of [`Machine::finish_machine`].
    fn settle(&mut self, is_partial: bool, out: &mut Vec<crate::api::Delta>) -> crate::Result<()>;
    /// Consume the start of `rest` (at absolute offset `at`); see [`drive`]. `at_end`: no more input.
    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<crate::api::Delta>) -> Option<usize>;
    /// Problems seen so far.
    fn diagnostic_list(&self) -> &[crate::api::Diagnostic];
    /// Where the machine records them.
    fn diagnostics_mut(&mut self) -> &mut super::emit::Diagnostics;

    /// True once the output reached a stop marker after which nothing more is expected.
    fn stopped(&self) -> bool {
        false
    }

    /// Whether `step` is also called on empty text at the end of input (see [`drive`]).
    fn steps_at_end(&self) -> bool {
        false
    }

    /// Steps stopped making progress on `rest` (at offset `at`): a defect. Returns the bytes the
    /// machine releases (for example as content, with a diagnostic); 0 leaves them pending.
    fn stalled(&mut self, _rest: &str, _at: usize, _out: &mut Vec<crate::api::Delta>) -> usize {
        0
    }

    /// A chunk that can be handled without the buffer (nothing held back): returns true if it was.
    fn fast_path(&mut self, _chunk: &str, _out: &mut Vec<crate::api::Delta>) -> bool {
        false
    }

    /// Read the part of the generation prompt the model output continues, before any output.
    /// Diagnostics and errors report offsets in the model output ([`Input::output_offset`]).
    fn prefill(&mut self, text: &str, out: &mut Vec<crate::api::Delta>) {
        self.input().prefill_len = text.len();
        self.diagnostics_mut().set_origin(text.len());
        self.emitter().begin(out.len());
        self.run(text, false, out);
    }

    /// Feed a chunk (ignored once input ended).
    fn run(&mut self, chunk: &str, at_end: bool, out: &mut Vec<crate::api::Delta>) {
        let mut input = std::mem::take(self.input());
        if !input.finished {
            if input.pending.is_empty() && !at_end && self.fast_path(chunk, out) {
                input.base += chunk.len();
            } else {
                let step_empty = at_end && self.steps_at_end();
                let drove = drive(&mut input.pending, &mut input.base, chunk, step_empty, |rest, at| self.step(rest, at, at_end, out));
                if let Drove::Stalled(i) = drove {
                    let rest = input.pending.get(i..).unwrap_or("").to_string();
                    let released = self.stalled(&rest, input.base, out).min(rest.len());
                    input.pending.drain(..released);
                    input.base += released;
                }
            }
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

impl<M: Machine> super::OutputParser for M {
    fn push(&mut self, chunk: &str, out: &mut Vec<crate::api::Delta>) {
        self.emitter().begin(out.len());
        self.run(chunk, false, out);
    }

    fn recycle(&mut self, spare: String) {
        self.emitter().recycle(spare);
    }

    fn prime(&mut self, prefill: &str, out: &mut Vec<crate::api::Delta>) {
        self.prefill(prefill, out);
    }

    fn finish(&mut self, is_partial: bool, out: &mut Vec<crate::api::Delta>) -> crate::Result<()> {
        self.emitter().begin(out.len());
        self.finish_machine(is_partial, out).map_err(|e| match e.offset() {
            Some(at) => {
                let offset = self.input().output_offset(at);
                e.with_offset(offset)
            }
            None => e,
        })
    }

    fn diagnostics(&self) -> &[crate::api::Diagnostic] {
        self.diagnostic_list()
    }

    fn stopped(&self) -> bool {
        Machine::stopped(self)
    }

    fn fork(&self) -> Option<Box<dyn super::OutputParser>> {
        Some(Box::new(self.clone()))
    }
}

/// A machine whose steps find markers in a fixed list: implement `on_marker` and `on_text`, and step
/// with [`MarkerMachine::scan_step`].
pub trait MarkerMachine: Machine {
    /// Handle marker `m`, found at offset `at`.
    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<crate::api::Delta>);
    /// Handle plain text; returns the bytes consumed (0 only after a state change).
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<crate::api::Delta>) -> usize;

    /// The usual step: the marker, or the text before it, at the start of `rest`.
    fn scan_step(
        &mut self,
        rest: &str,
        markers: &MarkerSet,
        at: usize,
        at_end: bool,
        out: &mut Vec<crate::api::Delta>,
    ) -> Option<usize> {
        let list = markers.markers;
        match scan_in(rest, markers, at_end) {
            Scan::Marker(i) => {
                let m = list.get(i).copied().unwrap_or("");
                self.on_marker(m, at, out);
                Some(m.len())
            }
            Scan::Text(n) => Some(self.on_text(head(rest, n), at, out)),
            Scan::Wait => None,
        }
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
        let mut base = 0;
        drive(&mut pending, &mut base, "abc<t", false, |rest, _| match scan(rest, &["<think>"], false) {
            Scan::Text(n) => Some(n),
            _ => None,
        });
        assert_eq!((base, pending.as_str()), (3, "<t"));
    }
}
