//! What Python Jinja2's lexer does to the template source before anything renders.

use std::borrow::Cow;

/// Jinja2 rewrites every line break in template text and string literals (`\r\n`, `\r`, `\n`) to the
/// environment's `newline_sequence`, `\n` (transformers does not change it). Templates saved with CRLF
/// line endings therefore render with `\n`. Line breaks elsewhere (between tag tokens) are whitespace
/// either way, so normalising the whole source is equivalent.
pub fn normalize_newlines(source: &str) -> Cow<'_, str> {
    if !source.contains('\r') {
        return Cow::Borrowed(source);
    }
    Cow::Owned(source.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    #[test]
    fn crlf_and_cr_in_text_and_literals_render_as_lf() {
        let src = "a\r\nb\r{{ 'x\r\ny' }}{% if true %}\r\nc{% endif %}";
        let out = render_template(src, &json!({}), RenderOptions::default()).unwrap();
        // trim_blocks removes the first newline after a block tag, as Jinja2 does after normalising.
        assert_eq!(out, "a\nb\nx\nyc");
        // An escaped `\r` in a string literal is not a line break in the source and stays.
        assert_eq!(render_template("{{ 'a\\rb' }}", &json!({}), RenderOptions::default()).unwrap(), "a\rb");
    }
}

#[cfg(test)]
mod self_reference {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    #[test]
    fn self_attributes_are_undefined_as_in_a_template_without_blocks() {
        let out = render_template("[{{ self.DEFAULT_SYSTEM_MESSAGE }}]", &json!({}), RenderOptions::default()).unwrap();
        assert_eq!(out, "[]");
    }
}

/// Jinja2 decodes a string literal with Python's rules, `literal.encode("ascii", "backslashreplace")
/// .decode("unicode-escape")`: a backslash at the end of a line continues it, `\x..`, `\u....`,
/// `\U........`, octal `\0`–`\777`, `\a` `\b` `\f` `\v`, an unknown escape keeps its backslash, and a
/// backslash before a non-ASCII character escapes the first character of that character's own escape
/// (`\é` is `\xe9`). minijinja knows only JSON's escapes, so every literal with a backslash is decoded
/// here and written back with only `\\`, `\"`, `\n` and `\r` escapes, on one line; the source's line
/// breaks inside the literal are put after it (whitespace inside the tag), so line numbers stay. Literals Python cannot decode
/// (`\x4`, an unknown `\N{…}` name) fail to compile as in Python. `\N{…}` needs the Unicode name table,
/// which is not bundled: it fails to compile here (tests/expectations/jinja_diff_known.json).
pub fn python_string_literals(source: &str) -> crate::Result<Cow<'_, str>> {
    if !source.contains('\\') {
        return Ok(Cow::Borrowed(source));
    }
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    let mut i = 0;
    let mut changed = false;
    while i + 1 < bytes.len() {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        match bytes[i + 1] {
            b'#' => {
                i = source[i + 2..].find("#}").map_or(bytes.len(), |p| i + 2 + p + 2);
            }
            b'%' if raw_block_end(source, i).is_some() => {
                i = raw_block_end(source, i).unwrap_or(bytes.len());
            }
            b'{' | b'%' => {
                let close: &[u8] = if bytes[i + 1] == b'{' { b"}}" } else { b"%}" };
                let mut j = i + 2;
                let mut depth = 0usize;
                while j < bytes.len() {
                    let b = bytes[j];
                    if depth == 0 && bytes[j..].starts_with(close) {
                        j += 2;
                        break;
                    }
                    match b {
                        b'(' | b'[' | b'{' => depth += 1,
                        b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                        b'\'' | b'"' => {
                            let Some(end) = string_end(bytes, j) else { break };
                            let raw = &source[j + 1..end];
                            if raw.contains('\\') {
                                let line = source[..j].matches('\n').count() + 1;
                                let value = decode_python_literal(raw).map_err(|why| {
                                    crate::Error::new(crate::ErrorKind::TemplateSyntax, format!("string literal: {why} (line {line})"))
                                        .with_location(line, 1)
                                })?;
                                out.push_str(&source[copied..j]);
                                out.push('"');
                                for c in value.chars() {
                                    match c {
                                        '\\' => out.push_str("\\\\"),
                                        '"' => out.push_str("\\\""),
                                        // Escaped, so the literal spans no line: lines stay the source's.
                                        '\n' => out.push_str("\\n"),
                                        '\r' => out.push_str("\\r"),
                                        c => out.push(c),
                                    }
                                }
                                out.push('"');
                                // The source's line breaks inside the literal, after it (whitespace in the tag).
                                for _ in 0..raw.matches('\n').count() {
                                    out.push('\n');
                                }
                                copied = end + 1;
                                changed = true;
                            }
                            j = end;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    if !changed {
        return Ok(Cow::Borrowed(source));
    }
    out.push_str(&source[copied..]);
    Ok(Cow::Owned(out))
}

/// The closing quote of the literal opening at `start` (a backslash escapes any byte, line breaks too).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut k = start + 1;
    while k < bytes.len() {
        match bytes[k] {
            b'\\' => k += 2,
            b if b == quote => return Some(k),
            _ => k += 1,
        }
    }
    None
}

/// For `{% raw %}` at `at` (any whitespace control), the offset after its `{% endraw %}`.
fn raw_block_end(source: &str, at: usize) -> Option<usize> {
    let tag = |s: &str, word: &str| -> Option<usize> {
        let rest = s.strip_prefix("{%")?;
        let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest).trim_start();
        let rest = rest.strip_prefix(word)?.trim_start();
        let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        rest.starts_with("%}").then(|| s.len() - rest.len() + 2)
    };
    let open = tag(&source[at..], "raw")?;
    let mut k = at + open;
    while let Some(p) = source[k..].find("{%") {
        if let Some(len) = tag(&source[k + p..], "endraw") {
            return Some(k + p + len);
        }
        k += p + 2;
    }
    Some(source.len())
}

/// Python's `raw.encode("ascii", "backslashreplace").decode("unicode-escape")`.
fn decode_python_literal(raw: &str) -> Result<String, String> {
    use std::fmt::Write;
    let mut ascii = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c as u32 {
            0..=0x7f => ascii.push(c),
            n @ 0x80..=0xff => {
                let _ = write!(ascii, "\\x{n:02x}");
            }
            n @ 0x100..=0xffff => {
                let _ = write!(ascii, "\\u{n:04x}");
            }
            n => {
                let _ = write!(ascii, "\\U{n:08x}");
            }
        }
    }
    let b = ascii.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let hex = |s: &[u8], n: usize, what: &str| -> Result<u32, String> {
        let digits = s.get(..n).filter(|d| d.iter().all(u8::is_ascii_hexdigit)).ok_or_else(|| format!("truncated {what} escape"))?;
        u32::from_str_radix(std::str::from_utf8(digits).unwrap_or("x"), 16).map_err(|_| format!("truncated {what} escape"))
    };
    let push = |out: &mut String, n: u32| -> Result<(), String> {
        char::from_u32(n).map(|c| out.push(c)).ok_or_else(|| "illegal Unicode character (a lone surrogate or beyond U+10FFFF)".to_string())
    };
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i] as char);
            i += 1;
            continue;
        }
        let Some(&e) = b.get(i + 1) else { return Err("\\ at end of string".into()) };
        i += 2;
        match e {
            b'\n' => {}
            b'\\' | b'\'' | b'"' => out.push(e as char),
            b'a' => out.push('\u{7}'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'v' => out.push('\u{b}'),
            b'0'..=b'7' => {
                let mut n = u32::from(e - b'0');
                for _ in 0..2 {
                    match b.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            n = n * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                push(&mut out, n)?;
            }
            b'x' => {
                push(&mut out, hex(&b[i..], 2, "\\xXX")?)?;
                i += 2;
            }
            b'u' => {
                push(&mut out, hex(&b[i..], 4, "\\uXXXX")?)?;
                i += 4;
            }
            b'U' => {
                push(&mut out, hex(&b[i..], 8, "\\UXXXXXXXX")?)?;
                i += 8;
            }
            b'N' => return Err("\\N{...} escapes (Unicode character names) are not supported".into()),
            _ => {
                out.push('\\');
                out.push(e as char);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod string_literals {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    fn render(src: &str) -> Result<String, String> {
        render_template(src, &json!({}), RenderOptions::default()).map_err(|e| e.to_string())
    }

    /// Expected values are Python Jinja2's (jinja_diff, issue #27).
    #[test]
    fn string_literals_decode_as_python_does() {
        let cases = [
            ("{{ 'a\\\nb' }}", "ab"),
            ("{{ \"\\x41\\u00e9\\U0001F600\\101\\7\" }}", "Aé😀A\u{7}"),
            ("{{ '\\q\\d\\%' }}|{{ 'é\\é' }}", "\\q\\d\\%|é\\xe9"),
            ("{{ '\\a\\b\\f\\v\\0' }}", "\u{7}\u{8}\u{c}\u{b}\0"),
            ("{{ 'it\\'s' ~ \"say \\\"hi\\\"\" }}", "it'ssay \"hi\""),
            ("{% raw %}{{ '\\x41' }}{% endraw %}{# '\\x41' #}", "{{ '\\x41' }}"),
            ("{{ '\\\\n' }}", "\\n"),
        ];
        for (src, want) in cases {
            assert_eq!(render(src).as_deref(), Ok(want), "{src}");
        }
        // A line continuation keeps the lines of what follows.
        let err = render("{{ 'a\\\nb' }}\n{{ x(") .unwrap_err();
        assert!(err.contains("line 3"), "{err}");
        // An escaped line break in a literal is no line of the source.
        let err = render("{{ 'a\\nb' }}\n{{ x(").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
        for bad in ["{{ '\\x4' }}", "{{ '\\u12' }}", "{{ '\\U00110000' }}"] {
            assert!(render(bad).is_err(), "{bad}");
        }
    }
}
