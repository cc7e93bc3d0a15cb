//! Python `str` and `list` methods minijinja-contrib's pycompat lacks (or gets wrong), as templates call
//! them on plain values: `rsplit`, `index` / `rindex`, `partition`, `swapcase`, `center` / `ljust` /
//! `rjust` / `zfill`, `removeprefix` / `removesuffix`, `casefold`, `expandtabs`, `istitle`, and
//! `split('')` raising as Python's does. Methods that mutate are refused by transformers' sandbox and
//! stay unknown here.

use minijinja::value::{from_args, Value, ValueKind};
use minijinja::{Error, ErrorKind};

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// `Some(result)` when `method` is one of ours for `value`, `None` to fall through to pycompat.
pub fn call(value: &Value, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    match value.kind() {
        ValueKind::String => string_method(value.as_str().unwrap_or_default(), method, args),
        // `d.get(k, default)` gives the default as it is (an `Undefined` default prints as nothing).
        ValueKind::Map if method == "get" && args.len() == 2 && !args[1].is_kwargs() => {
            Some(value.get_item(&args[0]).map(|v| if v.is_undefined() { args[1].clone() } else { v }))
        }
        ValueKind::Seq => match method {
            "index" => Some(list_index(value, args)),
            "copy" => Some(from_args::<()>(args).and_then(|()| value.try_iter().map(|i| Value::from(i.collect::<Vec<_>>())))),
            _ => None,
        },
        _ => None,
    }
}

fn list_index(value: &Value, args: &[Value]) -> Result<Value, Error> {
    let (x,): (Value,) = from_args(args)?;
    value
        .try_iter()?
        .position(|v| v == x)
        .map(Value::from)
        .ok_or_else(|| invalid("list.index(x): x not in list"))
}

fn strs(v: Value) -> Value {
    Value::from(v)
}

fn string_method(s: &str, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let r = match method {
        // Python's `str.join` takes strings only.
        "join" => from_args::<(Value,)>(args).and_then(|(items,)| {
            if items.is_none() {
                return Err(invalid("can only join an iterable"));
            }
            let mut parts = Vec::new();
            for (i, item) in items.try_iter()?.enumerate() {
                match item.as_str() {
                    Some(p) if item.kind() == ValueKind::String => parts.push(p.to_string()),
                    _ => {
                        return Err(invalid(format!(
                            "sequence item {i}: expected str instance, {} found",
                            super::pyoperators::python_type(&item)
                        )))
                    }
                }
            }
            Ok(Value::from(parts.join(s)))
        }),
        "split" => from_args::<(Option<Value>, Option<i64>, minijinja::value::Kwargs)>(args).and_then(|(sep, max, kwargs)| {
            let sep = kwargs.get::<Option<Value>>("sep")?.or(sep).filter(|v| !v.is_none());
            let max = kwargs.get::<Option<i64>>("maxsplit")?.or(max).unwrap_or(-1);
            kwargs.assert_all_used()?;
            split(s, sep, max)
        }),
        "rsplit" => from_args::<(Option<Value>, Option<i64>, minijinja::value::Kwargs)>(args).and_then(|(sep, max, kwargs)| {
            let sep = kwargs.get::<Option<Value>>("sep")?.or(sep);
            let max = kwargs.get::<Option<i64>>("maxsplit")?.or(max).unwrap_or(-1);
            kwargs.assert_all_used()?;
            rsplit(s, sep, max)
        }),
        "index" | "rindex" => from_args::<(String,)>(args).and_then(|(sub,)| {
            let found = if method == "index" { s.find(&sub) } else { s.rfind(&sub) };
            found.map(|b| Value::from(s[..b].chars().count())).ok_or_else(|| invalid("substring not found"))
        }),
        "partition" | "rpartition" => from_args::<(String,)>(args).and_then(|(sep,)| {
            if sep.is_empty() {
                return Err(invalid("empty separator"));
            }
            let found = if method == "partition" { s.find(&sep) } else { s.rfind(&sep) };
            let parts = match found {
                Some(b) => [&s[..b], sep.as_str(), &s[b + sep.len()..]],
                None if method == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Ok(super::pylist::tuple(parts.iter().map(|p| Value::from(*p)).collect()))
        }),
        "swapcase" => from_args::<()>(args).map(|()| {
            Value::from(
                s.chars()
                    .flat_map(|c| if c.is_uppercase() { c.to_lowercase().collect::<Vec<_>>() } else { c.to_uppercase().collect() })
                    .collect::<String>(),
            )
        }),
        "casefold" => from_args::<()>(args).map(|()| Value::from(s.to_lowercase())),
        // Python's `str.title`: upper case after anything that is not a cased letter (`[/Inst]`).
        "title" => from_args::<()>(args).map(|()| {
            let mut out = String::with_capacity(s.len());
            let mut prev_cased = false;
            for c in s.chars() {
                if prev_cased {
                    out.extend(c.to_lowercase());
                } else {
                    out.extend(c.to_uppercase());
                }
                prev_cased = c.is_lowercase() || c.is_uppercase();
            }
            Value::from(out)
        }),
        "center" | "ljust" | "rjust" => from_args::<(i64, Option<String>)>(args).and_then(|(width, fill)| {
            let fill = fill.unwrap_or_else(|| " ".into());
            let mut chars = fill.chars();
            let (Some(f), None) = (chars.next(), chars.next()) else {
                return Err(invalid("The fill character must be exactly one character long"));
            };
            let len = s.chars().count() as i64;
            let pad = (width - len).max(0) as usize;
            let fill_n = |n: usize| std::iter::repeat_n(f, n).collect::<String>();
            Ok(Value::from(match method {
                "center" => super::pyfilters::center(s, width, f),
                "ljust" => format!("{s}{}", fill_n(pad)),
                _ => format!("{}{s}", fill_n(pad)),
            }))
        }),
        "zfill" => from_args::<(i64,)>(args).map(|(width,)| {
            let len = s.chars().count() as i64;
            if width <= len {
                return Value::from(s);
            }
            let zeros = "0".repeat((width - len) as usize);
            match s.chars().next() {
                Some(c @ ('+' | '-')) => Value::from(format!("{c}{zeros}{}", &s[1..])),
                _ => Value::from(format!("{zeros}{s}")),
            }
        }),
        "removeprefix" => from_args::<(String,)>(args).map(|(p,)| Value::from(s.strip_prefix(p.as_str()).unwrap_or(s))),
        "removesuffix" => from_args::<(String,)>(args).map(|(p,)| Value::from(s.strip_suffix(p.as_str()).unwrap_or(s))),
        "expandtabs" => from_args::<(Option<i64>,)>(args).map(|(size,)| {
            let size = size.unwrap_or(8).max(0) as usize;
            let mut out = String::new();
            let mut col = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if size == 0 { 0 } else { size - col % size };
                        out.extend(std::iter::repeat_n(' ', n));
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::from(out)
        }),
        "istitle" => from_args::<()>(args).map(|()| {
            let (mut cased, mut prev_cased, mut ok) = (false, false, true);
            for c in s.chars() {
                if c.is_uppercase() {
                    ok &= !prev_cased;
                    prev_cased = true;
                    cased = true;
                } else if c.is_lowercase() {
                    ok &= prev_cased;
                    prev_cased = true;
                    cased = true;
                } else {
                    prev_cased = false;
                }
            }
            Value::from(ok && cased)
        }),
        _ => return None,
    };
    Some(r.map(strs))
}

/// Python's `str.split(sep=None, maxsplit=-1)`.
fn split(s: &str, sep: Option<Value>, max: i64) -> Result<Value, Error> {
    let parts: Vec<String> = match sep.as_ref().map(|v| v.as_str().ok_or_else(|| invalid("must be str or None"))).transpose()? {
        Some("") => return Err(invalid("empty separator")),
        Some(sep) if max < 0 => s.split(sep).map(String::from).collect(),
        Some(sep) => s.splitn(max as usize + 1, sep).map(String::from).collect(),
        None => {
            let mut parts = Vec::new();
            let mut rest = s.trim_start();
            let mut left = max;
            while !rest.is_empty() {
                if left == 0 {
                    parts.push(rest.to_string());
                    break;
                }
                match rest.find(char::is_whitespace) {
                    Some(p) => {
                        parts.push(rest[..p].to_string());
                        rest = rest[p..].trim_start();
                        left -= 1;
                    }
                    None => {
                        parts.push(rest.to_string());
                        break;
                    }
                }
            }
            parts
        }
    };
    Ok(Value::from(parts))
}

/// Python's `str.rsplit(sep=None, maxsplit=-1)`.
fn rsplit(s: &str, sep: Option<Value>, max: i64) -> Result<Value, Error> {
    let sep = sep.filter(|v| !v.is_none());
    let parts: Vec<String> = match sep.as_ref().map(|v| v.as_str().ok_or_else(|| invalid("must be str or None"))).transpose()? {
        Some("") => return Err(invalid("empty separator")),
        Some(sep) => {
            let mut parts: Vec<String> = if max < 0 { s.rsplit(sep).map(String::from).collect() } else { s.rsplitn(max as usize + 1, sep).map(String::from).collect() };
            parts.reverse();
            parts
        }
        None => {
            let mut parts = Vec::new();
            let mut rest = s.trim_end();
            let mut left = max;
            while left != 0 {
                match rest.rfind(char::is_whitespace) {
                    Some(p) => {
                        let ws = rest[p..].chars().next().map_or(1, char::len_utf8);
                        parts.push(rest[p + ws..].to_string());
                        rest = rest[..p].trim_end();
                        left -= 1;
                    }
                    None => break,
                }
                if rest.trim_start().is_empty() {
                    break;
                }
            }
            if !rest.trim().is_empty() {
                parts.push(if max < 0 { rest.trim_start().to_string() } else { rest.to_string() });
            }
            parts.reverse();
            parts.retain(|p| !p.is_empty());
            parts
        }
    };
    Ok(Value::from(parts))
}
