//! The generic parser, for model output without a template to analyse.
//!
//! It recognises configurable reasoning blocks (default `<think>…</think>`) and tool-call blocks
//! (default `<tool_call>{"name": …, "arguments": …}</tool_call>`), and is code-block aware: inside a
//! ```` ``` ```` fence (opened at the start of a line) markers are plain content, so a model explaining
//! `<tool_call>` syntax in a code sample is not executed. Reasoning streams; a tool call is buffered
//! until its end marker (or, for markers configured with an empty end, until its JSON value ends) and
//! then emitted whole. Bodies that are not a tool-call JSON are released as content with a diagnostic.

use crate::api::{Delta, ReasoningFormat};
use crate::parse::drive::{head, machine_parts, Input, Machine, MarkerMachine, MarkerSet};
use crate::parse::emit::{Diagnostics, Emitter};
use crate::parse::json_extent::JsonExtent;
use crate::{Error, ErrorKind, Result};
use serde_json::Value;
use std::rc::Rc;

const FENCE: &str = "```";

/// What the generic parser looks for.
#[derive(Debug, Clone)]
pub struct GenericConfig {
    /// (start, end) pairs delimiting reasoning.
    pub reasoning_markers: Vec<(String, String)>,
    /// (start, end) pairs around a JSON tool call (`{"name", "arguments"}`, or an array of them). An
    /// empty end means the call ends with its JSON value.
    pub tool_call_markers: Vec<(String, String)>,
    /// Treat markers inside ```` ``` ```` fenced blocks as content.
    pub code_blocks: bool,
    /// How reasoning is reported.
    pub reasoning: ReasoningFormat,
    /// The prompt already opened a reasoning block (output starts inside it, with the first pair's end).
    pub start_in_reasoning: bool,
    /// The request has a response-format schema: unwrap a fenced JSON answer.
    pub json_response: bool,
}

impl Default for GenericConfig {
    fn default() -> Self {
        GenericConfig {
            reasoning_markers: vec![("<think>".into(), "</think>".into())],
            tool_call_markers: vec![("<tool_call>".into(), "</tool_call>".into())],
            code_blocks: true,
            reasoning: ReasoningFormat::Auto,
            start_in_reasoning: false,
            json_response: false,
        }
    }
}

/// What a content-state marker starts.
#[derive(Debug, Clone, Copy)]
enum Opens {
    Reasoning(usize),
    Tool(usize),
    Fence,
}

#[derive(Debug, Clone)]
enum State {
    Content,
    Reasoning { pair: usize },
    Tool { pair: usize, body: String, at: usize, json: Option<JsonExtent> },
}

/// The generic output parser.
#[derive(Debug, Clone)]
pub struct GenericParser {
    // Shared so a step can hold the marker list while it mutates the parser.
    config: Rc<GenericConfig>,
    content_markers: Rc<Vec<(String, Opens)>>,
    emit: Emitter,
    state: State,
    in_code: bool,
    /// Only whitespace since the last newline of content (a fence must start a line).
    line_blank: bool,
    input: Input,
    calls: usize,
    diags: Diagnostics,
}

impl GenericParser {
    /// A parser for `config` (empty start markers are ignored).
    pub fn new(config: GenericConfig) -> Self {
        let mut content_markers = Vec::new();
        for (i, (s, _)) in config.reasoning_markers.iter().enumerate() {
            content_markers.push((s.clone(), Opens::Reasoning(i)));
        }
        for (i, (s, _)) in config.tool_call_markers.iter().enumerate() {
            content_markers.push((s.clone(), Opens::Tool(i)));
        }
        if config.code_blocks {
            content_markers.push((FENCE.into(), Opens::Fence));
        }
        content_markers.retain(|(s, _)| !s.is_empty());
        let state = if config.start_in_reasoning && !config.reasoning_markers.is_empty() {
            State::Reasoning { pair: 0 }
        } else {
            State::Content
        };
        GenericParser {
            emit: Emitter::new(config.reasoning, config.json_response),
            config: Rc::new(config),
            content_markers: Rc::new(content_markers),
            state,
            in_code: false,
            line_blank: true,
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
        }
    }

    fn end_marker(config: &GenericConfig, pair: usize, tool: bool) -> &str {
        let pairs = if tool { &config.tool_call_markers } else { &config.reasoning_markers };
        pairs.get(pair).map_or("", |p| p.1.as_str())
    }

    fn content(&mut self, text: &str, out: &mut Vec<Delta>) {
        self.line_blank = match text.rfind('\n') {
            Some(p) => text.get(p..).unwrap_or("").trim().is_empty(),
            None => self.line_blank && text.trim().is_empty(),
        };
        self.emit.content(text, out);
    }

    /// A tool call configured without end marker: its body is one JSON value.
    fn feed_json(&mut self, rest: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        let State::Tool { pair, body, at: t_at, json: Some(j) } = &mut self.state else {
            return 0;
        };
        if body.trim().is_empty() {
            // Leading whitespace is kept in the body so a non-JSON flush loses nothing.
            let ws = rest.len() - rest.trim_start().len();
            body.push_str(head(rest, ws));
            match rest.get(ws..).and_then(|t| t.chars().next()) {
                Some(c) if JsonExtent::starts_container(c) && ws == 0 => {}
                Some(c) if !JsonExtent::starts_container(c) => {
                    let (pair, body) = (*pair, std::mem::take(body));
                    self.state = State::Content;
                    self.diags.add(at + ws, "tool-call marker not followed by JSON, kept as content");
                    let mut s = self.config.tool_call_markers.get(pair).map_or("", |p| p.0.as_str()).to_string();
                    s.push_str(&body);
                    self.content(&s, out);
                    return ws;
                }
                _ => return ws,
            }
        }
        match j.feed(rest) {
            Some(n) => {
                body.push_str(head(rest, n));
                let (pair, body, t_at) = (*pair, std::mem::take(body), *t_at);
                self.state = State::Content;
                self.complete_call(pair, &body, t_at, true, out);
                n
            }
            None => {
                body.push_str(rest);
                rest.len()
            }
        }
    }

    /// Emit the call(s) in `body`, or release the block as content if it is not a tool call.
    /// `closed`: the end marker (or the JSON end) was seen.
    fn complete_call(&mut self, pair: usize, body: &str, at: usize, closed: bool, out: &mut Vec<Delta>) {
        match parse_calls(body) {
            Some(calls) => {
                if !closed {
                    self.diags.add(at, "tool call without its end marker");
                }
                for (id, name, args) in calls {
                    let index = self.calls;
                    self.calls += 1;
                    let id = (!id.is_empty()).then_some(id);
                    out.push(Delta::ToolCall { index, id, name: Some(name), arguments: Some(args) });
                }
            }
            None => {
                self.diags.add(at, "tool-call block is not a JSON tool call, kept as content");
                let (start, end) = self.config.tool_call_markers.get(pair).cloned().unwrap_or_default();
                let mut s = start;
                s.push_str(body);
                if closed {
                    s.push_str(&end);
                }
                self.content(&s, out);
            }
        }
    }
}

/// Tool calls in a JSON body: one object or an array of objects, each `{"name", "arguments"}`
/// (`parameters` accepted, an OpenAI `{"function": {...}}` wrapper too). None if any is malformed
/// or has members other than those.
fn parse_calls(body: &str) -> Option<Vec<(String, String, String)>> {
    let v: Value = serde_json::from_str(body.trim()).ok()?;
    let items = match v {
        Value::Array(a) => a,
        o @ Value::Object(_) => vec![o],
        _ => return None,
    };
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| {
            let f = item.get("function").filter(|f| f.is_object()).unwrap_or(item);
            // A member we do not read would be dropped silently: such an object is not a call.
            const KNOWN: [&str; 6] = ["name", "arguments", "parameters", "id", "type", "function"];
            let known = |o: &Value| o.as_object().is_some_and(|m| m.keys().all(|k| KNOWN.contains(&k.as_str())));
            if !known(item) || !known(f) {
                return None;
            }
            let name = f.get("name")?.as_str().filter(|n| !n.is_empty())?.to_string();
            let args = match f.get("arguments").or_else(|| f.get("parameters")) {
                // A JSON-encoded string is what it encodes (rule R17's reading); any other string
                // stays the string it was written as, a JSON string (arguments are always JSON).
                Some(Value::String(s)) if serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok() => s.clone(),
                Some(v) => v.to_string(),
                None => "{}".to_string(),
            };
            let id = item.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            Some((id, name, args))
        })
        .collect()
}

impl Machine for GenericParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        let mut result = Ok(());
        if let State::Tool { pair, body, at, .. } = std::mem::replace(&mut self.state, State::Content) {
            if !is_partial {
                if parse_calls(&body).is_none() {
                    let msg = "output ended inside a tool call";
                    self.diags.add(at, msg);
                    result = Err(Error::new(ErrorKind::Parse, msg).with_offset(at));
                }
                self.complete_call(pair, &body, at, false, out);
            }
        }
        result
    }

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let (config, content) = (Rc::clone(&self.config), Rc::clone(&self.content_markers));
        let markers: Vec<&str> = match &self.state {
            State::Content if self.in_code => vec![FENCE],
            State::Content => content.iter().map(|(s, _)| s.as_str()).collect(),
            State::Reasoning { pair } => vec![Self::end_marker(&config, *pair, false)],
            State::Tool { json: Some(_), .. } => return Some(self.feed_json(rest, at, out)),
            State::Tool { pair, .. } => vec![Self::end_marker(&config, *pair, true)],
        };
        self.scan_step(rest, &MarkerSet::new(&markers), at, at_end, out)
    }

}

impl MarkerMachine for GenericParser {
    fn on_text(&mut self, text: &str, _at: usize, out: &mut Vec<Delta>) -> usize {
        match &mut self.state {
            State::Content => self.content(text, out),
            State::Reasoning { .. } => self.emit.reasoning(text, out),
            State::Tool { body, .. } => body.push_str(text),
        }
        text.len()
    }

    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<Delta>) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Content => {
                let opens = self.content_markers.iter().find(|(s, _)| s == m).map(|(_, o)| *o);
                match opens {
                    _ if self.in_code || matches!(opens, Some(Opens::Fence)) => {
                        if self.line_blank {
                            self.in_code = !self.in_code;
                        }
                        self.content(m, out);
                    }
                    Some(Opens::Reasoning(pair)) => {
                        self.emit.reasoning_marker(m, out);
                        self.state = State::Reasoning { pair };
                    }
                    Some(Opens::Tool(pair)) => {
                        let json = Self::end_marker(&self.config, pair, true).is_empty().then(JsonExtent::new);
                        self.state = State::Tool { pair, body: String::new(), at, json };
                    }
                    _ => self.content(m, out),
                }
            }
            State::Reasoning { .. } => self.emit.reasoning_marker(m, out),
            State::Tool { pair, body, at: t_at, .. } => self.complete_call(pair, &body, t_at, true, out),
        }
    }
}

