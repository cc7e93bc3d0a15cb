//! A GBNF checker: parses llama.cpp grammar syntax and tells whether a text is accepted by `root`.
//!
//! Parsing follows llama.cpp's `grammar-parser` (rules end at a newline unless inside parentheses or
//! after `|`; `#` comments; literals, classes, `.`, groups, `* + ? {m} {m,} {m,n}`, tokens). Then the
//! grammar is flattened to productions over single-character terminals and run through an Earley
//! recognizer (with Aycock–Horspool nullable handling and Leo's right-recursion optimisation), which
//! is linear on left- and right-recursive unambiguous grammars and cannot loop on any grammar.
//! Repetitions are desugared left-recursively (`R ::= | R x`). Right recursion matters because
//! llama.cpp-style "anything until a marker" rules (`until-x ::= | [^<] until-x | …`) are written
//! that way: without Leo's items every set would hold one completed item per earlier position, O(n²).
//!
//! Tokens cannot be checked without a vocabulary: `<text>` is matched as its text, `<[id]>` matches
//! nothing, and `!<…>` matches any one character.

use crate::{Error, ErrorKind, Result};
use std::collections::{HashMap, HashSet};

/// Result of checking a text against a grammar.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    /// The whole text is a sentence of `root`.
    pub accepted: bool,
    /// When not accepted: byte offset of the first character no continuation of `root` allows, or
    /// the text length when the text is a valid but incomplete prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_at: Option<usize>,
}

/// Parse `gbnf` and check `text` against its `root` rule.
///
/// # Errors
/// `ErrorKind::Grammar` (with line and column) for an invalid grammar; `ErrorKind::Limit` when the
/// recognizer exceeds its state cap.
pub fn check_grammar(gbnf: &str, text: &str) -> Result<CheckResult> {
    ParsedGrammar::parse(gbnf)?.check(text)
}

/// Most Earley items a check may create in total (guards memory and time on pathological grammars).
pub const MAX_ITEMS: usize = 4_000_000;
/// Most item insertions (duplicates included) a check may attempt: bounds time on ambiguous
/// grammars, where a few items can be derived O(n) times each.
pub const MAX_STEPS: usize = 10 * MAX_ITEMS;
/// Most symbols the flattened grammar may have (guards `x{1000000}`).
const MAX_SYMBOLS: usize = 1_000_000;
/// Deepest parenthesis nesting accepted.
const MAX_NESTING: usize = 200;

/// One terminal: a code point set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Term {
    ranges: Vec<(u32, u32)>,
    negated: bool,
}

impl Term {
    fn matches(&self, c: char) -> bool {
        let c = c as u32;
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != self.negated
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Sym {
    T(u32),
    N(u32),
}

#[derive(Debug, Clone)]
struct Prod {
    lhs: u32,
    rhs: Vec<Sym>,
}

/// A grammar parsed and flattened for checking; parse once, check many texts.
#[derive(Debug, Clone)]
pub struct ParsedGrammar {
    rule_names: Vec<String>,
    terms: Vec<Term>,
    prods: Vec<Prod>,
    rule_prods: Vec<Vec<u32>>,
    nullable: Vec<bool>,
    start: u32,
}

impl ParsedGrammar {
    /// Parse GBNF text.
    ///
    /// # Errors
    /// `ErrorKind::Grammar` with the 1-based line and column of the problem.
    pub fn parse(src: &str) -> Result<ParsedGrammar> {
        let mut p = Parser { s: src.chars().collect(), pos: 0, g: Flat::default(), depth: 0 };
        p.parse_all().map_err(|(msg, at)| {
            let (line, col) = line_col(&p.s, at);
            Error::new(ErrorKind::Grammar, msg).with_location(line, col)
        })?;
        let Flat { names, rule_names, defined, terms, prods, .. } = p.g;
        for (i, d) in defined.iter().enumerate() {
            if !d {
                let name = rule_names.get(i).cloned().unwrap_or_default();
                return Err(Error::new(ErrorKind::Grammar, format!("undefined rule `{name}`")));
            }
        }
        let root = *names.get("root").ok_or_else(|| Error::new(ErrorKind::Grammar, "grammar has no `root` rule"))?;
        let mut g = ParsedGrammar { rule_names, terms, prods, rule_prods: Vec::new(), nullable: Vec::new(), start: 0 };
        // Augmented start rule S' ::= root.
        let start = g.rule_names.len() as u32;
        g.rule_names.push("<start>".into());
        g.prods.push(Prod { lhs: start, rhs: vec![Sym::N(root)] });
        g.start = start;
        g.rule_prods = vec![Vec::new(); g.rule_names.len()];
        for (i, p) in g.prods.iter().enumerate() {
            if let Some(v) = g.rule_prods.get_mut(p.lhs as usize) {
                v.push(i as u32);
            }
        }
        g.nullable = compute_nullable(&g.prods, g.rule_names.len());
        Ok(g)
    }

    /// Names of the grammar's rules, including generated helper rules (`name_N`).
    pub fn rule_names(&self) -> &[String] {
        &self.rule_names
    }

    /// Check whether `text` is accepted by `root`.
    ///
    /// # Errors
    /// `ErrorKind::Limit` when more than [`MAX_ITEMS`] Earley items would be needed.
    pub fn check(&self, text: &str) -> Result<CheckResult> {
        self.check_counting(text).map(|(r, _)| r)
    }

    /// [`Self::check`], also returning how many Earley items it created (the work done).
    ///
    /// # Errors
    /// As [`Self::check`].
    pub fn check_counting(&self, text: &str) -> Result<(CheckResult, usize)> {
        self.check_within(text, MAX_ITEMS, MAX_STEPS)
    }

    fn check_within(&self, text: &str, max_items: usize, max_steps: usize) -> Result<(CheckResult, usize)> {
        let mut run = Earley { g: self, sets: Vec::new(), total: 0, steps: 0, max_items, max_steps };
        run.add_set();
        run.add(0, Item { prod: self.start_prod(), dot: 0, origin: 0 })?;
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        for (i, &(offset, c)) in chars.iter().enumerate() {
            run.close(i)?;
            run.add_set();
            if !run.scan(i, c)? {
                return Ok((CheckResult { accepted: false, error_at: Some(offset) }, run.total));
            }
        }
        let n = chars.len();
        run.close(n)?;
        let accepted = run.sets.get(n).is_some_and(|s| {
            s.items.iter().any(|it| it.origin == 0 && it.prod == self.start_prod() && it.dot == 1)
        });
        Ok((CheckResult { accepted, error_at: if accepted { None } else { Some(text.len()) } }, run.total))
    }

    fn start_prod(&self) -> u32 {
        (self.prods.len() - 1) as u32
    }
}

fn compute_nullable(prods: &[Prod], n: usize) -> Vec<bool> {
    let mut nullable = vec![false; n];
    loop {
        let mut changed = false;
        for p in prods {
            if nullable.get(p.lhs as usize) == Some(&true) {
                continue;
            }
            let all = p.rhs.iter().all(|s| match s {
                Sym::T(_) => false,
                Sym::N(r) => nullable.get(*r as usize) == Some(&true),
            });
            if all {
                if let Some(x) = nullable.get_mut(p.lhs as usize) {
                    *x = true;
                }
                changed = true;
            }
        }
        if !changed {
            return nullable;
        }
    }
}

fn line_col(s: &[char], at: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    for c in s.iter().take(at) {
        if *c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}

// ---------------------------------------------------------------------------------------------
// Recognizer

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Item {
    prod: u32,
    dot: u32,
    origin: u32,
}

#[derive(Default)]
struct EarleySet {
    items: Vec<Item>,
    seen: HashSet<Item>,
    /// Items waiting on a nonterminal, by nonterminal (for completion).
    waiting: HashMap<u32, Vec<Item>>,
    /// Leo's memo: for a nonterminal B, the topmost item of the deterministic reduction path above
    /// this set (`None` when completing B here is not deterministic).
    leo: HashMap<u32, Option<Item>>,
}

struct Earley<'g> {
    g: &'g ParsedGrammar,
    sets: Vec<EarleySet>,
    total: usize,
    steps: usize,
    max_items: usize,
    max_steps: usize,
}

impl Earley<'_> {
    fn add_set(&mut self) {
        self.sets.push(EarleySet::default());
    }

    fn add(&mut self, set: usize, item: Item) -> Result<()> {
        let Some(s) = self.sets.get_mut(set) else { return Ok(()) };
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(Error::new(ErrorKind::Limit, format!("grammar check exceeded {} parser steps", self.max_steps)));
        }
        if s.seen.insert(item) {
            s.items.push(item);
            self.total += 1;
            if self.total > self.max_items {
                return Err(Error::new(ErrorKind::Limit, format!("grammar check exceeded {} parser states", self.max_items)));
            }
        }
        Ok(())
    }

    fn next_sym(&self, item: &Item) -> Option<Sym> {
        self.g.prods.get(item.prod as usize).and_then(|p| p.rhs.get(item.dot as usize)).copied()
    }

    /// Predict and complete until set `i` is closed.
    fn close(&mut self, i: usize) -> Result<()> {
        let mut k = 0;
        while let Some(item) = self.sets.get(i).and_then(|s| s.items.get(k)).copied() {
            k += 1;
            match self.next_sym(&item) {
                None => {
                    let lhs = self.g.prods.get(item.prod as usize).map(|p| p.lhs).unwrap_or(0);
                    // Leo: a completion with one right-recursive parent chain adds only the chain's top.
                    if (item.origin as usize) < i {
                        if let Some(top) = self.leo_top(item.origin as usize, lhs) {
                            self.add(i, top)?;
                            continue;
                        }
                    }
                    let parents: Vec<Item> =
                        self.sets.get(item.origin as usize).and_then(|s| s.waiting.get(&lhs)).cloned().unwrap_or_default();
                    for p in parents {
                        self.add(i, Item { dot: p.dot + 1, ..p })?;
                    }
                }
                Some(Sym::N(b)) => {
                    let first_wait = match self.sets.get_mut(i) {
                        Some(s) => {
                            let w = s.waiting.entry(b).or_default();
                            w.push(item);
                            w.len() == 1
                        }
                        None => false,
                    };
                    if first_wait {
                        let prods = self.g.rule_prods.get(b as usize).cloned().unwrap_or_default();
                        for q in prods {
                            self.add(i, Item { prod: q, dot: 0, origin: i as u32 })?;
                        }
                    }
                    if self.g.nullable.get(b as usize) == Some(&true) {
                        self.add(i, Item { dot: item.dot + 1, ..item })?;
                    }
                }
                Some(Sym::T(_)) => {}
            }
        }
        Ok(())
    }

    /// The topmost item of the deterministic reduction path for completing `b` at closed set `j`
    /// (Leo 1991): while set `j` has exactly one item waiting on `b` and `b` is its last symbol,
    /// completing `b` completes that item too, so follow it to its origin. Each pair on the path is
    /// memoized, so all chains together cost linear time. Only origins strictly before `j` are
    /// followed (guarantees termination on unit-rule cycles; stopping early is always correct).
    fn leo_top(&mut self, j: usize, b: u32) -> Option<Item> {
        let mut path: Vec<(usize, u32)> = Vec::new();
        let mut top: Option<Item> = None;
        let (mut j, mut b) = (j, b);
        loop {
            let Some(set) = self.sets.get(j) else { break };
            if let Some(memo) = set.leo.get(&b) {
                if memo.is_some() {
                    top = *memo;
                }
                break;
            }
            let unique = match set.waiting.get(&b).map(Vec::as_slice) {
                Some([p]) if self.g.prods.get(p.prod as usize).is_some_and(|q| q.rhs.len() == p.dot as usize + 1) => Some(*p),
                _ => None,
            };
            let Some(p) = unique else {
                if let Some(s) = self.sets.get_mut(j) {
                    s.leo.insert(b, None);
                }
                break;
            };
            path.push((j, b));
            top = Some(Item { dot: p.dot + 1, ..p });
            if p.origin as usize >= j {
                break;
            }
            b = self.g.prods.get(p.prod as usize).map(|q| q.lhs).unwrap_or(0);
            j = p.origin as usize;
        }
        for (pj, pb) in path {
            if let Some(s) = self.sets.get_mut(pj) {
                s.leo.insert(pb, top);
            }
        }
        top
    }

    /// Advance items of set `i` over `c` into set `i + 1`; false when none can.
    fn scan(&mut self, i: usize, c: char) -> Result<bool> {
        let items: Vec<Item> = self.sets.get(i).map(|s| s.items.clone()).unwrap_or_default();
        let mut any = false;
        for item in items {
            if let Some(Sym::T(t)) = self.next_sym(&item) {
                if self.g.terms.get(t as usize).is_some_and(|t| t.matches(c)) {
                    self.add(i + 1, Item { dot: item.dot + 1, ..item })?;
                    any = true;
                }
            }
        }
        // Earlier sets are only needed for their `waiting` lists; drop the rest to save memory.
        if let Some(s) = self.sets.get_mut(i) {
            s.seen = HashSet::new();
            s.items = Vec::new();
        }
        Ok(any)
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

#[derive(Default)]
struct Flat {
    names: HashMap<String, u32>,
    rule_names: Vec<String>,
    defined: Vec<bool>,
    terms: Vec<Term>,
    term_ids: HashMap<Term, u32>,
    prods: Vec<Prod>,
    symbols: usize,
}

impl Flat {
    fn rule_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.names.get(name) {
            return id;
        }
        let id = self.rule_names.len() as u32;
        self.names.insert(name.to_string(), id);
        self.rule_names.push(name.to_string());
        self.defined.push(false);
        id
    }

    fn fresh_rule(&mut self, base: &str) -> u32 {
        let name = format!("{base}_{}", self.rule_names.len());
        let id = self.rule_id(&name);
        if let Some(d) = self.defined.get_mut(id as usize) {
            *d = true;
        }
        id
    }

    fn term(&mut self, t: Term) -> Sym {
        if let Some(&id) = self.term_ids.get(&t) {
            return Sym::T(id);
        }
        let id = self.terms.len() as u32;
        self.terms.push(t.clone());
        self.term_ids.insert(t, id);
        Sym::T(id)
    }

    fn prod(&mut self, lhs: u32, rhs: Vec<Sym>) -> Result<(), String> {
        self.symbols += rhs.len() + 1;
        if self.symbols > MAX_SYMBOLS {
            return Err(format!("grammar too large (over {MAX_SYMBOLS} symbols after expanding repetitions)"));
        }
        self.prods.push(Prod { lhs, rhs });
        Ok(())
    }
}

type PResult<T> = std::result::Result<T, (String, usize)>;

struct Parser {
    s: Vec<char>,
    pos: usize,
    g: Flat,
    depth: usize,
}

/// Rule-name characters, exactly as llama.cpp's grammar parser reads them (no `_`): a grammar
/// that parses here is valid GBNF for llama.cpp.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.pos + k).copied()
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err((msg.into(), self.pos))
    }

    fn skip_space(&mut self, newline_ok: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' => self.pos += 1,
                '#' => {
                    while let Some(c) = self.peek() {
                        if c == '\n' || c == '\r' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\n' | '\r' if newline_ok => self.pos += 1,
                _ => break,
            }
        }
    }

    fn parse_name(&mut self) -> PResult<String> {
        let start = self.pos;
        while self.peek().is_some_and(is_word_char) {
            self.pos += 1;
        }
        if start == self.pos {
            return self.err("expecting a rule name");
        }
        Ok(self.s.get(start..self.pos).unwrap_or_default().iter().collect())
    }

    fn parse_all(&mut self) -> PResult<()> {
        self.skip_space(true);
        while self.peek().is_some() {
            let name = self.parse_name()?;
            self.skip_space(false);
            if !(self.peek() == Some(':') && self.peek_at(1) == Some(':') && self.peek_at(2) == Some('=')) {
                return self.err("expecting ::=");
            }
            self.pos += 3;
            self.skip_space(true);
            let id = self.g.rule_id(&name);
            if self.g.defined.get(id as usize) == Some(&true) {
                return self.err(format!("rule `{name}` defined twice"));
            }
            if let Some(d) = self.g.defined.get_mut(id as usize) {
                *d = true;
            }
            self.parse_alternates(id, false)?;
            match self.peek() {
                Some('\r') | Some('\n') | None => {}
                Some(c) => return self.err(format!("expecting newline or end of rule, found `{c}`")),
            }
            self.skip_space(true);
        }
        Ok(())
    }

    fn parse_alternates(&mut self, lhs: u32, nested: bool) -> PResult<()> {
        let seq = self.parse_sequence(nested)?;
        self.g.prod(lhs, seq).map_err(|m| (m, self.pos))?;
        while self.peek() == Some('|') {
            self.pos += 1;
            self.skip_space(true);
            let seq = self.parse_sequence(nested)?;
            self.g.prod(lhs, seq).map_err(|m| (m, self.pos))?;
        }
        Ok(())
    }

    fn parse_char(&mut self) -> PResult<char> {
        let Some(c) = self.peek() else { return self.err("unexpected end of grammar") };
        if c != '\\' {
            self.pos += 1;
            return Ok(c);
        }
        let Some(e) = self.peek_at(1) else { return self.err("unexpected end of grammar after `\\`") };
        let simple = match e {
            't' => Some('\t'),
            'r' => Some('\r'),
            'n' => Some('\n'),
            '\\' | '"' | '[' | ']' => Some(e),
            _ => None,
        };
        if let Some(c) = simple {
            self.pos += 2;
            return Ok(c);
        }
        let digits = match e {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => return self.err(format!("unknown escape `\\{e}`")),
        };
        self.pos += 2;
        let mut v: u32 = 0;
        for _ in 0..digits {
            let Some(d) = self.peek().and_then(|c| c.to_digit(16)) else { return self.err("expecting hex digits") };
            v = v.wrapping_mul(16).wrapping_add(d);
            self.pos += 1;
        }
        char::from_u32(v).map_or_else(|| self.err(format!("invalid code point {v:#x}")), Ok)
    }

    fn parse_sequence(&mut self, nested: bool) -> PResult<Vec<Sym>> {
        let mut seq: Vec<Sym> = Vec::new();
        let mut last_start: Option<usize> = None;
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.pos += 1;
                    last_start = Some(seq.len());
                    while self.peek() != Some('"') {
                        if self.peek().is_none() {
                            return self.err("unterminated string literal");
                        }
                        let ch = self.parse_char()?;
                        seq.push(self.g.term(Term { ranges: vec![(ch as u32, ch as u32)], negated: false }));
                    }
                    self.pos += 1;
                }
                '[' => {
                    self.pos += 1;
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.pos += 1;
                    }
                    let mut ranges = Vec::new();
                    while self.peek() != Some(']') {
                        if self.peek().is_none() {
                            return self.err("unterminated character class");
                        }
                        let lo = self.parse_char()?;
                        let mut hi = lo;
                        if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                            self.pos += 1;
                            hi = self.parse_char()?;
                        }
                        ranges.push((lo as u32, hi as u32));
                    }
                    self.pos += 1;
                    last_start = Some(seq.len());
                    seq.push(self.g.term(Term { ranges, negated }));
                }
                '.' => {
                    self.pos += 1;
                    last_start = Some(seq.len());
                    seq.push(self.g.term(Term { ranges: Vec::new(), negated: true }));
                }
                '(' => {
                    self.pos += 1;
                    self.depth += 1;
                    if self.depth > MAX_NESTING {
                        return self.err("parentheses nested too deeply");
                    }
                    self.skip_space(true);
                    let id = self.g.fresh_rule("group");
                    self.parse_alternates(id, true)?;
                    self.depth -= 1;
                    if self.peek() != Some(')') {
                        return self.err("expecting `)`");
                    }
                    self.pos += 1;
                    last_start = Some(seq.len());
                    seq.push(Sym::N(id));
                }
                '<' | '!' => {
                    let negated = c == '!';
                    if negated {
                        self.pos += 1;
                        if self.peek() != Some('<') {
                            return self.err("expecting `<` after `!`");
                        }
                    }
                    self.pos += 1;
                    let start = self.pos;
                    while self.peek().is_some_and(|c| c != '>') {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return self.err("unterminated token reference");
                    }
                    let inner: String = self.s.get(start..self.pos).unwrap_or_default().iter().collect();
                    self.pos += 1;
                    last_start = Some(seq.len());
                    if negated {
                        seq.push(self.g.term(Term { ranges: Vec::new(), negated: true }));
                    } else if inner.starts_with('[') && inner.ends_with(']') {
                        // A token id: no vocabulary here, so it matches no text.
                        seq.push(self.g.term(Term { ranges: Vec::new(), negated: false }));
                    } else {
                        let text = format!("<{inner}>");
                        for ch in text.chars() {
                            seq.push(self.g.term(Term { ranges: vec![(ch as u32, ch as u32)], negated: false }));
                        }
                    }
                }
                '*' | '+' | '?' | '{' => {
                    let Some(start) = last_start else { return self.err("repetition without a preceding symbol") };
                    self.pos += 1;
                    let (min, max) = match c {
                        '*' => (0, None),
                        '+' => (1, None),
                        '?' => (0, Some(1)),
                        _ => self.parse_braces()?,
                    };
                    let unit: Vec<Sym> = seq.split_off(start.min(seq.len()));
                    let expanded = self.repeat(unit, min, max)?;
                    seq.extend(expanded);
                    last_start = None;
                }
                c if is_word_char(c) => {
                    let name = self.parse_name()?;
                    let id = self.g.rule_id(&name);
                    last_start = Some(seq.len());
                    seq.push(Sym::N(id));
                }
                _ => break,
            }
            self.skip_space(nested);
        }
        Ok(seq)
    }

    fn parse_int(&mut self) -> PResult<u32> {
        let start = self.pos;
        let mut v: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            v = v.checked_mul(10).and_then(|v| v.checked_add(d)).ok_or_else(|| ("repetition count too large".to_string(), self.pos))?;
            self.pos += 1;
        }
        if start == self.pos {
            return self.err("expecting a number");
        }
        Ok(v)
    }

    /// After `{`: `m}`, `m,}` or `m,n}`.
    fn parse_braces(&mut self) -> PResult<(u32, Option<u32>)> {
        self.skip_space(false);
        let min = self.parse_int()?;
        self.skip_space(false);
        let max = if self.peek() == Some(',') {
            self.pos += 1;
            self.skip_space(false);
            if self.peek() == Some('}') {
                None
            } else {
                Some(self.parse_int()?)
            }
        } else {
            Some(min)
        };
        self.skip_space(false);
        if self.peek() != Some('}') {
            return self.err("expecting `}`");
        }
        self.pos += 1;
        if max.is_some_and(|m| m < min) {
            return self.err("repetition maximum below minimum");
        }
        Ok((min, max))
    }

    /// Expand `unit{min,max}` into symbols: `min` copies, then a left-recursive tail rule.
    fn repeat(&mut self, unit: Vec<Sym>, min: u32, max: Option<u32>) -> PResult<Vec<Sym>> {
        let at = self.pos;
        let budget = |n: u64| -> PResult<()> {
            if n > MAX_SYMBOLS as u64 {
                Err(("repetition too large".to_string(), at))
            } else {
                Ok(())
            }
        };
        budget(u64::from(min) * unit.len() as u64)?;
        let unit = if unit.len() == 1 {
            unit
        } else {
            let id = self.g.fresh_rule("rep");
            self.g.prod(id, unit).map_err(|m| (m, at))?;
            vec![Sym::N(id)]
        };
        let mut out = Vec::new();
        for _ in 0..min {
            out.extend(unit.iter().copied());
        }
        match max {
            None => {
                // R ::= | R unit
                let r = self.g.fresh_rule("star");
                self.g.prod(r, Vec::new()).map_err(|m| (m, at))?;
                let mut rhs = vec![Sym::N(r)];
                rhs.extend(unit.iter().copied());
                self.g.prod(r, rhs).map_err(|m| (m, at))?;
                out.push(Sym::N(r));
            }
            Some(max) => {
                let extra = max - min;
                budget(u64::from(extra) * 3)?;
                // R_0 ::= ; R_k ::= | R_{k-1} unit   (at most k more copies, unambiguous)
                let mut prev: Option<u32> = None;
                for _ in 0..extra {
                    let r = self.g.fresh_rule("upto");
                    self.g.prod(r, Vec::new()).map_err(|m| (m, at))?;
                    let mut rhs: Vec<Sym> = prev.map(Sym::N).into_iter().collect();
                    rhs.extend(unit.iter().copied());
                    self.g.prod(r, rhs).map_err(|m| (m, at))?;
                    prev = Some(r);
                }
                if let Some(r) = prev {
                    out.push(Sym::N(r));
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(g: &str, t: &str) -> bool {
        check_grammar(g, t).map(|r| r.accepted).unwrap_or(false)
    }

    #[test]
    fn basics() {
        let g = "root ::= \"a\" [b-d]+ x?\nx ::= (\"x\" | \"y\"){2,3}\n";
        assert!(acc(g, "ab"));
        assert!(acc(g, "abcdxy"));
        assert!(acc(g, "abxyx"));
        assert!(!acc(g, "abx"));
        assert!(!acc(g, "abxyxy"));
        let r = check_grammar(g, "aq").unwrap();
        assert_eq!(r.error_at, Some(1));
        let r = check_grammar(g, "a").unwrap();
        assert_eq!(r.error_at, Some(1));
    }

    #[test]
    fn escapes_comments_and_continuations() {
        let g = "# c\nroot ::= \"\\x41\\u00e9\" [^\\n\\x5D] |\n  \"z\" # trailing\nempty ::= | \"q\"\n";
        assert!(acc(g, "Aéq"));
        assert!(acc(g, "z"));
        assert!(!acc(g, "Aé]"));
        assert!(acc("root ::= <think> .*\n", "<think>abc"));
    }

    #[test]
    fn errors_have_locations() {
        let e = check_grammar("root ::= \"a\"\nfoo ::= \"b\" @\n", "").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Grammar);
        assert_eq!(e.location().map(|l| l.0), Some(2));
        assert!(check_grammar("root ::= x\n", "").is_err());
        assert!(check_grammar("foo ::= \"a\"\n", "").is_err());
        assert!(check_grammar("root ::= \"\\q\"\n", "").is_err());
    }

    #[test]
    fn left_and_right_recursion() {
        assert!(acc("root ::= root \"a\" | \"b\"\n", "baaa"));
        assert!(acc("root ::= \"a\" root | \"b\"\n", "aaab"));
        assert!(!acc("root ::= root\n", "a"));
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn state_cap_is_a_clear_error() {
        // A right recursion with two parents is not deterministic, so Earley needs O(n^2) items: a
        // long text hits the item cap instead of running on.
        let text = "a".repeat(4000);
        let e = check_grammar("root ::= a\na ::= | [a] a | [a] a [b]\n", &text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
        // An ambiguous grammar derives few items O(n) times each (O(n^3) time): the step cap stops it.
        // (Small caps keep the debug-build test quick; the defaults are 10× and 100× larger.)
        let g = ParsedGrammar::parse("root ::= root root | [a]\n").unwrap();
        let e = g.check_within(&"a".repeat(400), 400_000, 4_000_000).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
        assert!(e.to_string().contains("steps"), "{e}");
        // Unambiguous left and right recursion stay linear.
        assert!(check_grammar("root ::= [a]*\n", &text).unwrap().accepted);
        assert!(check_grammar("root ::= a\na ::= | [a] a\n", &text).unwrap().accepted);
    }

    /// Items created for a right-recursive grammar grow linearly with the text (Leo's optimisation):
    /// without it, 64 Ki characters would need over 2 billion items.
    #[test]
    fn right_recursion_is_linear() {
        let g = ParsedGrammar::parse("root ::= \"<\" a \">\"\na ::= | [^<>] a | [<] b\nb ::= [^>] a\n").unwrap();
        for n in [1024usize, 65536] {
            let text = format!("<{}>", "x".repeat(n));
            let (r, items) = g.check_counting(&text).unwrap();
            assert!(r.accepted);
            assert!(items < 20 * n, "{items} items for {n} characters");
        }
    }
}
