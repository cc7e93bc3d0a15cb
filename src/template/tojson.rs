//! `tojson` exactly as Hugging Face defines it: Python's
//! `json.dumps(x, ensure_ascii=False, indent=…, separators=…, sort_keys=…)`, with no HTML escaping.
//!
//! minijinja's own `tojson` escapes `<`, `>`, `&` and `'` for HTML and spaces differently, which would
//! change tool schemas inside prompts by a byte, so it is replaced.

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind};
use super::pylist::{visit, Refused, MAX_VALUE_DEPTH};
use std::fmt::Write;

struct Style {
    /// Serialize generators as lists (llama.cpp's engine does; Python raises).
    lenient: bool,
    ensure_ascii: bool,
    indent: Option<String>,
    item_sep: String,
    key_sep: String,
    sort_keys: bool,
}

/// Positional arguments of transformers' `tojson(x, ensure_ascii=False, indent=None, separators=None,
/// sort_keys=False)`, in that order (not Jinja2's own `tojson(value, indent)`).
type Positional = minijinja::value::Rest<Value>;

/// The `tojson` filter.
pub fn tojson(value: &Value, args: Positional, kwargs: Kwargs) -> Result<Value, Error> {
    tojson_with(false, value, args, kwargs)
}

/// `tojson` that also serializes generators, for the lenient environment.
pub fn tojson_lenient(value: &Value, args: Positional, kwargs: Kwargs) -> Result<Value, Error> {
    tojson_with(true, value, args, kwargs)
}

fn tojson_with(lenient: bool, value: &Value, args: Positional, kwargs: Kwargs) -> Result<Value, Error> {
    let arg = |i: usize, name: &str| -> Result<Option<Value>, Error> {
        match (args.0.get(i), kwargs.get::<Option<Value>>(name)?) {
            (Some(_), Some(_)) => Err(Error::new(ErrorKind::InvalidOperation, format!("tojson() got multiple values for argument '{name}'"))),
            (Some(v), None) => Ok(Some(v.clone())),
            (None, v) => Ok(v),
        }
    };
    if args.0.len() > 4 {
        return Err(Error::new(ErrorKind::InvalidOperation, "tojson() takes at most 5 positional arguments"));
    }
    let ensure_ascii = arg(0, "ensure_ascii")?.is_some_and(|v| v.is_true());
    let separators: Option<Value> = arg(2, "separators")?;
    let sort_keys = arg(3, "sort_keys")?.is_some_and(|v| v.is_true());
    let indent = match arg(1, "indent")? {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => Some(if let Some(s) = v.as_str() {
            s.to_string()
        } else if let Some(n) = v.as_i64() {
            " ".repeat(n.max(0) as usize)
        } else {
            return Err(Error::new(ErrorKind::InvalidOperation, "tojson: indent must be an integer or a string"));
        }),
    };
    kwargs.assert_all_used()?;
    let (item_sep, key_sep) = match separators {
        Some(seps) if !seps.is_none() => {
            let a = seps.get_item_by_index(0)?;
            let b = seps.get_item_by_index(1)?;
            match (a.as_str(), b.as_str()) {
                (Some(a), Some(b)) => (a.to_string(), b.to_string()),
                _ => return Err(Error::new(ErrorKind::InvalidOperation, "tojson: separators must be two strings")),
            }
        }
        // Python: with an indent the item separator drops its trailing space.
        _ if indent.is_some() => (",".to_string(), ": ".to_string()),
        _ => (", ".to_string(), ": ".to_string()),
    };
    let style = Style { lenient, ensure_ascii, indent, item_sep, key_sep, sort_keys };
    let mut out = String::new();
    write_value(&mut out, value, &style, 0)?;
    // A plain string: transformers' `tojson` is `json.dumps`, a `str` (Jinja2's own returns a `Markup`,
    // which would make `'<f>' + x|tojson` escape `<f>`).
    Ok(Value::from(out))
}

fn newline(out: &mut String, style: &Style, depth: usize) {
    if let Some(ind) = &style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

/// Largest `tojson` result; shared sublists (`[x, x]` nested 60 times) would otherwise print 2^60 bytes.
pub const MAX_SERIALIZED_BYTES: usize = 8 << 20;

/// The error for a serialization that outgrew [`MAX_SERIALIZED_BYTES`] (a `Limit` error to callers).
pub fn too_large(what: &str) -> Error {
    Error::new(ErrorKind::OutOfFuel, format!("{what}: result larger than {MAX_SERIALIZED_BYTES} bytes"))
}

fn write_value(out: &mut String, value: &Value, style: &Style, depth: usize) -> Result<(), Error> {
    if depth > MAX_VALUE_DEPTH {
        return Err(Error::new(ErrorKind::InvalidOperation, "tojson: value nested too deeply"));
    }
    if out.len() > MAX_SERIALIZED_BYTES {
        return Err(too_large("tojson"));
    }
    match visit(value, || write_container(out, value, style, depth)) {
        Ok(r) => r,
        Err(Refused::Cycle) => Err(Error::new(ErrorKind::InvalidOperation, "tojson: Circular reference detected")),
        Err(Refused::TooDeep) => Err(Error::new(ErrorKind::InvalidOperation, "tojson: value nested too deeply")),
    }
}

fn write_container(out: &mut String, value: &Value, style: &Style, depth: usize) -> Result<(), Error> {
    match value.kind() {
        ValueKind::Undefined => {
            return Err(Error::new(ErrorKind::InvalidOperation, "tojson: Undefined is not JSON serializable"))
        }
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => write_number(out, value),
        ValueKind::String => write_string(out, value.as_str().unwrap_or_default(), style.ensure_ascii),
        // Python: `map`/`select` give generators, which json.dumps refuses.
        ValueKind::Iterable if !style.lenient => {
            return Err(Error::new(ErrorKind::InvalidOperation, "tojson: Object of type generator is not JSON serializable"))
        }
        ValueKind::Seq | ValueKind::Iterable => {
            // `checked`: an item that is an error (a spent walk budget) ends serializing with it.
            let items = value.try_iter()?.checked().collect::<Result<Vec<Value>, Error>>()?;
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&style.item_sep);
                }
                newline(out, style, depth + 1);
                write_value(out, item, style, depth + 1)?;
            }
            newline(out, style, depth);
            out.push(']');
        }
        ValueKind::Map => {
            let mut entries = Vec::new();
            for key in value.try_iter()? {
                let item = value.get_item(&key)?;
                entries.push((key_string(&key)?, item));
            }
            if style.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(&b.0));
            }
            if entries.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(&style.item_sep);
                }
                newline(out, style, depth + 1);
                write_string(out, k, style.ensure_ascii);
                out.push_str(&style.key_sep);
                write_value(out, v, style, depth + 1)?;
            }
            newline(out, style, depth);
            out.push('}');
        }
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("tojson: {} is not JSON serializable", value.kind()),
            ))
        }
    }
    Ok(())
}

/// Python converts non-string keys: numbers by repr, booleans and None to JSON words.
fn key_string(key: &Value) -> Result<String, Error> {
    Ok(match key.kind() {
        ValueKind::String => key.as_str().unwrap_or_default().to_string(),
        ValueKind::None => "null".into(),
        ValueKind::Bool => if key.is_true() { "true" } else { "false" }.into(),
        ValueKind::Number => {
            let mut s = String::new();
            write_number(&mut s, key);
            s
        }
        _ => return Err(Error::new(ErrorKind::InvalidOperation, "tojson: keys must be str, int, float, bool or None")),
    })
}

fn write_number(out: &mut String, value: &Value) {
    if value.is_integer() {
        let _ = write!(out, "{value}");
        return;
    }
    let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
    out.push_str(&python_float_repr(f));
}

/// Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 or from 1e16 on.
pub fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let sci = format!("{f:e}"); // e.g. "1.5e-7", "-1e16"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

fn write_string(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ensure_ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::python_float_repr;

    #[test]
    fn floats_like_python() {
        assert_eq!(python_float_repr(1.0), "1.0");
        assert_eq!(python_float_repr(0.1), "0.1");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(1.5e-7), "1.5e-07");
        assert_eq!(python_float_repr(123456.5), "123456.5");
        assert_eq!(python_float_repr(-2.5e20), "-2.5e+20");
    }
}
