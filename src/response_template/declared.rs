//! A declared `response_template` as one of our output parsers: its region events become OpenAI
//! deltas, so `StreamParser`, `parseOutput` and region events work the same for it.
//!
//! Text fields named `content` / `thinking` / `reasoning` / `reasoning_content` stream as content
//! and reasoning deltas, stripped as transformers' `text` parser strips (leading whitespace of a
//! region dropped, trailing whitespace held until more text follows); `join` strings are emitted
//! between pieces. `tool_calls` regions become tool-call deltas when they close. Other fields are
//! not part of an OpenAI message (use `parse_response` for the whole dict). A region whose body
//! does not parse is kept as content with a diagnostic; nothing fails on model output.
//!
//! Text leaves through the [`Emitter`], as every format's does, so the request's `reasoningFormat`
//! applies: under `none` the reasoning regions' text stays in content, where it stands in the reply
//! (without its delimiters: the regions report their text, not the markers that opened them).
//! (A response-format schema's code fence is left as the template reads it.)

use super::interpret::{CompiledTemplate, ResponseParser};
use super::regions::RegionEvent;
use crate::api::{Delta, Diagnostic, RequestOptions};
use crate::parse::emit::Emitter;
use crate::parse::OutputParser;
use crate::Result;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Content,
    Reasoning,
    Tools,
    Other,
}

/// Whether a field of a declared template is the message's reasoning.
pub(super) fn is_reasoning(field: &str) -> bool {
    role(field) == Role::Reasoning
}

fn role(field: &str) -> Role {
    match field {
        "content" => Role::Content,
        "thinking" | "reasoning" | "reasoning_content" => Role::Reasoning,
        "tool_calls" => Role::Tools,
        _ => Role::Other,
    }
}

/// Our `OutputParser` over a declared template.
#[derive(Debug)]
pub struct DeclaredParser {
    inner: ResponseParser,
    /// Per text field: (strip, join) from the template.
    text: HashMap<String, (bool, Option<String>)>,
    /// Closes seen per field (for `join`), and whether the open region emitted text yet.
    closes: HashMap<String, usize>,
    region_emitted: bool,
    /// Whitespace held at the end of the open text region.
    held_ws: String,
    calls: usize,
    diagnostics: Vec<Diagnostic>,
    consumed: usize,
    writes: HashMap<String, usize>,
    /// Where text goes for the request's `reasoningFormat`.
    emit: Emitter,
}

impl DeclaredParser {
    /// A parser positioned after `prefix` (the generation prompt, or the whole rendered prompt).
    pub fn new(t: Rc<CompiledTemplate>, prefix: &str, options: &RequestOptions, initial: &mut Vec<Delta>) -> Result<DeclaredParser> {
        let mut text = HashMap::new();
        for (name, f) in &t.spec.fields {
            let strip = f.content_args.as_ref().and_then(|a| a.get("strip")).and_then(Value::as_bool).unwrap_or(true);
            text.insert(name.clone(), (strip, f.join.clone()));
        }
        let inner = ResponseParser::lenient(t, prefix, &options.tools)?;
        let mut p = DeclaredParser {
            inner,
            text,
            closes: HashMap::new(),
            region_emitted: false,
            held_ws: String::new(),
            calls: 0,
            diagnostics: Vec::new(),
            consumed: 0,
            writes: HashMap::new(),
            emit: Emitter::new(options.reasoning_format, false),
        };
        let events = std::mem::take(&mut p.inner.initial_events);
        p.convert(&events, initial);
        Ok(p)
    }

    fn emit_text(&mut self, field: &str, r: Role, text: &str, out: &mut Vec<Delta>) {
        let (strip, join) = self.text.get(field).cloned().unwrap_or((true, None));
        let mut piece = String::new();
        if !strip {
            piece.push_str(text);
        } else {
            // A region's leading whitespace is dropped; trailing whitespace waits for more text.
            let t = if self.region_emitted { text } else { text.trim_start() };
            let body = t.trim_end();
            if !body.is_empty() {
                piece.push_str(&std::mem::take(&mut self.held_ws));
                piece.push_str(body);
            }
            self.held_ws.push_str(&t[body.len()..]);
        }
        if piece.is_empty() {
            return;
        }
        if !self.region_emitted {
            if let Some(j) = join.filter(|j| !j.is_empty() && self.closes.get(field).copied().unwrap_or(0) > 0) {
                piece.insert_str(0, &j);
            }
        }
        self.region_emitted = true;
        self.text_delta(r, &piece, out);
    }

    /// Text of a reasoning or content field, to where the request's `reasoningFormat` sends it.
    fn text_delta(&mut self, r: Role, text: &str, out: &mut Vec<Delta>) {
        if r == Role::Reasoning {
            self.emit.reasoning(text, out);
        } else {
            self.emit.content(text, out);
        }
    }

    fn convert(&mut self, events: &[RegionEvent], out: &mut Vec<Delta>) {
        self.emit.begin(out.len());
        for e in events {
            match e {
                RegionEvent::RegionOpen { .. } => {
                    self.region_emitted = false;
                    self.held_ws.clear();
                }
                RegionEvent::RegionChunk { field, text, dirty: false } => {
                    let r = role(field);
                    if matches!(r, Role::Content | Role::Reasoning) {
                        self.emit_text(field, r, text, out);
                    }
                }
                RegionEvent::RegionChunk { .. } => {}
                RegionEvent::RegionClose { field, value } => {
                    let r = role(field);
                    let (_, join) = self.text.get(field).cloned().unwrap_or((true, None));
                    let n = self.closes.entry(field.clone()).or_default();
                    let closed_before = *n > 0;
                    *n += 1;
                    if !self.region_emitted && closed_before {
                        if let Some(j) = join.clone().filter(|j| !j.is_empty()) {
                            self.text_delta(r, &j, out);
                        }
                    }
                    self.held_ws.clear();
                    self.region_emitted = false;
                    match r {
                        Role::Tools => self.tool_calls(value, out),
                        Role::Content | Role::Reasoning => {
                            let w = self.writes.entry(field.clone()).or_default();
                            *w += 1;
                            if *w == 2 && join.is_none() {
                                self.diagnostics.push(Diagnostic::new(
                                    self.consumed,
                                    format!("field '{field}' was written more than once: transformers keeps only the last, the message keeps all"),
                                ));
                            }
                        }
                        Role::Other => {}
                    }
                }
            }
        }
    }

    fn tool_calls(&mut self, value: &Value, out: &mut Vec<Delta>) {
        let calls: Vec<&Value> = match value {
            Value::Array(a) => a.iter().collect(),
            Value::String(raw) => {
                // The region did not parse (lenient mode): its text stays content.
                self.diagnostics.push(Diagnostic::new(self.consumed, "a tool_calls region did not parse; kept as content"));
                self.emit.content(raw, out);
                return;
            }
            other => vec![other],
        };
        for c in calls {
            let f = c.get("function").unwrap_or(c);
            let name = f.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => serde_json::to_string(v).unwrap_or_default(),
                None => "{}".into(),
            };
            let id = c.get("id").and_then(Value::as_str).map(str::to_string);
            out.push(Delta::ToolCall { index: self.calls, id, name: Some(name), arguments: Some(arguments) });
            self.calls += 1;
        }
    }

    fn note_errors(&mut self) {
        for (at, msg) in std::mem::take(&mut self.inner.errors) {
            let offset = self.inner.output_offset(at);
            self.diagnostics.push(Diagnostic::new(offset, msg));
        }
    }
}

impl OutputParser for DeclaredParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Delta>) {
        self.consumed += chunk.len();
        match self.inner.feed(chunk) {
            Ok(events) => self.convert(&events, out),
            Err(e) => self.diagnostics.push(Diagnostic::new(self.consumed, e.to_string())),
        }
        self.note_errors();
    }

    fn finish(&mut self, _is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        match self.inner.finalize() {
            Ok((_, events)) => self.convert(&events, out),
            Err(e) => self.diagnostics.push(Diagnostic::new(self.consumed, e.to_string())),
        }
        self.emit.finish(out);
        self.note_errors();
        Ok(())
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}
