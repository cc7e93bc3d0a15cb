//! Delimiter matching for declared response templates, with the partial matching transformers
//! uses to decide what may be emitted while streaming (see its "Regex portability" notes).
//!
//! Python `regex` syntax is accepted where the Rust `regex` engine means the same thing: DOTALL,
//! not MULTILINE, Unicode `\w \d \s`, `(?P<name>…)`, `\Z` (rewritten `\z`). Look-around, backreferences,
//! atomic groups and possessive quantifiers are rejected with an `InvalidInput` error naming the
//! construct; `\p{…}` property classes with an invalid-pattern error. Known difference: Python's `$`
//! also matches before a final `\n`; here only at the end.
//!
//! Streaming: a regex delimiter keeps, per start position that can still begin a match, the state
//! of an anchored DFA (all-matches semantics, so "dead" means no continuation can match); starts in
//! the same state are merged (the leftmost kept), so each byte is stepped once per live DFA state:
//! O(n) for a fixed template. A start that saw a complete match and is no longer live is final;
//! the leftmost-first match there (with its named groups) comes from the PikeVM.
//!
//! Engines: one Thompson NFA per pattern, run by regex-automata's lazy DFA (`hybrid`: states are
//! determinised on first use, so nothing is built up front and no dense-DFA code ships in the wasm)
//! and by its PikeVM (leftmost-first search with captures). No `meta` engine, backtracker or
//! literal prefilters: delimiters are short and searched once per match (wasm size, issue #15).

use crate::text::ByteSet;
use crate::{Error, ErrorKind, Result};
use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson::backtrack::{self, BoundedBacktracker};
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::util::captures::Captures;
use regex_automata::nfa::thompson::{self, NFA};
use std::sync::Mutex;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, Input, MatchKind};

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// Python `regex` pattern → the Rust `regex` dialect, or an error for what it cannot express.
pub fn translate(p: &str) -> std::result::Result<String, String> {
    let cs: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        if c == '\\' {
            let Some(n) = next else { return Err("a trailing backslash".into()) };
            if !in_class && n.is_ascii_digit() && n != '0' {
                return Err("backreferences (\\1…) are not supported".into());
            }
            if n == 'Z' {
                out.push_str("\\z");
            } else {
                out.push(c);
                out.push(n);
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                ']' if i > class_start => in_class = false,
                '[' => {
                    out.push_str("\\[");
                    i += 1;
                    continue;
                }
                '&' | '~' => {
                    out.push('\\');
                }
                '-' if next == Some('-') => {
                    out.push_str("-\\-");
                    i += 2;
                    continue;
                }
                _ => {}
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                if cs.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` first in a class is a literal.
                class_start = i + usize::from(cs.get(i) == Some(&']'));
                if cs.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            '(' if next == Some('?') => {
                let rest: String = cs[i + 2..cs.len().min(i + 5)].iter().collect();
                for (prefix, what) in [("=", "look-ahead"), ("!", "negative look-ahead"), ("<=", "look-behind"), ("<!", "negative look-behind"), (">", "atomic groups"), ("P=", "named backreferences"), ("#", "comments"), ("|", "branch reset")] {
                    if rest.starts_with(prefix) {
                        return Err(format!("{what} ((?{prefix}…) are not supported"));
                    }
                }
            }
            '{' => {
                // Python reads `{` that does not start `{m}`, `{m,}`, `{,n}`, `{m,n}` as a literal.
                let close = cs[i + 1..].iter().position(|&x| x == '}').map(|k| i + 1 + k);
                let valid = close.is_some_and(|e| {
                    let inner: String = cs[i + 1..e].iter().collect();
                    let mut parts = inner.splitn(2, ',');
                    let a = parts.next().unwrap_or("");
                    let b = parts.next();
                    !inner.is_empty() && a.chars().all(|x| x.is_ascii_digit()) && b.is_none_or(|b| b.chars().all(|x| x.is_ascii_digit())) && !(a.is_empty() && b.is_none())
                });
                if !valid {
                    out.push_str("\\{");
                    i += 1;
                    continue;
                }
                let e = close.unwrap_or(i);
                let inner: String = cs[i + 1..e].iter().collect();
                // `{,n}` is `{0,n}` in Python.
                out.push('{');
                if inner.starts_with(',') {
                    out.push('0');
                }
                out.push_str(&inner);
                out.push('}');
                i = e + 1;
                if cs.get(i) == Some(&'+') {
                    return Err("possessive quantifiers are not supported".into());
                }
                continue;
            }
            '}' => {
                out.push_str("\\}");
                i += 1;
                continue;
            }
            '*' | '+' | '?' if next == Some('+') && !(c == '?' && i > 0 && matches!(cs[i - 1], '*' | '+' | '?' | '}')) => {
                return Err("possessive quantifiers are not supported".into());
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    if in_class {
        return Err("an unterminated character class".into());
    }
    super::case_fold::spell_out(&out)
}

pub(super) fn syntax_config() -> syntax::Config {
    syntax::Config::new().dot_matches_new_line(true).unicode(true).multi_line(false)
}

/// A translated pattern compiled to a Thompson NFA (shared by the PikeVM and the lazy DFA).
fn compile_nfa(rust: &str) -> std::result::Result<NFA, thompson::BuildError> {
    thompson::Compiler::new().syntax(syntax_config()).build(rust)
}

/// Leftmost-first search with named groups (Python's `re.search` semantics within the span).
pub fn groups(rust: &str) -> std::result::Result<Groups, thompson::BuildError> {
    Groups::new(compile_nfa(rust)?)
}

/// Reads a pattern's groups: the bounded backtracker where the haystack fits its visited-set budget
/// (the short span of one match, the common case: 5–10× faster than the PikeVM, which copies every
/// thread's groups at each byte), else the PikeVM. Both give the leftmost-first match.
#[derive(Debug)]
pub struct Groups {
    vm: PikeVM,
    bt: BoundedBacktracker,
}

/// Search state for [`Groups`].
#[derive(Debug, Clone)]
pub struct GroupsCache {
    vm: pikevm::Cache,
    bt: backtrack::Cache,
}

impl Groups {
    fn new(nfa: NFA) -> std::result::Result<Groups, thompson::BuildError> {
        let bt = BoundedBacktracker::new_from_nfa(nfa.clone())?;
        Ok(Groups { vm: PikeVM::new_from_nfa(nfa)?, bt })
    }

    /// A search cache.
    pub fn create_cache(&self) -> GroupsCache {
        GroupsCache { vm: self.vm.create_cache(), bt: self.bt.create_cache() }
    }

    /// Empty groups to search into.
    pub fn create_captures(&self) -> Captures {
        self.vm.create_captures()
    }

    /// The leftmost-first match in `input`, with its groups, into `caps`.
    pub fn search(&self, cache: &mut GroupsCache, input: &Input, caps: &mut Captures) {
        if input.get_span().len() > self.bt.max_haystack_len() || self.bt.try_search(&mut cache.bt, input, caps).is_err() {
            self.vm.search(&mut cache.vm, input, caps);
        }
    }

    /// Every match's groups, left to right (as `re.finditer`).
    pub fn captures_all(&self, cache: &mut GroupsCache, text: &str) -> Vec<Captures> {
        self.vm.captures_iter(&mut cache.vm, text).collect()
    }

    /// The end of the last match in `text`.
    pub fn last_match_end(&self, cache: &mut GroupsCache, text: &str) -> Option<usize> {
        self.vm.find_iter(&mut cache.vm, text).last().map(|m| m.end())
    }

    /// The names of the groups.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vm.get_nfa().group_info().pattern_names(regex_automata::PatternID::ZERO).flatten()
    }
}

/// A compiled delimiter: a regex, or literals (the fast path: exact partial matching by prefix).
#[derive(Debug)]
pub struct Pattern {
    kind: Kind,
    /// Named groups of the pattern (for transforms).
    pub names: Vec<String>,
}

#[derive(Debug)]
enum Kind {
    Literals { lits: Vec<String>, can_extend: bool, first: ByteSet },
    Regex { vm: Groups, dfa: DFA, first: Option<Prefilter>, spare: Mutex<Spare> },
}

/// Automata caches kept between parses. A lazy DFA determinises its states on first use, so a parser
/// that started each reply from a fresh cache paid that again every time (with the caches' own
/// allocation, ≈ 40 % of a short parse); parsers take them here and give them back when dropped.
#[derive(Debug, Default)]
struct Spare {
    dfa: Vec<DfaCache>,
    vm: Vec<GroupsCache>,
}

/// Caches kept per pattern: more parsers than this at once allocate their own.
const SPARE_CACHES: usize = 4;

/// The outcome of scanning for one delimiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// Nothing here, and nothing that more input could turn into a match.
    None,
    /// From this offset on, more input could still make (or grow) a match: hold it back.
    Pending(usize),
    /// A final match `[start, end)` with its named groups.
    Match(usize, usize, Vec<(String, String)>),
}

/// Per-delimiter streaming state (positions are offsets in the parser's buffer).
#[derive(Debug, Default, Clone)]
pub struct Scanner {
    /// Offsets before this are fully examined.
    frontier: usize,
    /// Live anchored-DFA runs: (start offset, state after the bytes up to `frontier`).
    live: Vec<(usize, LazyStateID)>,
    /// Leftmost start at or after which a complete match was seen.
    matched: Option<usize>,
    /// The lazy DFA's states for this stream (made on first use).
    cache: Option<DfaCache>,
}

/// The lazy DFA's cache bound per stream; states are only made for bytes actually seen, so a
/// delimiter rarely needs more than a few KB. Past the bound the cache is cleared (see `scan_regex`).
const DFA_CACHE_BYTES: usize = 8 << 20;

impl Pattern {
    /// A regex delimiter (Python syntax, see the module docs).
    pub fn regex(scope: &str, source: &str) -> Result<Pattern> {
        Pattern::regex_with_cache(scope, source, DFA_CACHE_BYTES)
    }

    fn regex_with_cache(scope: &str, source: &str, cache_bytes: usize) -> Result<Pattern> {
        let rust = translate(source).map_err(|e| invalid(format!("{scope}: pattern {source:?}: {e}")))?;
        let nfa = compile_nfa(&rust).map_err(|e| invalid(format!("{scope}: invalid pattern {source:?}: {e}")))?;
        let dfa = DFA::builder()
            .configure(DFA::config().match_kind(MatchKind::All).cache_capacity(cache_bytes).skip_cache_capacity_check(cache_bytes < DFA_CACHE_BYTES))
            .build_from_nfa(nfa.clone())
            .map_err(|e| invalid(format!("{scope}: pattern {source:?} cannot be matched incrementally: {e}")))?;
        let first = Prefilter::new(&dfa);
        let vm = Groups::new(nfa).map_err(|e| invalid(format!("{scope}: invalid pattern {source:?}: {e}")))?;
        let names = vm.names().map(str::to_string).collect();
        Ok(Pattern { kind: Kind::Regex { vm, dfa, first, spare: Mutex::default() }, names })
    }

    /// Literal delimiters (any of them).
    pub fn literals(scope: &str, lits: &[String]) -> Result<Pattern> {
        if lits.is_empty() {
            return Err(invalid(format!("{scope}: a literal list must hold at least one literal")));
        }
        if lits.iter().any(String::is_empty) {
            return Err(invalid(format!("{scope}: literals cannot be empty strings")));
        }
        let mut uniq: Vec<String> = Vec::new();
        for l in lits {
            if !uniq.contains(l) {
                uniq.push(l.clone());
            }
        }
        let can_extend = uniq.iter().any(|a| uniq.iter().any(|b| a != b && a.starts_with(b.as_str())));
        let first = literal_first_bytes(&uniq);
        Ok(Pattern { kind: Kind::Literals { lits: uniq, can_extend, first }, names: Vec::new() })
    }

    /// The leftmost delimiter at or after `pos` in `buf` (at `eos` no more input will come).
    pub fn scan(&self, sc: &mut Scanner, buf: &str, pos: usize, eos: bool) -> Scan {
        match &self.kind {
            Kind::Literals { lits, can_extend, first } => scan_literals(lits, *can_extend, first, sc, buf, pos, eos),
            Kind::Regex { dfa, first, spare, .. } => {
                if eos {
                    return self.captures_at(buf, pos, false);
                }
                if sc.cache.is_none() {
                    let kept = spare.lock().ok().and_then(|mut s| s.dfa.pop());
                    sc.cache = Some(kept.unwrap_or_else(|| dfa.create_cache()));
                }
                scan_regex(self, dfa, first.as_ref(), sc, buf, pos)
            }
        }
    }

    /// Give a finished scanner's automata cache back for the next parser.
    pub fn recycle(&self, sc: &mut Scanner) {
        if let (Kind::Regex { spare, .. }, Some(cache)) = (&self.kind, sc.cache.take()) {
            if let Ok(mut s) = spare.lock() {
                if s.dfa.len() < SPARE_CACHES {
                    s.dfa.push(cache);
                }
            }
        }
    }

    /// Run `f` with the PikeVM and a cache for it (kept between calls).
    fn with_vm<R>(&self, vm: &Groups, spare: &Mutex<Spare>, f: impl FnOnce(&mut GroupsCache) -> R) -> R {
        let mut cache = spare.lock().ok().and_then(|mut s| s.vm.pop()).unwrap_or_else(|| vm.create_cache());
        let out = f(&mut cache);
        if let Ok(mut s) = spare.lock() {
            if s.vm.len() < SPARE_CACHES {
                s.vm.push(cache);
            }
        }
        out
    }

    /// The leftmost-first match at or after `pos` (at `pos` when `anchored`), with its named groups.
    fn captures_at(&self, buf: &str, pos: usize, anchored: bool) -> Scan {
        let Kind::Regex { vm, spare, .. } = &self.kind else { return Scan::None };
        let mut caps = vm.create_captures();
        let input = Input::new(buf).span(pos..buf.len()).anchored(if anchored { Anchored::Yes } else { Anchored::No });
        self.with_vm(vm, spare, |cache| vm.search(cache, &input, &mut caps));
        let Some(m) = caps.get_match() else { return Scan::None };
        let mut groups = Vec::new();
        for name in &self.names {
            if let Some(span) = caps.get_group_by_name(name) {
                groups.push((name.clone(), buf[span.range()].to_string()));
            }
        }
        Scan::Match(m.start(), m.end(), groups)
    }

    /// Last match end in `text` (for `start_anchor`), if any.
    pub fn last_match_end(&self, text: &str) -> Option<usize> {
        match &self.kind {
            Kind::Literals { lits, first, .. } => {
                let mut last = None;
                let mut at = 0;
                // Leftmost-longest, non-overlapping, as a regex alternation sorted longest-first finds
                // them (a literal's first byte is never a UTF-8 continuation byte: every hit is a boundary).
                while let Some(p) = first.next_in(text, at) {
                    match lits.iter().filter(|l| text[p..].starts_with(l.as_str())).map(|l| p + l.len()).max() {
                        Some(e) => {
                            last = Some(e);
                            at = e;
                        }
                        None => at = p + 1,
                    }
                }
                last
            }
            Kind::Regex { vm, spare, .. } => self.with_vm(vm, spare, |cache| vm.last_match_end(cache, text)),
        }
    }
}

/// Where a regex delimiter's match can begin, read off its DFA when the pattern is compiled: the
/// bytes a match can begin with, whatever precedes it (the union over every look-behind byte, for
/// patterns with `^` or `\b`), and the literal text every match begins with (`to=functions.`). A run
/// is started only at a first byte, and text is skipped to the next occurrence of the prefix without
/// stepping the DFA: a delimiter whose first byte is a common letter no longer costs a DFA run at
/// each occurrence of that letter.
#[derive(Debug)]
struct Prefilter {
    first: ByteSet,
    /// Every match begins with this (whole characters; may be empty).
    prefix: String,
    /// The prefix's byte least likely in prose and its offset: searched for, then the prefix checked
    /// around it (`to=functions.` is found by its `=`, not by every `t` of the text).
    rare: Option<(ByteSet, usize)>,
}

/// How common a byte is in model output, roughly (lower: rarer); what a prefix is searched by.
fn commonness(b: u8) -> u8 {
    match b {
        b' ' | b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' | b'h' | b'l' | b'\n' => 4,
        b'a'..=b'z' => 3,
        b'A'..=b'Z' | b'0'..=b'9' | b',' | b'.' => 2,
        _ if b.is_ascii() => 1,
        _ => 5,
    }
}

impl Prefilter {
    /// `None` (every position may start a run) when the DFA gives up.
    fn new(dfa: &DFA) -> Option<Prefilter> {
        let mut cache = dfa.create_cache();
        let mut starts = Vec::new();
        for look_behind in std::iter::once(None).chain((0..=255u8).map(Some)) {
            let s0 = dfa.start_state(&mut cache, &start::Config::new().anchored(Anchored::Yes).look_behind(look_behind)).ok()?;
            if !starts.contains(&s0) {
                starts.push(s0);
            }
        }
        let mut first = Vec::new();
        for b in 0..=255u8 {
            // A pattern that matches the empty string is live after any byte (its match is reported one
            // byte late), and a byte the DFA cannot decide is a quit state, not a dead one: both count.
            for &s0 in &starts {
                if !dfa.next_state(&mut cache, s0, b).ok()?.is_dead() {
                    first.push(b);
                    break;
                }
            }
        }
        let prefix = match starts[..] {
            [s0] => literal_prefix(dfa, &mut cache, s0),
            _ => String::new(),
        };
        let rare = prefix.bytes().enumerate().min_by_key(|&(_, b)| commonness(b)).filter(|&(_, b)| b.is_ascii()).map(|(at, b)| (ByteSet::new([b]), at));
        Some(Prefilter { first: ByteSet::new(first), prefix, rare })
    }

    /// The first offset at or after `from` where a match can begin.
    fn next_start(&self, buf: &str, from: usize) -> Option<usize> {
        if let (Some((rare, offset)), true) = (&self.rare, self.prefix.len() >= 2) {
            let mut at = from + offset;
            while let Some(hit) = rare.next_in(buf, at) {
                let start = hit - offset;
                if buf.as_bytes()[start..].starts_with(self.prefix.as_bytes()) {
                    return Some(start);
                }
                at = hit + 1;
            }
            // Not whole in the buffer: only its beginning, cut off by the end, can still become one.
            return self.first.next_in(buf, from.max(buf.len().saturating_sub(self.prefix.len() - 1)));
        }
        self.first.next_in(buf, from)
    }
}

/// The bytes every match starting in `s0` begins with: the DFA's path while exactly one byte leads on
/// and no match has ended, cut to whole characters (at most 32 bytes).
fn literal_prefix(dfa: &DFA, cache: &mut DfaCache, s0: LazyStateID) -> String {
    let mut bytes = Vec::new();
    let mut s = s0;
    while bytes.len() < 32 {
        let mut only = None;
        for b in 0..=255u8 {
            let Ok(next) = dfa.next_state(cache, s, b) else { return String::new() };
            if next.is_match() {
                // A match ends before `b`: the prefix stops here.
                only = None;
                break;
            }
            if !next.is_dead() {
                if only.is_some() {
                    only = None;
                    break;
                }
                only = Some((b, next));
            }
        }
        let Some((b, next)) = only else { break };
        bytes.push(b);
        s = next;
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            String::from_utf8_lossy(&e.into_bytes()[..valid]).into_owned()
        }
    }
}

/// The first bytes of literal delimiters.
fn literal_first_bytes(lits: &[String]) -> ByteSet {
    ByteSet::new(lits.iter().map(|l| l.as_bytes()[0]))
}

fn scan_regex(pattern: &Pattern, dfa: &DFA, first: Option<&Prefilter>, sc: &mut Scanner, buf: &str, pos: usize) -> Scan {
    // Runs merged into a run that started before `pos` (now consumed) must be recomputed: rescan
    // from `pos` (only the text after the last committed delimiter).
    if sc.frontier < pos || sc.matched.is_some_and(|m| m < pos) || sc.live.iter().any(|&(s, _)| s < pos) {
        sc.restart(pos);
    }
    // A cache clear invalidates the kept states: rescan once from `pos`; should the cache overflow
    // again (a pattern with millions of reachable states), hold everything back and rescan on the
    // next call: slower, never wrong (the end of the stream searches the whole rest).
    for _ in 0..2 {
        if let Some(found) = advance(pattern, dfa, first, sc, buf) {
            return found;
        }
        sc.restart(pos);
    }
    Scan::Pending(pos)
}

impl Scanner {
    fn restart(&mut self, pos: usize) {
        *self = Scanner { frontier: pos, cache: self.cache.take(), ..Scanner::default() };
    }
}

/// Step the live runs over the bytes after the frontier; `None` when the lazy DFA's cache was cleared.
fn advance(pattern: &Pattern, dfa: &DFA, first: Option<&Prefilter>, sc: &mut Scanner, buf: &str) -> Option<Scan> {
    let cache = sc.cache.get_or_insert_with(|| dfa.create_cache());
    let clears = cache.clear_count();
    let bytes = buf.as_bytes();
    let mut end = bytes.len();
    let mut i = sc.frontier;
    while i < bytes.len() {
        if sc.live.is_empty() {
            if let Some(first) = first {
                // Nothing in flight: jump to the next place a match can begin.
                match first.next_start(buf, i) {
                    Some(at) => i = at,
                    None => break,
                }
            }
        }
        let b = bytes[i];
        // A run may start only on a character boundary (and, with a prefilter, at a first byte).
        if buf.is_char_boundary(i) && first.is_none_or(|f| f.first.has(b)) {
            let config = start::Config::new().anchored(Anchored::Yes).look_behind(i.checked_sub(1).map(|j| bytes[j]));
            if let Ok(s0) = dfa.start_state(cache, &config) {
                if cache.clear_count() != clears {
                    return None;
                }
                if !s0.is_dead() && !sc.live.iter().any(|&(_, st)| st == s0) {
                    sc.live.push((i, s0));
                }
            }
        }
        let mut k = 0;
        while k < sc.live.len() {
            let (start, st) = sc.live[k];
            let next = dfa.next_state(cache, st, b).ok()?;
            // Every other kept state is stale after a clear: stop before stepping one.
            if cache.clear_count() != clears {
                return None;
            }
            if next.is_match() {
                sc.matched = Some(sc.matched.map_or(start, |m| m.min(start)));
            }
            if next.is_dead() || next.is_quit() || sc.live[..k].iter().any(|&(_, s)| s == next) {
                sc.live.remove(k);
            } else {
                sc.live[k].1 = next;
                k += 1;
            }
        }
        // Decided: a complete match no live run before it can pre-empt.
        if let Some(m) = sc.matched {
            if sc.live.iter().all(|&(s, _)| s > m) {
                end = i + 1;
                break;
            }
        }
        i += 1;
    }
    sc.frontier = end;
    let pending = sc.live.iter().map(|&(s, _)| s).min();
    Some(match (sc.matched, pending) {
        (Some(m), p) if p.is_none_or(|p| m < p) => match pattern.captures_at(buf, m, true) {
            Scan::None => pending.map_or(Scan::None, Scan::Pending),
            found => found,
        },
        (_, Some(p)) => Scan::Pending(p),
        _ => Scan::None,
    })
}

fn scan_literals(lits: &[String], can_extend: bool, first: &ByteSet, sc: &mut Scanner, buf: &str, pos: usize, eos: bool) -> Scan {
    // Offsets before the frontier held neither a match nor the start of one.
    let from = pos.max(sc.frontier.min(buf.len()));
    // A literal's first byte is never a UTF-8 continuation byte, so every hit is a character boundary.
    let mut next = from;
    while let Some(p) = first.next_in(buf, next) {
        next = p + 1;
        let rest = &buf[p..];
        if let Some(full) = lits.iter().filter(|l| rest.starts_with(l.as_str())).max_by_key(|l| l.len()) {
            let end = p + full.len();
            sc.frontier = p;
            if !eos && can_extend && end == buf.len() {
                return Scan::Pending(p);
            }
            return Scan::Match(p, end, Vec::new());
        }
        if !eos && lits.iter().any(|l| l.starts_with(rest)) {
            sc.frontier = p;
            return Scan::Pending(p);
        }
    }
    sc.frontier = buf.len();
    Scan::None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `text` one character at a time; the first decided match must be the whole text's.
    fn streamed(p: &Pattern, text: &str) -> Scan {
        let mut sc = Scanner::default();
        for k in (1..=text.len()).filter(|&k| text.is_char_boundary(k)) {
            if let found @ Scan::Match(..) = p.scan(&mut sc, &text[..k], 0, false) {
                return found;
            }
        }
        p.scan(&mut sc, text, 0, true)
    }

    fn prefilter(source: &str) -> (String, Vec<u8>) {
        let p = Pattern::regex("test", source).unwrap();
        let Kind::Regex { first: Some(f), .. } = &p.kind else { panic!("no prefilter for {source}") };
        (f.prefix.clone(), (0..=255u8).filter(|&b| f.first.has(b)).collect())
    }

    #[test]
    fn the_prefilter_reads_first_bytes_and_literal_prefixes_off_the_dfa() {
        assert_eq!(prefilter(r"to=functions\.(?P<name>[\w.\-]+)<\|message\|>"), ("to=functions.".into(), b"t".to_vec()));
        assert_eq!(prefilter(r"<tool_call>\s*<function=(?P<name>[\w.\-]+)>"), ("<tool_call>".into(), b"<".to_vec()));
        // `^` makes the start depend on what precedes: no single prefix, the union of first bytes.
        assert_eq!(prefilter(r"(?:<\|channel\|>final|^|<\|start\|>)<\|message\|>"), (String::new(), b"<".to_vec()));
        // An alternation: the bytes of both, the prefix they share.
        assert_eq!(prefilter(r"<(?:a|b)>"), ("<".into(), b"<".to_vec()));
        // A pattern that matches the empty string may begin anywhere.
        assert_eq!(prefilter(r"x*").1.len(), 256);
        // A prefix ends where a match may end.
        assert_eq!(prefilter(r"ab(?:c)?").0, "ab");
    }

    #[test]
    fn prefiltered_scans_match_as_unfiltered_ones_whole_and_byte_by_byte() {
        let cases = [
            (r"to=functions\.(?P<name>\w+)!", "tt to=function to=functions.get! to=functions.x!"),
            (r"<tool_call>\s*<f=(?P<name>\w+)>", "a < b <tool_call <tool_call>\n <f=get> tail"),
            (r"(?:<a>|^)<m>", "<m> then <a><m>"),
            (r"é=(?P<v>\d+)", "café é= é=12 ok"),
        ];
        for (source, text) in cases {
            let p = Pattern::regex("test", source).unwrap();
            let whole = p.scan(&mut Scanner::default(), text, 0, true);
            assert!(matches!(whole, Scan::Match(..)), "{source}: {whole:?}");
            assert_eq!(streamed(&p, text), whole, "{source}");
            // A prefix cut off by the end of the buffer is held back, not let through.
            for cut in 1..text.len() {
                if !text.is_char_boundary(cut) {
                    continue;
                }
                if let Scan::Pending(at) = p.scan(&mut Scanner::default(), &text[..cut], 0, false) {
                    assert!(at <= cut, "{source} at {cut}");
                }
            }
        }
        let p = Pattern::regex("test", r"to=functions\.x").unwrap();
        assert_eq!(p.scan(&mut Scanner::default(), "say to=func", 0, false), Scan::Pending(4));
    }

    #[test]
    fn a_lazy_dfa_cache_clear_never_changes_the_match() {
        // `[ab]*a[ab]{9}` before `y`: 2^10 DFA states, far past a 1 KB cache, which clears again and again.
        let source = "x[ab]*a[ab]{9}y";
        let small = Pattern::regex_with_cache("test", source, 1 << 10).unwrap();
        let big = Pattern::regex("test", source).unwrap();
        let mut seed = 7u32;
        let mut body = String::new();
        for _ in 0..400 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            body.push(if seed >> 16 & 1 == 0 { 'a' } else { 'b' });
        }
        for text in [format!("zz{body}x{body}y tail"), format!("x{body}"), format!("{body}xaaaaaaaaaaay")] {
            let whole = big.scan(&mut Scanner::default(), &text, 0, true);
            assert_eq!(streamed(&big, &text), whole, "{text}");
            assert_eq!(streamed(&small, &text), whole, "{text}");
        }
        // Held back from the `x` while a match may still come; with the cache overflowing, from
        // the scan's start (conservative: nothing that could begin a match is let through).
        let open = format!("zz x{body}");
        assert_eq!(big.scan(&mut Scanner::default(), &open, 0, false), Scan::Pending(3));
        assert!(matches!(small.scan(&mut Scanner::default(), &open, 0, false), Scan::Pending(p) if p <= 3));
    }

    #[test]
    fn a_unicode_property_class_is_refused_with_its_error() {
        // Only `\w \d \s` are Unicode classes here (regex-syntax's `unicode-perl`; its property-name tables are
        // patched out: vendor/README.md): `\p{…}` is an invalid-input error, not a panic or a silent match.
        for source in [r"\p{L}+", r"\p{Greek}", r"\pN", r"[\p{Alphabetic}_]", r"\P{Script=Latin}"] {
            let error = Pattern::regex("test", source).err().unwrap_or_else(|| panic!("{source} was accepted"));
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{source}");
            assert!(error.to_string().contains("invalid pattern"), "{source}: {error}");
        }
        assert!(Pattern::regex("test", r"\w+\d\s").is_ok());
    }

    #[test]
    fn case_insensitive_patterns_match_every_case_variant() {
        let rust = translate(r"(?i)<TOOL name=(?P<name>[a-z]+)>").unwrap();
        let g = groups(&rust).unwrap();
        let mut cache = g.create_cache();
        let text = "<tool name=Get> <Tool NAME=\u{212A}elvin> <tool name=x1>";
        let names: Vec<String> = g.captures_all(&mut cache, text).iter().map(|c| text[c.get_group_by_name("name").unwrap().range()].to_string()).collect();
        assert_eq!(names, ["Get", "\u{212A}elvin"]);
        // The flag's scope ends with its group.
        let g = groups(&translate("(?i:a)b").unwrap()).unwrap();
        assert_eq!(g.last_match_end(&mut g.create_cache(), "AB Ab"), Some(5));
    }
}
