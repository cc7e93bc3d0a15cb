//! Streaming the arguments of a tool call that has no closing marker
//! (`[TOOL_CALLS]name[ARGS]{…}`, `>>>name\n{…}`).
//!
//! Leading whitespace is skipped; a JSON object or array ends where [`JsonExtent`] says it does.
//! Anything else is "raw" arguments that run until the parser's next call marker; a format can ask
//! to wrap raw text as a JSON string field (Functionary's `>>>python\n<code>` → `{"code": "<code>"}`).

use crate::api::Delta;
use crate::parse::emit::Diagnostics;
use crate::parse::json_extent::{is_valid_json, JsonExtent};
use crate::{Error, ErrorKind};

#[derive(Debug)]
enum Mode {
    /// Skipping whitespace before the value.
    Start,
    Json(JsonExtent),
    /// Not JSON: until the next call marker (the parser watches for it).
    Raw,
}

/// The arguments of the open call.
#[derive(Debug)]
pub struct CallArgs {
    index: usize,
    at: usize,
    mode: Mode,
    text: String,
    wrap_raw: Option<&'static str>,
}

impl CallArgs {
    /// Arguments of call `index`, starting at byte `at`. `wrap_raw`: field name under which raw
    /// (non-JSON) arguments are wrapped as a JSON string.
    pub fn new(index: usize, at: usize, wrap_raw: Option<&'static str>) -> Self {
        CallArgs { index, at, mode: Mode::Start, text: String::new(), wrap_raw }
    }

    /// True once the arguments turned out not to be JSON: they end at the parser's next marker.
    pub fn is_raw(&self) -> bool {
        matches!(self.mode, Mode::Raw)
    }

    /// Consume the start of `text`: returns bytes consumed and whether the arguments are complete.
    pub fn feed(&mut self, text: &str, out: &mut Vec<Delta>) -> (usize, bool) {
        match &mut self.mode {
            Mode::Start => {
                let ws = text.len() - text.trim_start().len();
                match text.get(ws..).and_then(|t| t.chars().next()) {
                    None => (ws, false),
                    Some(c) if JsonExtent::starts_container(c) => {
                        self.mode = Mode::Json(JsonExtent::new());
                        (ws, false)
                    }
                    Some(_) => {
                        self.mode = Mode::Raw;
                        if let Some(field) = self.wrap_raw {
                            self.send(format!("{{\"{field}\": \""), out);
                        }
                        (ws, false)
                    }
                }
            }
            Mode::Json(j) => match j.feed(text) {
                Some(n) => {
                    self.send(text.get(..n).unwrap_or(text).to_string(), out);
                    (n, true)
                }
                None => {
                    self.send(text.to_string(), out);
                    (text.len(), false)
                }
            },
            Mode::Raw => {
                let piece = match self.wrap_raw {
                    Some(_) => json_string_body(text),
                    None => text.to_string(),
                };
                self.send(piece, out);
                (text.len(), false)
            }
        }
    }

    fn send(&mut self, s: String, out: &mut Vec<Delta>) {
        if !s.is_empty() {
            self.text.push_str(&s);
            out.push(Delta::ToolCall { index: self.index, id: None, name: None, arguments: Some(s) });
        }
    }

    /// The call ended at a marker (or the arguments completed): close wrapped raw text, check JSON.
    pub fn close(&mut self, diags: &mut Diagnostics, out: &mut Vec<Delta>) {
        if let (Mode::Raw, Some(_)) = (&self.mode, self.wrap_raw) {
            self.send("\"}".to_string(), out);
        }
        if !is_valid_json(&self.text) {
            diags.add(self.at, format!("arguments of tool call {} are not valid JSON", self.index));
        }
    }

    /// End of output inside the arguments. Raw arguments simply end; truncated JSON arguments are an
    /// error unless the output is partial.
    pub fn finish(&mut self, is_partial: bool, diags: &mut Diagnostics, out: &mut Vec<Delta>) -> crate::Result<()> {
        if self.is_raw() {
            self.close(diags, out);
            return Ok(());
        }
        if is_partial {
            return Ok(());
        }
        let msg = format!("tool call {} ends before its JSON arguments are complete", self.index);
        diags.add(self.at, msg.clone());
        Err(Error::new(ErrorKind::Parse, msg).with_offset(self.at))
    }
}

/// `s` escaped as the inside of a JSON string.
fn json_string_body(s: &str) -> String {
    let quoted = serde_json::Value::from(s).to_string();
    quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or("").to_string()
}
