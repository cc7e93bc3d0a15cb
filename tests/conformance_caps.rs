//! Capability probe against llama.cpp's caps for every reference template.

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};
use common::expectations::Expectations;

/// Every capability flag of every template is a case of `tests/expectations/caps.jsonl` (`TEMPLATE:flag`).
/// (Probes render leniently, so Python-only failures such as an undefined `functions` or `map | tojson`
/// do not hide capabilities.)
#[test]
fn caps_match_reference() {
    let records = common::load_jsonl("analysis.jsonl");
    let mut expect = Expectations::load("caps");
    for r in &records {
        let name = r["template"].as_str().unwrap();
        let opts = RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() };
        let t = ChatTemplate::new(&common::template_source(name), opts).unwrap();
        let ours = serde_json::to_value(t.caps()).unwrap();
        for (k, v) in r["caps"].as_object().unwrap() {
            let got = ours.get(common::camel(k));
            expect.check(format!("{name}:{k}"), got == Some(v), || format!("reference={v} ours={got:?}"));
        }
    }
    let (same, total) = expect.counts();
    println!("caps: {same}/{total} flags equal to llama.cpp's");
    expect.finish();
}
