//! The rule catalogue (`chat_autoparser::rules`) is the one source of the leniency rules: README's
//! table is generated from it (`UPDATE_README=1 cargo test --test rules` rewrites it), every rule id a
//! parser message names is in it, every diagnostic that names a rule carries it in `rule`, and every other
//! diagnostic says that the text was kept as written or ignored (an accepted departure always names its rule).

mod fuzz_support;

use chat_autoparser::rules::{readme_table, rule, rule_named_in, NOT_PARSER_RULES, RULES};
use fuzz_support::mutations::{all_stream_subjects, mutate_at, Mutation};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn readme_table_is_generated_from_the_catalogue() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let header = "| rule | departure | what the parser does | code |\n";
    let start = readme.find(header).expect("README has the rule table");
    let len = readme[start..].split_inclusive('\n').take_while(|l| l.starts_with('|')).map(str::len).sum::<usize>();
    let (current, generated) = (&readme[start..start + len], readme_table());
    if current != generated {
        if std::env::var("UPDATE_README").is_ok() {
            std::fs::write(&path, format!("{}{generated}{}", &readme[..start], &readme[start + len..])).unwrap();
            return;
        }
        let diff: Vec<_> = current.lines().zip(generated.lines()).filter(|(a, b)| a != b).take(3).collect();
        panic!("README's rule table differs from rules::RULES (UPDATE_README=1 rewrites it): {diff:#?}");
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_rule_a_message_names_is_catalogued() {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    let mut named = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            // Rule ids in string literals (messages), not in comments.
            for literal in line.split('"').skip(1).step_by(2) {
                if let Some(id) = rule_named_in(literal) {
                    named += 1;
                    assert!(rule(id).is_some(), "{}: a message names {id}, which rules::RULES lacks: {line}", f.display());
                    assert!(NOT_PARSER_RULES.iter().all(|(n, _)| *n != id), "{}: {id} is no parser rule", f.display());
                }
            }
        }
    }
    assert!(named > 40, "rule ids found in messages: {named}");
    // Every catalogued id is named by some message (a rule nobody reports would be a dead row).
    let all = {
        let mut files = Vec::new();
        sources(&root().join("src"), &mut files);
        files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect::<String>()
    };
    for r in RULES.iter().filter(|r| !r.id.is_empty()) {
        let needle = format!("rule {}", r.id);
        let named = all.match_indices(&needle).any(|(at, _)| !all[at + needle.len()..].starts_with(|c: char| c.is_ascii_digit()));
        assert!(named, "no message names {}", r.id);
    }
}

#[test]
fn every_diagnostic_that_names_a_rule_carries_it() {
    // What a diagnostic without a rule says happened: nothing was accepted as a departure.
    const NOT_ACCEPTED: &[&str] = &["kept as content", "stays content", "ignored", "not understood"];
    let (mut with_rule, mut checked) = (0, 0);
    let mut unexplained: Vec<String> = Vec::new();
    for (i, s) in all_stream_subjects().iter().enumerate() {
        // The output and one of its mutations (a deleted character), for more departures.
        let k = i % (s.output.chars().count() + 1);
        for text in [s.output.clone(), mutate_at(&s.output, Mutation::Delete, k)] {
            let Ok(analysis) = s.template.analysis() else { continue };
            let mut p = chat_autoparser::StreamParser::new(analysis, &s.gp, &s.options).unwrap();
            p.push(&text);
            let _ = p.finish();
            for d in p.diagnostics() {
                checked += 1;
                assert_eq!(d.rule.as_deref(), rule_named_in(&d.message), "{}: {d:?}", s.label);
                with_rule += usize::from(d.rule.is_some());
                // Every accepted departure names its rule; a diagnostic without one reports text that
                // was not accepted as what it resembles (kept as written) or a reported loss.
                if d.rule.is_none() && !NOT_ACCEPTED.iter().any(|p| d.message.contains(p)) {
                    unexplained.push(format!("{}: {}", s.label, d.message));
                }
                let json = serde_json::to_value(d).unwrap();
                assert_eq!(json.get("rule").and_then(|r| r.as_str()), d.rule.as_deref(), "serialized as `rule`");
            }
        }
    }
    println!("diagnostics: {checked}, {with_rule} naming a rule");
    assert!(unexplained.is_empty(), "diagnostics that neither name the rule of an accepted departure nor say the text was kept or ignored: {unexplained:#?}");
    assert!(with_rule > 100, "{with_rule} of {checked}");
}

#[test]
fn every_rule_lives_in_its_home() {
    // A rule's home (README's `code` column) holds it: the file, or a file of the directory, names it.
    let src = root().join("src");
    for r in RULES {
        let home = src.join(r.home);
        let mut files = Vec::new();
        if home.is_dir() {
            sources(&home, &mut files);
        } else {
            assert!(home.is_file(), "{}: home {} does not exist", r.id, r.home);
            files.push(home.clone());
        }
        if r.id.is_empty() {
            continue;
        }
        let text: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        let named = text.match_indices(r.id).any(|(at, _)| !text[at + r.id.len()..].starts_with(|c: char| c.is_ascii_digit()));
        assert!(named, "{}: its home {} never names it", r.id, r.home);
    }
}
