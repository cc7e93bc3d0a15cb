//! Capability probe against llama.cpp's caps for every shared template.

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};

/// Templates whose probes fail under Python semantics (which our renders must follow) but not under
/// llama.cpp's more lenient engine, and one probe llama.cpp phrases differently.
const KNOWN: &[(&str, &str)] = &[
    (
        "fireworks-ai-llama-3-firefunction-v2.jinja",
        "renders `prompt + functions` with `functions` undefined: Jinja2 raises (and so do we), llama.cpp's engine treats it as empty",
    ),
    (
        "llama-cpp-deepseek-r1.jinja",
        "with tools it renders `tools | map(...) | tojson`: a generator, which Python's json.dumps refuses (renders.jsonl expects the error)",
    ),
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
            let camel: String = k
                .split('_')
                .enumerate()
                .map(|(i, w)| if i == 0 { w.to_string() } else { w[..1].to_uppercase() + &w[1..] })
                .collect();
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
