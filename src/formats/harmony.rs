//! GPT-OSS "harmony" output: a sequence of messages
//! `<|start|>assistant<|channel|>analysis<|message|>…<|end|>`.
//!
//! The header (between `<|start|>` and `<|message|>`) names a channel and optionally a recipient
//! (`to=functions.NAME`, before or after the channel) and a constraint (`<|constrain|>json`). Routing:
//! `analysis` → reasoning, `final` / `commentary` → content, a `functions.` recipient → a tool call
//! whose arguments are the body, streamed; other recipients (built-in tools such as `python`) are not
//! function calls and their bodies are dropped with a diagnostic. `<|return|>` stops; after `<|call|>`
//! only another message goes on (the next call of a parallel turn).
//!
//! Headers are buffered until `<|message|>` (they are short); bodies stream with only a possible marker
//! prefix held back. A header that breaks (newline, too long, or a message marker missing) is released
//! as content with a diagnostic, so no text is lost.

use super::call_args::CallSink;
#[cfg(feature = "full")]
use super::regions::{Open, Part, Region, RegionLoss, ReplyRegions};
use super::{prefilled, Format};
use crate::findings::Analysis;
use crate::api::{Delta, ReasoningFormat, RequestOptions};
#[cfg(feature = "full")]
use crate::gbnf::{Expr, Shape, Tool, ToolGrammar, Trigger};
use crate::parse::drive::{head, machine_parts, next_marker, tail, Input, Machine, MarkerMachine, MarkerSet};
use crate::parse::emit::{release_after_ws, Diagnostics, Emitter};
use crate::parse::json_extent::{broken_arguments_message, json_error};
use crate::parse::OutputParser;
use crate::{Error, ErrorKind, Result};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
const CONSTRAIN: &str = "<|constrain|>";
const END: &str = "<|end|>";
const RETURN: &str = "<|return|>";
const CALL: &str = "<|call|>";

const BETWEEN_MARKERS: [&str; 6] = [START, CHANNEL, MESSAGE, END, RETURN, CALL];
const HEADER_MARKERS: [&str; 5] = [MESSAGE, START, END, RETURN, CALL];
const BODY_MARKERS: [&str; 5] = [END, RETURN, CALL, START, CHANNEL];
// The marker lists each state scans for, with their first bytes computed at compile time.
const BETWEEN: MarkerSet<'static> = MarkerSet::new(&BETWEEN_MARKERS);
const HEADER: MarkerSet<'static> = MarkerSet::new(&HEADER_MARKERS);
const BODY: MarkerSet<'static> = MarkerSet::new(&BODY_MARKERS);
const NONE: MarkerSet<'static> = MarkerSet::new(&[]);
const AFTER_CALL: MarkerSet<'static> = MarkerSet::new(&[START]);

/// Longest header text accepted; real headers are a few dozen bytes.
const MAX_HEADER: usize = 256;
const AFTER_STOP: &str = "text after a harmony stop marker ignored";
/// The role harmony assistant messages carry.
const ROLE: &str = "assistant";

/// Where the body of the current message goes.
#[derive(Debug, Clone)]
enum Dest {
    Content,
    Reasoning,
    Tool(ToolMessage),
    /// A message to a non-function recipient (built-in tool): not part of the reply.
    Ignored,
}

/// A message to `functions.NAME`: a tool call. By default it goes out only once its body has ended
/// and is valid JSON, header and arguments together; a broken one stays content, header text
/// included, with a diagnostic (issue #11 item 11). With `streamArguments` it goes out at its header
/// and the body streams as arguments.
#[derive(Debug, Clone)]
struct ToolMessage {
    name: String,
    /// Header words not understood: content, once the call goes out (or with the call's text).
    unknown: String,
    /// The header as written (without `<|start|>` and the role) and `<|message|>`: content if the
    /// call breaks.
    source: String,
    args: String,
    /// Bytes of `args` already sent.
    sent: usize,
    /// Where the body starts (diagnostics).
    at: usize,
    /// The call's index once it went out.
    index: Option<usize>,
}

#[derive(Debug, Clone)]
enum State {
    /// Outside a message. Trailing whitespace is held (dropped if a message follows).
    Between { ws: String },
    /// Inside a header; `raw` is its text after `<|start|>`.
    Header { raw: String, at: usize, started: bool },
    Body(Dest),
    /// After `<|return|>`.
    Stopped,
    /// After `<|call|>`: only another message (`<|start|>`, a further call of a parallel turn) goes
    /// on; other text is ignored as after a stop.
    AfterCall,
}

/// Parsed header fields.
#[derive(Debug, Default, PartialEq)]
struct Header {
    channel: Option<String>,
    recipient: Option<String>,
    /// Header words not understood, in order.
    unknown: Vec<String>,
    /// The body's content type (`json`).
    content_type: Option<String>,
}

/// The channels harmony defines.
const CHANNELS: [&str; 3] = ["analysis", "commentary", "final"];

/// The harmony output parser.
#[derive(Debug, Clone)]
pub struct HarmonyParser {
    emit: Emitter,
    state: State,
    input: Input,
    calls: usize,
    diags: Diagnostics,
    stopped: bool,
    /// Tool-call bodies stream as written instead of going out whole once valid (`streamArguments`).
    stream_arguments: bool,
}

impl HarmonyParser {
    /// `json_response`: the request has a response-format schema.
    pub fn new(reasoning: ReasoningFormat, json_response: bool) -> Self {
        HarmonyParser {
            emit: Emitter::new(reasoning, json_response),
            state: State::Between { ws: String::new() },
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
            stopped: false,
            stream_arguments: false,
        }
    }

    #[cfg(feature = "full")]
    /// Stream tool-call bodies as written (the request's `streamArguments`).
    pub fn stream_arguments(mut self, on: bool) -> Self {
        self.stream_arguments = on;
        self
    }

    /// A marker seen outside a message.
    fn marker_between(&mut self, m: &str, at: usize) {
        self.state = match m {
            START => State::Header { raw: String::new(), at, started: true },
            CHANNEL => State::Header { raw: CHANNEL.to_string(), at, started: false },
            MESSAGE => {
                self.diags.add(at, "<|message|> without a header; body kept as content");
                State::Body(Dest::Content)
            }
            RETURN => {
                self.stop();
                State::Stopped
            }
            CALL => State::AfterCall,
            _ => {
                self.diags.add(at, format!("stray {m} between messages dropped (rule R51)"));
                State::Between { ws: String::new() }
            }
        };
    }

    fn stop(&mut self) {
        self.stopped = true;
        self.state = State::Stopped;
    }

    /// Release a broken header as content (without `<|start|>` and the role name).
    fn flush_header(&mut self, at: usize, why: &str, out: &mut Vec<Delta>) {
        if let State::Header { raw, started, .. } = &mut self.state {
            let raw = std::mem::take(raw);
            let text = if *started { raw.strip_prefix(ROLE).unwrap_or(&raw) } else { &raw };
            self.diags.add(at, why);
            self.emit.content(text, out);
        }
    }

    fn open_message(&mut self, raw: &str, started: bool, h_at: usize, body_at: usize, out: &mut Vec<Delta>) {
        let h = parse_header(raw, started);
        let unknown = h.unknown.join(" ");
        if !unknown.is_empty() {
            self.diags.add(h_at, format!("unrecognised harmony header text `{unknown}` kept as content"));
        }
        let call = h.recipient.as_deref().and_then(|r| r.strip_prefix("functions.")).filter(|n| !n.is_empty());
        if call.is_none() {
            self.emit.content(&unknown, out);
        }
        if let Some(ty) = h.content_type.as_deref().filter(|t| !t.eq_ignore_ascii_case("json")) {
            // Bodies are read as JSON or text either way; the type word itself is not kept.
            self.diags.add(h_at, format!("harmony content type `{ty}` is not json; ignored"));
        }
        let dest = match (&h.recipient, h.channel.as_deref()) {
            _ if call.is_some() => {
                let name = call.unwrap_or_default().to_string();
                let text = if started { raw.strip_prefix(ROLE).unwrap_or(raw) } else { raw };
                let source = format!("{text}{MESSAGE}");
                let mut call = ToolMessage { name, unknown, source, args: String::new(), sent: 0, at: body_at, index: None };
                if self.stream_arguments {
                    call.send(&mut Self::sink(&mut self.calls, &mut self.diags, &mut self.emit, out));
                }
                Dest::Tool(call)
            }
            (Some(r), _) if r != ROLE => {
                self.diags.add(h_at, format!("message to non-function recipient `{r}` ignored"));
                Dest::Ignored
            }
            (_, Some("analysis")) => {
                let from = raw.find(CHANNEL).unwrap_or(0);
                let mut marker = tail(raw, from).to_string();
                marker.push_str(MESSAGE);
                self.emit.reasoning_marker(&marker, out);
                Dest::Reasoning
            }
            // An unknown channel name was reported and kept above.
            _ => Dest::Content,
        };
        self.state = State::Body(dest);
    }

    fn close_message(&mut self, dest: Dest, marker: &str, out: &mut Vec<Delta>) {
        match dest {
            Dest::Reasoning => self.emit.reasoning_marker(marker, out),
            Dest::Tool(mut call) => {
                let mut sink = Self::sink(&mut self.calls, &mut self.diags, &mut self.emit, out);
                match json_error(&call.args) {
                    None => call.send(&mut sink),
                    Some((why, _)) => call.broken(&why, &mut sink),
                }
            }
            _ => {}
        }
    }

    /// A sink for the current call's output.
    fn sink<'a>(calls: &'a mut usize, diags: &'a mut Diagnostics, emit: &'a mut Emitter, out: &'a mut Vec<Delta>) -> CallSink<'a> {
        CallSink { calls, diags, emit, out }
    }
}

impl ToolMessage {
    /// The call's header (once, with the header text not understood) and its argument text not sent yet.
    fn send(&mut self, sink: &mut CallSink) {
        let index = match self.index {
            Some(index) => index,
            None => {
                sink.emit.content(&std::mem::take(&mut self.unknown), sink.out);
                let index = *sink.calls;
                *sink.calls += 1;
                sink.out.push(Delta::ToolCall { index, id: None, name: Some(std::mem::take(&mut self.name)), arguments: None });
                self.index = Some(index);
                index
            }
        };
        let rest = tail(&self.args, self.sent).to_string();
        self.sent = self.args.len();
        sink.emit.tool_args(index, rest, sink.out);
    }

    /// The body is not valid JSON (`why`): the call is content, header text included, unless it was
    /// streamed already (then it ends with its arguments invalid).
    fn broken(&mut self, why: &str, sink: &mut CallSink) {
        let streamed = self.index.is_some();
        sink.diags.add(self.at, broken_arguments_message(why, streamed));
        if streamed {
            self.send(sink);
        } else {
            let text = [self.source.as_str(), &self.args].concat();
            sink.emit.content(&text, sink.out);
        }
    }
}

/// Channel and recipient of a header such as `assistant to=functions.f<|channel|>commentary <|constrain|>json`.
/// The last channel and the last `to=` win (models sometimes write `commentary to=assistant<|channel|>final`).
/// Words that are none of role, `to=`, channel name or content type go to `unknown`: the model
/// wrote them, so they are kept (as content) rather than dropped.
fn parse_header(raw: &str, started: bool) -> Header {
    let mut h = Header::default();
    let mut rest = raw;
    let mut kind: Option<&str> = None;
    // A content type follows `<|constrain|>`, or — in a tool call's header — stands bare after the
    // channel name (`<|channel|>commentary json`, as the gpt-oss template writes it).
    let mut constrained = false;
    let mut bare_type: Option<usize> = None;
    loop {
        let (seg, next) = match next_marker(rest, &[CHANNEL, CONSTRAIN]) {
            Some((p, i)) => {
                let m = if i == 0 { CHANNEL } else { CONSTRAIN };
                (head(rest, p), Some((m, tail(rest, p + m.len()))))
            }
            None => (rest, None),
        };
        for (i, tok) in seg.split_whitespace().enumerate() {
            // The role opens a `<|start|>` header; glued text after it (`assistant<|chan`) is unknown.
            let tok = match (i, kind) {
                (0, None) if started => tok.strip_prefix(ROLE).unwrap_or(tok),
                _ => tok,
            };
            if tok.is_empty() {
                continue;
            }
            if let Some(r) = tok.strip_prefix("to=") {
                // The last recipient wins; an earlier one is kept as text.
                if let Some(old) = h.recipient.replace(r.to_string()) {
                    h.unknown.push(format!("to={old}"));
                }
            } else if i == 0 && kind == Some(CHANNEL) {
                if !CHANNELS.contains(&tok) {
                    h.unknown.push(tok.to_string());
                }
                h.channel = Some(tok.to_string());
            } else if i == 0 && kind == Some(CONSTRAIN) && is_content_type(tok) && !constrained {
                constrained = true;
                h.content_type = Some(tok.to_string());
            } else {
                if kind == Some(CHANNEL) && bare_type.is_none() && is_content_type(tok) {
                    bare_type = Some(h.unknown.len());
                }
                h.unknown.push(tok.to_string());
            }
        }
        match next {
            Some((m, r)) => {
                kind = Some(m);
                rest = r;
            }
            None => break,
        }
    }
    if let Some(i) = bare_type.filter(|_| !constrained && h.recipient.is_some()) {
        h.content_type = Some(h.unknown.remove(i));
    }
    h
}

/// Whether a header's text so far can still be a header: every word it has that is not understood
/// could be the start of one that is (the last word may be incomplete).
fn could_become_header(raw: &str, started: bool) -> bool {
    const WORDS: [&str; 7] = ["to=", "analysis", "commentary", "final", "json", ROLE, "<|constrain|>"];
    parse_header(raw, started).unknown.iter().all(|w| w.starts_with("to=") || WORDS.iter().any(|k| k.starts_with(w.as_str())))
}

/// A word shaped like a content type (`json`, `application/json`).
fn is_content_type(tok: &str) -> bool {
    tok.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '+' | '-' | '.'))
}

impl Machine for HarmonyParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        let mut result = Ok(());
        match &self.state {
            State::Header { at, .. } if !is_partial => {
                let at = *at;
                self.flush_header(at, "output ended inside a harmony header, kept as content", out);
            }
            // A partial result shows text that can no longer become a header (`Hello world` right
            // after the prompt's `<|start|>assistant`) as the content it will end up as either way.
            State::Header { raw, at, started } if !could_become_header(raw, *started) => {
                let at = *at;
                self.flush_header(at, "text where a harmony header belongs, kept as content", out);
            }
            State::Body(Dest::Tool(_)) => {
                // Without its `<|call|>` (servers strip it): whole and valid, the call is complete; cut
                // off, it goes out as far as it goes (an error unless the output is partial); broken
                // (not the start of any JSON value), it is content.
                let State::Body(Dest::Tool(mut call)) = std::mem::replace(&mut self.state, State::Between { ws: String::new() }) else { return result };
                let mut sink = Self::sink(&mut self.calls, &mut self.diags, &mut self.emit, out);
                match json_error(&call.args) {
                    Some((why, false)) => call.broken(&why, &mut sink),
                    None => call.send(&mut sink),
                    Some(_) => {
                        call.send(&mut sink);
                        if !is_partial {
                            let index = call.index.unwrap_or_default();
                            let msg = format!("tool call {index} ends before its JSON arguments are complete");
                            sink.diags.add(call.at, msg.clone());
                            result = Err(Error::new(ErrorKind::Parse, msg).with_offset(call.at));
                        }
                    }
                }
            }
            _ => {}
        }
        result
    }

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let markers = match self.state {
            State::Between { .. } => &BETWEEN,
            State::Header { .. } => &HEADER,
            State::Body(_) => &BODY,
            State::Stopped => &NONE,
            State::AfterCall => &AFTER_CALL,
        };
        self.scan_step(rest, markers, at, at_end, out)
    }


    fn stopped(&self) -> bool {
        self.stopped
    }

    /// Plain text inside a content or reasoning message, where no marker can start (nothing held back
    /// before it): straight to the emitter, as `on_text` would send it, without the input buffer.
    fn fast_path(&mut self, chunk: &str, out: &mut Vec<Delta>) -> bool {
        match self.state {
            State::Body(Dest::Content) if !BODY.may_start_in(chunk) => self.emit.content(chunk, out),
            State::Body(Dest::Reasoning) if !BODY.may_start_in(chunk) => self.emit.reasoning(chunk, out),
            _ => return false,
        }
        true
    }
}

impl MarkerMachine for HarmonyParser {
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        match &mut self.state {
            State::Between { ws } => {
                if let Some(s) = release_after_ws(ws, text) {
                    self.diags.add(at, "text outside a harmony message, kept as content");
                    self.emit.content(&s, out);
                }
            }
            State::Header { raw, .. } => {
                match super::header_break(raw, text, MAX_HEADER, true) {
                    None => raw.push_str(text),
                    Some(j) => {
                        raw.push_str(head(text, j));
                        self.flush_header(at + j, "malformed harmony header, kept as content", out);
                        self.state = State::Body(Dest::Content);
                        return j;
                    }
                }
            }
            State::Body(dest) => match dest {
                Dest::Content => self.emit.content(text, out),
                Dest::Reasoning => self.emit.reasoning(text, out),
                Dest::Tool(call) => {
                    call.args.push_str(text);
                    if call.index.is_some() {
                        call.send(&mut Self::sink(&mut self.calls, &mut self.diags, &mut self.emit, out));
                    }
                }
                Dest::Ignored => {}
            },
            State::Stopped | State::AfterCall => {
                let reported = self.diags.list().last().map_or(false, |d| d.message == AFTER_STOP);
                if !text.trim().is_empty() && !reported {
                    self.diags.add(at, AFTER_STOP);
                }
            }
        }
        text.len()
    }

    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<Delta>) {
        match std::mem::replace(&mut self.state, State::Stopped) {
            State::Between { .. } => self.marker_between(m, at),
            State::Header { raw, at: h_at, started } => {
                if m == MESSAGE {
                    self.open_message(&raw, started, h_at, at + m.len(), out);
                } else {
                    self.state = State::Header { raw, at: h_at, started };
                    self.flush_header(at, "harmony header without <|message|>, kept as content", out);
                    self.marker_between(m, at);
                }
            }
            State::Body(dest) => {
                self.close_message(dest, m, out);
                match m {
                    END => self.state = State::Between { ws: String::new() },
                    RETURN => self.stop(),
                    CALL => self.state = State::AfterCall,
                    _ => {
                        self.diags.add(at, "harmony message not closed by <|end|>: it ends at the next marker (rule R52)");
                        self.marker_between(m, at);
                    }
                }
            }
            State::Stopped => self.state = State::Stopped,
            State::AfterCall => self.state = State::Header { raw: String::new(), at, started: true },
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_in_any_order() {
        let h = parse_header("assistant to=functions.f<|channel|>analysis", true);
        assert_eq!((h.channel.as_deref(), h.recipient.as_deref()), (Some("analysis"), Some("functions.f")));
        let h = parse_header("<|channel|>commentary to=functions.edit <|constrain|>json", false);
        assert_eq!((h.channel.as_deref(), h.recipient.as_deref()), (Some("commentary"), Some("functions.edit")));
        let h = parse_header("<|channel|>commentary to=assistant<|channel|>final", false);
        assert_eq!((h.channel.as_deref(), h.recipient.as_deref()), (Some("final"), Some("assistant")));
        assert!(h.unknown.is_empty());
    }

    #[test]
    fn header_words_not_understood_are_kept() {
        let h = parse_header("assista>nt<|channel|>final", true);
        assert_eq!(h.unknown, ["assista>nt"]);
        let h = parse_header("assistant<</think>|channel|>analysis", true);
        assert_eq!((h.channel, h.unknown), (None, vec!["<</think>|channel|>analysis".to_string()]));
        let h = parse_header("<|channel|>commentary functions.f <|constrain|>json x", false);
        assert_eq!(h.unknown, ["functions.f", "x"]);
        let h = parse_header("<|channel|>analys<x>is to=functions.f", false);
        assert_eq!((h.recipient.as_deref(), h.unknown), (Some("functions.f"), vec!["analys<x>is".to_string()]));
        // A bare content type is understood in a tool call's header only.
        assert!(parse_header("assistant to=functions.f<|channel|>commentary json", true).unknown.is_empty());
        assert_eq!(parse_header("assistant<|channel|>commentary json", true).unknown, ["json"]);
        assert_eq!(parse_header("<|channel|>final <|constrain|>js```on", false).unknown, ["js```on"]);
        assert_eq!(parse_header("<|channel|>final <|constrain|>it <|constrain|>json", false).unknown, ["json"]);
        let h = parse_header("assistant to=functions<.f<|channel|>to=functions.g", true);
        assert_eq!((h.recipient.as_deref(), h.unknown), (Some("functions.g"), vec!["to=functions<.f".to_string()]));
    }
}

/// The generation prompt for a continued assistant message (`continue_final_message`): harmony
/// writes reasoning in the `analysis` channel and the answer in a new `final` message, so a
/// prefill is rebuilt as those channels after the template's `<|start|>assistant`.
pub fn continuation_prefill(generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
    let mut gp = generation_prompt.to_string();
    let has_reasoning = !reasoning.is_empty() || content.is_none();
    if has_reasoning {
        gp.push_str(&format!("{CHANNEL}analysis{MESSAGE}{reasoning}"));
    }
    if let Some(content) = content {
        if has_reasoning {
            gp.push_str(&format!("{END}{START}{ROLE}"));
        }
        gp.push_str(&format!("{CHANNEL}final{MESSAGE}{content}"));
    }
    gp
}

/// The GPT-OSS harmony format.
pub struct Harmony;

#[cfg(feature = "full")]
/// The reply as `response_template` regions: the analysis channel, final answers and recipient-less
/// commentary preambles as content (and a message without a channel header right after the role, as
/// some harmony templates render the final one), calls to `functions.NAME`.
static REPLY_REGIONS: ReplyRegions = ReplyRegions {
    anchor: Some("<|start|>assistant"),
    regions: &[
        Region { part: Part::Reasoning, open: Open::Literal("<|channel|>analysis<|message|>"), close: &["<|end|>"], joined: false },
        Region {
            part: Part::Content,
            open: Open::Pattern("(?:<\\|channel\\|>(?:final|commentary)|^|<\\|start\\|>assistant)<\\|message\\|>"),
            close: &["<|end|>", "<|return|>"],
            joined: false,
        },
        Region {
            part: Part::ToolCall,
            open: Open::Pattern("to=functions\\.(?P<name>[\\w.\\-]+)(?:[^<]|<\\|channel\\|>|<\\|constrain\\|>)*<\\|message\\|>"),
            close: &["<|call|>", "<|end|>"],
            joined: false,
        },
    ],
    losses: &[RegionLoss {
        feature: "harmony.continuation",
        severity: "partial",
        detail: "harmony repeats `<|start|>assistant` inside one message: when a prompt continues a message, what it wrote before the last anchor (its reasoning) is not part of the parse",
    }],
};

#[cfg(feature = "full")]
impl Harmony {
    fn constrain(g: &mut ToolGrammar) -> Expr {
        let sp = g.b.space();
        let word = Expr::plus(Expr::ranges(&[('A', 'Z'), ('a', 'z'), ('0', '9'), ('_', '_'), ('-', '-')]));
        Expr::opt(Expr::seq([sp, Expr::opt(Expr::lit("<|constrain|>")), word]))
    }
}

impl Format for Harmony {
    fn parser(&self, _a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        prefilled(HarmonyParser::new(options.reasoning_format, options.json_schema.is_some()), generation_prompt)
    }

    fn continuation_prefill(&self, _a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
        continuation_prefill(generation_prompt, reasoning, content)
    }

    #[cfg(feature = "full")]
    /// The analysis channel is a message of its own, not a block.
    fn reasoning_markers(&self, _a: &Analysis) -> Option<(String, String)> {
        None
    }

    #[cfg(feature = "full")]
    fn reasoning_block(&self, g: &mut ToolGrammar, _a: &Analysis, _thinking: bool) -> Expr {
        let body = g.b.until(END);
        let block = Expr::seq([Expr::lit("<|channel|>analysis<|message|>"), body, Expr::lit("<|end|><|start|>assistant")]);
        Expr::opt(g.b.add("reasoning", block))
    }

    #[cfg(feature = "full")]
    /// The answer is the `final` channel's message, optionally constrained (`<|constrain|>json`).
    fn response(&self, g: &mut ToolGrammar, a: &Analysis, value: Expr, thinking: bool) -> Expr {
        let sp = g.b.space();
        let reasoning = self.reasoning_block(g, a, thinking);
        let constrain = Self::constrain(g);
        Expr::seq([reasoning, Expr::lit("<|channel|>final"), constrain, Expr::lit("<|message|>"), sp.clone(), value, sp])
    }

    #[cfg(feature = "full")]
    /// `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>` (the recipient
    /// may also come before the channel). The call message may also end with `<|end|>`, which ends every
    /// other harmony message: templates write it after a call in history (the parser closes a call
    /// message at either, as `REPLY_REGIONS` says).
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        let channel = Expr::seq([Expr::lit("<|channel|>"), Expr::alt([Expr::lit("commentary"), Expr::lit("analysis")])]);
        let constrain = Self::constrain(g);
        let sp = g.b.space();
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = g.json_args(tool, &format!("{hint}-args"))?;
            let recipient = Expr::seq([Expr::lit(" to=functions."), Expr::lit(tool.name.clone())]);
            let head = Expr::alt([Expr::seq([recipient.clone(), channel.clone()]), Expr::seq([channel.clone(), recipient])]);
            let body = Expr::seq([head, constrain.clone(), Expr::lit("<|message|>"), sp.clone(), args, sp.clone(), Expr::opt(Expr::alt([Expr::lit(CALL), Expr::lit(END)]))]);
            alts.push(g.b.add(&hint, body));
        }
        let any = g.b.add("tool-call", Expr::alt(alts));
        let calls = g.repeated(any, Expr::lit("<|start|>assistant"));
        let triggers = vec![
            Trigger::pattern(r"^\s+to$"),
            Trigger::pattern(r"^<\|channel\|>(?:commentary|analysis)\s+to=functions$"),
            Trigger::pattern(r"<\|start\|>assistant(\s+to)"),
            Trigger::pattern(r"<\|start\|>assistant(<\|channel\|>(?:commentary|analysis)\s+to)"),
        ];
        Ok(Some(Shape { calls, triggers, content_stop: None, preserved: self.preserved_tokens(a) }))
    }

    #[cfg(feature = "full")]
    fn preserved_tokens(&self, _a: &Analysis) -> Vec<String> {
        [CHANNEL, CONSTRAIN, MESSAGE, START, END].map(String::from).to_vec()
    }

    #[cfg(feature = "full")]
    fn fresh_parser(&self, options: &RequestOptions, _generation_prompt: &str) -> Option<Box<dyn OutputParser>> {
        Some(Box::new(HarmonyParser::new(options.reasoning_format, options.json_schema.is_some()).stream_arguments(options.stream_arguments)))
    }

    #[cfg(feature = "full")]
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        Some(&REPLY_REGIONS)
    }
}
