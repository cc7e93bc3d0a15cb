//! Delimiter matching for declared response templates, with the partial matching transformers
//! uses to decide what may be emitted while streaming (see its "Regex portability" notes).
//!
//! Python `regex` syntax is accepted where the Rust `regex` engine means the same thing: DOTALL,
//! not MULTILINE, Unicode classes, `(?P<name>…)`, `\Z` (rewritten `\z`). Look-around, backreferences,
//! atomic groups and possessive quantifiers are rejected with an `InvalidInput` error naming the
//! construct. Known difference: Python's `$` also matches before a final `\n`; here only at the end.
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

use crate::{Error, ErrorKind, Result};
use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson::{self, pikevm::PikeVM, NFA};
use regex_automata::util::syntax;
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
    Ok(out)
}

fn syntax_config() -> syntax::Config {
    syntax::Config::new().dot_matches_new_line(true).unicode(true).multi_line(false)
}

/// A translated pattern compiled to a Thompson NFA (shared by the PikeVM and the lazy DFA).
fn compile_nfa(rust: &str) -> std::result::Result<NFA, thompson::BuildError> {
    thompson::Compiler::new().syntax(syntax_config()).build(rust)
}

/// Leftmost-first search with named groups (Python's `re.search` semantics within the span).
pub fn pikevm(rust: &str) -> std::result::Result<PikeVM, thompson::BuildError> {
    PikeVM::new_from_nfa(compile_nfa(rust)?)
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
    Literals { lits: Vec<String>, can_extend: bool },
    Regex { vm: PikeVM, dfa: DFA },
}

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
        let vm = PikeVM::new_from_nfa(nfa).map_err(|e| invalid(format!("{scope}: invalid pattern {source:?}: {e}")))?;
        let names = vm.get_nfa().group_info().pattern_names(regex_automata::PatternID::ZERO).flatten().map(str::to_string).collect();
        Ok(Pattern { kind: Kind::Regex { vm, dfa }, names })
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
        Ok(Pattern { kind: Kind::Literals { lits: uniq, can_extend }, names: Vec::new() })
    }

    /// The leftmost delimiter at or after `pos` in `buf` (at `eos` no more input will come).
    pub fn scan(&self, sc: &mut Scanner, buf: &str, pos: usize, eos: bool) -> Scan {
        match &self.kind {
            Kind::Literals { lits, can_extend } => scan_literals(lits, *can_extend, sc, buf, pos, eos),
            Kind::Regex { vm, dfa } => {
                if eos {
                    return captures_at(vm, buf, pos, false);
                }
                scan_regex(vm, dfa, sc, buf, pos)
            }
        }
    }

    /// Last match end in `text` (for `start_anchor`), if any.
    pub fn last_match_end(&self, text: &str) -> Option<usize> {
        match &self.kind {
            Kind::Literals { lits, .. } => {
                let mut last = None;
                let mut at = 0;
                // Leftmost-longest, non-overlapping, as a regex alternation sorted longest-first finds them.
                while at <= text.len() {
                    let hit = (at..text.len()).filter(|&p| text.is_char_boundary(p)).find_map(|p| {
                        lits.iter().filter(|l| text[p..].starts_with(l.as_str())).map(|l| (p, p + l.len())).max_by_key(|&(_, e)| e)
                    });
                    match hit {
                        Some((_, e)) => {
                            last = Some(e);
                            at = e;
                        }
                        None => break,
                    }
                }
                last
            }
            Kind::Regex { vm, .. } => vm.find_iter(&mut vm.create_cache(), text).last().map(|m| m.end()),
        }
    }
}

fn captures_at(vm: &PikeVM, buf: &str, pos: usize, anchored: bool) -> Scan {
    let mut caps = vm.create_captures();
    let input = Input::new(buf).span(pos..buf.len()).anchored(if anchored { Anchored::Yes } else { Anchored::No });
    vm.search(&mut vm.create_cache(), &input, &mut caps);
    let Some(m) = caps.get_match() else { return Scan::None };
    let mut groups = Vec::new();
    for name in vm.get_nfa().group_info().pattern_names(regex_automata::PatternID::ZERO).flatten() {
        if let Some(span) = caps.get_group_by_name(name) {
            groups.push((name.to_string(), buf[span.range()].to_string()));
        }
    }
    Scan::Match(m.start(), m.end(), groups)
}

fn scan_regex(vm: &PikeVM, dfa: &DFA, sc: &mut Scanner, buf: &str, pos: usize) -> Scan {
    // Runs merged into a run that started before `pos` (now consumed) must be recomputed: rescan
    // from `pos` (only the text after the last committed delimiter).
    if sc.frontier < pos || sc.matched.is_some_and(|m| m < pos) || sc.live.iter().any(|&(s, _)| s < pos) {
        sc.restart(pos);
    }
    // A cache clear invalidates the kept states: rescan once from `pos`; should the cache overflow
    // again (a pattern with millions of reachable states), hold everything back and rescan on the
    // next call: slower, never wrong (the end of the stream searches the whole rest).
    for _ in 0..2 {
        if let Some(found) = advance(vm, dfa, sc, buf) {
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
fn advance(vm: &PikeVM, dfa: &DFA, sc: &mut Scanner, buf: &str) -> Option<Scan> {
    let cache = sc.cache.get_or_insert_with(|| dfa.create_cache());
    let clears = cache.clear_count();
    let bytes = buf.as_bytes();
    let mut end = bytes.len();
    for i in sc.frontier..bytes.len() {
        // A run may start only on a character boundary.
        if buf.is_char_boundary(i) {
            let input = Input::new(buf).span(i..buf.len()).anchored(Anchored::Yes);
            if let Ok(s0) = dfa.start_state_forward(cache, &input) {
                if cache.clear_count() != clears {
                    return None;
                }
                if !s0.is_dead() && !sc.live.iter().any(|&(_, st)| st == s0) {
                    sc.live.push((i, s0));
                }
            }
        }
        let b = bytes[i];
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
    }
    sc.frontier = end;
    let pending = sc.live.iter().map(|&(s, _)| s).min();
    Some(match (sc.matched, pending) {
        (Some(m), p) if p.is_none_or(|p| m < p) => match captures_at(vm, buf, m, true) {
            Scan::None => pending.map_or(Scan::None, Scan::Pending),
            found => found,
        },
        (_, Some(p)) => Scan::Pending(p),
        _ => Scan::None,
    })
}

fn scan_literals(lits: &[String], can_extend: bool, sc: &mut Scanner, buf: &str, pos: usize, eos: bool) -> Scan {
    // Offsets before the frontier held neither a match nor the start of one.
    let from = pos.max(sc.frontier.min(buf.len()));
    let bytes = buf.as_bytes();
    for p in from..bytes.len() {
        if !buf.is_char_boundary(p) || !lits.iter().any(|l| l.as_bytes()[0] == bytes[p]) {
            continue;
        }
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

    /// Feed `text` one byte at a time; the first decided match must be the whole text's.
    fn streamed(p: &Pattern, text: &str) -> Scan {
        let mut sc = Scanner::default();
        for k in 1..=text.len() {
            if let found @ Scan::Match(..) = p.scan(&mut sc, &text[..k], 0, false) {
                return found;
            }
        }
        p.scan(&mut sc, text, 0, true)
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
}
