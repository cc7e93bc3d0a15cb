//! Issue #11 item 1: hostile templates and data must end in an error (or a bounded result) well
//! inside a 1 MiB stack — the wasm stack. Each case runs on a thread with exactly that stack, so a
//! recursion that is not bounded aborts this test binary instead of passing.

use chat_autoparser::{render_template, ErrorKind, RenderOptions};
use serde_json::{json, Value};

const WASM_STACK: usize = 1 << 20;

/// Render on a 1 MiB-stack thread; return the result's error kind (None when it rendered).
fn on_small_stack(source: String, context: Value) -> Option<ErrorKind> {
    std::thread::Builder::new()
        .stack_size(WASM_STACK)
        .spawn(move || render_template(&source, &context, RenderOptions::default()).err().map(|e| e.kind()))
        .expect("spawn")
        .join()
        .expect("no panic")
}

fn nested_json(depth: usize) -> Value {
    // Built iteratively (and dropped by `drop_iteratively`): serde_json's own recursion is not under test.
    let mut v = json!("leaf");
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn self_referential_list_printed_with_string() {
    let src = "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l|string }}";
    let r = on_small_stack(src.into(), json!({"messages": []}));
    assert!(r.is_none() || r == Some(ErrorKind::Limit) || r == Some(ErrorKind::Render), "{r:?}");
}

#[test]
fn self_referential_list_printed_and_serialized() {
    for tail in ["{{ ns.l }}", "{{ ns.l|tojson }}", "{{ ns.l|list|string }}", "{{ ns.l|pprint }}", "{{ ns.l|join(',') }}"] {
        let src = format!("{{% set ns = namespace(l=[]) %}}{{% set _ = ns.l.append(ns.l) %}}{{% set _ = ns.l.append(ns.l) %}}{tail}");
        let r = on_small_stack(src, json!({}));
        assert!(r != Some(ErrorKind::Analysis), "{tail}: {r:?}");
    }
}

#[test]
fn long_filter_chain() {
    let src = format!("{{{{ \"x\"{} }}}}", "|upper".repeat(20_000));
    assert_eq!(on_small_stack(src, json!({})), Some(ErrorKind::Limit));
}

#[test]
fn long_plus_chain() {
    let src = format!("{{{{ 1{} }}}}", " + 1".repeat(100_000));
    assert_eq!(on_small_stack(src, json!({})), Some(ErrorKind::Limit));
}

/// Operators rewritten into calls (Python's `Markup + str`, `%`) nest a bracket level per call: chains
/// stay within the stack, a long one keeping minijinja's operators.
#[test]
fn rewritten_operator_chains() {
    for n in [15, 16, 17, 180] {
        for piece in [" + 'b'", " ~ 'b'", " % 1"] {
            let src = format!("{{{{ ('a'|safe){} }}}}", piece.repeat(n));
            let r = on_small_stack(src, json!({}));
            assert!(r.is_none() || r == Some(ErrorKind::Render), "{n} {piece}: {r:?}");
        }
    }
}

#[test]
fn long_attribute_and_call_chains() {
    for piece in [".a", "[0]", "()", " ~ 'x'", " and x", " == 1", "|default(1)"] {
        let src = format!("{{{{ x{} }}}}", piece.repeat(20_000));
        let r = on_small_stack(src, json!({}));
        assert_eq!(r, Some(ErrorKind::Limit), "{piece}");
    }
}

#[test]
fn nested_lists_built_in_a_loop() {
    let src = "{% set ns = namespace(x=1) %}{% for i in range(200000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|tojson }}{{ ns.x }}{{ ns.x|string }}";
    let r = on_small_stack(src.into(), json!({}));
    assert!(matches!(r, Some(ErrorKind::Limit | ErrorKind::Render)), "{r:?}");
}

#[test]
fn deeply_nested_context_is_refused_without_recursion() {
    let mut map = serde_json::Map::new();
    map.insert("messages".into(), json!([]));
    map.insert("x".into(), nested_json(100_000));
    let ctx = Value::Object(map);
    let r = std::thread::Builder::new()
        .stack_size(WASM_STACK)
        .spawn(move || {
            let r = render_template("{{ x|tojson }}", &ctx, RenderOptions::default()).err().map(|e| e.kind());
            drop_iteratively(ctx);
            r
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(r, Some(ErrorKind::InvalidInput));
}

#[test]
fn shared_sublists_do_not_explode() {
    // Each step doubles the printed size without growing memory: 2^60 bytes if printed naively.
    let src = "{% set ns = namespace(x=[1]) %}{% for i in range(60) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}{{ ns.x }}";
    let r = on_small_stack(src.into(), json!({}));
    assert!(matches!(r, Some(ErrorKind::Limit)), "{r:?}");
    let src = "{% set ns = namespace(x=[1]) %}{% for i in range(60) %}{% set ns.x = [ns.x, ns.x] %}{% endfor %}{{ ns.x|tojson }}";
    let r = on_small_stack(src.into(), json!({}));
    assert!(matches!(r, Some(ErrorKind::Limit)), "{r:?}");
}

/// Drop a deep value without recursion (serde_json's own drop recurses).
fn drop_iteratively(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
