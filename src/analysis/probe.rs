//! Probe conversations and `compare_variants`: render variant A and variant B = modify(A), split the
//! two outputs, and record the comparison.
//!
//! The probe strings are deliberately unlike anything a template prints, so that finding them in a
//! render is unambiguous. They match llama.cpp's, so our splits can be checked against its record.

use super::diff::{calculate_diff_split, DiffSplit};
use crate::findings::DiffRecord;
use crate::template::Template;
use serde_json::{json, Map, Value};

pub const FUN_FIRST: &str = "FFF_FIRST_FUN_F";
pub const FUN_SECOND: &str = "SSS_SECOND_FUN_S";
pub const ARG_FIRST: &str = "AA_ARG_FST_AA";
pub const ARG_SECOND: &str = "BB_ARG_SND_BB";
pub const USER_MSG: &str = "U_USER_MSG Hello END_U";
pub const USER_MSG_TWO: &str = "V_USER_MSG Hello END_V";
pub const ASSISTANT_MSG: &str = "A_ASST_MSG I can help END_A";
pub const THINKING: &str = "REASON_PART I am thinking END_R";
pub const CALL_ID_001: &str = "call00001";
pub const CALL_ID_002: &str = "call00002";
pub const CALL_ID_999: &str = "call99999";

/// Render inputs of one variant.
#[derive(Debug, Clone)]
pub struct Params {
    pub messages: Vec<Value>,
    /// Tool definitions; the `tools` key is absent when `None`.
    pub tools: Option<Value>,
    pub add_generation_prompt: bool,
    pub enable_thinking: bool,
    /// Further variables set for this probe (another name of the thinking switch).
    pub switches: Vec<(String, Value)>,
}

impl Params {
    /// A conversation without tools, no generation prompt, thinking enabled.
    pub fn new(messages: Vec<Value>) -> Self {
        Params { messages, tools: None, add_generation_prompt: false, enable_thinking: true, switches: Vec::new() }
    }

    /// The same with the two probe tools defined.
    pub fn with_tools(messages: Vec<Value>) -> Self {
        Params { tools: Some(probe_tools()), ..Params::new(messages) }
    }

    fn context(&self, extra: &Map<String, Value>) -> Value {
        let mut ctx = extra.clone();
        ctx.insert("messages".into(), Value::Array(self.messages.clone()));
        if let Some(t) = &self.tools {
            ctx.insert("tools".into(), t.clone());
        }
        ctx.insert("add_generation_prompt".into(), self.add_generation_prompt.into());
        ctx.insert("enable_thinking".into(), self.enable_thinking.into());
        for (k, v) in &self.switches {
            ctx.insert(k.clone(), v.clone());
        }
        // Probes render without special tokens, so they never show up as markers.
        ctx.insert("bos_token".into(), "".into());
        ctx.insert("eos_token".into(), "".into());
        Value::Object(ctx)
    }
}

/// The two probe tools, each taking two optional string arguments.
pub fn probe_tools() -> Value {
    let params = json!({
        "type": "object",
        "properties": {
            ARG_FIRST: {"type": "string", "description": "First argument"},
            ARG_SECOND: {"type": "string", "description": "Second argument"}
        },
        "required": []
    });
    json!([
        {"type": "function", "function": {"name": FUN_FIRST, "description": "Test function foo", "parameters": params}},
        {"type": "function", "function": {"name": FUN_SECOND, "description": "Test function bar", "parameters": params}}
    ])
}

pub fn user(content: &str) -> Value {
    json!({"role": "user", "content": content})
}

/// An assistant message. Reasoning is given both as `reasoning_content` and `thinking`, the two
/// field names templates read.
pub fn assistant(content: Value, reasoning: Option<&str>, tool_calls: Option<Vec<Value>>) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), "assistant".into());
    m.insert("content".into(), content);
    if let Some(r) = reasoning {
        m.insert("reasoning_content".into(), r.into());
    }
    if let Some(calls) = tool_calls {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(r) = reasoning {
        m.insert("thinking".into(), r.into());
    }
    Value::Object(m)
}

/// Assistant message with plain text content.
pub fn assistant_text(text: &str) -> Value {
    assistant(text.into(), None, None)
}

/// Assistant message with empty content and these tool calls.
pub fn assistant_calls(calls: Vec<Value>) -> Value {
    assistant("".into(), None, Some(calls))
}

pub fn tool_call(name: &str, args: Value, id: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
}

/// `FUN_FIRST(ARG_FIRST="XXXX", ARG_SECOND="YYYY")` with id `call00001`.
pub fn first_call() -> Value {
    tool_call(FUN_FIRST, json!({ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"}), CALL_ID_001)
}

/// `FUN_SECOND(ARG_FIRST="XXXX", ARG_SECOND="YYYY")` with id `call00002`.
pub fn second_call() -> Value {
    tool_call(FUN_SECOND, json!({ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"}), CALL_ID_002)
}

/// Both renders of a comparison and their split.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub diff: DiffSplit,
    pub output_a: String,
    pub output_b: String,
}

/// Renders probes and keeps the record of every comparison.
pub struct Prober<'t> {
    pub template: &'t Template,
    pub diffs: Vec<DiffRecord>,
    pub diagnostics: Vec<String>,
    /// Set by a step that could not do its part (not by probes a template merely refuses).
    pub incomplete: bool,
    /// Variables the template reads but the probes do not define (e.g. `functions`), given as "".
    extra: Map<String, Value>,
    /// A probe with `content: null` only rendered once the null was replaced by "".
    pub requires_nonnull_content: bool,
    /// Tool-call turns are rendered in the OpenAI wire shape (see [`in_wire_shape`]): decided once
    /// per analysis by [`Prober::decide_call_shape`].
    pub wire_shape: bool,
    /// Every tool call is rendered with its function name as its id (see [`with_ids_as_names`]): set by
    /// tools.14 for a template that writes the id where the name goes.
    pub ids_as_names: bool,
}

/// The messages with every tool-call turn in the OpenAI wire shape: `content: ""` becomes null and
/// object `arguments` a JSON string. Some templates render a call only for that shape (`content is
/// none`, `'…' + arguments`). The string is serde_json's compact form, as llama.cpp and our caps probe
/// serialise arguments: any whitespace around the arguments in a render is then the template's own.
pub fn in_wire_shape(p: &Params) -> Params {
    let mut q = p.clone();
    for m in &mut q.messages {
        let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut).filter(|c| !c.is_empty()) else { continue };
        for call in calls {
            if let Some(args) = call.get_mut("function").and_then(|f| f.get_mut("arguments")).filter(|a| !a.is_string()) {
                *args = Value::String(args.to_string());
            }
        }
        if let Some(c) = m.get_mut("content").filter(|c| c.as_str() == Some("")) {
            *c = Value::Null;
        }
    }
    q
}

/// The messages with every tool call's id replaced by its function name: an id that embeds the name,
/// so a template that writes the id where the name goes shows the name there (tools.14).
pub fn with_ids_as_names(p: &Params) -> Params {
    let mut q = p.clone();
    for m in &mut q.messages {
        let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut) else { continue };
        for call in calls {
            if let Some(name) = call.get("function").and_then(|f| f.get("name")).cloned() {
                call["id"] = name;
            }
        }
    }
    q
}

/// The messages with every `content: null` replaced by "" (None when there is none).
fn without_null_content(p: &Params) -> Option<Params> {
    let mut q = p.clone();
    let mut changed = false;
    for m in &mut q.messages {
        if let Some(c) = m.get_mut("content").filter(|c| c.is_null()) {
            *c = "".into();
            changed = true;
        }
    }
    changed.then_some(q)
}

impl<'t> Prober<'t> {
    pub fn new(template: &'t Template) -> Self {
        Prober {
            template,
            diffs: Vec::new(),
            diagnostics: Vec::new(),
            incomplete: false,
            extra: Map::new(),
            requires_nonnull_content: false,
            wire_shape: false,
            ids_as_names: false,
        }
    }

    /// Decide once how tool-call turns are sent: as the probes write them (`content: ""`, object
    /// arguments) unless the one-call probe then fails to render or renders no call (the function name
    /// shows no more often than in a text turn, where only the tool definitions name it) while the
    /// OpenAI wire shape renders it. Not recorded as a comparison: the llama.cpp-compatible record is
    /// unchanged for every template that takes the probes' shape.
    pub fn decide_call_shape(&mut self) {
        // The later probes report the renders' notes in their own order.
        let notes = self.diagnostics.len();
        let text = Params::with_tools(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)]);
        let named = |r: crate::Result<String>| r.map(|out| out.matches(FUN_FIRST).count());
        let in_text = named(self.render(&text)).unwrap_or(0);
        let call = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call()])]);
        let renders_call = |r: crate::Result<String>| named(r).is_ok_and(|n| n > in_text);
        if !renders_call(self.render(&call)) {
            let nonnull_before = self.requires_nonnull_content;
            self.wire_shape = true;
            if !renders_call(self.render(&call)) {
                self.wire_shape = false;
                self.requires_nonnull_content = nonnull_before;
            }
        }
        self.diagnostics.truncate(notes);
    }

    /// Render a probe leniently ([`ChatTemplate::render_lenient`]: variables the caller is expected to
    /// provide, such as `functions` or `datetime`, become ""), and retry a template that cannot take
    /// `content: null` with "" (remembered as `requires_nonnull_content`). With `wire_shape`, tool-call
    /// turns are sent in the OpenAI wire shape; with `ids_as_names`, every call's id is its name.
    pub fn render(&mut self, p: &Params) -> crate::Result<String> {
        let named;
        let p = if self.ids_as_names {
            named = with_ids_as_names(p);
            &named
        } else {
            p
        };
        let wire;
        let p = if self.wire_shape {
            wire = in_wire_shape(p);
            &wire
        } else {
            p
        };
        let (out, notes) = match self.template.render_probe(&p.context(&self.extra)) {
            Ok(r) => r,
            Err(e) => {
                let Some(q) = without_null_content(p) else { return Err(e) };
                let r = self.template.render_probe(&q.context(&self.extra))?;
                self.requires_nonnull_content = true;
                r
            }
        };
        for n in notes {
            if !self.diagnostics.contains(&n) {
                self.diagnostics.push(n);
            }
        }
        Ok(out)
    }

    /// Render `a` and `modify(a)`, split the outputs, record the comparison under `step`.
    /// `None` (recorded with `ok=false`) when either render fails.
    pub fn compare(&mut self, step: &str, changed: &str, a: &Params, modify: impl FnOnce(&mut Params)) -> Option<Comparison> {
        let mut b = a.clone();
        modify(&mut b);
        let (ra, rb) = (self.render(a), self.render(&b));
        match (ra, rb) {
            (Ok(output_a), Ok(output_b)) => {
                let diff = self.split(step, changed, &output_a, &output_b);
                Some(Comparison { diff, output_a, output_b })
            }
            (ra, rb) => {
                let err = ra.err().or(rb.err()).map(|e| e.to_string()).unwrap_or_default();
                self.diagnostics.push(format!("{step}: render failed ({changed}): {err}"));
                self.diffs.push(DiffRecord { step: step.into(), changed: changed.into(), ok: false, ..Default::default() });
                None
            }
        }
    }

    /// Split two strings and record the split.
    pub fn split(&mut self, step: &str, changed: &str, left: &str, right: &str) -> DiffSplit {
        let diff = calculate_diff_split(left, right);
        let d = diff.clone();
        self.diffs.push(DiffRecord { step: step.into(), changed: changed.into(), ok: true, prefix: d.prefix, left: d.left, right: d.right, suffix: d.suffix });
        diff
    }
}

#[cfg(test)]
mod wire_shape_tests {
    use super::*;

    #[test]
    fn only_call_turns_change_shape() {
        let p = Params::new(vec![user(USER_MSG), assistant_text(""), assistant_calls(vec![first_call()]), assistant(ASSISTANT_MSG.into(), None, Some(vec![second_call()]))]);
        let q = in_wire_shape(&p);
        assert_eq!(q.messages[1]["content"], "", "a turn without calls keeps its content");
        assert!(q.messages[2]["content"].is_null());
        assert_eq!(q.messages[2]["tool_calls"][0]["function"]["arguments"], json!(r#"{"AA_ARG_FST_AA":"XXXX","BB_ARG_SND_BB":"YYYY"}"#));
        assert_eq!(q.messages[3]["content"], ASSISTANT_MSG, "text content stays");
        assert!(q.messages[3]["tool_calls"][0]["function"]["arguments"].is_string());
        assert_eq!(in_wire_shape(&q).messages, q.messages, "string arguments stay as they are");
    }
}
