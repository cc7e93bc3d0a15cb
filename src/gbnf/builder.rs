//! Collects named rules, hands out unique names and builds the shared pieces (whitespace, generic
//! JSON, "text up to a marker").

use super::ir::{Expr, Rule};
use super::print::print_rules;
use std::collections::HashMap;

/// Accumulates rules; `finish` prints them with `root` first.
#[derive(Debug, Default)]
pub struct GrammarBuilder {
    rules: Vec<Rule>,
    index: HashMap<String, usize>,
    /// Interned bodies: an identical body gets the existing rule (keeps output small).
    bodies: HashMap<Expr, String>,
}

/// Turn arbitrary text into a valid rule name: `[a-zA-Z0-9-]`, others become `-`.
pub fn sanitize_name(hint: &str) -> String {
    let mut out = String::new();
    for c in hint.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "r".into()
    } else {
        trimmed.to_string()
    }
}

impl GrammarBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a rule of this exact name exists.
    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Reserve a fresh name derived from `hint` (for rules whose body refers to themselves).
    pub fn reserve(&mut self, hint: &str) -> String {
        let base = sanitize_name(hint);
        let mut name = base.clone();
        let mut n = 1;
        while self.index.contains_key(&name) || name == "root" && !self.rules.is_empty() {
            n += 1;
            name = format!("{base}-{n}");
        }
        self.index.insert(name.clone(), self.rules.len());
        self.rules.push(Rule { name: name.clone(), expr: Expr::Empty });
        name
    }

    /// Set the body of a reserved rule.
    pub fn set(&mut self, name: &str, expr: Expr) {
        if let Some(&i) = self.index.get(name) {
            if let Some(r) = self.rules.get_mut(i) {
                r.expr = expr;
            }
        }
    }

    /// Add a rule named after `hint` and return a reference to it. An identical existing body is
    /// reused instead of duplicated.
    pub fn add(&mut self, hint: &str, expr: Expr) -> Expr {
        if let Some(name) = self.bodies.get(&expr) {
            return Expr::rule(name.clone());
        }
        let name = self.reserve(hint);
        self.bodies.insert(expr.clone(), name.clone());
        self.set(&name, expr);
        Expr::rule(name)
    }

    /// A rule with a fixed name, defined by `make` on first use (shared primitives).
    pub fn fixed(&mut self, name: &str, make: impl FnOnce(&mut Self) -> Expr) -> Expr {
        if !self.has(name) {
            self.index.insert(name.to_string(), self.rules.len());
            self.rules.push(Rule { name: name.to_string(), expr: Expr::Empty });
            let body = make(self);
            self.set(name, body);
        }
        Expr::rule(name)
    }

    /// Optional JSON-style whitespace: nothing, a space, or up to two newlines and an indent.
    pub fn space(&mut self) -> Expr {
        self.fixed("space", |_| {
            Expr::alt([
                Expr::Empty,
                Expr::lit(" "),
                Expr::seq([Expr::repeat(Expr::lit("\n"), 1, Some(2)), Expr::repeat(Expr::one_of(" \t"), 0, Some(20))]),
            ])
        })
    }

    /// Any text that does not contain `marker` (it may end with a proper prefix of it).
    ///
    /// Compiled as llama.cpp does: one rule per matched-prefix length of the marker (a KMP automaton),
    /// so the recognizer never needs lookahead. Each state accepts end-of-text, a character that
    /// extends a partial match, or any other character, which falls back to the KMP state.
    pub fn until(&mut self, marker: &str) -> Expr {
        let m: Vec<char> = marker.chars().collect();
        if m.is_empty() {
            return Expr::star(Expr::Any);
        }
        let hint = format!("until-{}", sanitize_name(marker));
        if let Some(existing) = self.bodies.get(&Expr::Literal(format!("\u{0}until\u{0}{marker}"))) {
            return Expr::rule(existing.clone());
        }
        let names: Vec<String> = (0..m.len()).map(|i| if i == 0 { self.reserve(&hint) } else { self.reserve(&format!("{hint}-{i}")) }).collect();
        // Intern by a key no real body can equal, so the same marker reuses its automaton.
        if let Some(first) = names.first() {
            self.bodies.insert(Expr::Literal(format!("\u{0}until\u{0}{marker}")), first.clone());
        }
        let fail = kmp_failure(&m);
        for (state, name) in names.iter().enumerate() {
            // A character either extends a partial match (explicit edge), completes the marker (not
            // allowed: excluded from the fallback class) or restarts at state 0 (fallback class).
            let mut alts = vec![Expr::Empty];
            let mut excluded = String::new();
            for &c in &m {
                if excluded.contains(c) {
                    continue;
                }
                let next = kmp_step(&m, &fail, state, c);
                if next == 0 {
                    continue;
                }
                excluded.push(c);
                if let Some(target) = names.get(next) {
                    alts.push(Expr::seq([Expr::one_of(&c.to_string()), Expr::rule(target.clone())]));
                }
            }
            alts.push(Expr::seq([Expr::none_of(&excluded), Expr::rule(names[0].clone())]));
            self.set(name, Expr::Alt(alts));
        }
        Expr::rule(names[0].clone())
    }

    /// Generic JSON value (any object, array, string, number, boolean or null).
    pub fn json_value(&mut self) -> Expr {
        self.fixed("value", |b| {
            let items = [b.json_object(), b.json_array(), b.json_string(), b.json_number(), b.json_boolean(), b.json_null()];
            Expr::alt(items)
        })
    }

    /// Generic JSON object.
    pub fn json_object(&mut self) -> Expr {
        self.fixed("object", |b| {
            let sp = b.space();
            let string = b.json_string();
            let value = b.json_value();
            let kv = Expr::seq([string, sp.clone(), Expr::lit(":"), sp.clone(), value]);
            let more = Expr::star(Expr::seq([sp.clone(), Expr::lit(","), sp.clone(), kv.clone()]));
            Expr::seq([Expr::lit("{"), sp.clone(), Expr::opt(Expr::seq([kv, more])), sp, Expr::lit("}")])
        })
    }

    /// Generic JSON array.
    pub fn json_array(&mut self) -> Expr {
        self.fixed("array", |b| {
            let sp = b.space();
            let value = b.json_value();
            let more = Expr::star(Expr::seq([sp.clone(), Expr::lit(","), sp.clone(), value.clone()]));
            Expr::seq([Expr::lit("["), sp.clone(), Expr::opt(Expr::seq([value, more])), sp, Expr::lit("]")])
        })
    }

    /// One JSON string character (escapes included).
    pub fn json_char(&mut self) -> Expr {
        self.fixed("char", |_| {
            let plain = Expr::Class { ranges: vec![('"', '"'), ('\\', '\\'), ('\u{7F}', '\u{7F}'), ('\u{0}', '\u{1F}')], negated: true };
            let hex = Expr::repeat(Expr::ranges(&[('0', '9'), ('a', 'f'), ('A', 'F')]), 4, Some(4));
            let escape = Expr::seq([Expr::lit("\\"), Expr::alt([Expr::one_of("\"\\/bfnrt"), Expr::seq([Expr::lit("u"), hex])])]);
            Expr::alt([plain, escape])
        })
    }

    /// Any JSON string.
    pub fn json_string(&mut self) -> Expr {
        self.fixed("string", |b| {
            let ch = b.json_char();
            Expr::seq([Expr::lit("\""), Expr::star(ch), Expr::lit("\"")])
        })
    }

    fn integral_part(&mut self) -> Expr {
        self.fixed("integral-part", |_| {
            Expr::alt([Expr::lit("0"), Expr::seq([Expr::ranges(&[('1', '9')]), Expr::repeat(Expr::ranges(&[('0', '9')]), 0, Some(15))])])
        })
    }

    /// A JSON number.
    pub fn json_number(&mut self) -> Expr {
        self.fixed("number", |b| {
            let int = b.integral_part();
            let digits = Expr::repeat(Expr::ranges(&[('0', '9')]), 1, Some(16));
            Expr::seq([
                Expr::opt(Expr::lit("-")),
                int,
                Expr::opt(Expr::seq([Expr::lit("."), digits.clone()])),
                Expr::opt(Expr::seq([Expr::one_of("eE"), Expr::opt(Expr::one_of("-+")), digits])),
            ])
        })
    }

    /// A JSON integer.
    pub fn json_integer(&mut self) -> Expr {
        self.fixed("integer", |b| {
            let int = b.integral_part();
            Expr::seq([Expr::opt(Expr::lit("-")), int])
        })
    }

    /// `true` / `false`.
    pub fn json_boolean(&mut self) -> Expr {
        self.fixed("boolean", |_| Expr::alt([Expr::lit("true"), Expr::lit("false")]))
    }

    /// `null`.
    pub fn json_null(&mut self) -> Expr {
        self.fixed("null", |_| Expr::lit("null"))
    }

    /// The rules added so far, in insertion order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Print the grammar with `root ::= root_expr` first.
    pub fn finish(mut self, root_expr: Expr) -> String {
        let root = Rule { name: "root".into(), expr: root_expr };
        self.rules.retain(|r| r.name != "root");
        let mut all = vec![root];
        all.append(&mut self.rules);
        print_rules(&all)
    }
}

/// KMP failure function over chars: `fail[i]` = length of the longest proper border of `m[..=i]`.
fn kmp_failure(m: &[char]) -> Vec<usize> {
    let mut fail = vec![0usize; m.len()];
    let mut k = 0usize;
    for i in 1..m.len() {
        while k > 0 && m.get(i) != m.get(k) {
            k = fail.get(k - 1).copied().unwrap_or(0);
        }
        if m.get(i) == m.get(k) {
            k += 1;
        }
        if let Some(f) = fail.get_mut(i) {
            *f = k;
        }
    }
    fail
}

/// From "matched `state` chars of m", read `c`: the new matched length.
fn kmp_step(m: &[char], fail: &[usize], mut state: usize, c: char) -> usize {
    loop {
        if m.get(state) == Some(&c) {
            return state + 1;
        }
        if state == 0 {
            return 0;
        }
        state = fail.get(state - 1).copied().unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized_and_unique() {
        let mut b = GrammarBuilder::new();
        let a = b.add("tool get_weather", Expr::lit("a"));
        let c = b.add("tool get_weather", Expr::lit("c"));
        let a2 = b.add("other", Expr::lit("a"));
        assert_eq!(a, Expr::rule("tool-get-weather"));
        assert_eq!(c, Expr::rule("tool-get-weather-2"));
        assert_eq!(a2, a);
        assert_eq!(sanitize_name("<|x|>"), "x");
    }
}
