//! The diff splitter: for any two texts, `prefix + left + suffix` rebuilds each side.
#![no_main]
use chat_autoparser::analysis::calculate_diff_split;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &str| {
    let (a, b) = data.split_once('\u{1}').unwrap_or((data, ""));
    let d = calculate_diff_split(a, b);
    assert_eq!(format!("{}{}{}", d.prefix, d.left, d.suffix), a);
    assert_eq!(format!("{}{}{}", d.prefix, d.right, d.suffix), b);
});
