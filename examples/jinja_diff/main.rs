//! Differential template fuzzer (issue #27): template programs generated from a grammar of what chat
//! templates use (gen.rs), each rendered by our renderer and by Python Jinja2 in transformers' exact
//! environment (scripts/jinja_reference.py, one long-lived worker process), compared byte for byte
//! (or error against error). Every difference is minimised to a small reproduction (template and
//! context) and matched against the known differences of tests/expectations/jinja_diff_known.json;
//! one that matches none is unexplained and fails the run.
//!
//! ```sh
//! cargo run --example jinja_diff -- 3000 27                          # the CI run (scripts/test.sh)
//! nice cargo run --profile bench --example jinja_diff -- 200000 1    # a long run
//! ```
//!
//! Arguments: `COUNT [SEED] [--budget-secs N] [--from N]` (stop after N seconds, reporting how many ran;
//! start at program N). The report (every difference: original and minimised program, both
//! outcomes) goes to `target/jinja_diff/SEED.jsonl`. `JINJA_DIFF_PYTHON` names the interpreter.
//! `--replay FILE` renders the programs of a JSONL file (`{"template", "context"}` per line) instead.

mod gen;

use chat_autoparser::{render_template, RenderOptions};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// 2024-07-26 12:00:00 UTC, the fixed clock of the reference (`strftime_now`).
const REFERENCE_NOW: f64 = 1_721_995_200.0;

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One render's outcome: the output, or that it raised (Python's message or ours, for the report).
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Ok(String),
    Err(String),
    /// The reference took longer than its time limit: nothing to compare.
    Timeout,
}

impl Outcome {
    fn to_json(&self) -> Value {
        match self {
            Outcome::Ok(s) => json!({ "ok": s }),
            Outcome::Err(e) => json!({ "error": e }),
            Outcome::Timeout => json!({ "error": "timeout" }),
        }
    }
}

/// How the two renders disagree; a minimisation keeps the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Both render, to different text.
    Output,
    /// Python renders, we raise.
    WeRaise,
    /// Python raises, we render.
    PythonRaises,
}

/// Python prints an iterator with its address (`<generator object sync_do_map at 0x7f…>`), ours with a
/// constant one: addresses are compared as equal.
fn without_addresses(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(" at 0x") {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find(" at 0x") {
        out.push_str(&rest[..p + 6]);
        rest = &rest[p + 6..];
        let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if rest[hex..].starts_with('>') {
            rest = &rest[hex..];
        }
    }
    out.push_str(rest);
    out.into()
}

/// Whether our outcome alone allows a difference of `kind` (Python's render is then needed to tell).
fn ours_can_be(kind: Kind, ours: &Outcome) -> bool {
    match kind {
        Kind::Output | Kind::PythonRaises => matches!(ours, Outcome::Ok(_)),
        Kind::WeRaise => matches!(ours, Outcome::Err(_)),
    }
}

fn kind_of(py: &Outcome, ours: &Outcome) -> Option<Kind> {
    match (py, ours) {
        (Outcome::Ok(a), Outcome::Ok(b)) if without_addresses(a) != without_addresses(b) => Some(Kind::Output),
        (Outcome::Ok(_), Outcome::Err(_)) => Some(Kind::WeRaise),
        (Outcome::Err(_), Outcome::Ok(_)) => Some(Kind::PythonRaises),
        _ => None,
    }
}

fn render_ours(template: &str, context: &Value) -> Outcome {
    let options = RenderOptions { now: Some(REFERENCE_NOW), ..Default::default() };
    match catch_unwind(AssertUnwindSafe(|| render_template(template, context, options))) {
        Ok(Ok(s)) => Outcome::Ok(s),
        Ok(Err(e)) => Outcome::Err(e.to_string()),
        Err(_) => {
            // A panic aborts a build with `panic = "abort"` (the bench profile); a dev build gets here.
            eprintln!("PANIC rendering {template:?} with {context}");
            Outcome::Err("PANIC".into())
        }
    }
}

/// The Python worker: requests go in on stdin, one answer per line comes back in order.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

fn python() -> String {
    std::env::var("JINJA_DIFF_PYTHON").unwrap_or_else(|_| "python3".into())
}

impl Worker {
    fn spawn() -> Worker {
        let script = root().join("scripts/jinja_reference.py");
        let mut child = Command::new(python())
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("worker stdout"));
        Worker { child, stdin, stdout }
    }

    fn request(id: u64, template: &str, context: &Value) -> String {
        json!({ "id": id, "template": template, "context": context }).to_string() + "\n"
    }

    fn read(&mut self) -> (u64, Outcome) {
        let mut line = String::new();
        if self.stdout.read_line(&mut line).unwrap_or(0) == 0 {
            panic!("the Python worker ended early (run `python3 scripts/jinja_reference.py --check`)");
        }
        let v: Value = serde_json::from_str(&line).expect("worker answers JSON");
        let id = v["id"].as_u64().unwrap_or(0);
        let outcome = match (v.get("ok").and_then(Value::as_str), v.get("error").and_then(Value::as_str)) {
            (Some(s), _) => Outcome::Ok(s.to_string()),
            (_, Some(e)) if e.starts_with("Timeout") => Outcome::Timeout,
            (_, Some(e)) => Outcome::Err(e.to_string()),
            _ => Outcome::Err("malformed answer".into()),
        };
        (id, outcome)
    }

    /// One render, synchronously (for minimisation).
    fn render(&mut self, template: &str, context: &Value) -> Outcome {
        let stdin = self.stdin.as_mut().expect("worker stdin");
        stdin.write_all(Worker::request(0, template, context).as_bytes()).expect("write to worker");
        stdin.flush().expect("flush worker");
        self.read().1
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

// ---- minimisation ---------------------------------------------------------------------------------------

struct Minimizer {
    worker: Worker,
    kind: Kind,
    tests: usize,
    /// Tests that needed Python's render.
    python_tests: usize,
    /// Every candidate tried, with its answer.
    seen: HashMap<(String, String), bool>,
    /// Minimising stops here (a program near the reference's time limit makes every test slow).
    deadline: Instant,
}

/// Minimisation tests in the whole run, and how many of them needed Python's render.
static TESTS: AtomicUsize = AtomicUsize::new(0);
static PYTHON_TESTS: AtomicUsize = AtomicUsize::new(0);

/// Most time one difference's minimisation may take.
const MINIMIZE_SECS: u64 = 60;

impl Minimizer {
    fn still(&mut self, template: &str, context: &Value) -> bool {
        if Instant::now() > self.deadline {
            return false;
        }
        self.tests += 1;
        // Python's render (its compile) is most of the time: a candidate tried before is not rendered
        // again, and one whose render here rules the kind out is not sent to Python.
        let key = (template.to_string(), context.to_string());
        if let Some(&known) = self.seen.get(&key) {
            return known;
        }
        let ours = render_ours(template, context);
        let still = ours_can_be(self.kind, &ours) && {
            self.python_tests += 1;
            kind_of(&self.worker.render(template, context), &ours) == Some(self.kind)
        };
        self.seen.insert(key, still);
        still
    }

    /// Greedy chunk removal over `units` (halving chunk sizes), keeping every removal that stays a
    /// difference of the same kind.
    fn shrink_units(&mut self, units: Vec<String>, context: &Value) -> Vec<String> {
        let mut units = units;
        let mut size = (units.len() / 2).max(1);
        loop {
            let mut i = 0;
            while i < units.len() && self.tests < 2000 {
                let end = (i + size).min(units.len());
                let candidate: String = units[..i].concat() + &units[end..].concat();
                if self.still(&candidate, context) {
                    units.drain(i..end);
                } else {
                    i += size;
                }
            }
            if size == 1 {
                break;
            }
            size /= 2;
        }
        units
    }

    /// Drop an opening tag together with its closing tag, keeping the body (`{% if x %}A{% endif %}` → `A`).
    fn unwrap_blocks(&mut self, units: Vec<String>, context: &Value) -> Vec<String> {
        let mut units = units;
        let mut i = 0;
        while i < units.len() && self.tests < 2000 {
            if let Some(kw) = block_keyword(&units[i]) {
                let mut depth = 0;
                let mut close = None;
                for (j, u) in units.iter().enumerate().skip(i) {
                    match block_keyword(u) {
                        Some(k) if k == kw => depth += 1,
                        _ if is_end_of(u, kw) => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(j) = close {
                    let candidate: String = units[..i].concat() + &units[i + 1..j].concat() + &units[j + 1..].concat();
                    if self.still(&candidate, context) {
                        units.remove(j);
                        units.remove(i);
                        continue;
                    }
                }
            }
            i += 1;
        }
        units
    }

    fn shrink_context(&mut self, template: &str, context: Value) -> Value {
        let mut context = context;
        loop {
            let mut changed = false;
            // transformers always passes bos_token / eos_token (and our renderer defaults them).
            for path in json_paths(&context).into_iter().filter(|p| !matches!(p.as_slice(), [k] if k == "bos_token" || k == "eos_token")) {
                if self.tests >= 2500 {
                    return context;
                }
                let mut candidate = context.clone();
                if remove_path(&mut candidate, &path) && self.still(template, &candidate) {
                    context = candidate;
                    changed = true;
                    break;
                }
            }
            if !changed {
                return context;
            }
        }
    }
}

/// The keyword of a block-opening tag (`if`, `for`, `macro`, …).
fn block_keyword(unit: &str) -> Option<&'static str> {
    let inner = unit.strip_prefix("{%")?.trim_start_matches(['-', '+']).trim_start();
    let word: String = inner.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let kw = ["if", "for", "macro", "call", "filter", "with"].into_iter().find(|k| *k == word)?;
    Some(kw)
}

fn is_end_of(unit: &str, kw: &str) -> bool {
    unit.strip_prefix("{%").is_some_and(|r| r.trim_start_matches(['-', '+']).trim_start().starts_with(&format!("end{kw}")))
}

/// Tags (`{% … %}`, `{{ … }}`, `{# … #}`) and the text between them.
fn tag_units(s: &str) -> Vec<String> {
    let mut units = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let next = ["{%", "{{", "{#"].iter().filter_map(|o| rest.find(o)).min();
        match next {
            Some(0) => {
                let close = match &rest[..2] {
                    "{%" => "%}",
                    "{{" => "}}",
                    _ => "#}",
                };
                let end = rest[2..].find(close).map(|p| p + 4).unwrap_or(rest.len());
                units.push(rest[..end].to_string());
                rest = &rest[end..];
            }
            Some(p) => {
                units.push(rest[..p].to_string());
                rest = &rest[p..];
            }
            None => {
                units.push(rest.to_string());
                rest = "";
            }
        }
    }
    units
}

/// Small tokens: runs of identifier characters, runs of spaces, string literals, single characters.
fn fine_units(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut units = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut j = i + 1;
        if c.is_alphanumeric() || c == '_' {
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
        } else if c == ' ' {
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
        }
        units.push(chars[i..j].iter().collect());
        i = j;
    }
    units
}

/// Every removable place in a JSON value: object keys and array items, outermost first.
fn json_paths(v: &Value) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    fn walk(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    path.push(json!(k));
                    out.push(path.clone());
                    walk(x, path, out);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(json!(i));
                    out.push(path.clone());
                    walk(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn remove_path(v: &mut Value, path: &[Value]) -> bool {
    let Some((last, parents)) = path.split_last() else { return false };
    let mut cur = v;
    for p in parents {
        cur = match (cur, p) {
            (Value::Object(o), Value::String(k)) => match o.get_mut(k) {
                Some(x) => x,
                None => return false,
            },
            (Value::Array(a), Value::Number(i)) => match a.get_mut(i.as_u64().unwrap_or(0) as usize) {
                Some(x) => x,
                None => return false,
            },
            _ => return false,
        };
    }
    match (cur, last) {
        (Value::Object(o), Value::String(k)) => o.shift_remove(k).is_some(),
        (Value::Array(a), Value::Number(i)) => {
            let i = i.as_u64().unwrap_or(0) as usize;
            i < a.len() && {
                a.remove(i);
                true
            }
        }
        _ => false,
    }
}

fn minimize(worker: Worker, kind: Kind, template: &str, context: &Value) -> (String, Value, Worker) {
    let deadline = Instant::now() + std::time::Duration::from_secs(MINIMIZE_SECS);
    let mut m = Minimizer { worker, kind, tests: 0, python_tests: 0, seen: HashMap::new(), deadline };
    let units = m.shrink_units(tag_units(template), context);
    let units = m.unwrap_blocks(units, context);
    let units = m.shrink_units(units.concat().split_inclusive(['}', '%', ' ']).map(str::to_string).collect(), context);
    let units = m.shrink_units(fine_units(&units.concat()), context);
    let template = units.concat();
    let context = m.shrink_context(&template, context.clone());
    TESTS.fetch_add(m.tests, Ordering::Relaxed);
    PYTHON_TESTS.fetch_add(m.python_tests, Ordering::Relaxed);
    (template, context, m.worker)
}

// ---- known differences ----------------------------------------------------------------------------------

/// tests/expectations/jinja_diff_known.json: every known difference with its reason and reproduction. A
/// minimised difference is that known difference when its kind is listed and its template holds every
/// `contains` string, one of `contains_any` (template or context), each `contains_count` string that often, Python's
/// output (or the error it raised) holds `python_contains`, and the error we raised holds one of `ours_contains_any`.
struct Known {
    id: String,
    kinds: Vec<String>,
    contains: Vec<String>,
    contains_any: Vec<String>,
    contains_count: Vec<(String, usize)>,
    python_contains: Vec<String>,
    ours_contains: Vec<String>,
}

impl Known {
    /// `contains_any` also looks at the context (numbers there).
    fn matches(&self, kind: Kind, template: &str, context: &Value, python: &Outcome, ours: &Outcome) -> bool {
        let both = format!("{template}\n{context}");
        self.kinds.iter().any(|k| k == kind_name(kind))
            && self.contains.iter().all(|c| template.contains(c.as_str()))
            && (self.contains_any.is_empty() || self.contains_any.iter().any(|c| both.contains(c.as_str())))
            && self.contains_count.iter().all(|(c, n)| template.matches(c.as_str()).count() >= *n)
            && (self.python_contains.is_empty()
                || matches!(python, Outcome::Ok(out) | Outcome::Err(out) if self.python_contains.iter().any(|p| out.to_lowercase().contains(p.as_str()))))
            && (self.ours_contains.is_empty()
                || matches!(ours, Outcome::Err(err) if self.ours_contains.iter().any(|p| err.contains(p.as_str()))))
    }
}

fn load_known() -> Vec<Known> {
    let path = root().join("tests/expectations/jinja_diff_known.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "[]".into());
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let strings = |v: &Value| -> Vec<String> { v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default() };
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|k| {
                    assert!(k["reason"].as_str().is_some_and(|r| !r.is_empty()), "known difference without a reason: {k}");
                    Known {
                        id: k["id"].as_str().unwrap_or_default().to_string(),
                        kinds: strings(&k["kinds"]),
                        contains: strings(&k["contains"]),
                        contains_any: strings(&k["contains_any"]),
                        contains_count: k["contains_count"]
                            .as_object()
                            .map(|o| o.iter().map(|(s, n)| (s.clone(), n.as_u64().unwrap_or(1) as usize)).collect())
                            .unwrap_or_default(),
                        python_contains: k["python_contains"].as_str().map(String::from).into_iter().chain(strings(&k["python_contains_any"])).collect(),
                        ours_contains: strings(&k["ours_contains_any"]),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Output => "output",
        Kind::WeRaise => "we-raise",
        Kind::PythonRaises => "python-raises",
    }
}

// ---- the run --------------------------------------------------------------------------------------------

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let replay = args.iter().position(|a| a == "--replay").and_then(|i| args.get(i + 1)).cloned();
    let budget = args.iter().position(|a| a == "--budget-secs").and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<f64>().ok());
    // `--from N`: start at program N (to reproduce a late one without running those before).
    let from = args.iter().position(|a| a == "--from").and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let nums: Vec<u64> =
        args.iter().enumerate().filter(|(i, _)| *i == 0 || !["--budget-secs", "--from"].contains(&args[i - 1].as_str())).filter_map(|(_, a)| a.parse().ok()).collect();
    let count = nums.first().copied().unwrap_or(3000);
    let seed = nums.get(1).copied().unwrap_or(27);
    let programs: Option<Vec<(String, Value)>> = replay.map(|f| {
        std::fs::read_to_string(&f)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("JSONL");
                (v["template"].as_str().unwrap_or_default().to_string(), v["context"].clone())
            })
            .collect()
    });
    let count = programs.as_ref().map_or(count, |p| p.len() as u64);
    let program = |i: u64| -> (String, Value) {
        match &programs {
            Some(p) => p[i as usize].clone(),
            None => {
                let p = gen::program(seed, i);
                (p.template, p.context)
            }
        }
    };
    let known = load_known();
    let start = Instant::now();

    let mut worker = Worker::spawn();
    let mut stdin = worker.stdin.take().expect("worker stdin");
    let feeder = {
        let programs = programs.clone();
        std::thread::spawn(move || {
            for i in from..count {
                let (t, c) = match &programs {
                    Some(p) => p[i as usize].clone(),
                    None => {
                        let p = gen::program(seed, i);
                        (p.template, p.context)
                    }
                };
                if stdin.write_all(Worker::request(i, &t, &c).as_bytes()).is_err() {
                    break;
                }
            }
        })
    };

    let mut minimizer_worker: Option<Worker> = None;
    let (mut both_ok, mut both_err, mut timeouts) = (0u64, 0u64, 0u64);
    let mut by_known: BTreeMap<String, u64> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let report_dir = root().join("target/jinja_diff");
    let _ = std::fs::create_dir_all(&report_dir);
    let report_path = report_dir.join(format!("{seed}.jsonl"));
    let mut report = std::fs::File::create(&report_path).expect("report file");
    // `JINJA_DIFF_DUMP=FILE`: every program with both outcomes (to tune the generator).
    let mut dump = std::env::var("JINJA_DIFF_DUMP").ok().map(|p| std::fs::File::create(p).expect("dump file"));
    let mut ran = 0u64;
    let mut timing = [std::time::Duration::ZERO; 4];
    for i in from..count {
        if budget.is_some_and(|b| start.elapsed().as_secs_f64() > b) {
            break;
        }
        ran += 1;
        let t0 = Instant::now();
        let (template, context) = program(i);
        let t1 = Instant::now();
        let ours = render_ours(&template, &context);
        let t2 = Instant::now();
        let (id, py) = worker.read();
        let t3 = Instant::now();
        timing[0] += t1 - t0;
        timing[1] += t2 - t1;
        timing[2] += t3 - t2;
        assert_eq!(id, i, "worker answers out of order");
        if let Some(f) = dump.as_mut() {
            let _ = writeln!(f, "{}", json!({ "template": template, "context": context, "python": py.to_json(), "ours": ours.to_json() }));
        }
        let Some(kind) = kind_of(&py, &ours) else {
            match (&py, &ours) {
                (Outcome::Timeout, _) => timeouts += 1,
                (Outcome::Ok(_), _) => both_ok += 1,
                _ => both_err += 1,
            }
            continue;
        };
        let t4 = Instant::now();
        let w = minimizer_worker.take().unwrap_or_else(Worker::spawn);
        let (small_t, small_c, w) = minimize(w, kind, &template, &context);
        timing[3] += t4.elapsed();
        minimizer_worker = Some(w);
        let small_py = minimizer_worker.as_mut().map(|w| w.render(&small_t, &small_c)).unwrap_or(Outcome::Timeout);
        let small_ours = render_ours(&small_t, &small_c);
        let matched = known.iter().find(|k| k.matches(kind, &small_t, &small_c, &small_py, &small_ours));
        let line = json!({
            "index": i, "seed": seed, "kind": kind_name(kind), "known": matched.map(|k| k.id.clone()),
            "minimal": { "template": small_t, "context": small_c, "python": small_py.to_json(), "ours": small_ours.to_json() },
            "original": { "template": template, "context": context, "python": py.to_json(), "ours": ours.to_json() },
        });
        let _ = writeln!(report, "{line}");
        match matched {
            Some(k) => *by_known.entry(k.id.clone()).or_default() += 1,
            None => {
                if unexplained.len() < 20 {
                    eprintln!(
                        "UNEXPLAINED #{i} ({}): {:?} with {}\n  python: {:?}\n  ours:   {:?}",
                        kind_name(kind),
                        small_t,
                        small_c,
                        small_py.to_json(),
                        small_ours.to_json()
                    );
                }
                unexplained.push(i);
            }
        }
        if (i + 1) % 10_000 == 0 {
            eprintln!("jinja_diff: {} / {count} programs, {} unexplained, {:.0} s", i + 1, unexplained.len(), start.elapsed().as_secs_f64());
        }
    }
    if from + ran < count {
        // Stopped early: the worker is ended, which ends the feeder's writes.
        let _ = worker.child.kill();
    }
    let _ = feeder.join();
    let count = ran;
    let secs = start.elapsed().as_secs_f64();
    let known_total: u64 = by_known.values().sum();
    println!(
        "jinja_diff seed {seed}: {count} programs in {secs:.1} s: {both_ok} render alike, {both_err} raise in both, {timeouts} reference timeouts, {known_total} known differences, {} unexplained",
        unexplained.len()
    );
    println!(
        "  time: generating {:.1} s, our renders {:.1} s, waiting for Python {:.1} s, minimising {:.1} s ({} tests, {} Python renders)",
        timing[0].as_secs_f64(),
        timing[1].as_secs_f64(),
        timing[2].as_secs_f64(),
        timing[3].as_secs_f64(),
        TESTS.load(Ordering::Relaxed),
        PYTHON_TESTS.load(Ordering::Relaxed)
    );
    for (id, n) in &by_known {
        println!("  known {id}: {n}");
    }
    println!("jinja_diff agreement: {} / {}", count - timeouts - known_total - unexplained.len() as u64, count - timeouts);
    if !unexplained.is_empty() {
        println!("{} unexplained differences; minimised reproductions in {}", unexplained.len(), report_path.display());
        std::process::exit(1);
    }
}
