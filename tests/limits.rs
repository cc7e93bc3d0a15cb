//! Untrusted templates: every hostile class fails with a clear error within a second, natively (a
//! release build; the unoptimised `cargo test` build gets five, as tests/hostile_templates.rs does: without
//! its budget each of these would run for hours, so the bound still tells a budget from none).

use chat_autoparser::{render_template, ErrorKind, RenderOptions};
use std::time::{Duration, Instant};

fn fails_fast(name: &str, source: &str, context: serde_json::Value) {
    let t0 = Instant::now();
    let err = render_template(source, &context, RenderOptions::default()).expect_err(name);
    let took = t0.elapsed();
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 5 } else { 1 });
    assert!(took < bound, "{name}: error took {took:?}");
    assert!(matches!(err.kind(), ErrorKind::Limit | ErrorKind::Render), "{name}: {err}");
    assert!(!err.to_string().is_empty());
}

#[test]
fn endless_loops_run_out_of_fuel() {
    fails_fast(
        "nested loops",
        "{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}",
        serde_json::json!({}),
    );
}

#[test]
fn runaway_recursion_hits_the_limit() {
    fails_fast("macro recursion", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", serde_json::json!({}));
}

#[test]
fn huge_output_hits_the_size_limit() {
    let t0 = Instant::now();
    let err = render_template("{% for i in range(10000) %}{{ 'x' * 100000 }}{% endfor %}", &serde_json::json!({}), RenderOptions {
        fuel: Some(u64::MAX),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
    assert!(t0.elapsed() < Duration::from_secs(1));
}

#[test]
fn deeply_nested_data_is_rejected_or_rendered_without_crashing() {
    let mut v = serde_json::json!("leaf");
    for _ in 0..300 {
        v = serde_json::json!([v]);
    }
    let t0 = Instant::now();
    let r = render_template("{{ messages | tojson }}", &serde_json::json!({ "messages": v }), RenderOptions::default());
    assert!(r.is_err(), "300-deep nesting is refused");
    assert!(t0.elapsed() < Duration::from_secs(1));
}

#[test]
fn syntax_errors_name_line_and_column() {
    let err = render_template("line one\n  {% if %}", &serde_json::json!({}), RenderOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TemplateSyntax);
    let (line, col) = err.location().expect("location");
    assert_eq!(line, 2);
    assert!(col >= 3, "column {col}");
}

#[test]
fn raise_exception_is_a_render_error_with_the_message() {
    let err = render_template("{{ raise_exception('no system role') }}", &serde_json::json!({}), RenderOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Render);
    assert!(err.to_string().contains("no system role"), "{err}");
}

#[test]
fn errors_after_generation_tags_point_into_the_original_source() {
    // Issue #11 item 3: `{% generation %}` is rewritten before compiling; offsets from the rewritten
    // source sliced the original one inside `é` (a panic) and columns drifted after each tag.
    let source = "{% generation %}{{ \"ééé\" x }}{% endgeneration %}";
    let err = chat_autoparser::ChatTemplate::new(source, RenderOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TemplateSyntax, "{err}");
    assert_eq!(err.location(), Some((1, 26)), "{err}");
    let source = "ü{%- generation -%}é{%endgeneration%}{%   generation %}{{ 1 + }}{% endgeneration %}";
    let err = chat_autoparser::ChatTemplate::new(source, RenderOptions::default()).unwrap_err();
    let col = source[..source.find("}}{%").unwrap()].chars().count() + 1;
    assert_eq!(err.location(), Some((1, col)), "{err}");
    // Rendering still works through the rewritten tags, with their whitespace control.
    let out = render_template("a {%- generation -%} b {%- endgeneration %}c", &serde_json::json!({}), RenderOptions::default());
    assert_eq!(out.unwrap(), "abc");
}

#[test]
fn recursion_limit_is_a_limit_error() {
    let err = render_template("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", &serde_json::json!({}), RenderOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
}

#[test]
fn now_is_validated_and_formatted_in_constant_time() {
    // Issue #11 item 6: the day-of-year loop ran once per year since 1970 (1e20 took ≈17 hours).
    let t0 = Instant::now();
    let src = "{{ strftime_now('%Y-%m-%d %j') }}";
    let at = |now: f64| render_template(src, &serde_json::json!({}), RenderOptions { now: Some(now), ..Default::default() });
    assert_eq!(at(253_402_300_799.0).unwrap(), "9999-12-31 365");
    assert_eq!(at(-62_135_596_800.0).unwrap(), "1-01-01 001");
    for bad in [1e17, 1e20, -1e20, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 253_402_300_800.0] {
        assert_eq!(at(bad).unwrap_err().kind(), ErrorKind::InvalidInput, "{bad}");
    }
    assert!(t0.elapsed() < Duration::from_secs(1));
}
