//! The exit guarantees under single-character mutations (issue #24): every corpus output with a tool
//! call (conformance cases, real outputs) with one character deleted, one inserted, or cut off, at
//! every position, parsed through the public [`StreamParser`] (whole and chunked). Each parse must
//! give calls whose `arguments` is valid JSON (never `""`), the same message in every chunking, and
//! deltas that rebuild the message exactly. Shared by tests/exit_guarantees.rs (a deterministic
//! sample), examples/fuzz_long.rs and the `stream_parser` fuzz target's corpus.
#![allow(dead_code)]

use chat_autoparser::api::{Delta, Message, RequestOptions};
use chat_autoparser::{generation_prompt, ChatTemplate, RenderOptions, StreamParser};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

/// One corpus output and the request it answers.
#[derive(Clone)]
pub struct StreamSubject {
    pub label: String,
    pub template: Rc<ChatTemplate>,
    pub gp: String,
    pub options: RequestOptions,
    pub output: String,
}

/// The three mutation classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// The character at this char index deleted.
    Delete,
    /// A character inserted before this char index.
    Insert,
    /// The output cut before this char index.
    Truncate,
}

pub const MUTATIONS: [Mutation; 3] = [Mutation::Delete, Mutation::Insert, Mutation::Truncate];

/// Characters inserted: JSON punctuation first (what breaks arguments), then marker and literal bytes.
const INSERTED: &[char] = &['"', '{', '}', ',', ':', '[', ']', '\\', '<', '>', '|', '\'', '=', '(', ')', ' ', '\n', 'a', '1', 'é'];

/// `output` mutated by `m` at char index `k` (`k` ≤ the char count); the inserted character is chosen
/// by `k`, so every position sees a different one across the punctuation set.
pub fn mutate_at(output: &str, m: Mutation, k: usize) -> String {
    let at = output.char_indices().nth(k).map_or(output.len(), |(i, _)| i);
    match m {
        Mutation::Delete => {
            let next = output[at..].chars().next().map_or(0, char::len_utf8);
            format!("{}{}", &output[..at], &output[at + next..])
        }
        Mutation::Insert => format!("{}{}{}", &output[..at], INSERTED[k % INSERTED.len()], &output[at..]),
        Mutation::Truncate => output[..at].to_string(),
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn template_source(name: &str) -> Option<String> {
    ["tests/fixtures/real-outputs/templates", "tests/fixtures/conformance/templates", "tests/fixtures/zoo"]
        .iter()
        .find_map(|d| std::fs::read_to_string(root().join(d).join(name)).ok())
}

/// Compiled templates by name (analysis is cached inside each).
#[derive(Default)]
pub struct TemplateCache(HashMap<String, Option<Rc<ChatTemplate>>>);

impl TemplateCache {
    pub fn get(&mut self, name: &str) -> Option<Rc<ChatTemplate>> {
        self.0
            .entry(name.to_string())
            .or_insert_with(|| {
                let t = ChatTemplate::new(&template_source(name)?, RenderOptions::default()).ok()?;
                t.analysis().ok()?;
                Some(Rc::new(t))
            })
            .clone()
    }
}

/// Conformance cases (not partial) whose request declares tools.
pub fn conformance_subjects(cache: &mut TemplateCache) -> Vec<StreamSubject> {
    let path = root().join("tests/fixtures/conformance/cases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut out = Vec::new();
    for c in text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()) {
        let Some(name) = c["template"].as_str() else { continue };
        if c["is_partial"].as_bool() == Some(true) || c["tools"].as_array().is_none_or(Vec::is_empty) {
            continue;
        }
        let Some(template) = cache.get(name) else { continue };
        let options = super::case_options(&c);
        let gp = c["prompt_side"]["generation_prompt"].as_str().unwrap_or("").to_string();
        let output = c["input"].as_str().unwrap_or("").to_string();
        out.push(StreamSubject { label: format!("case {} ({name})", c["id"]), template, gp, options, output });
    }
    out
}

/// Real outputs (tests/fixtures/real-outputs) whose expected message has a tool call.
pub fn real_output_subjects(cache: &mut TemplateCache) -> Vec<StreamSubject> {
    let dir = root().join("tests/fixtures/real-outputs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for c in text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()) {
            if c["expected"]["tool_calls"].as_array().is_none_or(Vec::is_empty) {
                continue;
            }
            let Some(name) = c["template"].as_str() else { continue };
            let Some(template) = cache.get(name) else { continue };
            let Ok(options) = serde_json::from_value::<RequestOptions>(c["options"].clone()) else { continue };
            if options.is_partial {
                continue;
            }
            let Ok(analysis) = template.analysis() else { continue };
            let Ok(gp) = generation_prompt(&template, analysis, &options) else { continue };
            let output = c["output"].as_str().unwrap_or("").to_string();
            out.push(StreamSubject { label: format!("{} ({name})", c["id"].as_str().unwrap_or("?")), template, gp, options, output });
        }
    }
    out
}

/// Every subject of both corpora.
pub fn all_stream_subjects() -> Vec<StreamSubject> {
    let mut cache = TemplateCache::default();
    let mut out = conformance_subjects(&mut cache);
    out.extend(real_output_subjects(&mut cache));
    out
}

/// One parse through the public API.
pub struct Parsed {
    pub deltas: Vec<Delta>,
    pub message: Message,
    pub finish_reason: Option<&'static str>,
    pub error: Option<String>,
}

/// Parse `text` for `s` in the given chunks.
pub fn parse_chunks(s: &StreamSubject, chunks: &[&str]) -> Option<Parsed> {
    let analysis = s.template.analysis().ok()?;
    let mut p = StreamParser::new(analysis, &s.gp, &s.options).ok()?;
    let mut deltas = Vec::new();
    for c in chunks {
        p.push_into(c, &mut deltas);
    }
    let error = match p.finish() {
        Ok(d) => {
            deltas.extend(d);
            None
        }
        Err(e) => {
            deltas.extend(p.take_failed_deltas());
            Some(e.to_string())
        }
    };
    Some(Parsed { deltas, message: p.message().clone(), finish_reason: p.finish_reason(), error })
}

/// What is wrong with the calls of a parse: `arguments` empty or not valid JSON.
pub fn bad_arguments(m: &Message) -> Option<String> {
    m.tool_calls.iter().enumerate().find_map(|(i, c)| {
        let a = &c.function.arguments;
        if a.is_empty() {
            Some(format!("call {i} ({}) has empty arguments", c.function.name))
        } else if let Err(e) = serde_json::from_str::<serde_json::Value>(a) {
            Some(format!("call {i} ({}) arguments {a:?} are not JSON: {e}", c.function.name))
        } else {
            None
        }
    })
}

/// Chunk sizes (chars) the check streams every mutated output in.
pub const CHUNKINGS: [usize; 4] = [1, 2, 3, 7];

fn char_chunks(text: &str, n: usize) -> Vec<&str> {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).step_by(n).chain([text.len()]).collect();
    bounds.windows(2).map(|w| &text[w[0]..w[1]]).filter(|c| !c.is_empty()).collect()
}

/// The failure kinds of one check, for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Failure {
    InvalidArguments,
    Divergence,
    DeltasDiffer,
    Panic,
}

/// Check one text: whole parse, valid arguments, deltas rebuild the message, and (when `stream`)
/// the same message, finish reason and error in every chunking of [`CHUNKINGS`].
pub fn check_text(s: &StreamSubject, text: &str, stream: bool) -> Result<(), (Failure, String)> {
    let run = |chunks: &[&str]| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_chunks(s, chunks)));
    let whole = match run(&[text]) {
        Ok(Some(p)) => p,
        Ok(None) => return Ok(()),
        Err(_) => return Err((Failure::Panic, format!("{}: PANIC on {text:?}", s.label))),
    };
    if let Some(why) = bad_arguments(&whole.message) {
        return Err((Failure::InvalidArguments, format!("{}: {why} in {text:?}", s.label)));
    }
    if Message::from_deltas(&whole.deltas) != whole.message {
        return Err((Failure::DeltasDiffer, format!("{}: deltas do not rebuild the message of {text:?}", s.label)));
    }
    if !stream {
        return Ok(());
    }
    for n in CHUNKINGS {
        let chunks = char_chunks(text, n);
        let p = match run(&chunks) {
            Ok(Some(p)) => p,
            Ok(None) => continue,
            Err(_) => return Err((Failure::Panic, format!("{}: PANIC in chunks of {n} on {text:?}", s.label))),
        };
        if p.message != whole.message || p.finish_reason != whole.finish_reason || p.error != whole.error {
            return Err((
                Failure::Divergence,
                format!("{}: chunks of {n} give {:?} / {:?}, whole {:?} / {:?}, for {text:?}", s.label, p.message, p.finish_reason, whole.message, whole.finish_reason),
            ));
        }
        if Message::from_deltas(&p.deltas) != p.message {
            return Err((Failure::DeltasDiffer, format!("{}: chunks of {n}: deltas do not rebuild the message of {text:?}", s.label)));
        }
    }
    Ok(())
}

/// The exit guarantees for a raw-parser subject (tests/fuzz_support's [`super::Subject`]): its
/// parser behind the public [`StreamParser`] (which checks them at `finish`), whole text. A partial
/// subject is left as parsed.
pub fn check_raw_subject(s: &super::Subject, text: &str) -> Result<(), String> {
    if s.is_partial {
        return Ok(());
    }
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut p = StreamParser::over(&RequestOptions::default(), |_| Ok(((s.make)(), Vec::new()))).expect("builds");
        let mut deltas = p.push(text);
        deltas.extend(p.finish().unwrap_or_default());
        (deltas, p.message().clone())
    }));
    let Ok((deltas, message)) = run else { return Err(format!("{}: PANIC behind StreamParser on {text:?}", s.label)) };
    if let Some(why) = bad_arguments(&message) {
        return Err(format!("{}: {why} in {text:?}", s.label));
    }
    if Message::from_deltas(&deltas) != message {
        return Err(format!("{}: deltas do not rebuild the message of {text:?}", s.label));
    }
    Ok(())
}
