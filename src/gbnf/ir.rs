//! The grammar IR: rules of expressions over Unicode code points.
//!
//! Everything that emits GBNF builds these values; only `print.rs` turns them into text, so escaping
//! lives in one place and generated grammars cannot be syntactically wrong.

/// A grammar expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    /// Matches the empty string.
    Empty,
    /// A literal string (any Unicode; the printer escapes it).
    Literal(String),
    /// One code point in (or, when `negated`, outside) the inclusive ranges.
    Class {
        /// Inclusive code point ranges.
        ranges: Vec<(char, char)>,
        /// `[^…]`.
        negated: bool,
    },
    /// Any single code point (`.`).
    Any,
    /// Concatenation.
    Seq(Vec<Expr>),
    /// Alternation (ordered only for readability; GBNF alternation is unordered).
    Alt(Vec<Expr>),
    /// `expr{min,max}`; `max: None` is unbounded.
    Repeat {
        /// Repeated expression.
        expr: Box<Expr>,
        /// Minimum count.
        min: u32,
        /// Maximum count, `None` for unbounded.
        max: Option<u32>,
    },
    /// Reference to a rule by name.
    Ref(String),
}

/// A named rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Rule name: `[a-zA-Z0-9-]+`.
    pub name: String,
    /// Its body.
    pub expr: Expr,
}

impl Expr {
    /// A literal; the empty string is [`Expr::Empty`].
    pub fn lit(s: impl Into<String>) -> Expr {
        let s = s.into();
        if s.is_empty() {
            Expr::Empty
        } else {
            Expr::Literal(s)
        }
    }

    /// A rule reference.
    pub fn rule(name: impl Into<String>) -> Expr {
        Expr::Ref(name.into())
    }

    /// One of the given characters.
    pub fn one_of(chars: &str) -> Expr {
        Expr::Class { ranges: chars.chars().map(|c| (c, c)).collect(), negated: false }
    }

    /// Any character except the given ones.
    pub fn none_of(chars: &str) -> Expr {
        Expr::Class { ranges: chars.chars().map(|c| (c, c)).collect(), negated: true }
    }

    /// A class of inclusive ranges.
    pub fn ranges(ranges: &[(char, char)]) -> Expr {
        Expr::Class { ranges: ranges.to_vec(), negated: false }
    }

    /// Concatenation; flattens nested sequences, drops `Empty`, merges adjacent literals.
    pub fn seq(items: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out: Vec<Expr> = Vec::new();
        for item in items {
            let parts = match item {
                Expr::Seq(inner) => inner,
                Expr::Empty => continue,
                other => vec![other],
            };
            for p in parts {
                if let (Some(Expr::Literal(prev)), Expr::Literal(next)) = (out.last_mut(), &p) {
                    prev.push_str(next);
                    continue;
                }
                out.push(p);
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().unwrap_or(Expr::Empty),
            _ => Expr::Seq(out),
        }
    }

    /// Alternation; flattens nested alternations and removes duplicates.
    pub fn alt(items: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out: Vec<Expr> = Vec::new();
        for item in items {
            let parts = match item {
                Expr::Alt(inner) => inner,
                other => vec![other],
            };
            for p in parts {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().unwrap_or(Expr::Empty),
            _ => Expr::Alt(out),
        }
    }

    /// `expr{min,max}`.
    pub fn repeat(expr: Expr, min: u32, max: Option<u32>) -> Expr {
        if expr == Expr::Empty || max == Some(0) {
            return Expr::Empty;
        }
        if min == 1 && max == Some(1) {
            return expr;
        }
        Expr::Repeat { expr: Box::new(expr), min, max }
    }

    /// `expr?`.
    pub fn opt(expr: Expr) -> Expr {
        Expr::repeat(expr, 0, Some(1))
    }

    /// `expr*`.
    pub fn star(expr: Expr) -> Expr {
        Expr::repeat(expr, 0, None)
    }

    /// `expr+`.
    pub fn plus(expr: Expr) -> Expr {
        Expr::repeat(expr, 1, None)
    }
}
