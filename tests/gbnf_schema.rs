//! JSON Schema → GBNF, as tables: each schema with texts it must accept and texts it must reject.

use chat_autoparser::gbnf::{check_grammar, GrammarBuilder, SchemaConverter};
use serde_json::{json, Value};

fn grammar(schema: &Value) -> String {
    let mut b = GrammarBuilder::new();
    let expr = SchemaConverter::new(&mut b, schema).json(schema, "root-schema").expect("schema converts");
    b.finish(expr)
}

fn gbnf_accepts(schema: Value, ok: &[&str], bad: &[&str]) {
    let g = grammar(&schema);
    for t in ok {
        let r = check_grammar(&g, t).expect("grammar parses");
        assert!(r.accepted, "schema {schema}\nshould accept {t:?} (error at {:?})\n{g}", r.error_at);
    }
    for t in bad {
        let r = check_grammar(&g, t).expect("grammar parses");
        assert!(!r.accepted, "schema {schema}\nshould reject {t:?}\n{g}");
    }
}

#[test]
fn primitives() {
    gbnf_accepts(json!({"type": "string"}), &[r#""""#, r#""a\"b\u00e9""#, "\"é\""], &[r#""a"#, "a", "\"\n\""]);
    gbnf_accepts(json!({"type": "integer"}), &["0", "-12", "123"], &["1.5", "01", "", "+1"]);
    gbnf_accepts(json!({"type": "number"}), &["0", "-1.25", "3e10", "1.5E-3"], &["1.", ".5", "abc"]);
    gbnf_accepts(json!({"type": "boolean"}), &["true", "false"], &["True", "1"]);
    gbnf_accepts(json!({"type": "null"}), &["null"], &["nil"]);
    gbnf_accepts(json!({"type": ["string", "null"]}), &["null", r#""x""#], &["1"]);
    gbnf_accepts(json!({}), &["1", r#"{"a": [1, "x", null]}"#, "[]"], &["{", "nul"]);
}

#[test]
fn enum_const_and_unions() {
    gbnf_accepts(json!({"enum": ["celsius", "fahrenheit", 3]}), &[r#""celsius""#, "3"], &[r#""kelvin""#, "celsius"]);
    gbnf_accepts(json!({"const": "42"}), &[r#""42""#], &["42"]);
    gbnf_accepts(json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}), &["1", r#""a""#], &["true"]);
    gbnf_accepts(json!({"oneOf": [{"type": "boolean"}, {"type": "null"}]}), &["true", "null"], &["1"]);
}

#[test]
fn strings_with_length() {
    gbnf_accepts(json!({"type": "string", "minLength": 2, "maxLength": 3}), &[r#""ab""#, r#""abc""#], &[r#""a""#, r#""abcd""#]);
}

#[test]
fn objects_required_optional_additional() {
    let s = json!({"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["b"]});
    gbnf_accepts(
        s,
        &[r#"{"b": "x"}"#, r#"{"a": 1, "b": "x"}"#, r#"{"b":"x","c":true}"#, r#"{"a": 1, "b": "x", "c": false}"#, "{\n  \"b\": \"x\"\n}"],
        &[r#"{}"#, r#"{"a": 1}"#, r#"{"b": "x", "d": 1}"#, r#"{"b": 1}"#, r#"{"b": "x",}"#, r#"{"c": true, "b": "x"}"#],
    );
    let all_optional = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}});
    gbnf_accepts(all_optional, &["{}", r#"{"b": 1}"#, r#"{"a": 1, "c": 3}"#, r#"{"c": 3}"#], &[r#"{"c": 3, "a": 1}"#, r#"{,}"#]);
    let additional = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": {"type": "string"}});
    gbnf_accepts(additional, &[r#"{"a": 1}"#, r#"{"a": 1, "z": "q", "y": "r"}"#], &[r#"{"a": 1, "z": 2}"#]);
    gbnf_accepts(json!({"type": "object"}), &["{}", r#"{"k": [1]}"#], &["[]"]);
    gbnf_accepts(json!({"type": "object", "properties": {}}), &["{}", "{ }"], &[r#"{"k": 1}"#]);
}

#[test]
fn nested_arrays_and_refs() {
    let s = json!({
        "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["v"]}},
        "$ref": "#/$defs/node"
    });
    gbnf_accepts(s, &[r#"{"v": 1}"#, r#"{"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]}"#], &[r#"{"v": 1, "kids": [{}]}"#]);
    let arr = json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2});
    gbnf_accepts(arr, &["[1]", "[1, 2]"], &["[]", "[1, 2, 3]", r#"["a"]"#]);
    let tuple = json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]});
    gbnf_accepts(tuple, &[r#"[1, "a"]"#], &["[1]"]);
    let all_of = json!({"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "integer"}}}]});
    gbnf_accepts(all_of, &[r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#], &[r#"{"b": 2}"#]);
}

#[test]
fn optional_properties_do_not_explode() {
    let mut props = serde_json::Map::new();
    for i in 0..60 {
        props.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    let g = grammar(&json!({"type": "object", "properties": props}));
    assert!(g.len() < 20_000, "grammar for 60 optional properties is {} bytes", g.len());
    assert!(check_grammar(&g, r#"{"p3": 1, "p40": 2, "p59": 3}"#).unwrap().accepted);
    assert!(!check_grammar(&g, r#"{"p40": 2, "p3": 1}"#).unwrap().accepted);
}

#[test]
fn raw_values_for_tagged_formats() {
    let schema = json!({"type": "object"});
    let mut b = GrammarBuilder::new();
    let mut c = SchemaConverter::new(&mut b, &schema);
    let s = c.raw(&json!({"type": "string"}), "v", "</parameter>").unwrap();
    let e = c.raw(&json!({"type": "string", "enum": ["a b", "c"]}), "e", "</parameter>").unwrap();
    let n = c.raw(&json!({"type": "integer"}), "n", "</parameter>").unwrap();
    let root = chat_autoparser::gbnf::Expr::alt([
        chat_autoparser::gbnf::Expr::seq([chat_autoparser::gbnf::Expr::lit("S"), s, chat_autoparser::gbnf::Expr::lit("</parameter>")]),
        chat_autoparser::gbnf::Expr::seq([chat_autoparser::gbnf::Expr::lit("E"), e, chat_autoparser::gbnf::Expr::lit("</parameter>")]),
        chat_autoparser::gbnf::Expr::seq([chat_autoparser::gbnf::Expr::lit("N"), n, chat_autoparser::gbnf::Expr::lit("</parameter>")]),
    ]);
    let g = b.finish(root);
    for ok in ["Shello \"world\"\n<b></parameter>", "S</parameter>", "Ea b</parameter>", "N12</parameter>", "S</para</parameter>"] {
        assert!(check_grammar(&g, ok).unwrap().accepted, "{ok:?}\n{g}");
    }
    for bad in ["Sa</parameter>b</parameter>", "Ex</parameter>", "N\"1\"</parameter>"] {
        assert!(!check_grammar(&g, bad).unwrap().accepted, "{bad:?}");
    }
}

#[test]
fn schema_errors() {
    let mut b = GrammarBuilder::new();
    let bad = json!({"$ref": "#/$defs/missing"});
    assert!(SchemaConverter::new(&mut b, &bad).json(&bad, "x").is_err());
    let remote = json!({"$ref": "https://example.com/s.json"});
    assert!(SchemaConverter::new(&mut b, &remote).json(&remote, "x").is_err());
    let mut deep = json!({"type": "integer"});
    for _ in 0..100 {
        deep = json!({"type": "array", "items": deep});
    }
    assert!(SchemaConverter::new(&mut b, &deep).json(&deep, "x").is_err());
}

#[test]
fn printed_object_grammar_is_readable() {
    let g = grammar(&json!({"type": "object", "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}));
    println!("{g}");
    assert!(g.starts_with("root ::= root-schema\n"));
    assert!(g.contains(r#"root-schema-location-kv ::= "\"location\"" space ":" space string"#));
}
