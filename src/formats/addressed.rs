//! Addressed messages (`Analysis.messages`): the reply is a run of messages, each headed by its
//! recipient — `<|start|>assistant to=self<|message|>…<|eom|><|start|>assistant to=user<|message|>…<|eot|>`.
//! The header routes the body: the reasoning recipient's is reasoning, the content recipient's is
//! content, a tool's is a call written in the analysis' tool format (read by the auto machine on the
//! whole body once the message ends). Every marker comes from the analysis.
//!
//! Departures read (rule R30, each with a diagnostic): a call body in a message to the user, to a
//! namespace or to no recipient at all (the body decides, as it does for the canonical header); a
//! message that ends where the next one starts, without its end token; the header-end token written
//! inside a call's name; a name written with its namespace (`read.read` for `read`). A body that is
//! not a whole call block is content (text before or after a block included), so nothing is lost.
//!
//! A message end token inside an argument value (`<param>literal <|eot|></param>`) is text: a call
//! body ends only outside its values.

#[cfg(feature = "full")]
use super::regions::{RegionLoss, ReplyRegions};
use super::{prefilled, Format};
#[cfg(feature = "full")]
use super::auto_grammar;
use crate::findings::{AddressedMessages, Analysis, ContentAnalysis, Handler, ReasoningAnalysis, CODE_TOOL_NAMES};
use crate::api::{Delta, RequestOptions};
#[cfg(feature = "full")]
use crate::gbnf::{regex_escape, Expr, Shape, Tool, ToolGrammar, Trigger};
use crate::parse::auto::AutoParser;
use crate::parse::config::tool_name;
use crate::parse::drive::{head, machine_parts, tail, Input, Machine, MarkerMachine, MarkerSet};
use crate::parse::emit::{Diagnostics, Emitter};
use crate::parse::raw_code;
use crate::parse::OutputParser;
use crate::Result;
use std::rc::Rc;

/// Longest header text accepted; real headers are a recipient name.
const MAX_HEADER: usize = 256;
const RULE: &str = "rule R30";

/// What the parser needs from the analysis, shared by its states.
#[derive(Debug)]
struct Layout {
    m: AddressedMessages,
    /// A fresh parser of the analysis' tool format alone, built once and cloned for each call body
    /// (building one per message would cost the whole configuration per message).
    body: AutoParser,
    /// `<atem:parameter name="` / `</atem:parameter>`: a call body ends only outside a value.
    value_open: String,
    value_close: String,
    /// The tool format's section (or call) opener, trimmed: a body that starts with it may be a call.
    /// Empty when the template's call body is the arguments alone (`to=NAME` + `{…}`).
    call_open: String,
    /// The call name's markers (for a header-end token written inside a name).
    name_prefix: String,
    name_suffix: String,
    tools: Vec<String>,
    /// Declared code-interpreter tools (a name of `CODE_TOOL_NAMES` or the analysis' raw-code call) and
    /// the arguments key of each: a message to one whose body is not a call is raw code (rule R41).
    code_tools: Vec<(String, String)>,
    /// The markers each state looks for, built once: the next message's start, then in a header its
    /// end, in a body the end tokens, between messages both.
    header_markers: Vec<String>,
    body_markers: Vec<String>,
    between_markers: Vec<String>,
}

/// Where the current message's body goes.
#[derive(Debug, Clone)]
enum Dest {
    Content,
    Reasoning,
    /// Might be a call: held while it is whitespace and a prefix of the call opener.
    Maybe(Body),
    /// A call body (or what should be one), held until the message ends.
    Call(Body),
}

#[derive(Debug, Clone)]
struct Body {
    recipient: Option<String>,
    /// The header as written (content if the body is not a call of a message to a tool).
    header: String,
    text: String,
    at: usize,
    /// Value openers minus closers seen in `text[..counted]`.
    open_values: isize,
    counted: usize,
    /// Bytes of leading whitespace of `text` (while it might still be a call).
    ws: usize,
}

#[derive(Debug, Clone)]
enum State {
    /// Outside a message; trailing whitespace held.
    Between { ws: String },
    /// Inside a header; `raw` is its text after the message start. `written`: the model wrote the
    /// message start (not the generation prompt).
    Header { raw: String, at: usize, written: bool },
    Body(Dest),
}

/// The addressed-messages output parser.
#[derive(Debug, Clone)]
pub struct AddressedParser {
    l: Rc<Layout>,
    emit: Emitter,
    state: State,
    input: Input,
    calls: usize,
    diags: Diagnostics,
}

impl AddressedParser {
    /// `None` when the analysis found no message structure.
    pub fn new(a: &Analysis, options: &RequestOptions) -> Option<Self> {
        let m = a.messages.clone()?;
        let t = &a.tools;
        let trim = |s: &str| s.trim().to_string();
        let call_open = body_call_open(a);
        let tools: Vec<String> = options.tools.iter().filter_map(|t| tool_name(t).map(str::to_string)).collect();
        let found = t.raw_code_call.as_ref().map(|r| r.name.as_str());
        let code_tools = tools.iter().filter(|n| CODE_TOOL_NAMES.contains(&n.as_str()) || Some(n.as_str()) == found).map(|n| (n.clone(), raw_code::code_key(&options.tools, n))).collect();
        let header_end = m.header_end.trim().to_string();
        let header_markers = vec![m.message_start.clone(), header_end.clone()];
        let body_markers: Vec<String> = std::iter::once(m.message_start.clone()).chain(m.message_ends.iter().cloned()).collect();
        let between_markers = body_markers.iter().cloned().chain([header_end]).collect();
        let l = Layout {
            header_markers,
            body_markers,
            between_markers,
            value_open: trim(&t.arguments.name_prefix),
            value_close: trim(&t.arguments.value_suffix),
            call_open,
            name_prefix: t.function.name_prefix.clone(),
            name_suffix: t.function.name_suffix.clone(),
            tools,
            code_tools,
            body: AutoParser::new(&body_analysis(a), options),
            m,
        };
        Some(AddressedParser {
            l: Rc::new(l),
            emit: Emitter::new(options.reasoning_format, options.json_schema.is_some()),
            // The generation prompt opened a message: its output starts with the header.
            state: State::Header { raw: String::new(), at: 0, written: false },
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
        })
    }

    fn start(&self) -> &str {
        self.l.m.message_start.as_str()
    }

    /// A header that cannot be one: the message start (when written) and its text are content.
    fn release_header(&mut self, raw: &str, at: usize, written: bool, why: &str, out: &mut Vec<Delta>) {
        super::release_header(&mut self.emit, &mut self.diags, &self.l.m.message_start, (raw, at, written), format!("{why}: kept as content ({RULE})"), out);
    }

    /// `<|message|>` ended header `raw`: route the body.
    fn open_body(&mut self, raw: &str, at: usize, written: bool, body_at: usize, out: &mut Vec<Delta>) {
        let m = &self.l.m;
        let header = format!("{}{raw}{}", if written { self.start() } else { "" }, m.header_end.trim());
        let words = raw.trim();
        let prefix = m.recipient_prefix.trim();
        let recipient = if words.is_empty() {
            None
        } else {
            match words.strip_prefix(prefix).map(str::trim).filter(|r| !r.is_empty() && r.chars().all(crate::findings::is_recipient_char)) {
                Some(r) => Some(r.to_string()),
                None => {
                    self.release_header(raw, at, written, "a message header that names no recipient", out);
                    self.state = State::Body(Dest::Content);
                    return;
                }
            }
        };
        let body = |recipient: Option<String>| Body { recipient, header, text: String::new(), at: body_at, open_values: 0, counted: 0, ws: 0 };
        let dest = match recipient.as_deref() {
            Some(r) if Some(r) == m.reasoning_recipient.as_deref() => {
                self.emit.reasoning_marker(&body(None).header, out);
                Dest::Reasoning
            }
            // Where a call's body is its arguments alone, text to the user is only text.
            Some(r) if r == m.content_recipient && self.l.call_open.is_empty() => Dest::Content,
            Some(r) if r == m.content_recipient => Dest::Maybe(body(recipient)),
            None if self.l.call_open.is_empty() => {
                self.diags.add(at, format!("a message header without a recipient: its body kept as content ({RULE})"));
                Dest::Content
            }
            None => {
                self.diags.add(at, format!("a message header without a recipient ({RULE})"));
                Dest::Maybe(body(None))
            }
            Some(_) => Dest::Call(body(recipient)),
        };
        self.state = State::Body(dest);
    }

    /// The message ended (`marker` at `at`, or the end of output): send what its body is.
    fn close_body(&mut self, dest: Dest, marker: Option<&str>, out: &mut Vec<Delta>) {
        match dest {
            Dest::Reasoning => {
                if let Some(mk) = marker {
                    self.emit.reasoning_marker(mk, out);
                }
            }
            Dest::Maybe(b) => self.emit.content(&b.text, out),
            Dest::Call(b) => self.read_call(b, out),
            Dest::Content => {}
        }
    }

    /// A held body: calls when the whole body is a call block, else content.
    fn read_call(&mut self, b: Body, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        let (text, repaired) = repair_names(&b.text, &l.name_prefix, &l.name_suffix, l.m.header_end.trim());
        let to_tool = b.recipient.as_deref().is_some_and(|r| r != l.m.content_recipient);
        let read = read_calls(&l.call_open, &l.body, &text).or_else(|| {
            // A message to a declared tool whose body is a JSON object: its arguments (the
            // template's own layout where the call body is the arguments alone).
            let r = b.recipient.as_deref().filter(|r| to_tool && l.tools.iter().any(|t| t == r))?;
            let args = b.text.trim();
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(args).ok()?;
            let mut diags = Vec::new();
            if !l.call_open.is_empty() {
                diags.push(crate::api::Diagnostic::new(0, format!("JSON arguments as the body of a message to `{r}`, where the template writes a call block ({RULE})")));
            }
            Some((vec![(r.to_string(), args.to_string())], diags))
        });
        let Some((calls, sub_diags)) = read else {
            if let Some((name, key)) = l.code_tools.iter().find(|(n, _)| to_tool && b.recipient.as_deref() == Some(n.as_str()) && !b.text.trim().is_empty()) {
                self.diags.add(b.at, raw_code::note(name));
                let index = self.calls;
                self.calls += 1;
                out.push(Delta::ToolCall { index, id: None, name: Some(name.clone()), arguments: None });
                self.emit.tool_args(index, raw_code::arguments(key, &b.text), out);
                return;
            }
            if to_tool {
                let r = b.recipient.as_deref().unwrap_or_default();
                self.diags.add(b.at, format!("a message to `{r}` that is not a call: its body kept as content ({RULE})"));
            }
            self.emit.content(&b.text, out);
            return;
        };
        if repaired {
            self.diags.add(b.at, format!("`{}` inside a call's name dropped ({RULE})", l.m.header_end.trim()));
        }
        for d in sub_diags {
            self.diags.add(b.at + d.offset, d.message);
        }
        for (name, args) in calls {
            let name = self.declared_name(&name, b.recipient.as_deref(), b.at);
            match b.recipient.as_deref() {
                Some(r) if r == name => {}
                Some(r) => self.diags.add(b.at, format!("the call of `{name}` is in a message to `{r}` ({RULE})")),
                None => {}
            }
            let index = self.calls;
            self.calls += 1;
            out.push(Delta::ToolCall { index, id: None, name: Some(name), arguments: None });
            self.emit.tool_args(index, args, out);
        }
    }

    /// `read.read` for the declared `read`: a name written with the recipient's namespace.
    fn declared_name(&mut self, name: &str, recipient: Option<&str>, at: usize) -> String {
        if self.l.tools.iter().any(|t| t == name) {
            return name.to_string();
        }
        let ns = recipient.and_then(|r| r.split('.').next()).unwrap_or("");
        match name.strip_prefix(ns).and_then(|n| n.strip_prefix('.')) {
            Some(rest) if !ns.is_empty() && self.l.tools.iter().any(|t| t == rest) => {
                self.diags.add(at, format!("`{name}` read as the declared `{rest}`: the name repeats the recipient's namespace ({RULE})"));
                rest.to_string()
            }
            _ => name.to_string(),
        }
    }
}

/// The analysis a message body is read (and its grammar built) with: the tool format alone, as the
/// auto format (no message structure, no reasoning or content markers around it).
pub(super) fn body_analysis(a: &Analysis) -> Analysis {
    Analysis { handler: Handler::Autoparser, messages: None, segments: None, reasoning: ReasoningAnalysis::default(), content: ContentAnalysis::default(), ..a.clone() }
}

/// What a call body of the analysis' tool format starts with (its section, call or name opener),
/// trimmed; empty when the body is the arguments alone.
pub(super) fn body_call_open(a: &Analysis) -> String {
    let t = &a.tools;
    [&t.format.section_start, &t.format.per_call_start, &t.function.name_prefix].into_iter().map(|s| s.trim().to_string()).find(|s| !s.is_empty()).unwrap_or_default()
}

/// A body that is one or more whole calls and nothing else: the calls (name, argument text) and the
/// reading's diagnostics (offsets in the body).
pub(super) fn read_calls(call_open: &str, parser: &AutoParser, body: &str) -> Option<(Vec<(String, String)>, Vec<crate::api::Diagnostic>)> {
    if call_open.is_empty() || !body.trim_start().starts_with(call_open) {
        return None;
    }
    let mut p = parser.clone();
    let mut out = Vec::new();
    p.push(body, &mut out);
    p.finish(false, &mut out).ok()?;
    let mut calls: Vec<(String, String)> = Vec::new();
    for d in out {
        match d {
            Delta::Content(c) if c.trim().is_empty() => {}
            Delta::ToolCall { index, name, arguments, .. } => {
                if index == calls.len() {
                    calls.push((name.unwrap_or_default(), String::new()));
                }
                let call = calls.get_mut(index)?;
                call.1.push_str(arguments.as_deref().unwrap_or(""));
            }
            _ => return None,
        }
    }
    let whole = !calls.is_empty() && calls.iter().all(|(n, a)| !n.is_empty() && serde_json::from_str::<serde_json::Value>(a).is_ok());
    whole.then(|| (calls, p.diagnostics().to_vec()))
}

/// The header-end token written inside a call's name (`name="read<|message|>">`, or for the name's
/// closing quote: `name="read<|message|><param…`): dropped, and the name closed where it was left open.
fn repair_names(body: &str, name_prefix: &str, name_suffix: &str, token: &str) -> (String, bool) {
    let (np, ns) = (name_prefix.trim(), name_suffix.trim());
    if np.is_empty() || token.is_empty() || !body.contains(token) {
        return (body.to_string(), false);
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let mut changed = false;
    while let Some(p) = rest.find(np) {
        out.push_str(&rest[..p + np.len()]);
        rest = &rest[p + np.len()..];
        let mut dropped = false;
        loop {
            if let Some(r) = rest.strip_prefix(token) {
                rest = r;
                dropped = true;
                continue;
            }
            if !ns.is_empty() && rest.starts_with(ns) {
                break;
            }
            match rest.chars().next() {
                Some(c) if c != '<' && c != '\n' => {
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
                _ => {
                    if dropped {
                        out.push_str(name_suffix);
                    }
                    break;
                }
            }
        }
        changed |= dropped;
    }
    out.push_str(rest);
    (out, changed)
}

impl Body {
    /// Is the body inside an argument value (so an end token there is text)?
    fn in_value(&mut self, l: &Layout) -> bool {
        if l.value_open.is_empty() || l.value_close.is_empty() {
            return false;
        }
        loop {
            let rest = tail(&self.text, self.counted);
            let o = rest.find(l.value_open.as_str());
            let c = rest.find(l.value_close.as_str());
            match (o, c) {
                (Some(o), c) if c.map_or(true, |c| o < c) => {
                    self.open_values += 1;
                    self.counted += o + l.value_open.len();
                }
                (_, Some(c)) => {
                    self.open_values -= 1;
                    self.counted += c + l.value_close.len();
                }
                _ => break,
            }
        }
        // The unmatched tail may still begin a marker: count from there next time.
        let keep = l.value_open.len().max(l.value_close.len()).saturating_sub(1);
        let mut from = self.text.len().saturating_sub(keep).max(self.counted);
        while !self.text.is_char_boundary(from) {
            from -= 1;
        }
        self.counted = from.max(self.counted.min(self.text.len()));
        self.open_values > 0
    }
}

impl Machine for AddressedParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        match std::mem::replace(&mut self.state, State::Between { ws: String::new() }) {
            State::Header { raw, at: h_at, written } if !is_partial => {
                if written || !raw.trim().is_empty() {
                    self.release_header(&raw, h_at, written, "the output ended inside a message header", out);
                }
            }
            State::Body(dest) if !is_partial || matches!(dest, Dest::Content | Dest::Reasoning) => self.close_body(dest, None, out),
            other => self.state = other,
        }
        Ok(())
    }

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let l = Rc::clone(&self.l);
        let owned = match self.state {
            State::Header { .. } => &l.header_markers,
            State::Between { .. } => &l.between_markers,
            State::Body(_) => &l.body_markers,
        };
        let markers: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.scan_step(rest, &MarkerSet::new(&markers), at, at_end, out)
    }
}

impl MarkerMachine for AddressedParser {
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        let l = Rc::clone(&self.l);
        match &mut self.state {
            State::Between { ws } => super::text_outside(&mut self.emit, &mut self.diags, ws, (text, at), || format!("text outside a message, kept as content ({RULE})"), out),
            State::Header { raw, written, .. } => {
                match super::header_break(raw, text, MAX_HEADER, !l.m.header_end.contains('\n')) {
                    None => raw.push_str(text),
                    Some(j) => {
                        raw.push_str(head(text, j));
                        let (raw, written) = (std::mem::take(raw), *written);
                        self.release_header(&raw, at, written, "a malformed message header", out);
                        self.state = State::Body(Dest::Content);
                        return j;
                    }
                }
            }
            State::Body(Dest::Content) => self.emit.content(text, out),
            State::Body(Dest::Reasoning) => self.emit.reasoning(text, out),
            State::Body(Dest::Call(b)) => b.text.push_str(text),
            State::Body(Dest::Maybe(b)) => {
                b.text.push_str(text);
                // Leading whitespace is skipped once (counted in `ws`), so a long blank run stays O(n).
                if b.ws == b.text.len() - text.len() {
                    b.ws += text.len() - text.trim_start().len();
                }
                let lead = tail(&b.text, b.ws);
                if lead.starts_with(l.call_open.as_str()) && !l.call_open.is_empty() {
                    let State::Body(Dest::Maybe(b)) = std::mem::replace(&mut self.state, State::Between { ws: String::new() }) else { return text.len() };
                    self.state = State::Body(Dest::Call(b));
                } else if !l.call_open.starts_with(lead) || l.call_open.is_empty() {
                    let t = std::mem::take(&mut b.text);
                    self.state = State::Body(Dest::Content);
                    self.emit.content(&t, out);
                }
            }
        }
        text.len()
    }

    fn on_marker(&mut self, mk: &str, at: usize, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        let is_start = mk == l.m.message_start;
        let written = !self.diags.in_prompt(at);
        let mut state = std::mem::replace(&mut self.state, State::Between { ws: String::new() });
        if let State::Body(Dest::Call(b)) = &mut state {
            if b.in_value(&l) {
                b.text.push_str(mk);
                self.state = state;
                return;
            }
        }
        match state {
            State::Between { .. } => {
                self.state = if is_start {
                    State::Header { raw: String::new(), at, written }
                } else if l.m.message_ends.iter().any(|e| e == mk) {
                    self.diags.add(at, format!("`{mk}` outside a message dropped ({RULE})"));
                    State::Between { ws: String::new() }
                } else {
                    // The header end without a header: a message to no one in particular.
                    self.diags.add(at, format!("a message without its header ({RULE})"));
                    State::Body(Dest::Maybe(Body { recipient: None, header: mk.to_string(), text: String::new(), at: at + mk.len(), open_values: 0, counted: 0, ws: 0 }))
                };
            }
            State::Header { raw, at: h_at, written: w } => {
                if is_start {
                    if w || !raw.trim().is_empty() {
                        self.release_header(&raw, h_at, w, "a message header without its end", out);
                    }
                    self.state = State::Header { raw: String::new(), at, written };
                } else {
                    self.open_body(&raw, h_at, w, at + mk.len(), out);
                }
            }
            State::Body(dest) => {
                self.close_body(dest, Some(mk), out);
                if is_start {
                    if !l.m.between.is_empty() {
                        self.diags.add(at, format!("a message without its end token `{}` ({RULE})", l.m.between));
                    }
                    self.state = State::Header { raw: String::new(), at, written };
                }
            }
        }
    }
}

/// The addressed-messages format.
pub struct Addressed;

impl Addressed {
    fn messages(a: &Analysis) -> AddressedMessages {
        a.messages.clone().unwrap_or_default()
    }


    fn header(m: &AddressedMessages, recipient: &str) -> String {
        format!("{}{recipient}{}", m.recipient_prefix, m.header_end)
    }
}

impl Format for Addressed {
    fn parser(&self, a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        match AddressedParser::new(a, options) {
            Some(p) => prefilled(p, generation_prompt),
            None => super::auto::Auto.parser(a, options, generation_prompt),
        }
    }

    fn continuation_prefill(&self, a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
        let m = Self::messages(a);
        let mut gp = generation_prompt.to_string();
        let reasons = m.reasoning_recipient.as_deref().filter(|_| !reasoning.is_empty() || content.is_none());
        if let Some(r) = reasons {
            gp.push_str(&Self::header(&m, r));
            gp.push_str(reasoning);
        }
        if let Some(content) = content {
            if reasons.is_some() {
                gp.push_str(&m.between);
                gp.push_str(&m.message_start);
            }
            gp.push_str(&Self::header(&m, &m.content_recipient));
            gp.push_str(content);
        }
        gp
    }

    #[cfg(feature = "full")]
    /// Reasoning is a message of its own, not a block.
    fn reasoning_markers(&self, _a: &Analysis) -> Option<(String, String)> {
        None
    }

    #[cfg(feature = "full")]
    fn reasoning_block(&self, g: &mut ToolGrammar, a: &Analysis, _thinking: bool) -> Expr {
        let m = Self::messages(a);
        let Some(r) = m.reasoning_recipient.as_deref().filter(|_| !m.between.is_empty()) else { return Expr::Empty };
        let end = m.between.clone();
        let body = g.b.until(&end);
        let block = Expr::seq([Expr::lit(Self::header(&m, r)), body, Expr::lit(format!("{end}{}", m.message_start))]);
        Expr::opt(g.b.add("reasoning", block))
    }

    #[cfg(feature = "full")]
    fn response(&self, g: &mut ToolGrammar, a: &Analysis, value: Expr, thinking: bool) -> Expr {
        let m = Self::messages(a);
        let sp = g.b.space();
        let reasoning = self.reasoning_block(g, a, thinking);
        Expr::seq([reasoning, Expr::lit(Self::header(&m, &m.content_recipient)), sp.clone(), value, sp])
    }

    #[cfg(feature = "full")]
    /// `HEADER(name) body` per tool, the body in the analysis' tool format; messages joined by the
    /// end token and the next message's start.
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        let m = Self::messages(a);
        let body = body_analysis(a);
        let mut alts = Vec::new();
        let args_alone = body.tools.format.section_start.trim().is_empty() && body.tools.format.per_call_start.trim().is_empty() && body.tools.function.name_prefix.trim().is_empty();
        for tool in tools {
            let call = if args_alone {
                // The body is the arguments (`<|recipient|>NAME\n<|content|>{…}`).
                g.json_args(tool, &format!("tool-{}-args", tool.name))?
            } else {
                auto_grammar::shape(g, &body, std::slice::from_ref(tool))?.calls
            };
            alts.push(Expr::seq([Expr::lit(Self::header(&m, &tool.name)), call]));
        }
        let any = g.b.add("message-call", Expr::alt(alts));
        // The template may put a line break between a call and the next message's start.
        let end = if m.between.is_empty() { Expr::Empty } else { Expr::lit(m.between.clone()) };
        let sep = Expr::seq([end, g.b.space(), Expr::lit(m.message_start.clone())]);
        let calls = g.repeated(any, sep);
        let names = tools.iter().map(|t| regex_escape(&t.name)).collect::<Vec<_>>().join("|");
        let (rp, he, start) = (regex_escape(&m.recipient_prefix), regex_escape(&m.header_end), regex_escape(&m.message_start));
        let triggers = vec![
            Trigger::pattern(format!("^{rp}(?:{names}){he}")),
            Trigger::pattern(format!("{start}({rp}(?:{names}){he})")),
        ];
        Ok(Some(Shape { calls, triggers, content_stop: None, preserved: self.preserved_tokens(a) }))
    }

    #[cfg(feature = "full")]
    fn preserved_tokens(&self, a: &Analysis) -> Vec<String> {
        a.preserved_tokens.iter().flat_map(|m| crate::gbnf::token_units(m)).collect()
    }

    #[cfg(feature = "full")]
    /// No region: the spec cannot route a message by its recipient.
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        static REGIONS: ReplyRegions = ReplyRegions::unsupported(&[RegionLoss::unsupported(
            "messages.recipients",
            "each message is headed by its recipient (content, reasoning or a tool's name) and a call's body follows the header: the spec cannot route a region by a name in its opener",
        )]);
        Some(&REGIONS)
    }
}
