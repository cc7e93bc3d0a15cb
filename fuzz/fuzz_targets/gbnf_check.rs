//! The GBNF checker on arbitrary grammars and texts: an answer or an error, never a panic or a hang
//! (its item cap bounds the work).
#![no_main]
use chat_autoparser::gbnf::check_grammar;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &str| {
    let (grammar, text) = data.split_once('\u{1}').unwrap_or((data, "x"));
    let _ = check_grammar(grammar, text);
});
