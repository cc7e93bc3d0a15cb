//! renders.jsonl: every `expected` render must be byte-identical; every `error` record must fail.

mod common;

use chat_autoparser::{ChatTemplate, RenderOptions};
use common::expectations::Expectations;
use std::collections::HashMap;

/// Every record is a case (`TEMPLATE fixture #k`, k counting records of the same template and fixture)
/// of `tests/expectations/renders.jsonl`; known differences say which Python semantics minijinja cannot
/// express. The figure counts exact matches and reproduced errors; known differences are listed apart.
#[test]
fn renders_match_hugging_face_byte_for_byte() {
    let records = common::load_jsonl("renders.jsonl");
    let mut expect = Expectations::load("renders");
    let mut templates: HashMap<String, Result<ChatTemplate, String>> = HashMap::new();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let (mut ok, mut errors_ok) = (0, 0);
    for r in &records {
        let name = r["template"].as_str().unwrap().to_string();
        let fixture = r["fixture"].as_str().unwrap_or_default().to_string();
        let k = seen.entry((name.clone(), fixture.clone())).or_default();
        *k += 1;
        let id = format!("{name} {fixture} #{k}");
        let tmpl = templates.entry(name.clone()).or_insert_with(|| {
            let opts = RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() };
            ChatTemplate::new(&common::template_source(&name), opts).map_err(|e| e.to_string())
        });
        let tmpl = match tmpl {
            Ok(t) => t,
            Err(e) => {
                expect.record(id, Err(format!("compile error {e}")));
                continue;
            }
        };
        let got = tmpl.render(&r["kwargs"]);
        let outcome = match (r.get("expected").and_then(|v| v.as_str()), got) {
            (Some(exp), Ok(got)) if got == exp => {
                ok += 1;
                Ok(())
            }
            (Some(exp), Ok(got)) => {
                let at = exp.bytes().zip(got.bytes()).take_while(|(a, b)| a == b).count();
                let lo = at.saturating_sub(40);
                Err(format!(
                    "{:?}: differs at byte {at}\n  expected …{:?}\n  got      …{:?}",
                    r["kwargs"].get("enable_thinking"),
                    exp.get(lo..(at + 60).min(exp.len())).unwrap_or(""),
                    got.get(lo..(at + 60).min(got.len())).unwrap_or("")
                ))
            }
            (Some(_), Err(e)) => Err(format!("unexpected error {e}")),
            (None, Err(_)) => {
                errors_ok += 1;
                Ok(())
            }
            (None, Ok(_)) => Err(format!("rendered, but Jinja2 raised {}", r["error"])),
        };
        expect.record(id, outcome);
    }
    let expected_total = records.iter().filter(|r| r.get("expected").is_some()).count();
    let error_total = records.len() - expected_total;
    let (pass, total) = expect.counts();
    println!(
        "renders: {ok}/{expected_total} byte-identical, {errors_ok}/{error_total} errors reproduced, {} known differences (listed with reasons)",
        total - pass
    );
    expect.finish();
}
