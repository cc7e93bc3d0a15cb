//! The arguments of a tool call that has no closing marker (`[TOOL_CALLS]name[ARGS]{…}`, `>>>name\n{…}`).
//!
//! Leading whitespace is skipped; a JSON object or array ends where [`JsonExtent`] says it does (a
//! closing bracket of the wrong kind breaks it). Streamed argument text cannot be taken back, so by
//! default the call goes out only once its arguments are whole and valid JSON (serde_json), header and
//! arguments together; a call whose arguments are broken stays content, all of it, with a diagnostic
//! (issue #11 item 11). With `stream` (the request's `streamArguments`) the header goes out at once and
//! the arguments stream; a call that breaks then ends with a diagnostic, its arguments invalid.
//!
//! Arguments that do not start a JSON object or array are not arguments (the call is broken), unless
//! the format wraps such raw text as a JSON string field (Functionary's `>>>python\n<code>` →
//! `{"code": "<code>"}`), always valid JSON: those stream until the parser's next call marker.

use crate::api::Delta;
use crate::parse::drive::{head, tail};
use crate::parse::emit::{Diagnostics, Emitter};
use crate::parse::json_extent::{broken_arguments_message, json_error, Extent, JsonExtent};
use crate::{Error, ErrorKind};

#[derive(Debug, Clone)]
enum Mode {
    /// Skipping whitespace before the value.
    Start,
    Json(JsonExtent),
    /// Raw text wrapped as a JSON string field: until the next call marker (the parser watches for it).
    Raw,
}

/// A call's name, optional id, and its text before the arguments as written (content if it breaks).
#[derive(Debug, Default, Clone)]
pub struct CallHead {
    pub name: String,
    pub id: Option<String>,
    pub source: String,
}

/// Where a parser's call output goes: the call counter (indices are given as calls go out, so a
/// call kept as content takes none), diagnostics, and the deltas through the parser's emitter.
pub struct CallSink<'a> {
    pub calls: &'a mut usize,
    pub diags: &'a mut Diagnostics,
    pub emit: &'a mut Emitter,
    pub out: &'a mut Vec<Delta>,
}

/// What [`CallArgs::feed`] made of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fed {
    /// This many bytes belong to the arguments, which go on.
    More(usize),
    /// The arguments ended after this many bytes: the call is over.
    Done(usize),
    /// The call broke after this many bytes (kept as content, or ended if streamed): the text from
    /// there on is content again.
    Broken(usize),
    /// Nothing can be decided before more text comes (a call marker may be starting).
    Wait,
}

/// How a call is over, for the parser's next state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// The call ended (after-call whitespace may follow).
    Ended,
    /// The call broke: content follows.
    Broke,
}

impl Fed {
    /// The step's result for the parser: bytes consumed (`None`: wait for more text), and whether
    /// and how the call is over.
    pub fn outcome(self) -> (Option<usize>, Option<Over>) {
        match self {
            Fed::More(n) => (Some(n), None),
            Fed::Done(n) => (Some(n), Some(Over::Ended)),
            Fed::Broken(n) => (Some(n), Some(Over::Broke)),
            Fed::Wait => (None, None),
        }
    }
}

/// The arguments of the open call.
#[derive(Debug, Clone)]
pub struct CallArgs {
    head: CallHead,
    /// Where the arguments start in the output (diagnostics).
    at: usize,
    mode: Mode,
    /// Whitespace skipped before the value (content if the call breaks).
    lead: String,
    /// The argument text so far, all of it (checked once the value ends).
    text: String,
    /// Bytes of `text` already sent.
    sent: usize,
    wrap_raw: Option<&'static str>,
    /// The format's call markers: one outside a string breaks the JSON value where it starts.
    stops: &'static [&'static str],
    stream: bool,
    /// The call's index once it went out.
    index: Option<usize>,
}

impl CallArgs {
    /// The arguments of the call `head`, starting at byte `at`. `wrap_raw`: field name under which raw
    /// (non-JSON) arguments are wrapped as a JSON string. `stops`: the format's call markers.
    /// `stream`: the call goes out now and its arguments stream.
    pub fn new(head: CallHead, at: usize, wrap_raw: Option<&'static str>, stops: &'static [&'static str], stream: bool, sink: &mut CallSink) -> Self {
        let mut args = CallArgs { head, at, mode: Mode::Start, lead: String::new(), text: String::new(), sent: 0, wrap_raw, stops, stream, index: None };
        if stream {
            args.send_head(sink);
        }
        args
    }

    /// True once the arguments turned out to be raw text: they end at the parser's next marker.
    pub fn is_raw(&self) -> bool {
        matches!(self.mode, Mode::Raw)
    }

    /// Consume the start of `text` (`at_end`: no more text follows).
    pub fn feed(&mut self, text: &str, at_end: bool, sink: &mut CallSink) -> Fed {
        match &mut self.mode {
            Mode::Start => {
                let ws = text.len() - text.trim_start().len();
                self.lead.push_str(head(text, ws));
                match tail(text, ws).chars().next() {
                    None => Fed::More(ws),
                    Some(c) if JsonExtent::starts_container(c) => {
                        self.mode = Mode::Json(JsonExtent::new());
                        Fed::More(ws)
                    }
                    Some(_) => match self.wrap_raw {
                        Some(field) => {
                            self.mode = Mode::Raw;
                            self.text = format!("{{\"{field}\": \"");
                            self.send_args(sink);
                            Fed::More(ws)
                        }
                        None => self.broken(ws, "they do not start with `{` or `[`", sink),
                    },
                }
            }
            Mode::Json(j) => match j.scan(text, self.stops, at_end) {
                Extent::More => self.more(text, sink),
                Extent::Held(0) => Fed::Wait,
                Extent::Held(n) => self.more(head(text, n), sink),
                Extent::End(n) => {
                    self.text.push_str(head(text, n));
                    self.ended(n, sink)
                }
                Extent::Broken(n) => {
                    self.text.push_str(head(text, n));
                    self.broken(n, "a character that cannot continue a JSON value", sink)
                }
            },
            Mode::Raw => {
                self.text.push_str(&json_string_body(text));
                self.send_args(sink);
                Fed::More(text.len())
            }
        }
    }

    /// `text` belongs to the JSON value, which goes on.
    fn more(&mut self, text: &str, sink: &mut CallSink) -> Fed {
        self.text.push_str(text);
        if self.stream {
            self.send_args(sink);
        }
        Fed::More(text.len())
    }

    /// Raw arguments ended at a call marker: close the wrapped string.
    pub fn close(&mut self, sink: &mut CallSink) {
        if let (Mode::Raw, Some(_)) = (&self.mode, self.wrap_raw) {
            self.text.push_str("\"}");
            self.send_args(sink);
        }
    }

    /// End of output inside the arguments. Raw arguments simply end. JSON arguments cut off go out as
    /// far as they go: fine for a partial output, else an error (`finishReason: length`); ones already
    /// broken (not the start of any JSON value) are content.
    pub fn finish(&mut self, is_partial: bool, sink: &mut CallSink) -> crate::Result<()> {
        if self.is_raw() {
            self.close(sink);
            return Ok(());
        }
        if is_partial {
            self.send_args(sink);
            return Ok(());
        }
        if let Some((why, false)) = json_error(&self.text) {
            self.broken(0, &why, sink);
            return Ok(());
        }
        let index = self.send_args(sink);
        let msg = format!("tool call {index} ends before its JSON arguments are complete");
        sink.diags.add(self.at, msg.clone());
        Err(Error::new(ErrorKind::Parse, msg).with_offset(self.at))
    }

    /// The JSON value ended after `n` bytes of the step's text: the call goes out if it is valid.
    fn ended(&mut self, n: usize, sink: &mut CallSink) -> Fed {
        match json_error(&self.text) {
            None => {
                self.send_args(sink);
                Fed::Done(n)
            }
            Some((why, _)) if self.index.is_some() => {
                self.send_args(sink);
                sink.diags.add(self.at, broken_arguments_message(&why, true));
                Fed::Done(n)
            }
            Some((why, _)) => self.broken(n, &why, sink),
        }
    }

    /// The call broke (`why`) after `n` bytes of the step's text: a call not sent yet is content, all
    /// of it; a streamed one ends with what it sent.
    fn broken(&mut self, n: usize, why: &str, sink: &mut CallSink) -> Fed {
        if self.index.is_some() {
            self.send_args(sink);
            sink.diags.add(self.at, broken_arguments_message(why, true));
            if self.text.is_empty() {
                // Nothing went out as arguments: the whitespace before them is content with the rest.
                sink.emit.content(&self.lead, sink.out);
            }
        } else {
            sink.diags.add(self.at, broken_arguments_message(why, false));
            let text = [self.head.source.as_str(), &self.lead, &self.text].concat();
            sink.emit.content(&text, sink.out);
        }
        Fed::Broken(n)
    }

    /// The call's header, once: its index.
    fn send_head(&mut self, sink: &mut CallSink) -> usize {
        if let Some(index) = self.index {
            return index;
        }
        let index = *sink.calls;
        *sink.calls += 1;
        let name = Some(std::mem::take(&mut self.head.name));
        sink.out.push(Delta::ToolCall { index, id: self.head.id.take(), name, arguments: None });
        self.index = Some(index);
        index
    }

    /// The header if not sent yet, and the argument text not sent yet. Returns the call's index.
    fn send_args(&mut self, sink: &mut CallSink) -> usize {
        let index = self.send_head(sink);
        let rest = tail(&self.text, self.sent).to_string();
        self.sent = self.text.len();
        sink.emit.tool_args(index, rest, sink.out);
        index
    }
}

/// `s` escaped as the inside of a JSON string.
fn json_string_body(s: &str) -> String {
    let quoted = serde_json::Value::from(s).to_string();
    quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or("").to_string()
}
