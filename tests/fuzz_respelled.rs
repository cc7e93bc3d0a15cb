//! Marker departures (rules R9–R12: other spellings, call-prefix tokens, repeated markers) in every
//! case output and bench input, for every parser: stream ≡ whole over random chunkings and no text
//! silently dropped. The long run (examples/fuzz_long.rs) does many more of them.

mod fuzz_support;

use fuzz_support::*;

#[test]
fn respelled_markers_stream_like_whole_and_lose_nothing_silently() {
    let mut templates = Templates::default();
    let mut subjects = case_subjects(&mut templates);
    subjects.extend(bench_subjects(&mut templates, &["1k"]));
    let mut rng = Rng::new(9);
    let mut failures: Vec<String> = Vec::new();
    let mut texts = 0;
    for s in &subjects {
        for _ in 0..3 {
            let text = respell_subject(s, &mut rng);
            texts += 1;
            if let Err(e) = stream_equals_whole(s, &text, &mut rng, 2) {
                failures.push(e);
            }
            if let Accounting::Silent(lost) = account(s, &text) {
                failures.push(format!("{}: SILENT loss {lost:?} in {text:?}", s.label));
            }
        }
    }
    println!("respelled markers: {texts} texts, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n"));
}
