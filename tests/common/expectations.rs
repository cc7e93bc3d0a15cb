//! Per-case expectations: every case of a conformance suite is its own assertion.
//!
//! `tests/expectations/<suite>.jsonl` holds one line per case id, in the order the test runs them:
//! `{"case": ID, "expect": "pass"}` or `{"case": ID, "expect": {"known": REASON}}`. The test records
//! each case's outcome; `finish` then fails naming every case that fails but should pass, every known
//! difference that now passes (update the expectation), and every case missing from either side.
//!
//! `UPDATE_EXPECTATIONS=1 cargo test --test NAME` rewrites the files from the outcomes instead,
//! keeping the reason of every known difference that still fails; a new failure gets
//! `unexplained: <what differs>`, to be replaced by a real reason before committing.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;

/// What the expectation file says about one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Pass,
    Known(String),
}

/// The expectations of one suite and the outcomes recorded against them.
pub struct Expectations {
    suite: String,
    expected: Vec<(String, Expect)>,
    /// Case id → index in `expected`.
    expected_at: HashMap<String, usize>,
    /// Outcome per case id, in first-recorded order: `Err` carries what differs.
    outcomes: Vec<(String, Result<(), String>)>,
    /// Case id → index in `outcomes`.
    outcome_at: HashMap<String, usize>,
}

fn path_of(suite: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/expectations").join(format!("{suite}.jsonl"))
}

fn updating() -> bool {
    std::env::var("UPDATE_EXPECTATIONS").is_ok_and(|v| !v.is_empty() && v != "0")
}

impl Expectations {
    /// Loads `tests/expectations/<suite>.jsonl` (empty when the file does not exist yet).
    pub fn load(suite: &str) -> Self {
        let path = path_of(suite);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let expected = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()));
                let id = v["case"].as_str().unwrap_or_else(|| panic!("{}: no \"case\" in {l}", path.display())).to_string();
                let expect = match &v["expect"] {
                    Value::String(s) if s == "pass" => Expect::Pass,
                    e => match e["known"].as_str() {
                        Some(why) => Expect::Known(why.to_string()),
                        None => panic!("{}: \"expect\" must be \"pass\" or {{\"known\": reason}}: {l}", path.display()),
                    },
                };
                (id, expect)
            })
            .collect::<Vec<(String, Expect)>>();
        let expected_at = expected.iter().enumerate().map(|(i, (id, _))| (id.clone(), i)).collect();
        Expectations { suite: suite.to_string(), expected, expected_at, outcomes: Vec::new(), outcome_at: HashMap::new() }
    }

    /// The expectation of a case, if the file has one.
    pub fn get(&self, id: &str) -> Option<&Expect> {
        self.expected_at.get(id).map(|&i| &self.expected[i].1)
    }

    /// The reason of a known difference, if the case is one.
    pub fn known(&self, id: &str) -> Option<&str> {
        match self.get(id) {
            Some(Expect::Known(why)) => Some(why),
            _ => None,
        }
    }

    /// Records one case's outcome (`Err` says what differs). Recording an id again keeps the first
    /// failure and adds later ones to it.
    pub fn record(&mut self, id: impl Into<String>, outcome: Result<(), String>) {
        let id = id.into();
        match self.outcome_at.get(&id).map(|&i| &mut self.outcomes[i]) {
            Some((_, prev)) => {
                if let Err(more) = outcome {
                    *prev = match std::mem::replace(prev, Ok(())) {
                        Ok(()) => Err(more),
                        Err(first) => Err(format!("{first}; {more}")),
                    };
                }
            }
            None => {
                self.outcome_at.insert(id.clone(), self.outcomes.len());
                self.outcomes.push((id, outcome));
            }
        }
    }

    /// Shorthand: records `Ok` when `ok`, else `Err(detail())`.
    pub fn check(&mut self, id: impl Into<String>, ok: bool, detail: impl FnOnce() -> String) {
        self.record(id, if ok { Ok(()) } else { Err(detail()) });
    }

    /// Number of recorded cases that pass, and of all recorded cases.
    pub fn counts(&self) -> (usize, usize) {
        (self.outcomes.iter().filter(|(_, o)| o.is_ok()).count(), self.outcomes.len())
    }

    /// Asserts every recorded case against its expectation (or, with `UPDATE_EXPECTATIONS=1`,
    /// rewrites the file). Prints one line per known difference that still holds.
    pub fn finish(self) {
        if updating() {
            return self.write();
        }
        let mut problems = Vec::new();
        for (id, outcome) in &self.outcomes {
            match (self.get(id), outcome) {
                (Some(Expect::Pass), Ok(())) => {}
                (Some(Expect::Known(why)), Err(_)) => println!("  known [{}] {id}: {why}", self.suite),
                (Some(Expect::Pass), Err(what)) => problems.push(format!("FAILS {id}: {what}")),
                (Some(Expect::Known(why)), Ok(())) => {
                    problems.push(format!("NOW PASSES {id} (was known: {why}): update the expectation"))
                }
                (None, o) => problems.push(format!(
                    "NEW CASE {id} ({}): no expectation",
                    if o.is_ok() { "passes" } else { "fails" }
                )),
            }
        }
        for (id, _) in &self.expected {
            if !self.outcome_at.contains_key(id) {
                problems.push(format!("GONE {id}: has an expectation but did not run"));
            }
        }
        if !problems.is_empty() {
            for p in &problems {
                println!("  {p}");
            }
            panic!(
                "{}: {} case(s) differ from tests/expectations/{}.jsonl (UPDATE_EXPECTATIONS=1 rewrites it):\n{}",
                self.suite,
                problems.len(),
                self.suite,
                problems.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
            );
        }
    }

    fn write(&self) {
        let mut out = String::new();
        for (id, outcome) in &self.outcomes {
            let expect = match (outcome, self.get(id)) {
                (Ok(()), _) => json!("pass"),
                (Err(_), Some(Expect::Known(why))) => json!({ "known": why }),
                (Err(what), _) => {
                    let what: String = what.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(160).collect();
                    json!({ "known": format!("unexplained: {what}") })
                }
            };
            out.push_str(&json!({ "case": id, "expect": expect }).to_string());
            out.push('\n');
        }
        let path = path_of(&self.suite);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("wrote {}", path.display());
    }
}
