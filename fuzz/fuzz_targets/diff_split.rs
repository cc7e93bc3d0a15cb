//! The diff splitter never panics, and its unique parts come from their own side. (It does not
//! always rebuild each side as `prefix + left + suffix`: like llama.cpp's `calculate_diff_split`,
//! whose behaviour the conformance data pins — see tests/fixtures/conformance/README.md, analysis-diffs —
//! a short side's last segment can end up in both the prefix and the suffix.)
#![no_main]
use chat_autoparser::analysis::calculate_diff_split;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &str| {
    let (a, b) = data.split_once('\u{1}').unwrap_or((data, ""));
    let d = calculate_diff_split(a, b);
    assert!(a.contains(d.left.as_str()), "left {:?} not in {a:?}", d.left);
    assert!(b.contains(d.right.as_str()), "right {:?} not in {b:?}", d.right);
});
