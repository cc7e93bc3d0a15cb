//! The leniency departures of issue #13 (tests/fuzz_support/departures.rs) under the fuzz checks:
//! each output as written and mutated, in random chunkings ≡ whole, and nothing dropped silently.

mod fuzz_support;

use fuzz_support::*;

#[test]
fn departures_stream_equal_whole_and_lose_nothing_silently() {
    let subjects = departures::departure_subjects(&mut Templates::default());
    assert!(subjects.len() >= 20, "{} subjects", subjects.len());
    let mut rng = Rng::new(13);
    let (mut texts, mut reported) = (0, 0);
    for s in &subjects {
        for k in 0..30 {
            let text = if k == 0 { s.text.clone() } else { mutate_subject(s, &mut rng) };
            if let Err(e) = stream_equals_whole(s, &text, &mut rng, 4) {
                panic!("{e}");
            }
            match account(s, &text) {
                Accounting::Complete => {}
                // Each departure as written is read whole: nothing of it lost, even with a diagnostic.
                Accounting::Reported(lost) if k == 0 && s.label.contains(departures::CALL_SYNTAX) => panic!("{}: lost {lost:?} in the departure as written {text:?}", s.label),
                Accounting::Reported(_) => reported += 1,
                Accounting::Silent(lost) => panic!("{}: SILENT loss {lost:?} in {text:?}", s.label),
            }
            texts += 1;
        }
    }
    println!("departures: {texts} texts over {} subjects, stream ≡ whole, {reported} with a reported loss, none silent", subjects.len());
}
