//! Hostile template shapes (issue #11): the fuzzer's bytes choose among the generator's
//! `{% generation %}` + non-ASCII, deep nesting and `namespace` growth fragments
//! (tests/fuzz_support/template_gen.rs); every compile, render and analysis must end in a value or a
//! template-kind error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/template_gen.rs"]
mod template_gen;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let source = template_gen::hostile_template(&mut |n| bytes.next().map_or(0, |b| b as usize % n.max(1)));
    if let Err(e) = template_gen::check_template(&source) {
        panic!("{e}");
    }
});
