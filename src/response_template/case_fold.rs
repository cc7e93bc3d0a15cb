//! Case-insensitive patterns (`(?i)`, `(?i:…)`) without regex-syntax's Unicode case-folding tables.
//!
//! Those tables (`unicode-case`: ≈ 50 KB of pointer-laden data, ≈ 20 KB of the gzipped wasm) would ship
//! only for the `(?i)` of a declared response template. Instead a case-insensitive part of a pattern is
//! rewritten before it is compiled: each literal becomes the class of its case variants and each
//! class gains its members' variants, and the `i` flag is dropped. The variants come from the standard
//! library's case mappings (already in the module for `lower`/`upper`): two characters are variants
//! when one maps to the other by a one-character lowercase or uppercase mapping, closed transitively.
//! Over every character with a variant this gives the classes the `regex` module (which transformers
//! compiles declared patterns with) matches, but for one pair: `regex` lets `(?i)I` match `ı` and not
//! `(?i)i`, where here both do (as in Python's `re`; regex-syntax's simple case folding let neither).

use regex_syntax::ast::{self, Ast, ClassSet, ClassSetItem, Flag, FlagsItemKind};
use std::sync::OnceLock;

/// The highest code point with a case mapping (Adlam); nothing above it has a variant.
const LAST_CASED: u32 = 0x1E943;

/// Characters with a variant, sorted, each with its orbit (the smallest index of its variants' set),
/// and the same pairs sorted by orbit.
struct Orbits {
    by_char: Vec<(char, u32)>,
    by_orbit: Vec<(u32, char)>,
}

fn one(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

fn orbits() -> &'static Orbits {
    static ORBITS: OnceLock<Orbits> = OnceLock::new();
    ORBITS.get_or_init(|| {
        let mut edges = Vec::new();
        for c in (0..=LAST_CASED).filter_map(char::from_u32) {
            for v in [one(c.to_lowercase()), one(c.to_uppercase())].into_iter().flatten() {
                if v != c {
                    edges.push((c, v));
                }
            }
        }
        let mut chars: Vec<char> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
        chars.sort_unstable();
        chars.dedup();
        let index = |c: char| chars.binary_search(&c).unwrap_or(0);
        let mut parent: Vec<usize> = (0..chars.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for (a, b) in edges {
            let (x, y) = (root(&mut parent, index(a)), root(&mut parent, index(b)));
            parent[x.max(y)] = x.min(y);
        }
        let by_char: Vec<(char, u32)> = (0..chars.len()).map(|i| (chars[i], root(&mut parent, i) as u32)).collect();
        let mut by_orbit: Vec<(u32, char)> = by_char.iter().map(|&(c, o)| (o, c)).collect();
        by_orbit.sort_unstable();
        Orbits { by_char, by_orbit }
    })
}

/// `c`'s case variants other than itself, in code point order.
pub fn variants(c: char) -> impl Iterator<Item = char> {
    let o = orbits();
    let orbit = o.by_char.binary_search_by_key(&c, |&(x, _)| x).ok().map(|i| o.by_char[i].1);
    let members = orbit.map_or(&o.by_orbit[..0], |orbit| {
        let start = o.by_orbit.partition_point(|&(x, _)| x < orbit);
        let end = o.by_orbit.partition_point(|&(x, _)| x <= orbit);
        &o.by_orbit[start..end]
    });
    members.iter().map(|&(_, v)| v).filter(move |&v| v != c)
}

/// Every cased character in `lo..=hi`.
fn cased_in(lo: char, hi: char) -> impl Iterator<Item = char> {
    let o = orbits();
    let start = o.by_char.partition_point(|&(x, _)| x < lo);
    let end = o.by_char.partition_point(|&(x, _)| x <= hi);
    o.by_char[start..end].iter().map(|&(c, _)| c)
}

/// `pattern` (the Rust dialect, as `translate` writes it) with every case-insensitive part spelled
/// out, so it compiles without Unicode case folding. A pattern without `i` flags is returned as is.
pub fn spell_out(pattern: &str) -> Result<String, String> {
    if !pattern.contains("(?") {
        return Ok(pattern.to_string());
    }
    let mut ast = ast::parse::Parser::new().parse(pattern).map_err(|e| e.to_string())?;
    let mut folded = false;
    fold(&mut ast, &mut false, &mut folded);
    if !folded {
        return Ok(pattern.to_string());
    }
    let mut out = String::with_capacity(pattern.len() * 2);
    ast::print::Printer::new().print(&ast, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Takes the `i` flag out of `flags`, returning the state it sets (`None` when it names no `i`).
fn take_case_flag(flags: &mut ast::Flags) -> Option<bool> {
    let state = flags.flag_state(Flag::CaseInsensitive)?;
    flags.items.retain(|item| item.kind != FlagsItemKind::Flag(Flag::CaseInsensitive));
    if flags.items.last().is_some_and(|item| item.kind.is_negation()) {
        flags.items.pop();
    }
    Some(state)
}

/// Rewrites `ast` in place; `ci` is the case-insensitive state where it starts, updated as flags set it
/// (a flag set applies to the rest of its group, as in regex-syntax and Python).
fn fold(ast: &mut Ast, ci: &mut bool, folded: &mut bool) {
    match ast {
        Ast::Flags(set) => {
            if let Some(state) = take_case_flag(&mut set.flags) {
                *ci = state;
                *folded = true;
                if set.flags.items.is_empty() {
                    *ast = Ast::empty(set.span);
                }
            }
        }
        Ast::Literal(lit) if *ci => {
            let mut items = vec![ClassSetItem::Literal((**lit).clone())];
            items.extend(variants(lit.c).map(|v| ClassSetItem::Literal(verbatim(v, lit.span))));
            if items.len() > 1 {
                let span = lit.span;
                let set = ClassSet::union(ast::ClassSetUnion { span, items });
                *ast = Ast::class_bracketed(ast::ClassBracketed { span, negated: false, kind: set });
            }
        }
        Ast::ClassBracketed(class) if *ci => fold_set(&mut class.kind),
        Ast::Repetition(rep) => fold(&mut rep.ast, ci, folded),
        Ast::Group(group) => {
            let mut inner = *ci;
            if let ast::GroupKind::NonCapturing(flags) = &mut group.kind {
                if let Some(state) = take_case_flag(flags) {
                    inner = state;
                    *folded = true;
                }
            }
            fold(&mut group.ast, &mut inner, folded);
        }
        Ast::Alternation(alt) => {
            for branch in &mut alt.asts {
                fold(branch, ci, folded);
            }
        }
        Ast::Concat(concat) => {
            for part in &mut concat.asts {
                fold(part, ci, folded);
            }
        }
        _ => {}
    }
}

fn verbatim(c: char, span: ast::Span) -> ast::Literal {
    ast::Literal { span, kind: ast::LiteralKind::Verbatim, c }
}

/// Adds the case variants of a case-insensitive class's literals and ranges. Perl classes (`\w \d \s`)
/// are closed under case already; POSIX and `\p` classes are not Python syntax.
fn fold_set(set: &mut ClassSet) {
    match set {
        ClassSet::Item(item) => fold_item(item),
        ClassSet::BinaryOp(op) => {
            fold_set(&mut op.lhs);
            fold_set(&mut op.rhs);
        }
    }
}

fn fold_item(item: &mut ClassSetItem) {
    let (chars, span): (Vec<char>, _) = match item {
        ClassSetItem::Literal(lit) => (variants(lit.c).collect(), lit.span),
        ClassSetItem::Range(range) => (cased_in(range.start.c, range.end.c).flat_map(variants).collect(), range.span),
        ClassSetItem::Bracketed(class) => return fold_set(&mut class.kind),
        ClassSetItem::Union(union) => {
            for item in &mut union.items {
                fold_item(item);
            }
            return;
        }
        _ => return,
    };
    if chars.is_empty() {
        return;
    }
    let mut items = vec![std::mem::replace(item, ClassSetItem::Empty(span))];
    items.extend(chars.into_iter().map(|c| ClassSetItem::Literal(verbatim(c, span))));
    *item = ClassSetItem::Union(ast::ClassSetUnion { span, items });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vs(c: char) -> String {
        variants(c).collect()
    }

    #[test]
    fn variants_close_over_lower_and_upper_mappings() {
        assert_eq!(vs('a'), "A");
        assert_eq!(vs('k'), "K\u{212A}");
        assert_eq!(vs('\u{212A}'), "Kk");
        assert_eq!(vs('σ'), "Σς");
        assert_eq!(vs('ß'), "ẞ");
        assert_eq!(vs('i'), "Iı", "Python's re matches ı with (?i)i as well");
        assert_eq!(vs('s'), "Sſ");
        assert_eq!(vs('1'), "");
        assert_eq!(vs('\u{1E922}'), "\u{1E900}", "Adlam, the last cased script");
    }

    #[test]
    fn case_insensitive_parts_are_spelled_out() {
        assert_eq!(spell_out("ab").unwrap(), "ab");
        assert_eq!(spell_out("(?s)ab").unwrap(), "(?s)ab");
        assert_eq!(spell_out("(?i)a1").unwrap(), "[aA]1");
        assert_eq!(spell_out("(?i:a)b").unwrap(), "(?:[aA])b");
        assert_eq!(spell_out("(?is)a(?-i)b").unwrap(), "(?s)[aA]b");
        assert_eq!(spell_out("(?i)[^x-z]").unwrap(), "[^x-zXYZ]");
        assert_eq!(spell_out("(?i)(?P<n>\\w+)").unwrap(), "(?P<n>\\w+)");
        assert!(spell_out("(?i)(").is_err());
    }
}
