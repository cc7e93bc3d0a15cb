//! The diff engine against llama.cpp's: diff-split-cases.jsonl (every record must match) and the
//! diff-helper / segmentation assertions of auto-parser-test-assertions.jsonl.

mod common;

use chat_autoparser::analysis::{after_common_suffix, calculate_diff_split, segmentize_markers, until_common_prefix};

#[test]
fn diff_split_cases_all_match() {
    let records = common::load_jsonl("diff-split-cases.jsonl");
    let mut failures = Vec::new();
    for r in &records {
        let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        let d = calculate_diff_split(&s("left_input"), &s("right_input"));
        let got = (d.prefix, d.left, d.right, d.suffix);
        let exp = (s("prefix"), s("left"), s("right"), s("suffix"));
        if got != exp {
            failures.push(format!("{} line {}:\n  in   {:?} | {:?}\n  exp  {:?}\n  got  {:?}", r["test"], r["caller_line"], s("left_input"), s("right_input"), exp, got));
        }
    }
    println!("diff-split-cases: {}/{} match", records.len() - failures.len(), records.len());
    for f in failures.iter().take(20) {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} diff splits differ", failures.len());
}

/// until_common_prefix / after_common_suffix: the inputs of llama.cpp's unit tests, whose expected
/// values are the `common_prefix.*` / `common_suffix.*` records of auto-parser-test-assertions.jsonl.
#[test]
fn common_prefix_suffix_helpers() {
    let expected: Vec<String> = common::load_jsonl("auto-parser-test-assertions.jsonl")
        .into_iter()
        .filter(|r| r["test"].as_str().is_some_and(|t| t.starts_with("common_prefix.") || t.starts_with("common_suffix.")))
        .map(|r| r["expected"].as_str().unwrap_or_default().to_string())
        .collect();
    let got = vec![
        until_common_prefix("<function name=foo><arg name=bar>", "<arg name=bar>", "<arg name=baz>"),
        until_common_prefix("prefix<test>suffix", "<test>different", "<test>other"),
        until_common_prefix("<common>rest", "<common>left", "<common>right"),
        until_common_prefix("something", "left", "right"),
        until_common_prefix("test", "", "right"),
        until_common_prefix("abcXYZ<shared_prefix>rest", "<shared_prefix>left", "<shared_prefix>right"),
        after_common_suffix("<function name=foo><arg name=bar>100</arg></function>", "<arg name=bar>100</arg>", "<arg name=baz>535</arg>"),
        after_common_suffix("rest<common>", "left<common>", "right<common>"),
        after_common_suffix("test", "left", ""),
        after_common_suffix("<outer><inner>value</inner></outer>", "<inner>value</inner>", "<inner>different</inner>"),
        after_common_suffix("prefix<shared>rest</shared>", "prefix<shared>left</shared>", "prefix<shared>right</shared>"),
        after_common_suffix("<tag>content</tag><extra>", "<tag>value</tag>", "<tag>other</tag>"),
        after_common_suffix("start<middle>end</middle>", "prefix<middle>left</middle>", "prefix<middle>right</middle>"),
    ];
    println!("common prefix/suffix helpers: {} assertions", expected.len());
    assert_eq!(expected.len(), 13);
    assert_eq!(got, expected);
}

/// segmentize_markers: the `segments.*` assertions (kind and value of each segment, in order).
#[test]
fn segmentize_assertions() {
    let records = common::load_jsonl("auto-parser-test-assertions.jsonl");
    let inputs = [
        ("segments.single_square_marker", "pre_marker[marker]post_marker"),
        ("segments.single_diagonal_marker", "pre_marker<marker>post_marker"),
        ("segments.paired_markers", "<hello>world</hello>"),
        ("segments.double_different_markers", "<hello>[hello]<world>[world]"),
        ("segments.in_between", "im<blue>daba<dee>da[hey]"),
    ];
    let mut checked = 0;
    for (test, input) in inputs {
        let segs = segmentize_markers(input);
        // Each test asserts all kinds first, then all values.
        let mut want: Vec<String> = segs.iter().map(|s| format!("{:?}", s.kind).to_uppercase()).collect();
        want.extend(segs.iter().map(|s| s.value.clone()));
        let exp: Vec<String> = records
            .iter()
            .filter(|r| r["test"] == test)
            .map(|r| r["expected"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(want, exp, "{test}");
        checked += exp.len();
    }
    println!("segmentize assertions: {checked} pass");
    assert_eq!(checked, 38);
}
