//! A cheap pre-scan that refuses expressions nested too deeply for the engine's recursion.
//!
//! minijinja parses operator and filter chains (`"x"|upper|upper…`, `1 + 1 + …`, `a.b.c…`) in a loop
//! but builds them as left-deep trees, which its code generator and the tree's drop then walk
//! recursively: a 20,000-link chain overflows the 1 MiB wasm stack (minijinja's own parser guard only
//! counts brackets and statements). So before compiling, every `{{ … }}` / `{% … %}` tag is scanned
//! and the depth of its deepest chain is estimated: each operator, filter, attribute, call or
//! subscript adds one level; `,` and `:` start a sibling inside brackets.

use crate::{Error, ErrorKind, Result};

/// Deepest expression accepted. Real templates stay under 30; a debug build needs about 2 KiB of
/// stack per level when compiling, so this keeps compilation well inside a 1 MiB stack.
pub const MAX_EXPRESSION_DEPTH: usize = 200;

/// Fail with [`ErrorKind::Limit`] (line and column set) if an expression nests deeper than
/// [`MAX_EXPRESSION_DEPTH`].
pub fn check_expression_nesting(source: &str) -> Result<()> {
    let bytes = source.as_bytes();
    let mut i = 0;
    while let Some(off) = source[i..].find('{') {
        let start = i + off;
        let Some(&next) = bytes.get(start + 1) else { break };
        match next {
            b'#' => {
                i = source[start + 2..].find("#}").map(|p| start + 2 + p + 2).unwrap_or(bytes.len());
            }
            b'{' | b'%' => {
                let close = if next == b'{' { b'}' } else { b'%' };
                let (end, depth) = scan_tag(bytes, start + 2, close);
                if depth > MAX_EXPRESSION_DEPTH {
                    let line = source[..start].matches('\n').count() + 1;
                    let column = source[source[..start].rfind('\n').map_or(0, |p| p + 1)..start].chars().count() + 1;
                    return Err(Error::new(
                        ErrorKind::Limit,
                        format!("expression nested deeper than {MAX_EXPRESSION_DEPTH} levels (operators, filters, attributes or calls in one chain)"),
                    )
                    .with_location(line, column));
                }
                i = end;
                if next == b'%' && tag_word(&source[start + 2..end]) == "raw" {
                    i = source[end..].find("endraw").map(|p| end + p).unwrap_or(bytes.len());
                }
            }
            _ => i = start + 1,
        }
    }
    Ok(())
}

/// The first word of a block tag (`raw` in `{%- raw %}`).
fn tag_word(tag: &str) -> &str {
    let t = tag.trim_start_matches(['-', '+']).trim_start();
    let n = t.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    &t[..n]
}

/// Scan one tag body from `i` to its closing `close}`; returns the index after it and the deepest chain.
fn scan_tag(bytes: &[u8], mut i: usize, close: u8) -> (usize, usize) {
    // (chain depth outside the bracket, depth at the bracket's start) per open bracket.
    let mut brackets: Vec<(usize, usize)> = Vec::new();
    let (mut cur, mut base, mut max) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\'' | b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ if b == close && bytes.get(i + 1) == Some(&b'}') && brackets.is_empty() => return (i + 2, max),
            b'(' | b'[' | b'{' => {
                brackets.push((cur, base));
                cur += 1;
                base = cur;
            }
            b')' | b']' | b'}' => {
                if let Some((outer, outer_base)) = brackets.pop() {
                    cur = outer + 1;
                    base = outer_base;
                }
            }
            b',' | b':' => cur = base,
            b'|' | b'.' | b'+' | b'-' | b'*' | b'/' | b'%' | b'~' | b'<' | b'>' | b'=' | b'!' => cur += 1,
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let s = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if matches!(&bytes[s..i], b"and" | b"or" | b"not" | b"in" | b"is" | b"if" | b"else") {
                    cur += 1;
                }
                max = max.max(cur);
                continue;
            }
            _ => {}
        }
        max = max.max(cur);
        i += 1;
    }
    (bytes.len(), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_chains_are_refused_and_real_expressions_pass() {
        assert!(check_expression_nesting(&format!("{{{{ 'x'{} }}}}", "|upper".repeat(500))).is_err());
        assert!(check_expression_nesting(&format!("{{{{ [{}] }}}}", "a.b + c, ".repeat(5000))).is_ok());
        assert!(check_expression_nesting("{% raw %}{{ a|b|c }}{% endraw %}{# |||| #}").is_ok());
        let err = check_expression_nesting(&format!("x\n  {{% if {} %}}", "a and ".repeat(300))).unwrap_err();
        assert_eq!((err.kind(), err.location()), (ErrorKind::Limit, Some((2, 3))));
    }
}
