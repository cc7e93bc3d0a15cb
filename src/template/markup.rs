//! Python's `Markup` (MarkupSafe) as Jinja2 without auto-escaping has it, which transformers' templates
//! meet through `x | tojson | safe` and `'…' | safe + s`.
//!
//! A `Markup` is minijinja's safe string. Jinja2 makes one with the filters `safe`, `escape`/`e` and
//! `forceescape` only (macros and `{% set %}` blocks return plain strings without auto-escaping), and
//! keeps it through the filters built on `soft_str` (`string`, `trim`, `upper`, `indent`, …) and
//! through `Markup`'s own methods. What it changes is how it combines with plain strings:
//!
//! * `Markup + str` and `str + Markup` escape the plain operand and give a `Markup`; `Markup + 1` raises;
//! * `~` gives a plain string (Jinja2's `str_join`), never a `Markup`;
//! * `Markup % args`, `Markup.format(…)` and `Markup.join(…)` escape their arguments,
//!   `Markup.replace(old, new)` escapes `new`; `|join` and `|replace` give plain strings (minijinja
//!   already does both);
//! * subscripts of a `Markup` (`m[0]`, `m[1:]`) stay plain strings here: minijinja has no hook there.
//!
//! Escaping is MarkupSafe's: `&`, `<`, `>`, `'` → `&#39;`, `"` → `&#34;` (not minijinja's HTML escape,
//! which writes `&quot;`, `&#x27;` and escapes `/`). The operators are in pyoperators.rs.

use super::env::python_repr;
use minijinja::value::{Kwargs, Rest, Value, ValueKind, ValueOrKwargs};
use minijinja::{Environment, Error, State};

/// Register `safe`, `escape`/`e`, `forceescape` and `format`. `plain_safe`: `safe` gives a plain string
/// (see `Flavor::plain_safe`).
pub fn add_markup_semantics(env: &mut Environment<'static>, plain_safe: bool) {
    if plain_safe {
        env.add_filter("safe", |v: &Value| -> Result<Value, Error> { Ok(Value::from(python_str(v)?)) });
    } else {
        env.add_filter("safe", |v: &Value| -> Result<Value, Error> { Ok(Value::from_safe_string(python_str(v)?)) });
    }
    env.add_filter("escape", escape_value);
    env.add_filter("e", escape_value);
    env.add_filter("forceescape", |v: &Value| -> Result<Value, Error> { Ok(Value::from_safe_string(markup_escape(&python_str(v)?))) });
    env.add_filter("format", format);
}

/// MarkupSafe's `escape` of a string.
pub fn markup_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
    out
}

pub fn is_markup(v: &Value) -> bool {
    v.kind() == ValueKind::String && v.is_safe()
}

/// Python's `str(v)`.
fn python_str(v: &Value) -> Result<String, Error> {
    if v.kind() == ValueKind::String {
        return Ok(v.as_str().unwrap_or_default().to_string());
    }
    let mut s = String::new();
    python_repr(&mut s, v, true, 0)?;
    Ok(s)
}

/// MarkupSafe's `escape(v)`: a `Markup` as it is, anything else as its `str()` escaped.
pub fn escape_value(v: &Value) -> Result<Value, Error> {
    if is_markup(v) {
        return Ok(v.clone());
    }
    Ok(Value::from_safe_string(markup_escape(&python_str(v)?)))
}

/// An argument of `Markup % …` or `Markup.format(…)`: strings escaped, numbers as they are.
pub(crate) fn escape_argument(v: &Value) -> Result<Value, Error> {
    match v.kind() {
        ValueKind::Number | ValueKind::Bool => Ok(v.clone()),
        ValueKind::Map if !v.is_kwargs() => {
            let mut items = Vec::new();
            for key in v.try_iter()? {
                let item = v.get_item(&key)?;
                items.push((key, escape_argument(&item)?));
            }
            Ok(Value::from_pairs(items))
        }
        _ => escape_value(v),
    }
}

/// The arguments of a `Markup`'s `%` or `format`, escaped (keyword arguments too).
fn escape_arguments(values: &[Value]) -> Result<Vec<Value>, Error> {
    values
        .iter()
        .map(|v| {
            if !v.is_kwargs() {
                return escape_argument(v);
            }
            let mut pairs = Vec::new();
            for key in v.try_iter()? {
                pairs.push((key.as_str().unwrap_or_default().to_string(), escape_argument(&v.get_item(&key)?)?));
            }
            Ok(Value::from(Kwargs::from_iter(pairs)))
        })
        .collect()
}

/// `format` (printf style), escaping the arguments when the format string is a `Markup` as MarkupSafe's
/// `__mod__` does (minijinja's own escaping there is HTML's, not MarkupSafe's).
fn format(_state: &mut State, format_str: &Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    let mut values = args.0.into_iter().map(ValueOrKwargs::into_value).collect::<Vec<_>>();
    if is_markup(format_str) {
        values = escape_arguments(&values)?;
    }
    // Jinja2's `do_format`: `soft_str(value) % (kwargs or args)`.
    let (kwargs, positional): (Vec<Value>, Vec<Value>) = values.into_iter().partition(Value::is_kwargs);
    let fmt = python_str(format_str)?;
    let out = match (kwargs.first(), positional.is_empty()) {
        (Some(_), false) => return Err(Error::new(minijinja::ErrorKind::InvalidOperation, "can't handle positional and keyword arguments at the same time")),
        (Some(kw), true) => {
            let mut pairs = Vec::new();
            for key in kw.try_iter()? {
                pairs.push((key.clone(), kw.get_item(&key)?));
            }
            super::pyformat::printf(&fmt, &[], Some(&Value::from_pairs(pairs)))?
        }
        (None, _) => super::pyformat::printf(&fmt, &positional, None)?,
    };
    Ok(if is_markup(format_str) { Value::from_safe_string(out) } else { Value::from(out) })
}

/// String methods (minijinja-contrib's pycompat) as `Markup`'s when called on one: the result is a
/// `Markup` (`split` gives `Markup` items), and the text a method inserts (`replace`'s replacement, a
/// `format` or `join` argument, a fill character) is escaped first.
pub fn unknown_method(state: &mut State, value: &Value, method: &str, args: &[Value]) -> Result<Value, Error> {
    use minijinja_contrib::pycompat::unknown_method_callback as pycompat;
    if !is_markup(value) {
        if let Some(r) = super::pymethods::call(value, method, args) {
            return r;
        }
        return pycompat(state, value, method, args);
    }
    // MarkupSafe 3 escapes only the inserted text: `replace`'s `new` and the `fillchar` of the padders.
    let escaped_at = |i: usize| -> Result<Vec<Value>, Error> {
        let mut args = args.to_vec();
        if let Some(a) = args.get_mut(i).filter(|a| a.kind() == ValueKind::String) {
            *a = escape_value(a)?;
        }
        Ok(args)
    };
    // pycompat, or our Python methods where it has none.
    let call = |state: &mut State, method: &str, args: &[Value]| match super::pymethods::call(value, method, args) {
        Some(r) => r,
        None => pycompat(state, value, method, args),
    };
    let mark = |v: Value| match v.as_str() {
        Some(s) if v.kind() == ValueKind::String => Value::from_safe_string(s.to_string()),
        _ => v,
    };
    match method {
        "replace" | "ljust" | "rjust" | "center" => Ok(mark(call(state, method, &escaped_at(1)?)?)),
        "capitalize" | "title" | "lower" | "upper" | "lstrip" | "rstrip" | "strip" | "translate" | "expandtabs" | "swapcase"
        | "zfill" | "casefold" | "removeprefix" | "removesuffix" => Ok(mark(call(state, method, args)?)),
        "format" => Ok(mark(pycompat(state, value, method, &escape_arguments(args)?)?)),
        "join" => {
            let [items] = args else { return pycompat(state, value, method, args) };
            let items: Result<Vec<Value>, Error> = items.try_iter()?.map(|i| escape_value(&i)).collect();
            Ok(mark(pycompat(state, value, method, &[Value::from(items?)])?))
        }
        "split" | "rsplit" | "splitlines" => {
            let parts = call(state, method, args)?;
            let parts: Vec<Value> = parts.try_iter()?.map(mark).collect();
            Ok(Value::from(parts))
        }
        _ => call(state, method, args),
    }
}

/// Expected outputs are Python Jinja2's (3.1, MarkupSafe 3) in transformers' environment setup.
#[cfg(test)]
mod tests {
    use crate::{render_template, RenderOptions, Template};
    use serde_json::json;

    fn render(src: &str) -> Result<String, String> {
        render_template(src, &json!({ "s": "a<\"'&>", "n": null }), RenderOptions::default()).map_err(|e| e.to_string())
    }

    #[track_caller]
    fn check(cases: &[(&str, &str)]) {
        for (src, want) in cases {
            assert_eq!(render(src).as_deref(), Ok(*want), "{src}");
        }
    }

    #[test]
    fn adding_a_string_to_markup_escapes_the_string() {
        check(&[
            (r#"{{ 'a"<' + ('x'|safe) }}"#, "a&#34;&lt;x"),
            (r#"{{ ('x'|safe) + 'a"<' }}"#, "xa&#34;&lt;"),
            ("{{ '&' + ('<'|safe) }}", "&amp;<"),
            ("{{ \"'\" + ('<'|safe) }}", "&#39;<"),
            ("{{ ('x'|safe) + ('<'|safe) }}", "x<"),
            // The sum is a Markup again, so the next plain operand is escaped too.
            ("{% set y = ('x'|safe) + '<' %}{{ y + '<' }}", "x&lt;&lt;"),
            ("{{ 'a' + 'b'|safe + '<' }}", "ab&lt;"),
            // Mistral's tool calls: `'{"name": "' + name + '", "arguments": ' + args|tojson|safe + …`.
            (
                r#"{% set a = {'k': 1}|tojson|safe %}{{ '{"name": "' + 'f' + '", "arguments": ' + a + '}' }}"#,
                r#"{&#34;name&#34;: &#34;f&#34;, &#34;arguments&#34;: {"k": 1}}"#,
            ),
            // Markup survives a namespace, a list and a loop variable.
            ("{% set ns = namespace(v='x'|safe) %}{{ ns.v + '<' }}", "x&lt;"),
            ("{% for x in ['x'|safe] %}{{ x + '<' }}{% endfor %}", "x&lt;"),
            ("{{ ['x'|safe]|first + '<' }}", "x&lt;"),
        ]);
    }

    #[test]
    fn markup_plus_a_non_string_raises() {
        for src in ["{{ ('x'|safe) + 1 }}", "{{ 1 + ('x'|safe) }}", "{{ ('x'|safe) + n }}", "{{ ('x'|safe) + ['a'] }}"] {
            let err = render(src).unwrap_err();
            assert!(err.contains("unsupported operand type(s) for +"), "{src}: {err}");
        }
    }

    #[test]
    fn tilde_macros_and_set_blocks_give_plain_strings() {
        check(&[
            ("{{ ('x'|safe) ~ ('<'|safe) + '<' }}", "x<<"),
            ("{% set y = ('x'|safe) ~ '<' %}{{ y + '<' }}", "x<<"),
            ("{{ ('a'|safe) ~ 1 }}", "a1"),
            ("{% macro m() %}x{% endmacro %}{{ m() + '<' }}{{ 'x'|safe }}", "x<x"),
            ("{% set c %}x{% endset %}{{ c + '<' }}{{ 'x'|safe }}", "x<x"),
        ]);
    }

    #[test]
    fn escape_is_markupsafes() {
        check(&[
            ("{{ s|e }}", "a&lt;&#34;&#39;&amp;&gt;"),
            ("{{ s|escape }}", "a&lt;&#34;&#39;&amp;&gt;"),
            ("{{ '/'|e }}", "/"),
            ("{{ ('a<'|e) + '<' }}", "a&lt;&lt;"),
            ("{{ 'a<'|safe|e }}", "a<"),
            ("{{ 'a<'|safe|forceescape }}", "a&lt;"),
            ("{{ (1|safe) + '<' }}|{{ (n|safe) + '<' }}|{{ [1]|safe }}", "1&lt;|None&lt;|[1]"),
        ]);
    }

    #[test]
    fn printf_and_format_escape_the_arguments_of_markup() {
        check(&[
            ("{{ ('%s<'|safe) % '<' }}", "&lt;<"),
            ("{{ ('%s<'|safe) % ('<', ) }}", "&lt;<"),
            ("{{ ('%s|%s'|safe) % ('<', 1) }}", "&lt;|1"),
            ("{{ ('%(a)s'|safe) % {'a': '<'} }}", "&lt;"),
            ("{{ ('x%s'|safe) % n }}", "xNone"),
            ("{{ '%s' % ('<'|safe) }}", "<"),
            ("{{ ('%s'|safe)|format(s) }}", "a&lt;&#34;&#39;&amp;&gt;"),
            ("{{ '%s'|format('<'|safe) }}", "<"),
            ("{{ ('a%s'|safe)|format(1) }}", "a1"),
        ]);
    }

    #[test]
    fn markup_methods_return_markup_and_escape_what_they_insert() {
        check(&[
            ("{{ ('{}<'|safe).format('<') }}", "&lt;<"),
            ("{{ ('-'|safe).join(['<', '>']) }}", "&lt;-&gt;"),
            (r#"{{ ('a"b'|safe).replace('"', "'") }}"#, "a&#39;b"),
            (r#"{{ ('a"b'|safe).upper() + '<' }}"#, r#"A"B&lt;"#),
            ("{{ ('a b'|safe).split()[0] + '<' }}", "a&lt;"),
            ("{{ ('ab'|safe).strip() + '<' }}", "ab&lt;"),
            ("{{ ('a'|safe).lstrip('a') + '<' }}", "&lt;"),
            ("{{ ('a'|safe).startswith('a') }}", "True"),
        ]);
    }

    #[test]
    fn filters_keep_or_drop_markup_as_jinja2_does() {
        check(&[
            (r#"{{ ('a"b'|safe)|upper + '<' }}"#, r#"A"B&lt;"#),
            (r#"{{ ('a"b'|safe)|trim + '<' }}"#, r#"a"b&lt;"#),
            (r#"{{ ('a"b'|safe)|string + '<' }}"#, r#"a"b&lt;"#),
            ("{{ ('a\nb'|safe)|indent(2) + '<' }}", "a\n  b&lt;"),
            ("{{ ('a'|safe)|default('z') + '<' }}", "a&lt;"),
            ("{{ ('a'|safe)|reverse + '<' }}", "a&lt;"),
            // `join` and `replace` give plain strings without auto-escaping; `first` a plain character.
            ("{{ (['<'|safe, '>']|join('-')) + '<' }}", "<-><"),
            ("{{ ('abc'|safe)|replace('b', '<') + '<' }}", "a<c<"),
            ("{{ ('x'|safe)|first + '<' }}", "x<"),
            ("{{ ('x'|safe)|tojson }}|{{ ('x<'|safe) == 'x<' }}|{{ ('x'|safe) is string }}", "\"x\"|True|True"),
            // transformers' `tojson` is `json.dumps`: a plain string, unlike Jinja2's own.
            ("{{ '<f>' + ({'a': '<'}|tojson) + '</f>' }}{{ ('<'|safe) + ({'a': 1}|tojson) }}", "<f>{\"a\": \"<\"}</f><{&#34;a&#34;: 1}"),
        ]);
    }

    /// Probe renders (analysis, verification, generation prompts) read the text the template means:
    /// `|safe` is plain there, so a tool call keeps its JSON.
    #[test]
    fn probe_renders_do_not_escape_next_to_safe() {
        let src = r#"{{ '{"name": "' + 'f' + '", "arguments": ' + ({'k': 1}|tojson|safe) + '}' }}"#;
        let t = Template::new(src, RenderOptions::default()).unwrap();
        assert_eq!(t.render(&json!({})).unwrap(), r#"{&#34;name&#34;: &#34;f&#34;, &#34;arguments&#34;: {"k": 1}}"#);
        assert_eq!(t.render_lenient(&json!({})).unwrap().0, r#"{"name": "f", "arguments": {"k": 1}}"#);
    }

    /// `s + s` doubling cannot grow without bound once a `Markup` routes `+` through our function.
    #[test]
    fn markup_concatenation_is_bounded() {
        let src = "{% set ns = namespace(s='x'|safe) %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}";
        let err = render(src).unwrap_err();
        assert!(err.contains("larger than") || err.contains("fuel") || err.contains("exceeds"), "{err}");
    }
}
