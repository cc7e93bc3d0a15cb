//! Shared by the property tests (tests/fuzz_stream.rs, tests/accounting.rs) and the long run
//! (examples/fuzz_long.rs): *subjects* (a parser factory, a text and the markers that parser knows),
//! seeded mutations of their texts, and the two checks — stream ≡ whole over random chunkings, and
//! the accounting invariant (no input text silently dropped).
#![allow(dead_code)]

#[path = "../common/mod.rs"]
pub mod common;
#[path = "../parse_support/mod.rs"]
pub mod parse_support;
pub mod departures;
pub mod mutations;

use chat_autoparser::analysis::{Analysis, Handler};
use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions};
use chat_autoparser::analysis::detect_handler;
use chat_autoparser::testing::make_parser;
use chat_autoparser::testing::auto_parser;
use chat_autoparser::testing::parser_prefill;
use chat_autoparser::testing::OutputParser;
use chat_autoparser::{ChatTemplate, RenderOptions};
pub use parse_support::{random_chunks, run_chunks, Rng, Run};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

pub type Factory = Rc<dyn Fn() -> Box<dyn OutputParser>>;

/// One parser over one text.
#[derive(Clone)]
pub struct Subject {
    /// Where the text came from and which parser reads it, for failure messages.
    pub label: String,
    pub make: Factory,
    /// The generation prompt: the start of `text`, prompt-side, so exempt from accounting.
    pub gp: String,
    /// `gp` + model output.
    pub text: String,
    pub is_partial: bool,
    /// Markers this parser may consume (mutation material and accounting exemptions).
    pub markers: Rc<Vec<String>>,
}

/// Tokens a parser consumes structurally besides the template's markers: dedicated handlers' headers
/// and the generic parser's defaults.
const HARMONY_VOCAB: &[&str] = &[
    "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>", "<|return|>", "<|call|>", "assistant",
    "analysis", "commentary", "final", "to=functions.", "functions.", "to=", "json",
];
const FUNCTIONARY_VOCAB: &[&str] = &[">>>", "<|eot_id|>", "all", "python"];
const MINISTRAL_VOCAB: &[&str] = &["[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"];
const GENERIC_VOCAB: &[&str] = &["<think>", "</think>", "<tool_call>", "</tool_call>", "```json", "```"];
/// JSON keys of tool-call objects: consumed by JSON-native formats.
const KEY_VOCAB: &[&str] = &["name", "arguments", "parameters", "function", "type", "id"];

/// Stray tokens inserted by mutations: other models' specials, half markers, fences.
pub const STRAY: &[&str] = &[
    "<|im_end|>", "<|foo|>", "<|", "|>", "<|end|>", "<think>", "</think>", "<tool_call>", "</tool_call>", "```",
    "```json\n", "[TOOL_CALLS]", "<|channel|>", ">>>", "{\"name\": \"f\", \"arguments\": {", "\"}", "<|start|>",
];
const ODD_CHARS: &[char] = &['é', '😀', '\0', '\u{FFFD}', '\\', '"', '\n', '<', '|', '>', '[', ']', '{', '}', ' '];

/// Markers and handler of a template, from its analysis (cached: analysis renders dozens of times).
#[derive(Default)]
pub struct Templates {
    cache: HashMap<String, (Handler, Rc<Vec<String>>, Option<Rc<Analysis>>)>,
}

impl Templates {
    pub fn get(&mut self, name: &str) -> (Handler, Rc<Vec<String>>, Option<Rc<Analysis>>) {
        if let Some(v) = self.cache.get(name) {
            return v.clone();
        }
        let source = common::template_source(name);
        let handler = detect_handler(&source);
        let mut markers: Vec<String> = Vec::new();
        let mut analysis = None;
        if let Some(a) = ChatTemplate::new(&source, RenderOptions::default()).ok().as_ref().and_then(|t| t.analysis().ok()) {
            analysis = Some(Rc::new(a.clone()));
            markers.extend(a.preserved_tokens.iter().cloned());
            // preserved_tokens is the union of the format markers; add the role markers and the
            // JSON field names the format reads.
            let f = &a.tools.format;
            for m in [&a.assistant_start, &f.name_field, &f.args_field, &f.id_field, &f.gen_id_field, &f.function_field] {
                markers.push(m.clone());
            }
            // Every marker field of the analysis, including those outside preserved_tokens (typed
            // value prefixes, raw-value wrappers, literal string delimiters).
            let (fun, args, id) = (&a.tools.function, &a.tools.arguments, &a.tools.call_id);
            for m in [
                &a.reasoning.start, &a.reasoning.end, &a.content.start, &a.content.end, &f.section_start, &f.section_end,
                &f.per_call_start, &f.per_call_end, &fun.name_prefix, &fun.name_suffix, &fun.close, &args.start, &args.end,
                &args.name_prefix, &args.name_suffix, &args.value_prefix, &args.value_suffix, &args.typed_value_prefix,
                &args.raw_value_start, &args.raw_value_end, &args.string_delimiter, &id.prefix, &id.suffix,
            ] {
                markers.push(m.clone());
            }
            if f.mode == chat_autoparser::analysis::ToolFormat::None {
                // No tool format: the fallback's markers (mined and conventional) are syntax, and
                // its pythonic calls have literal values (rule R13).
                for m in &a.tools.fallback_markers {
                    markers.extend([m.start.clone(), m.end.clone()]);
                }
                markers.extend(["<|tool_call_start|>", "<|tool_call_end|>", "<tool_call>", "</tool_call>", "True", "False", "None"].map(String::from));
            }
            if let Some(m) = &a.messages {
                // Message headers are syntax: their start, recipient prefix, recipients and end.
                markers.extend([&m.message_start, &m.recipient_prefix, &m.header_end, &m.content_recipient].map(|s| s.trim().to_string()));
                markers.extend(m.reasoning_recipient.iter().cloned().chain(m.message_ends.iter().cloned()));
            }
            if args.literal_values {
                // Python literals become JSON ones (`True` → `true`): the words are syntax, not text.
                markers.extend(["True", "False", "None"].map(String::from));
            }
        }
        let vocab: &[&str] = match handler {
            Handler::GptOss => HARMONY_VOCAB,
            Handler::FunctionaryV32 => FUNCTIONARY_VOCAB,
            Handler::Ministral3 => MINISTRAL_VOCAB,
            _ => &[],
        };
        markers.extend(vocab.iter().chain(GENERIC_VOCAB).map(|s| s.to_string()));
        // The special tokens inside composite markers (`:0<|tool_call_argument_begin|>` with a call
        // counter in front) are markers on their own.
        let tokens: Vec<String> = markers.iter().flat_map(|m| special_tokens(m)).collect();
        markers.extend(tokens);
        // Role tags (`<user>` … `</user>`) may wrap a call (rule R29).
        if let Some(a) = analysis.as_ref() {
            for role in [&a.user_start, &a.assistant_start].map(|r| r.trim()) {
                if let Some(name) = role.strip_prefix('<').and_then(|r| r.strip_suffix('>')).filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))) {
                    markers.extend([role.to_string(), format!("</{name}>")]);
                }
            }
        }
        // The markers written without their special-token part (rule R33) are markers too.
        let plain: Vec<String> = markers.iter().map(|m| chat_autoparser::testing::without_special_part(m)).collect();
        markers.extend(plain);
        let mut seen = std::collections::HashSet::new();
        markers.retain(|m| !m.trim().is_empty() && seen.insert(m.clone()));
        let v = (handler, Rc::new(markers), analysis);
        self.cache.insert(name.to_string(), v.clone());
        v
    }
}

/// Request options of a cases.jsonl case.
pub fn case_options(c: &serde_json::Value) -> RequestOptions {
    RequestOptions {
        tools: c["tools"].as_array().cloned().unwrap_or_default(),
        reasoning_format: serde_json::from_value::<ReasoningFormat>(c["reasoning_format"].clone()).unwrap_or_default(),
        json_schema: Some(c["json_schema"].clone()).filter(|v| !v.is_null()),
        is_partial: c["is_partial"].as_bool().unwrap_or(false),
        enable_thinking: Some(c["enable_thinking"].as_bool().unwrap_or(true)),
        parallel_tool_calls: c["parallel_tool_calls"].as_bool().unwrap_or(false),
        ..RequestOptions::default()
    }
}

/// The parsers that read a template's output: its dedicated handler, or the analysis-driven
/// auto parser; and always the template-free generic parser (it must survive any text). The
/// third element says whether the parser is fed the generation prompt (the dedicated and generic
/// parsers are; the AutoParser consumes its prefill itself and reads only the output).
fn parsers_for(
    handler: Handler,
    analysis: Option<&Rc<Analysis>>,
    options: &RequestOptions,
    gp: &str,
) -> Vec<(&'static str, Factory, bool)> {
    let mut out: Vec<(&'static str, Factory, bool)> = Vec::new();
    if handler != Handler::Autoparser {
        let (o, g) = (options.clone(), gp.to_string());
        out.push(("handler", Rc::new(move || make_parser(handler, &o, &g)), true));
    } else if let Some(a) = analysis {
        let (a, o) = (a.clone(), options.clone());
        let prefill = parser_prefill(&a, gp, options);
        out.push(("auto", Rc::new(move || auto_parser(&a, &o, &prefill)), false));
    }
    let o = options.clone();
    out.push(("generic", Rc::new(move || make_parser(Handler::Autoparser, &o, "")), true));
    out
}

/// A subject for one parser over `gp` + `output`.
fn subject(label: String, (make, feeds_gp): (Factory, bool), gp: &str, output: &str, is_partial: bool, markers: &Rc<Vec<String>>) -> Subject {
    let gp = if feeds_gp { gp } else { "" };
    Subject { label, make, gp: gp.to_string(), text: format!("{gp}{output}"), is_partial, markers: markers.clone() }
}

/// Every cases.jsonl case, once per parser that reads it.
pub fn case_subjects(templates: &mut Templates) -> Vec<Subject> {
    let mut out = Vec::new();
    for c in common::load_jsonl("cases.jsonl") {
        let Some(name) = c["template"].as_str() else { continue };
        let (handler, markers, analysis) = templates.get(name);
        let options = case_options(&c);
        let gp = c["prompt_side"]["generation_prompt"].as_str().unwrap_or("");
        let output = c["input"].as_str().unwrap_or("");
        for (kind, make, feeds_gp) in parsers_for(handler, analysis.as_ref(), &options, gp) {
            let label = format!("case {} ({name}) {kind}", c["id"]);
            out.push(subject(label, (make, feeds_gp), gp, output, options.is_partial, &markers));
        }
    }
    out
}

/// Templates without a tool format (the parser's fallback reads calls, rule R13).
pub const FALLBACK_TEMPLATES: [&str; 4] =
    ["HuggingFaceTB-SmolLM3-3B.jinja", "LFM2-8B-A1B.jinja", "LFM2.5-Instruct.jinja", "ibm-granite-granite-3.3-2B-Instruct.jinja"];

/// Model outputs in the fallback's conventions, with the text around them that must stay content
/// (fences, undeclared names, mid-line JSON, markdown links).
const FALLBACK_OUTPUTS: &[&str] = &[
    "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}</tool_call>",
    "Let me check.\n<tool_call>\n{\"name\": \"calculate\", \"parameters\": {\"expr\": \"2+2\"}}\n</tool_call>",
    "<|tool_call_start|>[get_weather(location=\"Paris\", unit='celsius'), calculate(expr=\"1+1\")]<|tool_call_end|>",
    "{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Tokyo\"}}",
    "Sure:\n[calculate(expr=\"3*3\")]",
    "<|tool_call|>[{\"name\": \"calculate\", \"arguments\": {\"expr\": \"5\"}}]",
    "<think>\nShould I call?\n</think>\n\n<tool_call>{\"type\": \"function\", \"function\": {\"name\": \"calculate\", \"arguments\": {\"expr\": \"7\"}}}</tool_call>",
    "Example:\n```\n<tool_call>{\"name\": \"calculate\", \"arguments\": {}}</tool_call>\n```\nand {\"name\": \"x\"} [link](http://a.b) <tool_call>{\"name\": \"launch\", \"arguments\": {}}</tool_call>",
];

/// The fallback's subjects: every template without a tool format, with the fixture tools, over
/// outputs in each of the fallback's conventions.
pub fn fallback_subjects(templates: &mut Templates) -> Vec<Subject> {
    let mut out = Vec::new();
    let extra = ["<tool_call>", "</tool_call>", "<|tool_call_start|>", "<|tool_call_end|>", "<|tool_call|>", "```", "get_weather", "calculate"];
    for name in FALLBACK_TEMPLATES {
        let (_, markers, analysis) = templates.get(name);
        let Some(a) = analysis else { continue };
        let mut m: Vec<String> = markers.as_ref().clone();
        m.extend(extra.iter().map(|s| s.to_string()));
        let markers = Rc::new(m);
        for thinking in [true, false] {
            let options = RequestOptions {
                tools: chat_autoparser::testing::fixture_tools(),
                enable_thinking: Some(thinking),
                parallel_tool_calls: true,
                ..RequestOptions::default()
            };
            let Ok(t) = ChatTemplate::new(&common::template_source(name), RenderOptions::default()) else { continue };
            let gp = t.generation_prompt(&options).unwrap_or_default();
            let prefill = parser_prefill(&a, &gp, &options);
            for (k, output) in FALLBACK_OUTPUTS.iter().enumerate() {
                let (a, o, p) = (a.clone(), options.clone(), prefill.clone());
                let make: Factory = Rc::new(move || auto_parser(&a, &o, &p));
                let label = format!("fallback {name} thinking={thinking} #{k}");
                out.push(subject(label, (make, false), &gp, output, false, &markers));
            }
        }
    }
    out
}

/// Template of each bench input family (see tests/fixtures/bench/README.md).
pub const BENCH_TEMPLATES: [(&str, &str); 4] = [
    ("qwen3-coder", "Qwen3-Coder.jinja"),
    ("hermes-2-pro", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"),
    ("gpt-oss", "openai-gpt-oss-120b.jinja"),
    ("qwen3.5-4b", "Qwen3.5-4B.jinja"),
];

/// Generation prompt of a template with thinking on, taken from the first matching case.
pub fn generation_prompt(template: &str) -> String {
    common::load_jsonl("cases.jsonl")
        .into_iter()
        .find(|c| c["template"] == template && c["enable_thinking"] == true)
        .and_then(|c| c["prompt_side"]["generation_prompt"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The bench inputs of the given sizes ("1k", "2k", …), once per parser that reads them.
pub fn bench_subjects(templates: &mut Templates, sizes: &[&str]) -> Vec<Subject> {
    let mut out = Vec::new();
    for (family, template) in BENCH_TEMPLATES {
        let (handler, markers, analysis) = templates.get(template);
        let gp = generation_prompt(template);
        for size in sizes {
            let path = common::fixtures_dir().join(format!("bench/inputs/{family}-{size}.txt"));
            let Ok(body) = std::fs::read_to_string(&path) else { continue };
            let options = RequestOptions::default();
            for (kind, make, feeds_gp) in parsers_for(handler, analysis.as_ref(), &options, &gp) {
                let label = format!("bench {family}-{size} ({template}) {kind}");
                out.push(subject(label, (make, feeds_gp), &gp, &body, false, &markers));
            }
        }
    }
    out
}

/// A random char boundary of `s` (0..=len).
fn boundary(s: &str, rng: &mut Rng) -> usize {
    let n = s.chars().count();
    let k = rng.below(n + 1);
    s.char_indices().nth(k).map_or(s.len(), |(i, _)| i)
}

/// Byte offsets of every occurrence of `m` in `s`.
fn occurrences(s: &str, m: &str) -> Vec<usize> {
    if m.is_empty() {
        return Vec::new();
    }
    s.match_indices(m).map(|(i, _)| i).collect()
}

/// `s.text` with 1–3 random edits in its model output (the generation prompt is left alone: it
/// is prompt-side, rendered by the template, not generated).
pub fn mutate_subject(s: &Subject, rng: &mut Rng) -> String {
    let output = s.text.strip_prefix(s.gp.as_str()).unwrap_or(&s.text);
    format!("{}{}", s.gp, mutate(output, &s.markers, rng))
}

/// 1–3 random edits: insert / delete / duplicate a marker, truncate, corrupt JSON punctuation,
/// insert a stray special token or an odd character, a run of one marker repeated (issue #11: parse
/// time must stay linear), or a value that is not JSON right after a marker (`3 days`, `N/A`).
pub fn mutate(text: &str, markers: &[String], rng: &mut Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        match rng.below(9) {
            7 if !markers.is_empty() => {
                let m = &markers[rng.below(markers.len())];
                let at = boundary(&s, rng);
                s.insert_str(at, &m.repeat(20 + rng.below(200)));
            }
            8 if !markers.is_empty() => {
                const NOT_JSON: [&str; 5] = ["3 days", "N/A", "{\"city\": }", "[1, 2", "tru"];
                let m = &markers[rng.below(markers.len())];
                let occ = occurrences(&s, m);
                if !occ.is_empty() {
                    let at = occ[rng.below(occ.len())] + m.len();
                    s.insert_str(at, NOT_JSON[rng.below(NOT_JSON.len())]);
                }
            }
            0 if !markers.is_empty() => {
                let m = &markers[rng.below(markers.len())];
                let at = boundary(&s, rng);
                s.insert_str(at, m);
            }
            op @ (1 | 2) if !markers.is_empty() => {
                let m = &markers[rng.below(markers.len())];
                let occ = occurrences(&s, m);
                if !occ.is_empty() {
                    let at = occ[rng.below(occ.len())];
                    if op == 1 {
                        s.replace_range(at..at + m.len(), "");
                    } else {
                        s.insert_str(at, m);
                    }
                }
            }
            3 => {
                let at = boundary(&s, rng);
                s.truncate(at);
            }
            4 => {
                const PUNCT: &str = "{}[]\":,";
                let spots: Vec<usize> = s.char_indices().filter(|(_, c)| PUNCT.contains(*c)).map(|(i, _)| i).collect();
                if !spots.is_empty() {
                    let at = spots[rng.below(spots.len())];
                    let with = if rng.below(2) == 0 { String::new() } else { PUNCT[rng.below(PUNCT.len())..].chars().take(1).collect() };
                    s.replace_range(at..at + 1, &with);
                }
            }
            5 => {
                let at = boundary(&s, rng);
                s.insert_str(at, STRAY[rng.below(STRAY.len())]);
            }
            _ => {
                let at = boundary(&s, rng);
                s.insert(at, ODD_CHARS[rng.below(ODD_CHARS.len())]);
            }
        }
    }
    s
}

/// Tokens that stand before calls in some templates (rule R11).
const CALL_PREFIXES: &[&str] = &["<|python_tag|>", "<|eom_id|>", "<|think|>"];

/// `s.text` with 1–3 marker departures in its model output (rules R9–R12): a marker in another
/// spelling ([`respell`]), a call-prefix token or another marker written before a marker, or a
/// marker written twice. Kept apart from [`mutate`], whose seeded sequence the per-case accounting
/// expectations are recorded against.
pub fn respell_subject(s: &Subject, rng: &mut Rng) -> String {
    let output = s.text.strip_prefix(s.gp.as_str()).unwrap_or(&s.text);
    let mut out = output.to_string();
    // The rules respell token-like markers only (`parse::auto::markers::spelling`).
    let markers: Vec<&String> = s.markers.iter().filter(|m| m.starts_with('<') || m.starts_with('[') || m.contains('｜')).collect();
    for _ in 0..1 + rng.below(3) {
        if markers.is_empty() {
            break;
        }
        let m = markers[rng.below(markers.len())];
        let occ = occurrences(&out, m);
        if occ.is_empty() {
            continue;
        }
        let at = occ[rng.below(occ.len())];
        let with = match rng.below(4) {
            0 => format!("{}{m}", CALL_PREFIXES[rng.below(CALL_PREFIXES.len())]),
            1 => format!("{m}{m}"),
            _ => respell(m, rng),
        };
        out.replace_range(at..at + m.len(), &with);
    }
    format!("{}{out}", s.gp)
}

/// `m` spelled as models sometimes write it: ASCII `|` for `｜`, `_` or a space for `▁`, other letter
/// case, the leading token alone (`<|channel>` for `<|channel>thought`), or the closer it pairs with
/// (`[/X]` for `[X]`, `</x>` for `<x>`).
fn respell(m: &str, rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => m.replace('｜', "|").replace('▁', "_"),
        1 => m.replace('▁', " "),
        2 => m.to_uppercase(),
        3 => m.to_lowercase(),
        4 => m.find('>').map_or_else(|| m.to_string(), |i| m[..=i].to_string()),
        _ => match (m.strip_prefix('['), m.strip_prefix('<')) {
            (Some(body), _) => format!("[/{body}"),
            (_, Some(body)) => format!("</{body}"),
            _ => m.to_string(),
        },
    }
}

/// A random chunking of `text`: chunk sizes up to 1, 2, 3, 4, 7, 16 or 64 chars.
pub fn chunking<'a>(text: &'a str, rng: &mut Rng) -> Vec<&'a str> {
    const MAX: [usize; 7] = [1, 2, 3, 4, 7, 16, 64];
    let max = MAX[rng.below(MAX.len())];
    random_chunks(text, rng, max)
}

fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_default()
}

/// The order in which a delta sequence writes content (`C`), reasoning (`R`) and each tool call
/// (`T0`, `T1`, …), consecutive repeats merged. Two chunkings must agree on it and on the message;
/// how one call's name, id and arguments are split over deltas may depend on the chunking (a
/// stream learns a trailing id after the arguments it already sent).
pub fn shape(deltas: &[chat_autoparser::api::Delta]) -> Vec<String> {
    use chat_autoparser::api::Delta;
    let mut out: Vec<String> = Vec::new();
    for d in deltas {
        let tag = match d {
            Delta::Content(s) if s.is_empty() => continue,
            Delta::Reasoning(s) if s.is_empty() => continue,
            Delta::Content(_) => "C".to_string(),
            Delta::Reasoning(_) => "R".to_string(),
            Delta::ToolCall { index, .. } => format!("T{index}"),
        };
        if out.last() != Some(&tag) {
            out.push(tag);
        }
    }
    out
}

/// Parse `text` whole and in `n` random chunkings: the same message, error and
/// order of writes ([`shape`]) every time, and no panic. Returns the whole run, or what went wrong.
pub fn stream_equals_whole(s: &Subject, text: &str, rng: &mut Rng, n: usize) -> Result<Run, String> {
    let whole = catch_unwind(AssertUnwindSafe(|| run_chunks((s.make)(), &[text], s.is_partial)))
        .map_err(|e| format!("{}: PANIC (whole) {} on {text:?}", s.label, panic_text(e)))?;
    let whole_deltas = shape(&whole.deltas);
    for _ in 0..n {
        let chunks = chunking(text, rng);
        let run = catch_unwind(AssertUnwindSafe(|| run_chunks((s.make)(), &chunks, s.is_partial)))
            .map_err(|e| format!("{}: PANIC (chunked) {} on {chunks:?}", s.label, panic_text(e)))?;
        if run.message != whole.message || run.error != whole.error || shape(&run.deltas) != whole_deltas {
            return Err(format!(
                "{}: DIVERGENCE\n  chunks {chunks:?}\n  whole {:?} {:?}\n  chunked {:?} {:?}",
                s.label, whole.message, whole.error, run.message, run.error
            ));
        }
    }
    Ok(whole)
}

/// `s` with JSON string escapes decoded (`\u00e9` → `é`, `\n` → a space), so text counts the same
/// whether a parser passed JSON through or decoded it.
fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.peek().copied() {
            Some('n' | 't' | 'r' | 'b' | 'f') => {
                it.next();
                out.push(' ');
            }
            Some(q @ ('"' | '\\' | '/')) => {
                it.next();
                out.push(q);
            }
            Some('u') => {
                let hex: String = it.clone().skip(1).take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().filter(|_| hex.len() == 4).and_then(char::from_u32) {
                    Some(ch) => {
                        it.nth(4);
                        out.push(ch);
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Count of every alphanumeric char of `s`.
fn letters(s: &str, into: &mut HashMap<char, i64>, sign: i64) {
    for c in s.chars().filter(|c| c.is_alphanumeric()) {
        *into.entry(c).or_default() += sign;
    }
}

/// Every string (keys and values, numbers and literals as text) inside a JSON value.
fn json_text(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => out.push_str(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_text(x, out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push_str(k);
            out.push(' ');
            json_text(x, out)
        }),
        other => out.push_str(&other.to_string()),
    }
    out.push(' ');
}

/// `s` without code-fence info strings (```` ```json ````, ```` ```jsnameon ````): a parser that
/// unwraps a fenced answer consumes the tag whatever it says.
fn without_fence_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("```") {
        out.push_str(&rest[..i]);
        out.push(' ');
        let after = &rest[i + 3..];
        let tag = after.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).unwrap_or(after.len());
        rest = &after[tag..];
    }
    out.push_str(rest);
    out
}

/// `<|…|>`, `<…>` and `[…]` tokens inside `marker`.
fn special_tokens(marker: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('<', '>'), ('[', ']')] {
        let mut rest = marker;
        while let Some(i) = rest.find(open) {
            let Some(j) = rest[i..].find(close) else { break };
            out.push(rest[i..i + j + 1].to_string());
            rest = &rest[i + j + 1..];
        }
    }
    out
}

/// The accounting invariant. Every letter or digit of the model output (the text after the
/// generation prompt), once the markers the parser may consume, the JSON keys of call objects and
/// code-fence tags are removed, must reappear in the message: content, reasoning, a call's name or id, or its arguments.
/// The input counts with JSON escapes decoded (`\u00e9` is an `é`, `\n` no letter); each output
/// field counts raw or decoded, whichever holds more of a letter, and arguments also as the strings
/// of their parsed JSON (tagged formats build escaped JSON from raw text, JSON formats may pass
/// escapes through).
/// Whitespace and punctuation are ignored (JSON syntax is consumed and re-serialized). Returns the
/// missing letters with their counts, empty when everything is accounted for.
pub fn lost_letters(output: &str, markers: &[String], message: &Message) -> Vec<(char, i64)> {
    let mut stripped = output.to_string();
    let mut ms: Vec<&str> = markers.iter().map(|m| m.trim()).filter(|m| !m.is_empty()).collect();
    ms.extend(KEY_VOCAB);
    ms.sort_by_key(|m| std::cmp::Reverse(m.len()));
    for m in ms {
        if stripped.contains(m) {
            stripped = stripped.replace(m, " ");
        }
    }
    // Fence tags after the markers: a marker may itself contain a fence (`Action:\n```json`).
    let stripped = without_fence_tags(&stripped);
    let mut need = HashMap::new();
    letters(&decode_escapes(&stripped), &mut need, 1);
    // Each field is a set of readings (raw, escape-decoded, and for arguments the strings of the
    // parsed JSON); a field covers a letter as often as its best reading holds it.
    let mut fields: Vec<Vec<String>> = vec![vec![message.content.clone()], vec![message.reasoning_content.clone()]];
    for call in &message.tool_calls {
        fields.push(vec![call.function.name.clone()]);
        fields.push(vec![call.id.clone()]);
        let mut parsed = String::new();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&call.function.arguments) {
            json_text(&v, &mut parsed);
        }
        fields.push(vec![call.function.arguments.clone(), parsed]);
    }
    for readings in fields {
        let mut best: HashMap<char, i64> = HashMap::new();
        for r in readings.iter().flat_map(|r| [r.clone(), decode_escapes(r)]) {
            let mut m = HashMap::new();
            letters(&r, &mut m, 1);
            for (c, n) in m {
                let e = best.entry(c).or_default();
                *e = (*e).max(n);
            }
        }
        for (c, n) in best {
            *need.entry(c).or_default() -= n;
        }
    }
    let mut lost: Vec<(char, i64)> = need.into_iter().filter(|(_, n)| *n > 0).collect();
    lost.sort();
    lost
}

/// Accounting verdict of one whole-text run.
pub enum Accounting {
    /// Every letter is in the message.
    Complete,
    /// Letters are missing but the parser said so (a diagnostic or a finish error).
    Reported(Vec<(char, i64)>),
    /// Letters are missing and nothing said so: a violation.
    Silent(Vec<(char, i64)>),
}

/// Run the accounting check on `text`, parsed as final output, (which starts with `s.gp` unless mutated away).
pub fn account(s: &Subject, text: &str) -> Accounting {
    let output = text.strip_prefix(s.gp.as_str()).unwrap_or(text);
    let mut p = (s.make)();
    let mut deltas = Vec::new();
    p.push(text, &mut deltas);
    // As a final (non-partial) parse: a partial parse may legitimately hold back an unfinished call.
    let err = p.finish(false, &mut deltas).is_err();
    let message = Message::from_deltas(&deltas);
    let lost = lost_letters(output, &s.markers, &message);
    if lost.is_empty() {
        Accounting::Complete
    } else if err || !p.diagnostics().is_empty() {
        Accounting::Reported(lost)
    } else {
        Accounting::Silent(lost)
    }
}
