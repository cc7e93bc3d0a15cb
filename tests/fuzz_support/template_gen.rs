//! Hostile template generator (issue #11): the template shapes that found the renderer's crashes and
//! hangs — `{% generation %}` blocks around non-ASCII text (offsets from the rewritten source),
//! deep nesting of blocks, expressions, filters and data, and growth through `namespace` (doubling
//! lists and strings, repetition, appends, then `length` / `tojson` / printing of the result).
//!
//! Self-contained (only `chat_autoparser`), so the long run (examples/fuzz_templates.rs) and the
//! cargo-fuzz target (fuzz/fuzz_targets/template_shapes.rs) share it: choices come from a `below(n)`
//! callback, a seeded RNG there, the fuzzer's bytes here.
//!
//! Not generated: a doubling chain whose leaves are plain list literals assigned after `namespace()`
//! or passed through macro recursion. minijinja flattens it without calling our code (SECURITY.md,
//! "Still open"), so it would hang, which is known and documented rather than found.
#![allow(dead_code)]

use chat_autoparser::{ChatTemplate, ErrorKind, RenderOptions};

/// Non-ASCII snippets: 2-, 3- and 4-byte UTF-8, combining marks, RTL, a BOM-like char.
const TEXTS: &[&str] = &["ééé", "日本語", "😀🎉", "e\u{301}", "שלום", "\u{FEFF}x", "ß", "a", "<think>", "{{", "%}", "\n"];

/// Expression fragments (some invalid on purpose, e.g. `"ééé" x` as in the issue).
const EXPRS: &[&str] = &[
    "\"ééé\"",
    "\"ééé\" x",
    "messages|length",
    "messages[0].content",
    "ns.l|length",
    "ns.l|tojson",
    "ns.l",
    "ns.s|length",
    "ns.s[:20]",
    "(ns.l + ns.l)|length",
    "ns.l * 3",
    "ns.s * 3",
    "x.y.z",
    "range(10)|list",
    "undefined_name",
    "raise_exception('ü')",
];

/// A random template; `below(n)` returns a number in `0..n` (n ≥ 1).
pub fn hostile_template(below: &mut dyn FnMut(usize) -> usize) -> String {
    let mut out = String::new();
    out.push_str("{% set ns = namespace(l=[1, 'é'], s='é', n=0) %}");
    let parts = 1 + below(5);
    for _ in 0..parts {
        match below(6) {
            0 => generation_block(&mut out, below),
            1 => nested_blocks(&mut out, below),
            2 => nested_expression(&mut out, below),
            3 => growth(&mut out, below),
            4 => nested_data(&mut out, below),
            _ => {
                out.push_str(TEXTS[below(TEXTS.len())]);
                out.push_str("{{ ");
                out.push_str(EXPRS[below(EXPRS.len())]);
                out.push_str(" }}");
            }
        }
    }
    out
}

fn generation_block(out: &mut String, below: &mut dyn FnMut(usize) -> usize) {
    out.push_str(TEXTS[below(TEXTS.len())]);
    out.push_str(["{% generation %}", "{%- generation -%}", "{%generation%}"][below(3)]);
    for _ in 0..below(4) {
        out.push_str(TEXTS[below(TEXTS.len())]);
        out.push_str("{{ ");
        out.push_str(EXPRS[below(EXPRS.len())]);
        out.push_str(" }}");
    }
    // Sometimes unclosed, doubled or nested.
    match below(5) {
        0 => {}
        1 => out.push_str("{% generation %}ü{% endgeneration %}{% endgeneration %}"),
        _ => out.push_str("{% endgeneration %}"),
    }
    out.push_str(TEXTS[below(TEXTS.len())]);
}

fn nested_blocks(out: &mut String, below: &mut dyn FnMut(usize) -> usize) {
    let depth = [1, 10, 100, 149, 150, 151, 199, 200, 201, 400][below(10)];
    let mut closers = Vec::new();
    for i in 0..depth {
        match below(3) {
            0 => {
                out.push_str("{% if true %}");
                closers.push("{% endif %}");
            }
            1 => {
                out.push_str(&format!("{{% for x{i} in [1] %}}"));
                closers.push("{% endfor %}");
            }
            _ => {
                out.push_str(&format!("{{% macro m{i}() %}}é"));
                closers.push("{% endmacro %}");
            }
        }
    }
    out.push_str(TEXTS[below(TEXTS.len())]);
    while let Some(c) = closers.pop() {
        out.push_str(c);
    }
}

fn nested_expression(out: &mut String, below: &mut dyn FnMut(usize) -> usize) {
    let depth = [5, 50, 199, 200, 201, 1000, 20000][below(7)];
    out.push_str("{{ ");
    match below(4) {
        0 => {
            out.push_str(&"(".repeat(depth));
            out.push('1');
            out.push_str(&")".repeat(depth));
        }
        1 => {
            out.push_str("\"é\"");
            out.push_str(&"|upper".repeat(depth));
        }
        2 => {
            out.push('1');
            out.push_str(&" + 1".repeat(depth));
        }
        _ => {
            out.push_str(&"[".repeat(depth));
            out.push_str(&"]".repeat(depth));
        }
    }
    out.push_str(" }}");
}

fn growth(out: &mut String, below: &mut dyn FnMut(usize) -> usize) {
    let n = [3, 16, 31, 32, 33, 40, 64][below(7)];
    let step = [
        "{% set ns.l = ns.l + ns.l %}",
        "{% set ns.l = ns.l * 2 %}",
        "{% set ns.s = ns.s ~ ns.s %}",
        "{% set ns.s = ns.s + ns.s %}",
        "{% set _ = ns.l.append(ns.l) %}",
        "{% set _ = ns.l.extend(ns.l) %}",
        "{% set ns.l = [ns.l, ns.l] %}",
        "{% set ns.n = ns.n + 1 %}",
    ][below(8)];
    // A fresh namespace per loop, so the lists doubled are always namespace lists (see the module note).
    out.push_str("{% set ns = namespace(l=[1, 'é'], s='é', n=0) %}");
    out.push_str(&format!("{{% for i in range({n}) %}}{step}{{% endfor %}}"));
    out.push_str(["{{ ns.l|length }}", "{{ ns.l|tojson }}", "{{ ns.l }}", "{{ ns.s|length }}", "{{ ns.l|count }}", "{{ ns.l|join(',') }}", "x"][below(7)]);
    out.push_str("{% set ns = namespace(l=[1, 'é'], s='é', n=0) %}");
}

fn nested_data(out: &mut String, below: &mut dyn FnMut(usize) -> usize) {
    let depth = [2, 50, 99, 100, 101, 300][below(6)];
    out.push_str(&format!(
        "{{% set d = namespace(l=[]) %}}{{% set cur = namespace(v=d.l) %}}{{% for i in range({depth}) %}}{{% set nxt = namespace(l=[]) %}}{{% set _ = cur.v.append(nxt.l) %}}{{% set cur.v = nxt.l %}}{{% endfor %}}"
    ));
    out.push_str(["{{ d.l }}", "{{ d.l|tojson }}", "{{ d.l|length }}", "{{ d.l|string|length }}"][below(4)]);
}

/// Compile, render and analyse `source` with small fuel. Every step must end in a value or an error
/// of a template kind; anything else (a panic is caught by the caller) is a failure.
pub fn check_template(source: &str) -> Result<(), String> {
    let options = RenderOptions { fuel: Some(50_000), analysis_fuel: Some(200_000), ..RenderOptions::default() };
    let t = match ChatTemplate::new(source, options) {
        Ok(t) => t,
        Err(e) => return expected(e.kind(), "compile", &e.to_string()),
    };
    let ctx = serde_json::json!({"messages": [{"role": "user", "content": "héllo 😀"}], "add_generation_prompt": true});
    if let Err(e) = t.render(&ctx) {
        expected(e.kind(), "render", &e.to_string())?;
    }
    let first = t.analysis().map(|_| ()).map_err(|e| e.kind());
    if let Err(k) = first {
        expected(k, "analysis", "")?;
    }
    // A failed analysis is kept: asking again gives the same result.
    let again = t.analysis().map(|_| ()).map_err(|e| e.kind());
    if again != first {
        return Err(format!("analysis changed: {first:?} then {again:?}"));
    }
    Ok(())
}

fn expected(kind: ErrorKind, step: &str, msg: &str) -> Result<(), String> {
    match kind {
        ErrorKind::TemplateSyntax | ErrorKind::Render | ErrorKind::Limit | ErrorKind::Analysis => Ok(()),
        k => Err(format!("{step}: unexpected error kind {k:?}: {msg}")),
    }
}
