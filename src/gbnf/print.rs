//! GBNF text from the IR. The printer owns all escaping and uses only the syntax of llama.cpp's
//! `grammars/README.md`: `name ::= …`, `|`, `( )`, `"…"`, `[…]`, `[^…]`, `.`, `*` `+` `?` `{m}` `{m,}`
//! `{m,n}`, and the escapes `\xXX` `\uXXXX` `\UXXXXXXXX` `\n` `\r` `\t` `\\` `\"` `\[` `\]`.

use super::ir::{Expr, Rule};
use std::fmt::Write;

/// Print rules, one per line, in the given order.
pub fn print_rules(rules: &[Rule]) -> String {
    let mut out = String::new();
    for r in rules {
        out.push_str(&r.name);
        out.push_str(" ::= ");
        print_expr(&r.expr, Prec::Alt, &mut out);
        out.push('\n');
    }
    out
}

/// Print one expression as it would appear as a rule body.
#[cfg(test)]
pub fn print_expr_text(expr: &Expr) -> String {
    let mut out = String::new();
    print_expr(expr, Prec::Alt, &mut out);
    out
}

/// Binding strength of the context an expression is printed in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// Rule body or inside parentheses: anything goes.
    Alt,
    /// Element of a sequence: alternations need parentheses.
    Seq,
    /// Operand of a repetition: sequences and alternations need parentheses.
    Atom,
}

fn print_expr(expr: &Expr, ctx: Prec, out: &mut String) {
    match expr {
        Expr::Empty => {
            if ctx != Prec::Alt {
                out.push_str("\"\"");
            }
        }
        Expr::Literal(s) => print_literal(s, out),
        Expr::Class { ranges, negated } => print_class(ranges, *negated, out),
        Expr::Any => out.push('.'),
        Expr::Ref(name) => out.push_str(name),
        Expr::Seq(items) => {
            let paren = ctx == Prec::Atom;
            if paren {
                out.push('(');
            }
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_expr(item, Prec::Seq, out);
            }
            if paren {
                out.push(')');
            }
        }
        Expr::Alt(items) => {
            let paren = ctx != Prec::Alt;
            if paren {
                out.push('(');
            }
            // An empty alternative prints as nothing, first: `| " "` (valid GBNF, never a dangling `|`).
            let mut parts: Vec<String> = Vec::new();
            if items.contains(&Expr::Empty) {
                parts.push(String::new());
            }
            for item in items.iter().filter(|e| **e != Expr::Empty) {
                let mut s = String::new();
                print_expr(item, Prec::Alt, &mut s);
                parts.push(s);
            }
            let joined = parts.join(" | ");
            out.push_str(joined.strip_prefix(' ').unwrap_or(&joined));
            if paren {
                out.push(')');
            }
        }
        Expr::Repeat { expr, min, max } => {
            // A repetition of a repetition needs its parentheses (`("a"?)?`, never `"a"??`).
            if matches!(**expr, Expr::Repeat { .. }) {
                out.push('(');
                print_expr(expr, Prec::Alt, out);
                out.push(')');
            } else {
                print_expr(expr, Prec::Atom, out);
            }
            match (min, max) {
                (0, Some(1)) => out.push('?'),
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (m, None) => {
                    let _ = write!(out, "{{{m},}}");
                }
                (m, Some(n)) if m == n => {
                    let _ = write!(out, "{{{m}}}");
                }
                (m, Some(n)) => {
                    let _ = write!(out, "{{{m},{n}}}");
                }
            }
        }
    }
}

fn print_literal(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => push_char(c, out),
        }
    }
    out.push('"');
}

fn print_class(ranges: &[(char, char)], negated: bool, out: &mut String) {
    out.push('[');
    if negated {
        out.push('^');
    }
    for &(lo, hi) in ranges {
        push_class_char(lo, out);
        if hi != lo {
            out.push('-');
            push_class_char(hi, out);
        }
    }
    out.push(']');
}

/// Inside `[…]` the characters `] [ \ - ^` are structural; llama.cpp has no `\-`/`\^` escape, so
/// they are written as hex escapes.
fn push_class_char(c: char, out: &mut String) {
    match c {
        ']' | '[' | '\\' | '-' | '^' => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        _ => push_char(c, out),
    }
}

fn push_char(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c as u32 == 0x7F => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        // Invisible format/separator characters are escaped so grammars stay readable.
        c if matches!(c as u32, 0x80..=0x9F | 0x2028 | 0x2029 | 0xFEFF) => {
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_precedence() {
        let e = Expr::seq([
            Expr::lit("a\"\\\n\u{1}"),
            Expr::opt(Expr::seq([Expr::lit("x"), Expr::rule("r")])),
            Expr::alt([Expr::Empty, Expr::lit(" ")]),
            Expr::Class { ranges: vec![('-', '-'), ('a', 'z'), (']', ']')], negated: true },
        ]);
        assert_eq!(print_expr_text(&e), r#""a\"\\\n\x01" ("x" r)? (| " ") [^\x2Da-z\x5D]"#);
        let top = Expr::alt([Expr::lit("a"), Expr::Empty]);
        assert_eq!(print_expr_text(&top), r#"| "a""#);
        assert_eq!(print_expr_text(&Expr::repeat(Expr::lit("\n"), 1, Some(2))), r#""\n"{1,2}"#);
    }

    #[test]
    fn a_repetition_of_a_repetition_keeps_its_parentheses() {
        let e = Expr::opt(Expr::opt(Expr::seq([Expr::rule("space"), Expr::lit("</x>")])));
        assert_eq!(print_expr_text(&e), r#"((space "</x>")?)?"#);
        assert!(crate::gbnf::ParsedGrammar::parse(&format!("root ::= {}\nspace ::= \" \"?", print_expr_text(&e))).is_ok());
    }
}
