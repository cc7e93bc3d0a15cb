//! Literal argument values (`f(a='x', n=1)`, `f{a:<|"|>x<|"|>,n:1}`; see
//! `ArgumentsAnalysis::literal_values`): per JSON-schema type, the literal the model writes.
//! Strings are in the analysed delimiter (a quote character also admits the other quote, as the
//! parser does); booleans and null also in their Python spelling; objects and arrays are generic
//! literals whose keys may be bare words.

use super::builder::GrammarBuilder;
use super::ir::Expr;
use serde_json::Value;

fn is_quote(delim: &str) -> bool {
    delim == "'" || delim == "\""
}

/// Any string literal.
pub(super) fn string(b: &mut GrammarBuilder, delim: &str) -> Expr {
    if is_quote(delim) {
        let json = b.json_string();
        b.fixed("literal-string", |_| {
            let plain = Expr::Class { ranges: vec![('\'', '\''), ('\\', '\\'), ('\u{0}', '\u{1F}')], negated: true };
            let escape = Expr::seq([Expr::lit("\\"), Expr::Any]);
            let single = Expr::seq([Expr::lit("'"), Expr::star(Expr::alt([plain, escape])), Expr::lit("'")]);
            Expr::alt([json, single])
        })
    } else {
        let body = b.until(delim);
        b.fixed("literal-string", |_| Expr::seq([Expr::lit(delim), body, Expr::lit(delim)]))
    }
}

/// One fixed string value.
fn quoted(v: &str, delim: &str) -> Expr {
    if is_quote(delim) {
        let json = serde_json::Value::from(v).to_string();
        Expr::alt([Expr::lit(json), Expr::lit(format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'")))])
    } else {
        Expr::lit(format!("{delim}{v}{delim}"))
    }
}

pub(super) fn boolean(b: &mut GrammarBuilder) -> Expr {
    let json = b.json_boolean();
    b.fixed("literal-boolean", |_| Expr::alt([json, Expr::lit("True"), Expr::lit("False")]))
}

pub(super) fn null(b: &mut GrammarBuilder) -> Expr {
    let json = b.json_null();
    b.fixed("literal-null", |_| Expr::alt([json, Expr::lit("None")]))
}

/// Any literal value: string, number, boolean, null, object or array.
pub(super) fn any(b: &mut GrammarBuilder, delim: &str) -> Expr {
    b.fixed("literal-value", |b| {
        let items = [string(b, delim), b.json_number(), boolean(b), null(b), object(b, delim), array(b, delim)];
        Expr::alt(items)
    })
}

pub(super) fn object(b: &mut GrammarBuilder, delim: &str) -> Expr {
    b.fixed("literal-object", |b| {
        let sp = b.space();
        let bare = Expr::seq([Expr::ranges(&[('a', 'z'), ('A', 'Z'), ('_', '_')]), Expr::star(Expr::ranges(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]))]);
        let key = Expr::alt([bare, string(b, delim)]);
        let kv = Expr::seq([key, sp.clone(), Expr::lit(":"), sp.clone(), any(b, delim)]);
        let more = Expr::star(Expr::seq([sp.clone(), Expr::lit(","), sp.clone(), kv.clone()]));
        Expr::seq([Expr::lit("{"), sp.clone(), Expr::opt(Expr::seq([kv, more])), sp, Expr::lit("}")])
    })
}

fn array(b: &mut GrammarBuilder, delim: &str) -> Expr {
    b.fixed("literal-array", |b| {
        let sp = b.space();
        let value = any(b, delim);
        let more = Expr::star(Expr::seq([sp.clone(), Expr::lit(","), sp.clone(), value.clone()]));
        Expr::seq([Expr::lit("["), sp.clone(), Expr::opt(Expr::seq([value, more])), sp, Expr::lit("]")])
    })
}

/// A fixed JSON value as JSON or as Python's `str()` writes it (`{'k': True}`, `None`): the two spellings.
pub(super) fn python_or_json(v: &Value) -> Expr {
    let json = serde_json::to_string(v).unwrap_or_default();
    let python = crate::template::python_repr(v);
    if python == json {
        Expr::lit(json)
    } else {
        Expr::alt([Expr::lit(json), Expr::lit(python)])
    }
}

/// The literal for a value of `schema`, strings in `delim`.
pub fn value(b: &mut GrammarBuilder, schema: &Value, delim: &str) -> Expr {
    let strings = |v: &Value| -> Option<Vec<String>> { v.as_array()?.iter().map(|x| x.as_str().map(str::to_string)).collect() };
    if let Some(values) = schema.get("enum").and_then(strings) {
        return Expr::alt(values.iter().map(|v| quoted(v, delim)));
    }
    if let Some(c) = schema.get("const").and_then(Value::as_str) {
        return quoted(c, delim);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => string(b, delim),
        Some("integer") => b.json_integer(),
        Some("number") => b.json_number(),
        Some("boolean") => boolean(b),
        Some("null") => null(b),
        Some("object") => object(b, delim),
        Some("array") => array(b, delim),
        _ => any(b, delim),
    }
}

#[cfg(test)]
mod tests {
    use super::python_or_json;
    use crate::gbnf::print::print_expr_text;
    use serde_json::json;

    #[test]
    fn a_fixed_value_as_json_or_as_python_writes_it() {
        let both = print_expr_text(&python_or_json(&json!({"remind": true, "n": null, "tags": ["a", "it's"]})));
        assert_eq!(both, r#""{\"remind\":true,\"n\":null,\"tags\":[\"a\",\"it's\"]}" | "{'remind': True, 'n': None, 'tags': ['a', \"it's\"]}""#);
        // One spelling when both are the same.
        assert_eq!(print_expr_text(&python_or_json(&json!(10))), "\"10\"");
    }
}
