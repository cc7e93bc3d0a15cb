//! `verify_template`: the template's own round-trip self-test.
//!
//! Render assistant messages (text, reasoning, one tool call, parallel calls, nested arguments) through
//! the template, cut out what the model would have written, parse it back with the parser the analysis
//! builds, and report per message whether the same message comes back.

use super::{generation_prompt, ChatTemplate, StreamParser};
use crate::analysis::{common_prefix_len, common_suffix_len};
use crate::findings::{Analysis, CallIdPosition, ReasoningMode};
use crate::api::{Message, RequestOptions, ToolCall};
use crate::formats::{format_of, parser_prefill};
use crate::text::is_space;
use serde::Serialize;
use serde_json::{json, Value};

/// Outcome of one round trip.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyResult {
    /// Fixture name (`text`, `reasoning`, `tool_call`, `parallel_tool_calls`, `nested_arguments`, …).
    pub name: String,
    /// The parsed message equals the rendered one.
    pub ok: bool,
    /// The model-output text the template rendered for the message.
    pub output: String,
    /// The assistant message that was rendered.
    pub expected: Message,
    /// What the parser made of `output`.
    pub actual: Message,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Set when the template does not render the message faithfully (e.g. it drops the reasoning of
    /// history turns), so there is nothing to read back; such results count as passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The whole prompt `output` continues: the conversation before the turn and the turn's start as
    /// the generation prompt wrote it (a declared response template's `prefix`).
    #[serde(skip)]
    pub prompt: String,
    /// The part of `prompt` our parser was given: the generation prompt (or the history turn's header).
    #[serde(skip)]
    pub generation_prompt: String,
}

/// All round trips of a template.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// Every applicable fixture round-tripped.
    pub ok: bool,
    /// Per part of a message: did the round trips that exercise it succeed?
    pub verified: Verified,
    /// One entry per fixture the template supports.
    pub results: Vec<VerifyResult>,
}

/// Outcome of the round trips for one part of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PartStatus {
    /// Every round trip that carries this part read it back.
    Ok,
    /// At least one round trip carrying this part failed.
    Failed,
    /// No round trip exercised it (the analysis found no such part, or the template does not render it).
    Untested,
}

/// Round-trip status per part: what `analysis.verified` reports (camelCase in JS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// No part failed.
    pub ok: bool,
    pub content: PartStatus,
    pub reasoning: PartStatus,
    pub tool_calls: PartStatus,
}

impl Verified {
    /// Fold the results: a failed result counts against every part its message carries.
    fn from_results(results: &[VerifyResult]) -> Verified {
        let part = |carries: &dyn Fn(&Message) -> bool| {
            let mut status = PartStatus::Untested;
            for r in results.iter().filter(|r| r.skipped.is_none() && carries(&r.expected)) {
                if !r.ok {
                    return PartStatus::Failed;
                }
                status = PartStatus::Ok;
            }
            status
        };
        let content = part(&|m| !m.content.is_empty());
        let reasoning = part(&|m| !m.reasoning_content.is_empty());
        let tool_calls = part(&|m| !m.tool_calls.is_empty());
        let ok = ![content, reasoning, tool_calls].contains(&PartStatus::Failed) && results.iter().all(|r| r.ok);
        Verified { ok, content, reasoning, tool_calls }
    }

    /// One line for people: `content ok, reasoning untested, tool calls failed`.
    pub fn summary(&self) -> String {
        let s = |p: PartStatus| match p {
            PartStatus::Ok => "ok",
            PartStatus::Failed => "FAILED",
            PartStatus::Untested => "untested",
        };
        format!("content {}, reasoning {}, tool calls {}", s(self.content), s(self.reasoning), s(self.tool_calls))
    }
}

/// The tools every fixture is rendered and parsed with. Read from JSON text: as a `json!` literal they were
/// ≈ 4 KB of wasm code.
pub fn fixture_tools() -> Vec<Value> {
    const TOOLS: &str = r#"[
        { "type": "function", "function": { "name": "get_weather", "description": "Current weather for a city",
            "parameters": { "type": "object", "properties": {
                "location": { "type": "string", "description": "City name" },
                "unit": { "type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"] } },
            "required": ["location"], "additionalProperties": false } } },
        { "type": "function", "function": { "name": "create_event", "description": "Create a calendar event",
            "parameters": { "type": "object", "properties": {
                "title": { "type": "string", "description": "Event title" },
                "attendees": { "type": "array", "description": "Who attends", "items": { "type": "string" } },
                "options": { "type": "object", "description": "Reminder settings",
                    "properties": { "remind": { "type": "boolean", "description": "Send a reminder" },
                        "minutes": { "type": "integer", "description": "Minutes before" } },
                    "additionalProperties": false } },
            "required": ["title"], "additionalProperties": false } } }
    ]"#;
    serde_json::from_str(TOOLS).unwrap_or_default()
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall::new(id, name, args.to_string())
}

fn msg(content: &str, reasoning: &str, calls: Vec<ToolCall>) -> Message {
    Message { content: content.into(), reasoning_content: reasoning.into(), tool_calls: calls, ..Default::default() }
}

/// The fixtures that apply to what the analysis found.
fn fixtures(a: &Analysis) -> Vec<(&'static str, Message)> {
    let mut f = vec![("text", msg("The capital of France is Paris.", "", vec![]))];
    let reasons = a.reasoning.mode != ReasoningMode::None;
    if reasons {
        f.push(("reasoning", msg("It is 4.", "The user asks for 2+2. That is 4.", vec![])));
    }
    // Without a tool format, calls are read by the fallback where it also builds a grammar.
    if format_of(a.handler).writes_calls(a) {
        let weather = || call("call00001", "get_weather", json!({ "location": "Paris", "unit": "celsius" }));
        f.push(("tool_call", msg("", "", vec![weather()])));
        if a.caps.supports_parallel_tool_calls {
            f.push((
                "parallel_tool_calls",
                msg("", "", vec![weather(), call("call00002", "get_weather", json!({ "location": "Tokyo" }))]),
            ));
        }
        f.push((
            "nested_arguments",
            msg("", "", vec![call("call00003", "create_event", json!({ "title": "Standup", "attendees": ["ana", "bo"],
                "options": { "remind": true, "minutes": 10 } }))]),
        ));
        if reasons {
            f.push(("reasoning_tool_call", msg("", "I should check the weather.", vec![weather()])));
        }
    }
    if a.tools.call_id.pos == CallIdPosition::InNamePlace {
        // The template writes the id where a name goes: ids that name the tool, as its models write them.
        for c in f.iter_mut().flat_map(|(_, m)| m.tool_calls.iter_mut()) {
            c.id = format!("{}.{}", c.id, c.function.name);
        }
    }
    f
}

/// Message content as the template takes it: a string, or (templates that read only typed parts, such
/// as `message['content'][0]['text']`) one text part.
fn text_content(text: &str, typed: bool) -> Value {
    if typed && !text.is_empty() {
        json!([{ "type": "text", "text": text }])
    } else {
        json!(text)
    }
}

/// The message as a template input (arguments as objects when the template takes them; a call turn
/// without text has `content: null` when the template renders calls only in the OpenAI wire shape).
fn as_input(m: &Message, object_args: bool, null_call_content: bool, typed: bool) -> Value {
    let calls: Vec<Value> = m
        .tool_calls
        .iter()
        .map(|c| {
            let args = if object_args {
                serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null)
            } else {
                Value::String(c.function.arguments.clone())
            };
            json!({ "id": c.id, "type": "function", "function": { "name": c.function.name, "arguments": args } })
        })
        .collect();
    let mut v = json!({ "role": "assistant", "content": text_content(&m.content, typed) });
    if null_call_content && m.content.is_empty() && !calls.is_empty() {
        v["content"] = Value::Null;
    }
    if !m.reasoning_content.is_empty() {
        v["reasoning_content"] = m.reasoning_content.clone().into();
    }
    if !calls.is_empty() {
        v["tool_calls"] = Value::Array(calls);
    }
    v
}

fn normalized_args(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or(Value::Null)
}

/// Same message up to surrounding whitespace and JSON formatting of arguments (ids may be dropped by
/// templates that do not render them, so they are not compared).
pub fn mismatch(expected: &Message, actual: &Message) -> Option<String> {
    if expected.content.trim() != actual.content.trim() {
        return Some(format!("content {:?} != {:?}", actual.content, expected.content));
    }
    if expected.reasoning_content.trim() != actual.reasoning_content.trim() {
        return Some(format!("reasoning {:?} != {:?}", actual.reasoning_content, expected.reasoning_content));
    }
    if expected.tool_calls.len() != actual.tool_calls.len() {
        return Some(format!("{} tool calls, expected {}", actual.tool_calls.len(), expected.tool_calls.len()));
    }
    for (e, a) in expected.tool_calls.iter().zip(&actual.tool_calls) {
        if e.function.name != a.function.name {
            return Some(format!("tool name {:?} != {:?}", a.function.name, e.function.name));
        }
        if normalized_args(&e.function.arguments) != normalized_args(&a.function.arguments) {
            return Some(format!("arguments {} != {}", a.function.arguments, e.function.arguments));
        }
    }
    None
}

/// Move a cut at byte `k` of `text` back to the start of a `<…>` / `[…]` marker it would split.
fn marker_safe_cut(text: &str, mut k: usize) -> usize {
    let head = text.get(..k).unwrap_or("");
    for (open, close) in [('<', '>'), ('[', ']')] {
        if let Some(p) = head.rfind(open) {
            if !head[p..].contains(close) {
                k = k.min(p);
            }
        }
    }
    k
}

/// Move a cut at byte `k` of `text` forward past a `<…>` / `[…]` marker it would split.
fn marker_safe_start(text: &str, k: usize) -> usize {
    let tail = text.get(k..).unwrap_or("");
    for (open, close) in [('<', '>'), ('[', ']')] {
        if let Some(c) = tail.find(close) {
            if !tail[..c].contains(open) {
                return k + c + 1;
            }
        }
    }
    k
}

/// Where the model's text of a tool-call turn ends: right after the last closing tool marker the
/// analysis found (section end, else per-call end, else function close). What a template appends
/// after it is the tool-call turn's own end-of-turn token (`<|eom_id|>`, `<SPECIAL_12>`,
/// `<|tool_response>`), which text turns do not share, so the common text-turn suffix misses it.
fn after_last_call(a: &Analysis, turn: &str) -> usize {
    let f = &a.tools;
    [&f.format.section_end, &f.format.per_call_end, &f.function.close]
        .into_iter()
        .map(|m| m.trim())
        .find(|m| !m.is_empty())
        .and_then(|m| turn.rfind(m).map(|p| p + m.len()))
        .unwrap_or(turn.len())
}

/// The texts of a message that a faithful render must contain.
fn missing_from(rendered: &str, m: &Message) -> Option<&'static str> {
    if !m.reasoning_content.is_empty() && !rendered.contains(m.reasoning_content.as_str()) {
        return Some("the template does not render this turn's reasoning");
    }
    if !m.content.is_empty() && !rendered.contains(m.content.as_str()) {
        return Some("the template does not render this turn's content");
    }
    if m.tool_calls.iter().any(|c| !rendered.contains(c.function.name.as_str())) {
        return Some("the template does not render this turn's tool calls");
    }
    None
}

/// Render each fixture and parse it back. Never fails as a whole: problems are per result.
pub fn verify_template(t: &ChatTemplate) -> VerifyReport {
    let a = match t.analysis() {
        Ok(a) => a,
        Err(e) => {
            let error = Some(format!("analysis failed: {e}"));
            let result = VerifyResult { name: "analysis".into(), ok: false, output: String::new(), expected: Message::default(), actual: Message::default(), error, skipped: None, prompt: String::new(), generation_prompt: String::new() };
            return { let results = vec![result]; VerifyReport { ok: false, verified: Verified::from_results(&results), results } };
        }
    };
    let object_args = t.caps().supports_object_arguments || !t.caps().supports_tool_calls;
    let null_call_content = a.tools.requires_wire_shape && !a.content.requires_nonnull_content;
    let typed = t.caps().supports_typed_content;
    let user = json!({ "role": "user", "content": text_content("Please help me.", typed) });
    let render = |messages: Vec<Value>, gen: bool| {
        t.render_lenient(&json!({ "messages": messages, "tools": fixture_tools(), "add_generation_prompt": gen, "enable_thinking": true }))
            .map(|(s, _)| s)
    };
    // The conversation before the assistant turn, without the generation prompt.
    let before = render(vec![user.clone()], false);
    // What follows every assistant turn (end-of-turn markers): the common suffix of two text replies.
    // What precedes the reply in a history turn: from the end of the conversation before it to where
    // the two replies start to differ. Some templates render that header differently from their
    // generation prompt (other indentation, or no generation prompt at all).
    let (turn_end, history_header) = match (
        render(vec![user.clone(), json!({ "role": "assistant", "content": text_content("AAAA", typed) })], false),
        render(vec![user.clone(), json!({ "role": "assistant", "content": text_content("BBBB", typed) })], false),
    ) {
        (Ok(x), Ok(y)) => {
            let end = x.get(x.len() - common_suffix_len(&x, &y)..).unwrap_or("").to_string();
            let head_start = before.as_ref().map(|b| common_prefix_len(b, &x)).unwrap_or(0);
            let header = x.get(head_start..common_prefix_len(&x, &y).max(head_start)).unwrap_or("").to_string();
            (end, header)
        }
        _ => (String::new(), String::new()),
    };
    let mut results = Vec::new();
    for (name, expected) in fixtures(a) {
        let options = RequestOptions {
            tools: fixture_tools(),
            messages: vec![user.clone()],
            parallel_tool_calls: true,
            is_partial: false,
            ..Default::default()
        };
        // (output, our message, why skipped, (whole prompt, generation prompt))
        let outcome = (|| -> Result<(String, Message, Option<&'static str>, (String, String)), String> {
            let before = before.as_ref().map_err(|e| format!("render: {e}"))?;
            let full = render(vec![user.clone(), as_input(&expected, object_args, null_call_content, typed)], false).map_err(|e| format!("render: {e}"))?;
            // (Only `<…>` here: some templates' role headers contain unbalanced brackets, e.g. `]~b]ai`.)
            let k0 = common_prefix_len(before, &full);
            let mut turn_start = match full.get(..k0).unwrap_or("").rfind('<') {
                Some(p) if full.get(p..k0).is_some_and(|s| !s.contains('>')) => p,
                _ => k0,
            };
            // The turn starts with as much of the generation prompt as the text before it ends with
            // (a template that appends e.g. a tool-instructions turn after the conversation makes the
            // common prefix stop inside the turn header: `<|START_OF_TURN_TOKEN|><|`).
            let full_gp = generation_prompt(t, a, &options).map_err(|e| e.to_string())?;
            let head = full.get(..turn_start).unwrap_or("");
            let back = (1..=full_gp.len()).rev().find(|&j| full_gp.get(..j).is_some_and(|g| head.ends_with(g))).unwrap_or(0);
            turn_start -= back;
            let mut turn = full.get(turn_start..).unwrap_or("").to_string();
            if let Some(why) = missing_from(&turn, &expected) {
                return Ok((turn, Message::default(), Some(why), Default::default()));
            }
            // Drop what the template appends after the model's text: the part of the end-of-turn suffix
            // this turn ends with (tool-call turns may close differently from text turns).
            let tail = common_suffix_len(&turn, &turn_end);
            let mut cut = marker_safe_start(&turn, turn.len() - tail);
            if !expected.tool_calls.is_empty() {
                cut = cut.min(after_last_call(a, turn.get(..cut).unwrap_or("")));
            }
            turn.truncate(cut);
            // The model continues the generation prompt as far as the rendered turn agrees with it (a
            // prompt that opens `<think>` while history turns drop reasoning agrees only up to there),
            // never cutting a marker in half.
            let mut k = marker_safe_cut(&turn, common_prefix_len(&full_gp, &turn));
            // A generation prompt the history turn does not repeat: the model's text starts after the
            // history turn's own header instead.
            let gp_unmatched = k < full_gp.trim_end_matches(is_space).len() || full_gp.trim_matches(is_space).is_empty();
            if gp_unmatched && !history_header.trim_matches(is_space).is_empty() && turn.starts_with(history_header.as_str()) {
                k = history_header.len();
            }
            let mut gp = turn.get(..k).filter(|_| gp_unmatched).unwrap_or(full_gp.get(..k).unwrap_or("")).to_string();
            let mut output = turn.get(k..).unwrap_or("").to_string();
            // A prompt that leaves reasoning open (`<think>\n`) makes the model close it before
            // answering, which history turns without reasoning do not render: the model continues the
            // whole prompt with an empty reasoning block's end marker, then the turn's text.
            let (rs, re) = (a.reasoning.start.trim_matches(is_space), a.reasoning.end.trim_matches(is_space));
            // (The prompt as far as the turn agrees with it first: the prompt's own reasoning text,
            // e.g. `Here are my reasoning steps:`, is then not read as the model's.)
            let opens = |gp: &str| {
                let prefill = parser_prefill(a, gp, &options);
                !rs.is_empty() && !re.is_empty() && prefill.contains(rs) && !prefill.contains(re)
            };
            if !output.contains(re) && (opens(&gp) || opens(&full_gp)) {
                if !opens(&gp) {
                    gp = full_gp.clone();
                }
                output.insert_str(0, &a.reasoning.end);
            }
            let mut p = StreamParser::new(a, &gp, &options).map_err(|e| e.to_string())?;
            p.push(&output);
            p.finish().map_err(|e| format!("parse: {e}"))?;
            // The whole prompt the model continued: the conversation before the turn, then the part of
            // the turn the prompt wrote.
            let prompt = format!("{}{gp}", full.get(..turn_start).unwrap_or(""));
            Ok((output, p.message().clone(), None, (prompt, gp)))
        })();
        let result = match outcome {
            Ok((output, actual, Some(why), (prompt, generation_prompt))) => {
                VerifyResult { name: name.into(), ok: true, output, expected, actual, error: None, skipped: Some(why.into()), prompt, generation_prompt }
            }
            Ok((output, actual, None, (prompt, generation_prompt))) => {
                let error = mismatch(&expected, &actual);
                VerifyResult { name: name.into(), ok: error.is_none(), output, expected, actual, error, skipped: None, prompt, generation_prompt }
            }
            Err(e) => VerifyResult {
                name: name.into(),
                ok: false,
                output: String::new(),
                expected,
                actual: Message::default(),
                error: Some(e),
                skipped: None,
                prompt: String::new(),
                generation_prompt: String::new(),
            },
        };
        results.push(result);
    }
    VerifyReport { ok: results.iter().all(|r| r.ok), verified: Verified::from_results(&results), results }
}
