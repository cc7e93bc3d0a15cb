//! Capability probe against llama.cpp's caps for every reference template.

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};

/// A probe llama.cpp phrases differently. (Probes render leniently, so Python-only failures such as an
/// undefined `functions` or `map | tojson` do not hide capabilities.)
const KNOWN: &[(&str, &str)] = &[
    (
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja:supports_preserve_reasoning",
        "the template drops reasoning of assistant turns before the last user message; our probe checks exactly that case",
    ),
];

#[test]
fn caps_match_reference() {
    let records = common::load_jsonl("analysis.jsonl");
    let (mut same, mut total, mut diffs) = (0, 0, Vec::new());
    for r in &records {
        let name = r["template"].as_str().unwrap();
        let opts = RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() };
        let t = ChatTemplate::new(&common::template_source(name), opts).unwrap();
        let ours = serde_json::to_value(t.caps()).unwrap();
        for (k, v) in r["caps"].as_object().unwrap() {
            let camel = common::camel(k);
            total += 1;
            if KNOWN.iter().any(|(t, _)| *t == name || *t == format!("{name}:{k}")) {
                continue;
            }
            if ours.get(&camel) == Some(v) {
                same += 1;
            } else {
                diffs.push(format!("{name}: {k} reference={v} ours={:?}", ours.get(&camel)));
            }
        }
    }
    println!("caps: {same}/{total} flags equal to llama.cpp's");
    for d in &diffs {
        println!("DIFF {d}");
    }
    assert!(diffs.is_empty(), "{} caps flags differ", diffs.len());
}
