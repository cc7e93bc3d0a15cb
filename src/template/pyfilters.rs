//! Jinja2 filters whose Python behaviour minijinja's built-ins do not reproduce exactly, as real chat
//! templates rely on it: `indent` (Python's `splitlines` quirks keep a trailing line break), `int` and
//! `float` (a value Python cannot convert gives the default instead of an error).

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, Environment};

/// Register the filters over minijinja's versions.
pub fn add_python_filters(env: &mut Environment<'static>) {
    env.add_filter("indent", indent);
    env.add_filter("float", float);
    env.add_filter("int", int);
}

/// Python's `str.splitlines()`: splits on every line boundary Python knows, drops the final empty piece.
fn splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = matches!(
            c,
            '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        );
        if !boundary {
            continue;
        }
        lines.push(&s[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r' {
            if let Some(&(j, '\n')) = chars.peek() {
                chars.next();
                end = j + 1;
            }
        }
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// Jinja2's `do_indent(s, width=4, first=False, blank=False)`, including its `s += "\n"` quirk.
/// A `Markup` stays one (Jinja2 indents through `soft_str`).
fn indent(value: Value, width: Option<Value>, first: Option<bool>, blank: Option<bool>, kwargs: Kwargs) -> Result<Value, Error> {
    let safe = value.is_safe();
    let out = indent_text(value, width, first, blank, kwargs)?;
    Ok(if safe { Value::from_safe_string(out) } else { Value::from(out) })
}

fn indent_text(value: Value, width: Option<Value>, first: Option<bool>, blank: Option<bool>, kwargs: Kwargs) -> Result<String, Error> {
    let width = match kwargs.get::<Option<Value>>("width")? {
        Some(w) => Some(w),
        None => width,
    };
    let first = kwargs.get::<Option<bool>>("first")?.or(first).unwrap_or(false);
    let blank = kwargs.get::<Option<bool>>("blank")?.or(blank).unwrap_or(false);
    kwargs.assert_all_used()?;
    let indention = match &width {
        None => "    ".to_string(),
        Some(w) if w.kind() == ValueKind::String => w.as_str().unwrap_or_default().to_string(),
        Some(w) => " ".repeat(usize::try_from(w.as_i64().unwrap_or(4).max(0)).unwrap_or(0)),
    };
    let s = match value.as_str() {
        Some(s) => s.to_string(),
        None => value.to_string(),
    } + "\n";
    let lines = splitlines(&s);
    let mut rv = String::new();
    if blank {
        rv = lines.join(&format!("\n{indention}"));
    } else if let Some((head, rest)) = lines.split_first() {
        rv.push_str(head);
        if !rest.is_empty() {
            rv.push('\n');
            let indented: Vec<String> =
                rest.iter().map(|l| if l.is_empty() { String::new() } else { format!("{indention}{l}") }).collect();
            rv.push_str(&indented.join("\n"));
        }
    }
    if first {
        rv = format!("{indention}{rv}");
    }
    Ok(rv)
}

/// Python's `float(str)`: surrounding whitespace, `_` between digits, `inf`/`nan` in any case.
fn parse_python_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let bytes = t.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' && !(i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
    }
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        return lower.parse::<f64>().ok().or_else(|| {
            let neg = lower.starts_with('-');
            let v = if unsigned == "nan" { f64::NAN } else { f64::INFINITY };
            Some(if neg { -v } else { v })
        });
    }
    // Rust accepts forms Python rejects ("1." is fine in both; "e5" in neither); only digits, sign, dot, exponent.
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E')) {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Python's `int(str, base)` for base 10: whitespace, sign, `_` between digits.
fn parse_python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    if !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    let v: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -v } else { v })
}

fn as_float(value: &Value) -> Option<f64> {
    match value.kind() {
        ValueKind::String => parse_python_float(value.as_str()?),
        ValueKind::Number | ValueKind::Bool => f64::try_from(value.clone()).ok().or_else(|| Some(if value.is_true() { 1.0 } else { 0.0 })),
        _ => None,
    }
}

/// Jinja2's `do_float(value, default=0.0)`.
fn float(value: Value, default: Option<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    let default = kwargs.get::<Option<Value>>("default")?.or(default);
    kwargs.assert_all_used()?;
    Ok(match as_float(&value) {
        Some(f) => Value::from(f),
        None => default.unwrap_or_else(|| Value::from(0.0)),
    })
}

/// Jinja2's `do_int(value, default=0, base=10)`: `int(value)`, else `int(float(value))`, else the default.
fn int(value: Value, default: Option<Value>, base: Option<u32>, kwargs: Kwargs) -> Result<Value, Error> {
    let default = kwargs.get::<Option<Value>>("default")?.or(default).unwrap_or_else(|| Value::from(0));
    let base = kwargs.get::<Option<u32>>("base")?.or(base);
    kwargs.assert_all_used()?;
    Ok(match value.kind() {
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            let base = base.unwrap_or(10);
            let direct = if base == 10 {
                parse_python_int(s)
            } else {
                i64::from_str_radix(s.trim().replace('_', "").as_str(), base).ok()
            };
            match direct.or_else(|| parse_python_float(s).filter(|f| f.is_finite()).map(|f| f.trunc() as i64)) {
                Some(i) => Value::from(i),
                None => default,
            }
        }
        ValueKind::Bool => Value::from(value.is_true() as i64),
        ValueKind::Number if value.is_integer() => value,
        ValueKind::Number => match f64::try_from(value.clone()) {
            Ok(f) if f.is_finite() => Value::from(f.trunc() as i64),
            _ => default,
        },
        _ => default,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(src: &str) -> String {
        let mut env = Environment::new();
        add_python_filters(&mut env);
        env.render_str(src, ()).unwrap()
    }

    #[test]
    fn indent_keeps_the_trailing_line_break_as_jinja2_does() {
        // Jinja2: '{\n'|indent(4, first=True) == '    {\n' (s += "\n" before splitlines).
        assert_eq!(render("{{ '{\\n'|indent(4, first=True) }}"), "    {\n");
        assert_eq!(render("{{ 'a\\nb'|indent(2) }}"), "a\n  b");
        assert_eq!(render("{{ 'a\\n\\nb'|indent(2) }}"), "a\n\n  b");
        assert_eq!(render("{{ 'a\\n\\nb'|indent(2, blank=true) }}"), "a\n  \n  b");
        assert_eq!(render("{{ 'a\\nb'|indent('> ', first=true) }}"), "> a\n> b");
        assert_eq!(render("{{ 'a\\r\\nb'|indent(1) }}"), "a\n b");
    }

    #[test]
    fn float_and_int_fall_back_to_the_default_like_python() {
        assert_eq!(render("{{ '{\"t\": 1}'|float }}"), "0.0");
        assert_eq!(render("{{ ' 2.5 '|float }}"), "2.5");
        assert_eq!(render("{{ 'x'|float(1.5) }}"), "1.5");
        assert_eq!(render("{{ '42'|int }}"), "42");
        assert_eq!(render("{{ '3.7'|int }}"), "3");
        assert_eq!(render("{{ 'abc'|int }}"), "0");
        assert_eq!(render("{{ 'abc'|int(-1) }}"), "-1");
        assert_eq!(render("{{ '1_000'|int }}"), "1000");
        assert_eq!(render("{{ 'ff'|int(base=16) }}"), "255");
        assert_eq!(render("{{ none|int }}"), "0");
        assert_eq!(render("{{ 4.9|int }}"), "4");
    }
}
