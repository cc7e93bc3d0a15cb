//! The one minijinja environment, set up as Hugging Face transformers sets up Jinja2:
//! `trim_blocks`, `lstrip_blocks`, loop controls, Python string/dict/list methods (pycompat),
//! a Python-faithful `tojson`, `raise_exception`, `strftime_now` and Python-style printing of
//! `None`/`True`/`False`, plus limits for untrusted templates.

use super::pylist::{visit, MAX_VALUE_DEPTH};
use super::tojson::{python_float_repr, tojson, tojson_lenient, too_large, MAX_SERIALIZED_BYTES};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{ObjectRepr, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior};
use std::fmt::Write;

thread_local! {
    /// Fuel a render had used when it last called into our code (a lower bound for a failed render,
    /// whose state minijinja does not return).
    static FUEL_SEEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Jinja2's syntax as transformers configures it: `trim_blocks`, `lstrip_blocks`.
pub fn syntax_config() -> SyntaxConfig {
    SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).build().unwrap_or_default()
}

/// Start metering a new render.
pub fn reset_fuel_seen() {
    FUEL_SEEN.with(|f| f.set(0));
    super::pylist::reset_walk_budget();
}

/// The fuel the current render had used when last seen.
pub fn fuel_seen() -> u64 {
    FUEL_SEEN.with(|f| f.get())
}

/// Note how much fuel the render has used (called from the formatter and our functions).
pub fn note_fuel(state: &minijinja::State) {
    if let Some((used, _)) = state.fuel_levels() {
        FUEL_SEEN.with(|f| f.set(f.get().max(used)));
    }
}

/// Limits applied to every render.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// minijinja fuel (≈ instructions) per render.
    pub fuel: u64,
    /// Maximum nesting of calls / loops / macros.
    pub recursion: usize,
}

/// Where an environment departs from Python Jinja2. Renders meant to match Hugging Face depart nowhere
/// ([`Flavor::PYTHON`]); the probe renders of analysis, verification and generation prompts read what
/// the template means to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    /// `tojson` of a generator (`tools | map(...) | tojson`) renders as a list: Python raises, real
    /// templates trip over it and llama.cpp's engine tolerates it.
    pub tojson_generators: bool,
    /// `|safe` gives a plain string. In Python it gives a `Markup`, and `'{"name": "' + args|tojson|safe`
    /// then HTML-escapes the plain operand (`{&#34;name&#34;: …`): an accident of MarkupSafe on text no
    /// model is trained to write, which would otherwise become the tool-call format the analysis learns.
    pub plain_safe: bool,
}

impl Flavor {
    pub const PYTHON: Flavor = Flavor { tojson_generators: false, plain_safe: false };
    pub const PROBE: Flavor = Flavor { tojson_generators: false, plain_safe: true };
    pub const LENIENT: Flavor = Flavor { tojson_generators: true, plain_safe: true };
}

/// Build the environment. `now` is the Unix time (seconds) `strftime_now` formats.
pub fn build_environment(limits: Limits, now: i64, flavor: Flavor) -> Environment<'static> {
    let mut env = Environment::empty();
    add_kept_builtins(&mut env);
    env.set_syntax(syntax_config());
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    // minijinja names the undefined variable behind an error ("`datetime` is undefined") only in debug
    // mode, which defaults to cfg!(debug_assertions). Lenient probe renders retry with the named variable
    // set to "", so without this they failed in release builds only (wasm, CLI) and not in `cargo test`.
    env.set_debug(true);
    env.set_fuel(Some(limits.fuel));
    env.set_recursion_limit(limits.recursion);
    env.set_unknown_method_callback(super::markup::unknown_method);
    if flavor.tojson_generators {
        env.add_filter("tojson", tojson_lenient);
    } else {
        env.add_filter("tojson", tojson);
    }
    env.add_function("namespace", super::pylist::namespace);
    // Python's `dict(x)` looks up `x.keys`, which an `Undefined` refuses.
    env.add_function("dict", |args: minijinja::value::Rest<Value>, kwargs: minijinja::value::Kwargs| -> Result<Value, Error> {
        for v in args.iter() {
            super::pyfilters::undefined_raises(v)?;
        }
        if args.len() > 1 {
            return Err(Error::new(ErrorKind::InvalidOperation, format!("dict expected at most 1 argument, got {}", args.len())));
        }
        minijinja::functions::dict(args.first().cloned(), kwargs)
    });
    env.add_filter("length", length);
    env.add_filter("string", string);
    env.add_filter("join", join);
    env.add_filter("count", length);
    super::pylist::add_generator_filters(&mut env);
    super::pyfilters::add_python_filters(&mut env);
    super::markup::add_markup_semantics(&mut env, flavor.plain_safe);
    super::pyoperators::add_operator_functions(&mut env);
    env.add_filter("list", |state: &minijinja::State, v: Value| {
        super::pyoperators::not_none(&v)?;
        minijinja::filters::list(state, v)
    });
    env.add_function("raise_exception", |state: &minijinja::State, msg: String| -> Result<Value, Error> {
        note_fuel(state);
        Err(Error::new(ErrorKind::InvalidOperation, msg))
    });
    env.add_function("strftime_now", move |state: &minijinja::State, fmt: String| -> Result<Value, Error> {
        note_fuel(state);
        Ok(Value::from(strftime(&fmt, now)))
    });
    env.set_formatter(python_formatter);
    // Jinja2 defines `self` (the template's blocks); chat templates have no blocks, so `self.X` is undefined.
    env.add_global("self", Value::from_object(TemplateSelf));
    env.add_test("odd", |v: Value| divisible(&v, &Value::from(2)).map(|r| r.is_some_and(|r| r == 1.0)));
    env.add_test("even", |v: Value| divisible(&v, &Value::from(2)).map(|r| r == Some(0.0)));
    env.add_test("divisibleby", |v: Value, n: Value| divisible(&v, &n).map(|r| r == Some(0.0)));
    // Python: `len(value)` and `value.__getitem__` work (strings, lists, tuples, dicts and Undefined).
    env.add_test("sequence", |v: Value| {
        matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Undefined)
            || v.kind() == ValueKind::Iterable && v.len().is_some()
    });
    // Jinja2's `Undefined` has a `__call__` (that raises): callable.
    env.add_test("callable", |v: Value| matches!(v.kind(), ValueKind::Plain | ValueKind::Undefined));
    // Python's `str(value).islower()` / `.isupper()`: some cased character, all of one case.
    env.add_test("lower", |v: Value| -> Result<bool, Error> { Ok(cased(&v, true)?) });
    env.add_test("upper", |v: Value| -> Result<bool, Error> { Ok(cased(&v, false)?) });
    // Python: None and numbers are not iterable; Jinja2's Undefined is.
    env.add_test("iterable", |v: Value| {
        matches!(v.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::String | ValueKind::Undefined)
            || v.try_iter().is_ok() && !matches!(v.kind(), ValueKind::None | ValueKind::Number | ValueKind::Bool)
    });
    env
}

/// minijinja's builtins that we keep as they are, registered by name as `Environment::new()` registers them
/// (`vendor/minijinja/src/defaults.rs`). `new()` would also register the ones we replace (`build_environment`,
/// pylist, pyfilters, markup, pyoperators), and their unused code would ship in the wasm (issue #28). Not
/// kept: Jinja2 has no `bool`, `lines`, `split`, `chain` or `zip` filter, no `int` test and no `debug()`
/// global (a template calling it fails in Python); `urlencode` is not built (minijinja's feature is off).
fn add_kept_builtins(env: &mut Environment<'static>) {
    use minijinja::{filters as f, functions as g, tests as t};
    env.set_auto_escape_callback(minijinja::default_auto_escape_callback);
    env.add_filter("lower", f::lower);
    env.add_filter("upper", f::upper);
    env.add_filter("title", f::title);
    env.add_filter("capitalize", f::capitalize);
    env.add_filter("replace", f::replace_with_kwargs);
    env.add_filter("trim", f::trim);
    env.add_filter("default", f::default);
    env.add_filter("d", f::default);
    env.add_filter("attr", f::attr);
    env.add_filter("first", f::first_checked);
    env.add_filter("min", f::min);
    env.add_filter("max", f::max);
    env.add_filter("sort", f::sort);
    env.add_filter("selectattr", f::selectattr);
    env.add_filter("rejectattr", f::rejectattr);
    env.add_filter("groupby", f::groupby_fueled);
    env.add_test("undefined", t::is_undefined);
    env.add_test("defined", t::is_defined);
    env.add_test("none", t::is_none);
    env.add_test("safe", t::is_safe);
    env.add_test("escaped", t::is_safe);
    env.add_test("boolean", t::is_boolean);
    env.add_test("number", t::is_number);
    env.add_test("integer", t::is_integer);
    env.add_test("float", t::is_float);
    env.add_test("string", t::is_string);
    env.add_test("mapping", t::is_mapping);
    env.add_test("startingwith", t::is_startingwith);
    env.add_test("endingwith", t::is_endingwith);
    env.add_test("sameas", t::is_sameas);
    for name in ["eq", "equalto", "=="] {
        env.add_test(name, t::is_eq);
    }
    for name in ["ne", "!="] {
        env.add_test(name, t::is_ne);
    }
    for name in ["lt", "lessthan", "<"] {
        env.add_test(name, t::is_lt);
    }
    for name in ["le", "<="] {
        env.add_test(name, t::is_le);
    }
    for name in ["gt", "greaterthan", ">"] {
        env.add_test(name, t::is_gt);
    }
    for name in ["ge", ">="] {
        env.add_test(name, t::is_ge);
    }
    env.add_test("in", t::is_in);
    env.add_test("true", t::is_true);
    env.add_test("false", t::is_false);
    env.add_function("range", g::range);
}

fn cased(v: &Value, lower: bool) -> Result<bool, Error> {
    let mut s = String::new();
    if v.kind() == ValueKind::String {
        s.push_str(v.as_str().unwrap_or_default());
    } else {
        python_repr(&mut s, v, true, 0)?;
    }
    let mut any = false;
    for c in s.chars() {
        if c.is_lowercase() || c.is_uppercase() {
            any = true;
            if c.is_lowercase() != lower {
                return Ok(false);
            }
        }
    }
    Ok(any)
}

/// Python's `value % n` for the `odd` / `even` / `divisibleby` tests: the remainder of numbers and bools
/// (`None` for NaN); a string is printf-formatted (its result is no number: `None`, or Python's error);
/// `Undefined` and anything else raise.
fn divisible(v: &Value, n: &Value) -> Result<Option<f64>, Error> {
    if v.kind() == ValueKind::String {
        return super::pyformat::percent(v.as_str().unwrap_or_default(), n).map(|_| None);
    }
    let x = number_operand(v)?;
    let n = number_operand(n)?;
    if n == 0.0 {
        return Err(Error::new(ErrorKind::InvalidOperation, "integer modulo by zero"));
    }
    let r = x % n;
    let r = if r != 0.0 && (r < 0.0) != (n < 0.0) { r + n } else { r };
    Ok(if r.is_nan() { None } else { Some(r) })
}

fn number_operand(v: &Value) -> Result<f64, Error> {
    super::pyfilters::undefined_raises(v)?;
    match v.kind() {
        ValueKind::Number | ValueKind::Bool => f64::try_from(v.clone()).or_else(|_| Ok(if v.is_true() { 1.0 } else { 0.0 })),
        _ => Err(Error::new(ErrorKind::InvalidOperation, "unsupported operand type(s) for %")),
    }
}

/// `length` / `count`, as minijinja's, except that a lazy sequence (a chain of `a + b`) is counted
/// item by item against the render's walk budget: its cached length is unchecked (a list doubled 32
/// times has 2^32 items, which wraps to 0 in a 32-bit `usize`).
fn length(value: &Value) -> Result<Value, Error> {
    let lazy = value.len().is_some()
        && value.as_object().is_some_and(|o| {
            matches!(o.repr(), ObjectRepr::Seq | ObjectRepr::Iterable)
                && o.downcast_ref::<super::pylist::PyList>().is_none()
                && o.downcast_ref::<Vec<Value>>().is_none()
        });
    if !lazy {
        return minijinja::filters::length(value).map(Value::from);
    }
    const CHUNK: usize = 4096;
    let mut n: usize = 0;
    for item in value.try_iter()?.checked() {
        item?;
        n += 1;
        if n % CHUNK == 0 {
            super::pylist::charge_walk(CHUNK)?;
        }
    }
    super::pylist::charge_walk(n % CHUNK)?;
    Ok(Value::from(n))
}

/// `string`: Python's `str()` through [`python_repr`], which bounds the size (minijinja's `Display`
/// of a list holding the same sublist twice, nested 40 times, writes 2^40 items).
fn string(value: &Value) -> Result<Value, Error> {
    if matches!(value.kind(), ValueKind::String | ValueKind::Undefined) {
        return Ok(if value.is_undefined() { Value::from("") } else { value.clone() });
    }
    let mut s = String::new();
    python_repr(&mut s, value, true, 0)?;
    Ok(Value::from(s))
}

/// `join`, as minijinja's, with container items printed by [`python_repr`] first (Python's `str()`,
/// size-bounded) instead of minijinja's unbounded `Display`.
fn join(
    state: &mut minijinja::State,
    value: &Value,
    joiner: Option<minijinja::value::StringInput<'_>>,
    attribute: Option<&str>,
    kwargs: minijinja::value::Kwargs,
) -> Result<Value, Error> {
    super::pyoperators::not_none(value)?;
    // An iterator is walked once (it is consumed): its items are collected first.
    let collected;
    let value = if value.kind() == ValueKind::Iterable && value.len().is_none() {
        collected = Value::from(value.try_iter()?.collect::<Vec<_>>());
        &collected
    } else {
        value
    };
    let is_container = |v: &Value| matches!(v.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable);
    let mut containers = false;
    if attribute.is_none() && is_container(value) && value.kind() != ValueKind::Map {
        // `checked`: a spent walk budget (a lazy chain of 2^31 items) ends the scan with its error.
        for item in value.try_iter()?.checked() {
            if is_container(&item?) {
                containers = true;
                break;
            }
        }
    }
    if !containers {
        return minijinja::filters::join(state, value, joiner, attribute, kwargs);
    }
    let mut items = Vec::new();
    let mut size = 0;
    for item in value.try_iter()?.checked() {
        let item = item?;
        if matches!(item.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable) {
            let mut s = String::new();
            python_repr(&mut s, &item, true, 0)?;
            size += s.len();
            if size > MAX_SERIALIZED_BYTES {
                return Err(too_large("join"));
            }
            items.push(Value::from(s));
        } else {
            items.push(item);
        }
    }
    minijinja::filters::join(state, &Value::from(items), joiner, None, kwargs)
}

/// Jinja2's `self` (a `TemplateReference`) in a template without blocks: every attribute is undefined.
#[derive(Debug)]
struct TemplateSelf;

impl minijinja::value::Object for TemplateSelf {
    fn get_value(self: &std::sync::Arc<Self>, _key: &Value) -> Option<Value> {
        None
    }
}

/// Print values as Python's `str()` would: `None`, `True`, `1.0`, `['a', 1]`, `{'k': 'v'}`.
fn python_formatter(out: &mut minijinja::Output, state: &mut minijinja::State, value: &Value) -> Result<(), Error> {
    note_fuel(state);
    match value.kind() {
        ValueKind::String | ValueKind::Undefined => write!(out, "{value}").map_err(write_err),
        _ => {
            let mut s = String::new();
            python_repr(&mut s, value, true, 0)?;
            out.write_str(&s).map_err(write_err)
        }
    }
}

fn write_err(_: std::fmt::Error) -> Error {
    Error::new(ErrorKind::WriteFailure, "output limit reached")
}

/// Python's `str()` of a value. A list inside itself prints `[...]` as in Python; a result beyond
/// [`MAX_SERIALIZED_BYTES`] (shared sublists nested many times) is an error.
pub(crate) fn python_repr(out: &mut String, value: &Value, top: bool, depth: usize) -> Result<(), Error> {
    if depth > MAX_VALUE_DEPTH {
        out.push_str("...");
        return Ok(());
    }
    if out.len() > MAX_SERIALIZED_BYTES {
        return Err(too_large("printing a value"));
    }
    match visit(value, || python_repr_inner(out, value, top, depth)) {
        Ok(r) => r,
        Err(_) => {
            out.push_str("[...]");
            Ok(())
        }
    }
}

fn python_repr_inner(out: &mut String, value: &Value, top: bool, depth: usize) -> Result<(), Error> {
    match value.kind() {
        ValueKind::None => out.push_str("None"),
        // Jinja2's `Undefined.__repr__`, as printed inside a container.
        ValueKind::Undefined if !top => out.push_str("Undefined"),
        ValueKind::Undefined => {}
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number if !value.is_integer() => {
            let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
            let r = python_float_repr(f);
            out.push_str(match r.as_str() {
                "NaN" => "nan",
                "Infinity" => "inf",
                "-Infinity" => "-inf",
                _ => &r,
            });
        }
        ValueKind::String if !top => {
            let s = value.as_str().unwrap_or_default();
            let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
            out.push(quote);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if !printable(c) => out.push_str(&python_escape(c)),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
        }
        // A sized iterable is a lazy list concatenation (`l + l`): a list to Python, and minijinja's
        // own `Display` of it is unbounded.
        ValueKind::Seq | ValueKind::Iterable if value.kind() == ValueKind::Seq || value.len().is_some() => {
            let tuple = value.is_tuple();
            out.push(if tuple { '(' } else { '[' });
            if let Ok(iter) = value.try_iter() {
                // `checked`: an item that is an error (a spent walk budget) ends printing with it.
                for (i, item) in iter.checked().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    python_repr(out, &item?, false, depth + 1)?;
                }
            }
            if tuple && value.len() == Some(1) {
                out.push(',');
            }
            out.push(if tuple { ')' } else { ']' });
        }
        ValueKind::Map => {
            out.push('{');
            if let Ok(iter) = value.try_iter() {
                for (i, key) in iter.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    python_repr(out, &key, false, depth + 1)?;
                    out.push_str(": ");
                    python_repr(out, &value.get_item(&key).unwrap_or_default(), false, depth + 1)?;
                }
            }
            out.push('}');
        }
        _ => {
            let _ = write!(out, "{value}");
        }
    }
    Ok(())
}

/// Python's `str.isprintable()` for one character: not a control, format or separator character (space
/// aside). The format and separator characters are listed; Python consults the full Unicode table.
fn printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c, '\u{a0}' | '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{1680}' | '\u{180e}' | '\u{2000}'..='\u{200f}'
            | '\u{2028}'..='\u{202f}' | '\u{205f}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{3000}' | '\u{e000}'..='\u{f8ff}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'))
}

/// How Python's `repr` writes a character that is not printable.
fn python_escape(c: char) -> String {
    match c as u32 {
        n @ 0..=0xff => format!("\\x{n:02x}"),
        n @ 0x100..=0xffff => format!("\\u{n:04x}"),
        n => format!("\\U{n:08x}"),
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) → days since 1970-01-01, proleptic Gregorian; the inverse of [`civil_from_days`].
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

const MONTHS: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
];
const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// Python `datetime.strftime` for the directives chat templates use (UTC, C locale).
pub fn strftime(fmt: &str, unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let wd = (days + 3).rem_euclid(7) as usize; // 1970-01-01 was a Thursday (index 3 from Monday)
    let doy = days - days_from_civil(y, 1, 1) + 1;
    let month = MONTHS[(m - 1) as usize];
    let weekday = WEEKDAYS[wd];
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // glibc's `%-d` (no padding) is used by some templates.
        let no_pad = chars.peek() == Some(&'-');
        if no_pad {
            chars.next();
        }
        let num = |out: &mut String, v: i64, w: usize| {
            if no_pad {
                let _ = write!(out, "{v}");
            } else {
                let _ = write!(out, "{v:0w$}");
            }
        };
        match chars.next() {
            Some('Y') => {
                let _ = write!(out, "{y}");
            }
            Some('y') => num(&mut out, y.rem_euclid(100), 2),
            Some('m') => num(&mut out, m as i64, 2),
            Some('d') => num(&mut out, d as i64, 2),
            Some('e') => {
                let _ = write!(out, "{d:>2}");
            }
            Some('H') => num(&mut out, hh, 2),
            Some('I') => num(&mut out, if hh % 12 == 0 { 12 } else { hh % 12 }, 2),
            Some('M') => num(&mut out, mm, 2),
            Some('S') => num(&mut out, ss, 2),
            Some('p') => out.push_str(if hh < 12 { "AM" } else { "PM" }),
            Some('j') => num(&mut out, doy, 3),
            Some('B') => out.push_str(month),
            Some('b') | Some('h') => out.push_str(&month[..3]),
            Some('A') => out.push_str(weekday),
            Some('a') => out.push_str(&weekday[..3]),
            Some('w') => {
                let _ = write!(out, "{}", (wd + 1) % 7);
            }
            Some('u') => {
                let _ = write!(out, "{}", wd + 1);
            }
            Some('F') => {
                let _ = write!(out, "{y}-{m:02}-{d:02}");
            }
            Some('T') => {
                let _ = write!(out, "{hh:02}:{mm:02}:{ss:02}");
            }
            // transformers formats `datetime.now()`, a naive time: no zone name, no offset.
            Some('Z') | Some('z') => {}
            Some('P') => out.push_str(if hh < 12 { "am" } else { "pm" }),
            Some('k') => {
                let _ = write!(out, "{hh:>2}");
            }
            Some('l') => {
                let h12 = if hh % 12 == 0 { 12 } else { hh % 12 };
                let _ = write!(out, "{h12:>2}");
            }
            Some('s') => {
                let _ = write!(out, "{unix_seconds}");
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('C') => num(&mut out, y.div_euclid(100), 2),
            Some('D') | Some('x') => {
                let _ = write!(out, "{m:02}/{d:02}/{:02}", y.rem_euclid(100));
            }
            Some('R') => {
                let _ = write!(out, "{hh:02}:{mm:02}");
            }
            Some('X') => {
                let _ = write!(out, "{hh:02}:{mm:02}:{ss:02}");
            }
            Some('r') => {
                let h12 = if hh % 12 == 0 { 12 } else { hh % 12 };
                let _ = write!(out, "{h12:02}:{mm:02}:{ss:02} {}", if hh < 12 { "AM" } else { "PM" });
            }
            Some('c') => {
                let _ = write!(out, "{} {} {d:>2} {hh:02}:{mm:02}:{ss:02} {y}", &weekday[..3], &month[..3]);
            }
            // Week of the year, weeks starting on Sunday / Monday (days before the first are week 0).
            Some('U') => num(&mut out, (doy - 1 + 7 - ((wd as i64 + 1) % 7)) / 7, 2),
            Some('W') => num(&mut out, (doy - 1 + 7 - wd as i64) / 7, 2),
            Some(c @ ('G' | 'V' | 'g')) => {
                // ISO 8601: the week (Monday first) holding the year's first Thursday is week 1.
                let thursday = days - wd as i64 + 3;
                let (iso_year, _, _) = civil_from_days(thursday);
                let week = (thursday - days_from_civil(iso_year, 1, 1)) / 7 + 1;
                match c {
                    'G' => {
                        let _ = write!(out, "{iso_year}");
                    }
                    'V' => num(&mut out, week, 2),
                    _ => num(&mut out, iso_year.rem_euclid(100), 2),
                }
            }
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{build_environment, strftime, Flavor, Limits};

    #[test]
    fn undefined_variables_are_named_in_every_build_profile() {
        let env = build_environment(Limits { fuel: 100_000, recursion: 50 }, 0, Flavor::PYTHON);
        assert!(env.debug(), "debug mode must not depend on the build profile");
        let err = env.render_str("{{ 'Today is ' + datetime }}", ()).unwrap_err();
        assert!(err.to_string().contains("`datetime` is undefined"), "{err}");
    }

    #[test]
    fn every_builtin_of_minijinja_new_environment_is_registered() {
        // minijinja 3.1's `Environment::new()` registries (vendor/minijinja/src/defaults.rs), less `urlencode`
        // (feature off) and what Jinja2 lacks: each resolves, ours or minijinja's.
        let filters = "safe escape e lower upper title capitalize replace length count dictsort items reverse trim join \
            default d round abs int float attr first last min max sort list string batch slice sum indent select \
            reject selectattr rejectattr map groupby unique pprint format tojson";
        let tests = "undefined defined none safe escaped boolean odd even divisibleby number integer float string sequence \
            iterable mapping startingwith endingwith lower upper sameas eq equalto == ne != lt lessthan < le <= gt greaterthan \
            > ge >= in true false filter test";
        for flavor in [Flavor::PYTHON, Flavor::LENIENT] {
            let env = build_environment(Limits { fuel: 100_000, recursion: 50 }, 0, flavor);
            let unknown = |source: String, kind: minijinja::ErrorKind| match env.render_str(&source, ()) {
                Err(e) if e.kind() == kind => panic!("{source}: {e}"),
                _ => {}
            };
            for name in filters.split_whitespace() {
                unknown(format!("{{{{ 'a'|{name} }}}}"), minijinja::ErrorKind::UnknownFilter);
            }
            for name in tests.split_whitespace() {
                unknown(format!("{{{{ 'a' is {name} 'a' }}}}"), minijinja::ErrorKind::UnknownTest);
            }
            for (name, defined) in [("range", "True"), ("dict", "True"), ("namespace", "True"), ("debug", "False")] {
                let rendered = env.render_str(&format!("{{{{ {name} is defined }}}}"), ());
                assert!(matches!(rendered.as_deref(), Ok(r) if r == defined), "{name}: {rendered:?}");
            }
            assert_eq!(env.render_str("{{ 'a' is int }}", ()).unwrap_err().kind(), minijinja::ErrorKind::UnknownTest);
            for name in ["bool", "lines", "split", "chain", "zip"] {
                let source = format!("{{{{ 'a'|{name} }}}}");
                assert_eq!(env.render_str(&source, ()).unwrap_err().kind(), minijinja::ErrorKind::UnknownFilter, "{name}");
            }
        }
    }

    #[test]
    fn strftime_fixed_time() {
        // 2024-07-26 12:00:00 UTC, a Friday.
        let t = 1_721_995_200;
        assert_eq!(strftime("%Y-%m-%d %H:%M:%S", t), "2024-07-26 12:00:00");
        assert_eq!(strftime("%d %b %Y", t), "26 Jul 2024");
        assert_eq!(strftime("%A, %B %-d, %Y", t), "Friday, July 26, 2024");
        assert_eq!(strftime("%j", t), "208");
        assert_eq!(strftime("%Y-%m-%d %j", 0), "1970-01-01 001");
        assert_eq!(strftime("%Y-%m-%d %j", 951_782_400), "2000-02-29 060");
        assert_eq!(strftime("%Y-%m-%d %j", -62_135_596_800), "1-01-01 001");
        assert_eq!(strftime("%Y-%m-%d %j", 253_402_300_799), "9999-12-31 365");
        // Python's (glibc) week numbers, ISO years and locale-free forms (jinja_diff, issue #27).
        for (t, want) in [
            (0, "00 00 1970 01 70 Thu Jan  1 00:00:00 1970 19"),
            (951_782_400, "09 09 2000 09 00 Tue Feb 29 00:00:00 2000 20"),
            (1_704_067_200, "00 01 2024 01 24 Mon Jan  1 00:00:00 2024 20"),
            (1_735_603_200, "52 53 2025 01 25 Tue Dec 31 00:00:00 2024 20"),
            (1_609_459_200, "00 00 2020 53 20 Fri Jan  1 00:00:00 2021 20"),
        ] {
            assert_eq!(strftime("%U %W %G %V %g %c %C", t), want, "{t}");
        }
        assert_eq!(strftime("[%Z%z]%k|%l|%s|%D|%R|%r|%x|%X", 1_721_995_200), "[]12|12|1721995200|07/26/24|12:00|12:00:00 PM|07/26/24|12:00:00");
    }

    #[test]
    fn day_numbers_round_trip() {
        for days in (-800_000..3_000_000).step_by(997) {
            let (y, m, d) = super::civil_from_days(days);
            assert_eq!(super::days_from_civil(y, m, d), days);
        }
    }
}
