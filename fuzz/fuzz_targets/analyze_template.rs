//! The analyzer on arbitrary (mutated) templates: never panics, whatever the source. Seed the corpus
//! with tests/fixtures/conformance/templates/*.jinja so mutations start from real templates.
#![no_main]
use chat_autoparser::{ChatTemplate, RenderOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|source: &str| {
    // Small fuel keeps each execution fast; the analysis must cope with renders that run out.
    let options = RenderOptions { fuel: Some(20_000), ..RenderOptions::default() };
    if let Ok(t) = ChatTemplate::new(source, options) {
        // An analysis is a result or an error (kept: asking again gives the same one).
        let first = t.analysis().map(|a| serde_json::to_string(a).ok());
        assert_eq!(first.is_ok(), t.analysis().is_ok());
    }
});
