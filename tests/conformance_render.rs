//! renders.jsonl: every `expected` render must be byte-identical; every `error` record must fail.

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};
use std::collections::HashMap;

#[test]
fn renders_match_hugging_face_byte_for_byte() {
    let records = common::load_jsonl("renders.jsonl");
    let mut templates: HashMap<String, Result<ChatTemplate, String>> = HashMap::new();
    let (mut ok, mut errors_ok, mut failures) = (0, 0, Vec::new());
    for r in &records {
        let name = r["template"].as_str().unwrap().to_string();
        let tmpl = templates.entry(name.clone()).or_insert_with(|| {
            let opts = RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).map_err(|e| e.to_string())
        });
        let tmpl = match tmpl {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: compile error {e}"));
                continue;
            }
        };
        let got = tmpl.render(&r["kwargs"]);
        match (r.get("expected").and_then(|v| v.as_str()), got) {
            (Some(exp), Ok(got)) if got == exp => ok += 1,
            (Some(exp), Ok(got)) => {
                let at = exp.bytes().zip(got.bytes()).take_while(|(a, b)| a == b).count();
                let lo = at.saturating_sub(40);
                failures.push(format!(
                    "{name} [{}] {:?}: differs at byte {at}\n  expected …{:?}\n  got      …{:?}",
                    r["fixture"],
                    r["kwargs"].get("enable_thinking"),
                    exp.get(lo..(at + 60).min(exp.len())).unwrap_or(""),
                    got.get(lo..(at + 60).min(got.len())).unwrap_or("")
                ));
            }
            (Some(_), Err(e)) => failures.push(format!("{name} [{}]: unexpected error {e}", r["fixture"])),
            (None, Err(_)) => errors_ok += 1,
            (None, Ok(_)) => failures.push(format!("{name} [{}]: rendered, but Jinja2 raised {}", r["fixture"], r["error"])),
        }
    }
    let expected_total = records.iter().filter(|r| r.get("expected").is_some()).count();
    let error_total = records.len() - expected_total;
    println!("renders: {ok}/{expected_total} byte-identical, {errors_ok}/{error_total} errors reproduced");
    for f in failures.iter().take(40) {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} render records differ", failures.len());
}
