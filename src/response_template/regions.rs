//! transformers-style streaming events from our OpenAI deltas: `region_open` / `region_chunk`
//! (with `dirty`) / `region_close`, fields `thinking` / `content` / `tool_calls`, for code written
//! against transformers' `ResponseParser`. Each tool call is one `tool_calls` region (as a
//! repeating field is in transformers); its chunks are argument text (`dirty: true`), its close
//! value the call object. Text regions close with their text stripped, as transformers' `text`
//! parser does; their chunks are the raw text (`dirty: false`).

use crate::api::Delta;
use serde::Serialize;
use serde_json::{json, Value};

/// One region event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RegionEvent {
    RegionOpen { field: String },
    RegionChunk { field: String, text: String, dirty: bool },
    RegionClose { field: String, value: Value },
}

#[derive(Debug, Default)]
struct Open {
    field: &'static str,
    index: usize,
    text: String,
    id: String,
    name: String,
}

/// Turns a delta stream into region events; O(1) per delta plus the text it carries.
#[derive(Debug, Default)]
pub struct RegionTracker {
    open: Option<Open>,
}

impl RegionTracker {
    /// A tracker with no region open.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events for `deltas`, appended to `out`.
    pub fn feed(&mut self, deltas: &[Delta], out: &mut Vec<RegionEvent>) {
        for d in deltas {
            let (field, index) = match d {
                Delta::Reasoning(_) => ("thinking", 0),
                Delta::Content(_) => ("content", 0),
                Delta::ToolCall { index, .. } => ("tool_calls", *index),
            };
            if self.open.as_ref().is_none_or(|o| o.field != field || o.index != index) {
                self.close(out);
                self.open = Some(Open { field, index, ..Open::default() });
                out.push(RegionEvent::RegionOpen { field: field.into() });
            }
            let Some(o) = self.open.as_mut() else { continue };
            match d {
                Delta::Reasoning(s) | Delta::Content(s) => {
                    o.text.push_str(s);
                    out.push(RegionEvent::RegionChunk { field: field.into(), text: s.clone(), dirty: false });
                }
                Delta::ToolCall { id, name, arguments, .. } => {
                    if let Some(id) = id {
                        o.id.push_str(id);
                    }
                    if let Some(n) = name {
                        o.name.push_str(n);
                    }
                    if let Some(a) = arguments.as_ref().filter(|a| !a.is_empty()) {
                        o.text.push_str(a);
                        out.push(RegionEvent::RegionChunk { field: field.into(), text: a.clone(), dirty: true });
                    }
                }
            }
        }
    }

    /// End of output: close the open region.
    pub fn finish(&mut self, out: &mut Vec<RegionEvent>) {
        self.close(out);
    }

    fn close(&mut self, out: &mut Vec<RegionEvent>) {
        let Some(o) = self.open.take() else { return };
        let value = if o.field == "tool_calls" {
            let arguments = serde_json::from_str::<Value>(&o.text).unwrap_or(Value::String(o.text));
            let mut call = json!({ "type": "function", "function": { "name": o.name, "arguments": arguments } });
            if !o.id.is_empty() {
                call["id"] = Value::String(o.id);
            }
            call
        } else {
            Value::String(o.text.trim().to_string())
        };
        out.push(RegionEvent::RegionClose { field: o.field.into(), value });
    }
}
