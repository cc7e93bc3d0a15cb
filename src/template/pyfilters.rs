//! Jinja2 filters whose Python behaviour minijinja's built-ins do not reproduce exactly, as real chat
//! templates rely on it: `indent` (Python's `splitlines` quirks keep a trailing line break), `int` and
//! `float` (a value Python cannot convert gives the default instead of an error).

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind};

/// Register the filters over minijinja's versions, add Jinja2's that minijinja lacks, and remove
/// minijinja's that Jinja2 does not have (a template using one fails in Python).
pub fn add_python_filters(env: &mut Environment<'static>) {
    env.add_filter("indent", indent);
    env.add_filter("float", float);
    env.add_filter("int", int);
    env.add_filter("center", |v: Value, width: Option<i64>| -> Result<Value, Error> { Ok(Value::from(center(&text(&v)?, width.unwrap_or(80), ' '))) });
    env.add_filter("wordcount", |v: Value| -> Result<Value, Error> { Ok(Value::from(wordcount(&text(&v)?))) });
    env.add_filter("truncate", truncate);
    env.add_filter("filesizeformat", filesizeformat);
    env.add_filter("striptags", |v: Value| -> Result<Value, Error> { Ok(Value::from(striptags(&text(&v)?))) });
    env.add_filter("pprint", |v: Value| -> Result<Value, Error> {
        let mut out = String::new();
        super::env::python_repr(&mut out, &v, false, 0)?;
        Ok(Value::from(out))
    });
    env.add_filter("sum", |s: &minijinja::State, v: Value, attribute: Option<&str>, start: Option<Value>, kwargs: Kwargs| -> Result<Value, Error> {
        let named: Option<Value> = kwargs.peek("start")?;
        if start.as_ref().or(named.as_ref()).is_some_and(|s| s.kind() == ValueKind::String) {
            return Err(Error::new(ErrorKind::InvalidOperation, "sum() can't sum strings [use ''.join(seq) instead]"));
        }
        // Undefined items raise (Undefined + int); an iterator is walked once.
        let v = if v.kind() == ValueKind::Iterable && v.len().is_none() { Value::from(v.try_iter()?.collect::<Vec<_>>()) } else { v };
        if attribute.is_none() && matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable) {
            for item in v.try_iter()? {
                undefined_raises(&item)?;
            }
        }
        minijinja::filters::sum(s, v, attribute, start, kwargs)
    });
    env.add_filter("abs", |v: Value| {
        let v = if v.kind() == ValueKind::Bool { Value::from(v.is_true() as i64) } else { v };
        minijinja::filters::abs(v)
    });
    // Python's round(True) is 1 (a bool is an int).
    // `floor` / `ceil` divide by 10**precision: always a float in Python.
    env.add_filter("round", |v: Value, precision: Option<i32>, method: Option<String>, kwargs: Kwargs| {
        let v = if v.kind() == ValueKind::Bool { Value::from(v.is_true() as i64) } else { v };
        let method = kwargs.get::<Option<String>>("method")?.or(method);
        let float = matches!(method.as_deref(), Some("floor" | "ceil"));
        let r = minijinja::filters::round(v, precision, method.as_deref(), kwargs)?;
        Ok::<_, Error>(if float && r.is_integer() { Value::from(f64::try_from(r).unwrap_or(0.0)) } else { r })
    });
}

/// Python's `str(v)` of a filter's input (`soft_str`).
fn text(v: &Value) -> Result<String, Error> {
    if v.is_undefined() {
        return Ok(String::new());
    }
    let mut out = String::new();
    super::env::python_repr(&mut out, v, true, 0)?;
    Ok(out)
}

/// Python's `str.center(width, fill)`.
pub fn center(s: &str, width: i64, fill: char) -> String {
    let len = s.chars().count() as i64;
    if width <= len {
        return s.to_string();
    }
    let pad = width - len;
    let left = pad / 2 + (pad & width & 1);
    let fill_n = |n: i64| std::iter::repeat_n(fill, n as usize).collect::<String>();
    format!("{}{s}{}", fill_n(left), fill_n(pad - left))
}

/// Jinja2's `wordcount`: matches of `\w+`.
fn wordcount(s: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in s.chars() {
        let word = c.is_alphanumeric() || c == '_';
        if word && !in_word {
            count += 1;
        }
        in_word = word;
    }
    count
}

/// Jinja2's `do_truncate(s, length=255, killwords=False, end='...', leeway=None)` (leeway 5): the lengths are
/// asserted first; anything with a length short enough comes back as it is (Undefined too); a longer
/// value must be a string (a `Markup` escapes `end`, as `Markup + str` does).
fn truncate(v: Value, length: Option<i64>, killwords: Option<Value>, end: Option<String>, kwargs: Kwargs) -> Result<Value, Error> {
    let length = kwargs.get::<Option<i64>>("length")?.or(length).unwrap_or(255);
    let killwords = kwargs.get::<Option<Value>>("killwords")?.or(killwords).is_some_and(|k| k.is_true());
    let end = kwargs.get::<Option<String>>("end")?.or(end).unwrap_or_else(|| "...".into());
    let leeway = kwargs.get::<Option<i64>>("leeway")?.unwrap_or(5);
    kwargs.assert_all_used()?;
    let end_len = end.chars().count() as i64;
    if length < end_len || leeway < 0 {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("expected length >= {end_len}, got {length}")));
    }
    let len = match v.kind() {
        ValueKind::Undefined => 0,
        ValueKind::String => v.as_str().unwrap_or_default().chars().count(),
        ValueKind::Seq | ValueKind::Map => v.len().unwrap_or(0),
        _ => return Err(Error::new(ErrorKind::InvalidOperation, "truncate: object has no len()")),
    } as i64;
    if len <= length + leeway {
        return Ok(v);
    }
    let Some(s) = v.as_str().filter(|_| v.kind() == ValueKind::String) else {
        return Err(Error::new(ErrorKind::InvalidOperation, "truncate: can only concatenate str"));
    };
    let head: String = s.chars().take((length - end_len) as usize).collect();
    let head = if killwords { head.as_str() } else { head.rsplit_once(' ').map_or(head.as_str(), |(a, _)| a) };
    Ok(if v.is_safe() {
        Value::from_safe_string(format!("{head}{}", super::markup::markup_escape(&end)))
    } else {
        Value::from(format!("{head}{end}"))
    })
}

/// Jinja2's `do_filesizeformat(value, binary=False)`.
fn filesizeformat(v: Value, binary: Option<bool>) -> Result<Value, Error> {
    let bytes = match v.kind() {
        ValueKind::String => parse_python_float(v.as_str().unwrap_or_default()),
        _ => as_float(&v),
    }
    .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "filesizeformat: could not convert to float"))?;
    let binary = binary.unwrap_or(false);
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes: [&str; 8] = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return Ok(Value::from("1 Byte"));
    }
    if bytes < base {
        return Ok(Value::from(format!("{} Bytes", bytes.trunc() as i64)));
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit || i == prefixes.len() - 1 {
            return Ok(Value::from(format!("{:.1} {prefix}", base * bytes / unit)));
        }
    }
    Ok(Value::from(format!("{:.1} YB", base * bytes / unit)))
}

/// MarkupSafe's `striptags`: comments and tags removed, whitespace collapsed, basic entities unescaped.
fn striptags(s: &str) -> String {
    let mut v = s.to_string();
    while let Some(start) = v.find("<!--") {
        match v[start..].find("-->") {
            Some(end) => v.replace_range(start..start + end + 3, ""),
            None => break,
        }
    }
    while let Some(start) = v.find('<') {
        match v[start..].find('>') {
            Some(end) => v.replace_range(start..start + end + 1, ""),
            None => break,
        }
    }
    let collapsed = v.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&#34;", "\"").replace("&amp;", "&")
}

/// Python's `str.splitlines()`: splits on every line boundary Python knows, drops the final empty piece.
pub(crate) fn splitlines(s: &str) -> Vec<&str> {
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
    // Jinja2's `s += "\n"` raises for an `Undefined` and anything but a string.
    undefined_raises(&value)?;
    if value.kind() != ValueKind::String {
        return Err(Error::new(ErrorKind::InvalidOperation, "indent: can only concatenate a string"));
    }
    let safe = value.is_safe();
    let out = indent_text(value, width, first, blank, kwargs)?;
    Ok(if safe { Value::from_safe_string(out) } else { Value::from(out) })
}

fn indent_text(value: Value, width: Option<Value>, first: Option<bool>, blank: Option<bool>, kwargs: Kwargs) -> Result<String, Error> {
    let width = match kwargs.get::<Option<Value>>("width")? {
        Some(w) => Some(w),
        None => width,
    };
    if let Some(w) = &width {
        undefined_raises(w)?;
    }
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

/// Jinja2's `do_float(value, default=0.0)`. `Undefined` raises (its `__float__` does).
fn float(value: Value, default: Option<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    undefined_raises(&value)?;
    let default = kwargs.get::<Option<Value>>("default")?.or(default);
    kwargs.assert_all_used()?;
    Ok(match as_float(&value) {
        Some(f) => Value::from(f),
        None => default.unwrap_or_else(|| Value::from(0.0)),
    })
}

/// Jinja2's `Undefined` refuses `int()`, `float()`, arithmetic and ordering.
pub fn undefined_raises(v: &Value) -> Result<(), Error> {
    match v.is_undefined() {
        true => Err(Error::new(ErrorKind::UndefinedError, "an undefined value cannot be used here")),
        false => Ok(()),
    }
}

/// Jinja2's `do_int(value, default=0, base=10)`: `int(value)`, else `int(float(value))`, else the default.
fn int(value: Value, default: Option<Value>, base: Option<u32>, kwargs: Kwargs) -> Result<Value, Error> {
    undefined_raises(&value)?;
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
