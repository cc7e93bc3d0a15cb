//! Python's printf-style formatting (`'%s: %5.1f' % (a, b)`, Jinja2's `|format`), which minijinja's
//! `format` covers only in part: `%r` / `%a` / `%c` / `%e` / `%g`, `%d` of a float (truncated), `*`
//! widths, `%(name)s` with a mapping, and the `TypeError`s Python raises for a wrong argument count or
//! type.

use super::env::python_repr;
use super::pyoperators::python_type;
use super::tojson::python_float_repr;
use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

fn type_error(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// `str(v)` (`top`) or `repr(v)`.
fn py_str(v: &Value, top: bool) -> Result<String, Error> {
    if top && v.kind() == ValueKind::String {
        return Ok(v.as_str().unwrap_or_default().to_string());
    }
    if !top && v.kind() == ValueKind::Number && !v.is_integer() {
        return Ok(python_float_repr(f64::try_from(v.clone()).unwrap_or(f64::NAN)).replace("NaN", "nan").replace("Infinity", "inf"));
    }
    let mut out = String::new();
    python_repr(&mut out, v, top, 0)?;
    Ok(out)
}


/// `fmt % arg`: a tuple gives the arguments, a mapping serves `%(name)s` (and `%s` prints it), anything
/// else is the one argument.
pub fn percent(fmt: &str, arg: &Value) -> Result<String, Error> {
    if arg.is_tuple() {
        return printf(fmt, &arg.try_iter()?.collect::<Vec<_>>(), None);
    }
    // Python treats an argument with `__getitem__` (not a tuple or string) as a mapping: extra
    // arguments are then no error (`'' % [1]` is `''`, `'%%' % Undefined` is `'%'`).
    let getitem = matches!(arg.kind(), ValueKind::Map | ValueKind::Seq | ValueKind::Undefined);
    let mapping = (arg.kind() == ValueKind::Map).then(|| arg.clone());
    match printf(fmt, std::slice::from_ref(arg), mapping.as_ref()) {
        Err(e) if getitem && e.detail() == Some(NOT_ALL_CONVERTED) => Ok(fmt_without_args(fmt)),
        r => r,
    }
}

const NOT_ALL_CONVERTED: &str = "not all arguments converted during string formatting";

/// A format with no conversions, formatted: `%%` is `%`.
fn fmt_without_args(fmt: &str) -> String {
    fmt.replace("%%", "%")
}

/// Python's `fmt % tuple(args)` (or `% mapping`).
pub fn printf(fmt: &str, args: &[Value], mapping: Option<&Value>) -> Result<String, Error> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut next = 0usize;
    let mut used_key = false;
    let take = |next: &mut usize| -> Result<Value, Error> {
        let v = args.get(*next).cloned().ok_or_else(|| type_error("not enough arguments for format string"))?;
        *next += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        // %(key)
        let mut keyed: Option<Value> = None;
        if chars.get(i) == Some(&'(') {
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(type_error("incomplete format key"));
            }
            let key: String = chars[start..i - 1].iter().collect();
            let map = mapping.ok_or_else(|| type_error("format requires a mapping"))?;
            let v = map.get_item(&Value::from(key.clone()))?;
            if v.is_undefined() {
                return Err(Error::new(ErrorKind::InvalidOperation, format!("KeyError: '{key}'")));
            }
            keyed = Some(v);
            used_key = true;
        }
        let mut flags = String::new();
        while let Some(&f @ ('-' | '+' | ' ' | '#' | '0')) = chars.get(i) {
            flags.push(f);
            i += 1;
        }
        let number = |i: &mut usize, next: &mut usize| -> Result<Option<i64>, Error> {
            if chars.get(*i) == Some(&'*') {
                *i += 1;
                let v = take(next)?;
                return match v.as_i64() {
                    Some(n) if v.kind() == ValueKind::Number && v.is_integer() => Ok(Some(n)),
                    _ => Err(type_error("* wants int")),
                };
            }
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            Ok((start < *i).then(|| chars[start..*i].iter().collect::<String>().parse().unwrap_or(i64::MAX)))
        };
        let mut width = number(&mut i, &mut next)?;
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            precision = Some(number(&mut i, &mut next)?.unwrap_or(0));
        }
        if let Some(w) = width.filter(|w| *w < 0) {
            flags.push('-');
            width = Some(-w);
        }
        while let Some('h' | 'l' | 'L') = chars.get(i) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else { return Err(type_error("incomplete format")) };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let v = match keyed.take() {
            Some(v) => v,
            None => take(&mut next)?,
        };
        let left = flags.contains('-');
        let zero = flags.contains('0') && !left;
        let sign = if flags.contains('+') { "+" } else if flags.contains(' ') { " " } else { "" };
        let alt = flags.contains('#');
        let (body, numeric) = match conv {
            's' | 'r' | 'a' => {
                let mut s = py_str(&v, conv == 's')?;
                if conv == 'a' {
                    s = s.chars().map(|c| if c.is_ascii() { c.to_string() } else { ascii_escape(c) }).collect();
                }
                if let Some(p) = precision {
                    s = s.chars().take(p.max(0) as usize).collect();
                }
                (s, false)
            }
            'c' => (
                match v.kind() {
                    ValueKind::Bool => char::from_u32(v.is_true() as u32).map(String::from).unwrap_or_default(),
                    ValueKind::Number if v.is_integer() => char::from_u32(v.as_i64().unwrap_or(-1).try_into().unwrap_or(u32::MAX))
                        .map(String::from)
                        .ok_or_else(|| type_error("%c arg not in range(0x110000)"))?,
                    ValueKind::String if v.as_str().is_some_and(|s| s.chars().count() == 1) => v.as_str().unwrap_or_default().to_string(),
                    _ => return Err(type_error("%c requires an int or a unicode character")),
                },
                false,
            ),
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let n: i128 = match v.kind() {
                    ValueKind::Bool => v.is_true() as i128,
                    ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).unwrap_or(0),
                    ValueKind::Number if matches!(conv, 'd' | 'i' | 'u') => {
                        let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
                        if !f.is_finite() {
                            return Err(type_error("cannot convert float NaN or infinity to integer"));
                        }
                        f.trunc() as i128
                    }
                    ValueKind::Number => return Err(type_error(format!("%{conv} format: an integer is required, not float"))),
                    _ if matches!(conv, 'd' | 'i' | 'u') => {
                        return Err(type_error(format!("%{conv} format: a real number is required, not {}", python_type(&v))))
                    }
                    _ => return Err(type_error(format!("%{conv} format: an integer is required, not {}", python_type(&v)))),
                };
                let mag = n.unsigned_abs();
                let mut digits = match conv {
                    'o' => format!("{mag:o}"),
                    'x' => format!("{mag:x}"),
                    'X' => format!("{mag:X}"),
                    _ => mag.to_string(),
                };
                if let Some(p) = precision {
                    while (digits.len() as i64) < p {
                        digits.insert(0, '0');
                    }
                }
                let prefix = match (alt, conv) {
                    (true, 'o') => "0o",
                    (true, 'x') => "0x",
                    (true, 'X') => "0X",
                    _ => "",
                };
                (format!("{}{prefix}{digits}", if n < 0 { "-" } else { sign }), true)
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let f = match v.kind() {
                    ValueKind::Number | ValueKind::Bool => f64::try_from(v.clone()).unwrap_or(if v.is_true() { 1.0 } else { 0.0 }),
                    _ => return Err(type_error(format!("must be real number, not {}", python_type(&v)))),
                };
                (float_format(f, conv, precision.map(|p| p.max(0) as usize), alt, sign), f.is_finite())
            }
            other => return Err(type_error(format!("unsupported format character '{other}'"))),
        };
        let w = width.unwrap_or(0).max(0) as usize;
        let len = body.chars().count();
        if len >= w {
            out.push_str(&body);
        } else if left {
            out.push_str(&body);
            out.extend(std::iter::repeat_n(' ', w - len));
        } else if zero && numeric {
            let (head, rest) = split_sign_prefix(&body);
            out.push_str(head);
            out.extend(std::iter::repeat_n('0', w - len));
            out.push_str(rest);
        } else {
            out.extend(std::iter::repeat_n(' ', w - len));
            out.push_str(&body);
        }
    }
    if next < args.len() && mapping.is_none() && !used_key {
        return Err(type_error(NOT_ALL_CONVERTED));
    }
    Ok(out)
}

/// The sign and `0x`-style prefix of a formatted number (zero padding goes after them).
fn split_sign_prefix(s: &str) -> (&str, &str) {
    let mut k = 0;
    if s.starts_with(['+', '-', ' ']) {
        k = 1;
    }
    if s[k..].starts_with("0x") || s[k..].starts_with("0X") || s[k..].starts_with("0o") {
        k += 2;
    }
    s.split_at(k)
}

fn ascii_escape(c: char) -> String {
    match c as u32 {
        n @ 0..=0xff => format!("\\x{n:02x}"),
        n @ 0x100..=0xffff => format!("\\u{n:04x}"),
        n => format!("\\U{n:08x}"),
    }
}

/// C's `%e`: one digit, `precision` decimals, an exponent of at least two digits.
fn exp_format(f: f64, precision: usize) -> (String, i32) {
    let s = format!("{f:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    (format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()), exp)
}

/// Python's `%e` / `%f` / `%g` (upper case for `E` `F` `G`).
pub fn float_format(f: f64, conv: char, precision: Option<usize>, alt: bool, sign: &str) -> String {
    let upper = conv.is_ascii_uppercase();
    let sign_of = |neg: bool| if neg { "-" } else { sign };
    if !f.is_finite() {
        let s = if f.is_nan() { "nan" } else { "inf" };
        let s = if upper { s.to_uppercase() } else { s.to_string() };
        return format!("{}{s}", sign_of(f.is_sign_negative() && !f.is_nan()));
    }
    let neg = f.is_sign_negative();
    let a = f.abs();
    let body = match conv.to_ascii_lowercase() {
        'f' => format!("{a:.*}", precision.unwrap_or(6)),
        'e' => exp_format(a, precision.unwrap_or(6)).0,
        _ => {
            let p = precision.unwrap_or(6).max(1);
            let (e_form, exp) = exp_format(a, p - 1);
            let mut s = if exp >= -4 && exp < p as i32 { format!("{a:.*}", (p as i32 - 1 - exp).max(0) as usize) } else { e_form };
            if !alt {
                let (num, tail) = match s.find('e') {
                    Some(k) => (s[..k].to_string(), s[k..].to_string()),
                    None => (s.clone(), String::new()),
                };
                let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.').to_string() } else { num };
                s = num + &tail;
            } else if !s.contains('.') {
                match s.find('e') {
                    Some(k) => s.insert(k, '.'),
                    None => s.push('.'),
                }
            }
            s
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    format!("{}{body}", sign_of(neg))
}

#[cfg(test)]
mod tests {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    /// Expected outputs are Python's (jinja_diff, issue #27).
    #[test]
    fn percent_formatting_is_pythons() {
        let cases = [
            (r#"{{ "%.2f|%5s|%r|%x|%c|%e|%g" % (1.234, "a", "b", 255, 65, 1234.5, 0.00001) }}"#, "1.23|    a|'b'|ff|A|1.234500e+03|1e-05"),
            (r#"{{ "%s" % none }}{{ "%d" % 3.7 }}{{ "%s" % [1] }}{{ "%s" % {"a": 1} }}{{ "%5.1f%%" % 12.345 }}"#, "None3[1]{'a': 1} 12.3%"),
            (r#"{{ "%-4s|%04d|%+d|% d|%#x|%#o|%.3s|%*d" % ("ab", -5, 3, 3, 255, 8, "abcdef", 3, 7) }}"#, "ab  |-005|+3| 3|0xff|0o10|abc|  7"),
            (r#"{{ "%g|%g|%g|%G|%.3g|%#g|%g" % (100000, 1000000, 0.0001, 1e-5, 3.14159, 1.5, 1.0) }}"#, "100000|1e+06|0.0001|1E-05|3.14|1.50000|1"),
            (r#"{{ "%(a)s-%(b)05.1f" % {"a": "x", "b": 2.25} }}{{ "%r" % 1.5 }}{{ "%s" % 1.0 }}{{ "%a" % "é" }}"#, "x-002.21.51.0'\\xe9'"),
            (r#"{{ "%s-%s"|format(1, "b") }}{{ "%(x)s"|format(x=1) }}"#, "1-b1"),
        ];
        for (src, want) in cases {
            assert_eq!(render_template(src, &json!({}), RenderOptions::default()).map_err(|e| e.to_string()).as_deref(), Ok(want), "{src}");
        }
        for bad in [r#"{{ "" % (1,) }}"#, r#"{{ "%s %s" % ("a",) }}"#, r#"{{ "%d" % "a" }}"#, r#"{{ "%x" % 1.5 }}"#, r#"{{ "%(a)s" % (1,) }}"#] {
            assert!(render_template(bad, &json!({}), RenderOptions::default()).is_err(), "{bad}");
        }
    }
}
