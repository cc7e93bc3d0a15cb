//! Hostile templates and inputs, natively: endless loops, runaway recursion, huge output, deeply
//! nested data, 5,000 tools, a huge template source, and the *analysis* of such templates (it
//! renders dozens of times, so its total must stay bounded too). Each must give a clear error or a
//! correct result within a second (five in a debug build; the wasm build is checked in
//! pkg-tests/hostile.test.mjs). Optimized figures: `cargo test --profile bench --test
//! hostile_templates -- --nocapture --test-threads 1`.

use chat_autoparser::analysis::Handler;
use chat_autoparser::api::RequestOptions;
use chat_autoparser::testing::make_parser;
use chat_autoparser::{ChatTemplate, ErrorKind, RenderOptions};
use serde_json::json;
use std::time::{Duration, Instant};

/// One second in an optimized build; debug builds (plain `cargo test`, on a shared machine) get five.
const SECOND: Duration = Duration::from_secs(if cfg!(debug_assertions) { 5 } else { 1 });

fn context(tools: serde_json::Value) -> serde_json::Value {
    json!({"messages": [{"role": "user", "content": "hi"}], "tools": tools, "add_generation_prompt": true})
}

/// The templates a pasted-anything playground must survive. Each renders (if at all) into an error
/// or a bounded result.
const HOSTILE: &[(&str, &str)] = &[
    ("nested loops", "{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}"),
    ("macro recursion", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"),
    ("string bomb", "{% set s = namespace(v='x') %}{% for i in range(64) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v }}"),
    ("multiplied output", "{% for i in range(10000) %}{{ 'x' * 100000 }}{% endfor %}"),
    ("recursive include-like self call", "{% macro m() %}{% for x in range(10) %}{{ m() }}{% endfor %}{% endmacro %}{{ m() }}"),
    ("loop over messages forever", "{% for m in messages * 1000000 %}{{ m.content }}{% endfor %}"),
    (
        "fuel-heavy but valid",
        "{% for i in range(300000) %}{% endfor %}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}",
    ),
];

#[test]
fn hostile_templates_fail_fast_or_render() {
    for (name, source) in HOSTILE {
        let t0 = Instant::now();
        let result = ChatTemplate::new(source, RenderOptions::default()).and_then(|t| t.render(&context(json!([]))));
        let took = t0.elapsed();
        match &result {
            Ok(s) => assert!(s.len() <= 8 << 20, "{name}: {} bytes", s.len()),
            Err(e) => {
                assert!(matches!(e.kind(), ErrorKind::Limit | ErrorKind::Render), "{name}: {e}");
                assert!(!e.to_string().is_empty());
            }
        }
        println!("hostile render {name}: {} in {took:?}", if result.is_ok() { "ok" } else { "error" });
        assert!(took < SECOND, "{name}: {took:?}");
    }
}

#[test]
fn analysis_of_hostile_templates_is_bounded() {
    // Issue #11 item 7: all probe renders of an analysis share one fuel budget (options.analysisFuel),
    // so a template that burns nearly all of a render's fuel costs about four renders, not dozens; and
    // a template that cannot render (endless loop, runaway recursion) is an error, not an analysis.
    let mut total = Duration::ZERO;
    for (name, source) in HOSTILE {
        let Ok(t) = ChatTemplate::new(source, RenderOptions::default()) else { continue };
        let t0 = Instant::now();
        let a = t.analysis();
        let took = t0.elapsed();
        total += took;
        match a {
            Ok(a) => println!("hostile analysis {name}: {took:?}, complete {}, {} diffs", a.analysis_complete, a.diffs.len()),
            Err(e) => println!("hostile analysis {name}: {took:?}, {e}"),
        }
        if !name.starts_with("fuel-heavy") {
            let e = t.analysis().expect_err(name);
            assert_eq!(e.kind(), ErrorKind::Limit, "{name}: {e}");
        }
        assert!(took < 2 * SECOND, "{name}: analysis took {took:?}");
    }
    println!("hostile analysis total: {total:?}");
}

#[test]
fn analysis_budget_is_shared_by_all_probes_and_named() {
    // Renders in well under a render's fuel, but dozens of probes together exceed a small budget.
    let source = "{% for i in range(3000) %}{{ i }}{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}";
    let t = ChatTemplate::new(source, RenderOptions { analysis_fuel: Some(100_000), ..Default::default() }).unwrap();
    assert!(t.render(&context(json!([]))).is_ok());
    let e = t.analysis().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert!(e.to_string().contains("analysisFuel"), "{e}");
    // The failure is kept, not recomputed and not poisoning: the same error again, rendering still works.
    assert_eq!(t.analysis().unwrap_err(), e);
    assert!(t.render(&context(json!([]))).is_ok());
    // A template that raises on every conversation is an Analysis error.
    let t = ChatTemplate::new("{{ raise_exception('never') }}", RenderOptions::default()).unwrap();
    assert_eq!(t.analysis().unwrap_err().kind(), ErrorKind::Analysis);
}

#[test]
fn five_thousand_tools_render_in_time() {
    let tools: Vec<_> = (0..5000)
        .map(|i| {
            json!({"type": "function", "function": {"name": format!("tool_{i}"), "description": "d",
                "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}})
        })
        .collect();
    let source = "{% for t in tools %}{{ t | tojson }}\n{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}";
    let t0 = Instant::now();
    let out = ChatTemplate::new(source, RenderOptions::default()).and_then(|t| t.render(&context(json!(tools))));
    let took = t0.elapsed();
    match out {
        Ok(s) => assert_eq!(s.matches("\"name\": \"tool_").count(), 5000, "every tool rendered"),
        Err(e) => assert_eq!(e.kind(), ErrorKind::Limit, "{e}"),
    }
    println!("5000 tools: rendered in {took:?}");
    assert!(took < SECOND, "{took:?}");
}

#[test]
fn huge_template_source_compiles_or_fails_fast() {
    // 2 MB of template text with 50,000 expressions.
    let source: String = (0..50_000).map(|i| format!("line {i} {{{{ messages[0].content }}}} padding padding\n")).collect();
    let t0 = Instant::now();
    let r = ChatTemplate::new(&source, RenderOptions::default()).and_then(|t| t.render(&context(json!([]))));
    let took = t0.elapsed();
    println!("huge source ({} bytes): {} in {took:?}", source.len(), if r.is_ok() { "rendered" } else { "error" });
    if let Err(e) = &r {
        assert!(matches!(e.kind(), ErrorKind::Limit | ErrorKind::TemplateSyntax), "{e}");
    }
    assert!(took < 2 * SECOND, "{took:?}");
}

#[test]
fn many_distinct_names_in_reverse_order_stay_fast() {
    // The engine keeps its name-keyed maps (locals, namespaces, compile-time ids) as sorted vectors
    // (vendor patch 15): 60,000 distinct `set` names, each sorting before the last, must not make
    // inserting them quadratic. Every value is read back, in order.
    let n = 60_000;
    let names: Vec<String> = (0..n).rev().map(|i| format!("v{i:06}")).collect();
    let mut source: String = names.iter().enumerate().map(|(k, name)| format!("{{% set {name} = {k} %}}")).collect();
    source.push_str("{% set ns = namespace() %}");
    source.extend(names.iter().take(2000).map(|name| format!("{{% set ns.{name} = 1 %}}")));
    source.push_str(&format!("{{{{ {} }}}},{{{{ {} }}}},{{{{ ns.{} }}}}", names[0], names[n - 1], names[1999]));
    let t0 = Instant::now();
    let r = ChatTemplate::new(&source, RenderOptions::default()).and_then(|t| t.render(&context(json!([]))));
    let took = t0.elapsed();
    println!("{n} names in reverse order ({} bytes): {took:?}", source.len());
    match r {
        Ok(out) => assert_eq!(out.trim(), format!("0,{},1", n - 1)),
        Err(e) => assert!(matches!(e.kind(), ErrorKind::Limit), "{e}"),
    }
    assert!(took < 4 * SECOND, "{took:?}");
}

#[test]
fn deeply_nested_data_and_syntax_fail_cleanly() {
    // 1,000 deep (serde_json's own drop of a much deeper Value overflows a test thread's stack; the
    // JS side feeds 100,000-deep data in pkg-tests/hostile.test.mjs).
    let mut v = json!("leaf");
    for _ in 0..1_000 {
        v = json!([v]);
    }
    let t0 = Instant::now();
    let t = ChatTemplate::new("{{ messages | tojson }}{{ messages[0] }}", RenderOptions::default()).unwrap();
    let r = t.render(&json!({ "messages": v }));
    assert!(r.is_err(), "1,000-deep nesting is refused");
    // Deeply nested template syntax: 5,000 open parentheses.
    let source = format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000));
    let r = ChatTemplate::new(&source, RenderOptions::default()).and_then(|t| t.render(&json!({})));
    assert!(r.is_err(), "5,000 nested parentheses are refused");
    assert!(t0.elapsed() < SECOND);
}

#[test]
fn hostile_model_output_parses_in_linear_time() {
    // Marker soup: every parser must stay linear on text made of (partial) markers.
    let soups = ["<tool_call>".repeat(20_000), "<|".repeat(100_000), "[TOOL_CALLS]".repeat(20_000), "{\"".repeat(100_000)];
    for handler in [Handler::Autoparser, Handler::GptOss, Handler::FunctionaryV32, Handler::Ministral3] {
        for soup in &soups {
            let t0 = Instant::now();
            let mut p = make_parser(handler, &RequestOptions::default(), "");
            let mut out = Vec::new();
            for chunk in soup.as_bytes().chunks(4096) {
                p.push(std::str::from_utf8(chunk).unwrap(), &mut out);
            }
            let _ = p.finish(false, &mut out);
            let took = t0.elapsed();
            assert!(took < SECOND, "{handler:?} on {} bytes of {:?}…: {took:?}", soup.len(), &soup[..12]);
        }
    }
}

/// Issue #11 item 5: minijinja concatenates lists lazily and flattens a chain deeper than 32 without
/// charging fuel, so a namespace list doubled 33 times never returned, and doubled 32 times its
/// `|length` (2^32) wrapped to 0 on wasm32. Our lists charge a per-render walk budget when minijinja
/// walks them, and `length` counts a lazy chain against it: both end in a `Limit` error. Ordinary
/// growth (`l + [x]` a thousand times) is unaffected.
#[test]
fn list_growth_is_metered() {
    let render = |src: &str| ChatTemplate::new(src, RenderOptions::default()).and_then(|t| t.render(&context(json!([]))));
    for (n, tail) in [(33, "x"), (32, "{{ ns.l|length }}"), (31, "{{ ns.l|join(',') }}"), (32, "{{ ns.l }}")] {
        let src = format!("{{% set ns = namespace(l=[1]) %}}{{% for i in range({n}) %}}{{% set ns.l = ns.l + ns.l %}}{{% endfor %}}{tail}");
        let t0 = Instant::now();
        let e = render(&src).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit, "{n} doublings: {e}");
        assert!(e.to_string().contains("list growth") || e.to_string().contains("fuel"), "{e}");
        assert!(t0.elapsed() < 2 * SECOND, "{n} doublings: {:?}", t0.elapsed());
    }
    let ok = render("{% set ns = namespace(l=[1]) %}{% for i in range(1000) %}{% set ns.l = ns.l + [i] %}{% endfor %}{{ ns.l|length }} {{ ns.l[-1] }} {{ ns.l|count }}").unwrap();
    assert_eq!(ok, "1001 999 1001");
    let ok = render("{% set ns = namespace(l=[1]) %}{% for i in range(10) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }} {{ [1, 2]|length }} {{ 'ab'|length }} {{ {'a': 1}|length }}").unwrap();
    assert_eq!(ok, "1024 2 2 1");
}

/// Issue #11 item 5, closed in minijinja itself (vendor/README.md): `+` of lists and `*` of a list
/// are charged by the size of their (lazy) result, and `~` formats a container only as far as the
/// remaining fuel pays. Doubling chains whose leaves are plain list literals, or that live in macro
/// arguments, call none of our code; each is a `Limit` (out of fuel) error, fast, and the next render
/// (of it or of anything else) behaves normally.
const GROWTH: &[(&str, &str)] = &[
    ("namespace doubling", "{% set ns = namespace(l=[1]) %}{% for i in range(33) %}{% set ns.l = ns.l + ns.l %}{% endfor %}x"),
    ("namespace literal leaf", "{% set ns = namespace(l=none) %}{% set ns.l = [1] %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}"),
    ("macro recursion", "{% macro f(l, n) %}{% if n > 0 %}{{ f(l + l, n - 1) }}{% else %}{{ l|length }}{% endif %}{% endmacro %}{{ f([1], 40) }}"),
    (
        "literal chain",
        "{% set a = [1, 2] %}{% set b = a + a %}{% set c = b + b %}{% set d = c + c %}{% set e = d + d %}{% set f = e + e %}{% set g = f + f %}{% set h = g + g %}{% set i = h + h %}{% set j = i + i %}{% set k = j + j %}{% set l = k + k %}{% set m = l + l %}{% set n = m + m %}{% set o = n + n %}{% set p = o + o %}{% set q = p + p %}{% set r = q + q %}{% set s = r + r %}{% set t = s + s %}{% set u = t + t %}{% set v = u + u %}{% set w = v + v %}{% set x = w + w %}{% set y = x + x %}{% set z = y + y %}{{ z|length }}",
    ),
    ("list repetition", "{% for i in ([1] * 90000000) %}{% endfor %}"),
    ("repeated repetition", "{% set ns = namespace(l=[1, 2, 3]) %}{% for i in range(30) %}{% set ns.l = ns.l * 2 %}{% endfor %}{{ ns.l|length }}"),
    ("string doubling with +", "{% set ns = namespace(s='xy') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s|length }}"),
    ("tilde of shared sublists", "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ('' ~ ns.l)|length }}"),
    ("tilde of a lazy chain", "{% set ns = namespace(l=[1]) %}{% for i in range(30) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ('' ~ ns.l)|length }}"),
];

#[test]
fn list_and_string_growth_is_charged_by_size() {
    let plain = ChatTemplate::new("{% for m in messages %}{{ m.content }}{% endfor %}", RenderOptions::default()).unwrap();
    for (name, source) in GROWTH {
        let t0 = Instant::now();
        let template = ChatTemplate::new(source, RenderOptions::default()).unwrap();
        let e = template.render(&context(json!([]))).unwrap_err();
        let took = t0.elapsed();
        println!("{name}: {took:?}: {e}");
        assert_eq!(e.kind(), ErrorKind::Limit, "{name}: {e}");
        // Formatting a few MB (what the fuel pays for `~`) is slow unoptimized: the same margin as above.
        assert!(took < 2 * SECOND, "{name}: {took:?}");
        let again = template.render(&context(json!([]))).unwrap_err();
        assert_eq!(again.to_string(), e.to_string(), "{name}: the same error twice");
        assert_eq!(plain.render(&context(json!([]))).unwrap(), "hi", "{name}: usable after");
    }
    // Ordinary growth stays well inside the default fuel.
    let ok = ChatTemplate::new(
        "{% set ns = namespace(l=[]) %}{% for i in range(500) %}{% set ns.l = ns.l + [i] %}{% endfor %}{% set d = [0] * 1000 %}{{ ns.l|length }} {{ (ns.l + ns.l)|length }} {{ d|length }} {{ ([1, 2] ~ '')|length }}",
        RenderOptions::default(),
    )
    .and_then(|t| t.render(&context(json!([]))))
    .unwrap();
    assert_eq!(ok, "500 1000 1000 6");
}

/// Found by examples/fuzz_templates.rs: a list holding itself twice, nested 40 times, then `join`
/// (or `|string`) wrote 2^40 items: minijinja's `Display` of lists is unbounded (`~` still is, see
/// SECURITY.md); ours is Python's `str()` with the serialized-size limit.
#[test]
fn shared_sublists_are_bounded_when_stringified() {
    for tail in ["{{ ns.l|join(',') }}", "{{ ns.l|string|length }}", "{{ ns.l|tojson|length }}"] {
        let src = format!("{{% set ns = namespace(l=[1]) %}}{{% for i in range(40) %}}{{% set ns.l = [ns.l, ns.l] %}}{{% endfor %}}{tail}");
        let t0 = Instant::now();
        let r = ChatTemplate::new(&src, RenderOptions::default()).and_then(|t| t.render(&context(json!([]))));
        if let Err(e) = &r {
            assert!(matches!(e.kind(), ErrorKind::Limit | ErrorKind::Render), "{tail}: {e}");
        }
        assert!(t0.elapsed() < 2 * SECOND, "{tail}: {:?}", t0.elapsed());
    }
    let ok = ChatTemplate::new("{% set ns = namespace(l=[1, 'a', [2]]) %}{{ ns.l|string }} {{ ns.l|join('|') }}", RenderOptions::default())
        .and_then(|t| t.render(&context(json!([]))))
        .unwrap();
    assert_eq!(ok, "[1, 'a', [2]] 1|a|[2]");
}
