//! Headed segments (`Analysis.segments`): the reply is several segments, each headed by the same
//! tokens and a word naming what follows — `<|im_start|>assistant/think\n…<|im_end|>\n<|im_start|>assistant\n…<|im_end|>`,
//! `<|open|>think<|sep|>…<|close|>think<|sep|><|open|>response<|sep|>…<|close|>response<|sep|>`, a call
//! segment `<|im_start|>assistant -> tool/function_call\n[…]<|im_end|>`. The markers are the header's
//! tokens *and* its word: the header routes the body to reasoning, content or calls. A call segment is
//! read whole once it ends: a JSON call (or a list of them) in the template's call object, or a block
//! of the analysis' tool format read by the auto machine. Every marker comes from the analysis.
//!
//! Departures read (rule R36, each with a diagnostic): a header whose word names no part (its text
//! kept as content), a segment that ends where the next header starts (no end), text outside any
//! segment (content), a stray segment end (dropped), a call segment that holds no call (content).

use super::addressed::{body_analysis, body_call_open, read_calls};
use super::{prefilled, Format};
use crate::api::{Delta, RequestOptions};
use crate::findings::{Analysis, HeadedSegments};
use crate::parse::{auto::AutoParser, drive::{head, machine_parts, Input, Machine, MarkerMachine, MarkerSet}, emit::{Diagnostics, Emitter}, OutputParser};
use crate::Result;
use serde_json::Value;
use std::rc::Rc;
#[cfg(feature = "full")]
use {
    super::{auto_grammar, regions::{RegionLoss, ReplyRegions}},
    crate::gbnf::{regex_escape, Expr, Shape, Tool, ToolGrammar, Trigger},
};

const RULE: &str = "rule R36";

/// The segment structure and what is built from it once per parser, for every state to share.
#[derive(Debug)]
struct Layout {
    /// Each segment's end, trimmed: reasoning, content, calls.
    closes: [String; 3],
    s: HeadedSegments,
    /// Cloned for each call segment's body: a fresh parser of the analysis' tool format alone.
    body: AutoParser,
    /// What a call block of that format starts with (empty: none).
    call_open: String,
    /// The template's call object: its wrapper, name and arguments members.
    fields: [String; 3],
    /// Turn-end tokens (the analysis', the segments' own): dropped between segments and after content.
    turn_ends: Vec<String>,
    /// The markers each state looks for, built once.
    header_markers: Vec<String>,
    between_markers: Vec<String>,
    text_markers: [Vec<String>; 2],
    calls_markers: Vec<String>,
}

impl Layout {
    /// The markers a state looks for.
    fn markers_in(&self, state: &State) -> Vec<&str> {
        let owned = match state {
            State::Between { .. } => &self.between_markers,
            State::Header { .. } => &self.header_markers,
            State::Text(Part::Reasoning) => &self.text_markers[0],
            State::Text(Part::Content) => &self.text_markers[1],
            State::Calls { .. } => &self.calls_markers,
        };
        owned.iter().map(String::as_str).collect()
    }
}

/// Longest header text accepted; real headers are a word or two.
const MAX_HEADER: usize = 64;

/// What a segment's body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Reasoning,
    Content,
}

#[derive(Debug, Clone)]
enum State {
    /// Between segments; trailing whitespace held.
    Between { ws: String },
    /// Inside a header; `raw` is its word so far. `written`: the model wrote the header's start.
    Header { raw: String, at: usize, written: bool },
    Text(Part),
    /// A call segment's body, held until the segment ends.
    Calls { body: String, at: usize },
}

/// The headed-segments output parser.
#[derive(Debug, Clone)]
pub struct SegmentsParser {
    state: State,
    /// Calls sent so far (the next one's index).
    calls: usize,
    l: Rc<Layout>,
    input: Input,
    emit: Emitter,
    diags: Diagnostics,
}

fn markers(list: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in list {
        if !m.is_empty() && !out.iter().any(|x| x == m) {
            out.push(m.to_string());
        }
    }
    out
}

impl SegmentsParser {
    /// `None` when the analysis found no segment structure.
    pub fn new(a: &Analysis, options: &RequestOptions) -> Option<Self> {
        let s = a.segments.clone()?;
        let close = |w: Option<&String>| w.map(|w| s.close(w).trim().to_string()).unwrap_or_default();
        let closes = [close(Some(&s.reasoning_word)), close(Some(&s.content_word)), close(s.calls_word.as_ref())];
        // The segments' turn end, token by token (a stop token at its end is not written): a token and
        // the text it heads (`<|close|>message<|sep|>`, `<|end_of_msg|>`).
        let mut own_ends: Vec<String> = Vec::new();
        for piece in s.turn_end.split_inclusive('>') {
            match own_ends.last_mut() {
                Some(last) if !piece.starts_with(['<', '[']) || !last.ends_with(['>', ']']) => last.push_str(piece),
                _ => own_ends.push(piece.to_string()),
            }
        }
        let turn_ends: Vec<String> = a.turn_end.iter().map(|t| t.trim().to_string()).chain(own_ends).filter(|t| !t.is_empty() && !closes.contains(t)).collect();
        let hs = s.header_start.as_str();
        let mut between: Vec<&str> = vec![hs];
        between.extend(closes.iter().map(String::as_str));
        between.extend(turn_ends.iter().map(String::as_str));
        let text = |i: usize| {
            let mut m: Vec<&str> = vec![closes[i].as_str(), hs];
            m.extend(closes.iter().map(String::as_str));
            m.extend(turn_ends.iter().map(String::as_str));
            markers(&m)
        };
        let t = &a.tools.format;
        let l = Layout {
            header_markers: markers(&[s.header_end.as_str(), hs]),
            between_markers: markers(&between),
            text_markers: [text(0), text(1)],
            calls_markers: markers(&[closes[2].as_str()]),
            body: AutoParser::new(&body_analysis(a), options),
            call_open: body_call_open(a),
            fields: [t.function_field.clone(), t.name_field.clone(), t.args_field.clone()],
            closes,
            turn_ends,
            s,
        };
        Some(SegmentsParser {
            l: Rc::new(l),
            emit: Emitter::new(options.reasoning_format, options.json_schema.is_some()),
            state: State::Between { ws: String::new() },
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
        })
    }

    /// A header that cannot be one: its text (with its start, when written) is content.
    fn release_header(&mut self, raw: &str, at: usize, written: bool, why: &str, out: &mut Vec<Delta>) {
        super::release_header(&mut self.emit, &mut self.diags, &self.l.s.header_start, (raw, at, written), format!("{why}: kept as content ({RULE})"), out);
    }

    /// The header's end: its word routes the body.
    fn open_segment(&mut self, raw: &str, at: usize, written: bool, body_at: usize, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        let is = |w: &str| raw.trim() == w.trim();
        self.state = if is(&l.s.reasoning_word) {
            // Whole, as the auto format keeps a reasoning opener the prompt wrote (`reasoningFormat: none`).
            self.emit.reasoning_marker(&format!("{}{raw}{}", l.s.header_start, l.s.header_end), out);
            State::Text(Part::Reasoning)
        } else if is(&l.s.content_word) {
            State::Text(Part::Content)
        } else if l.s.calls_word.as_deref().is_some_and(is) {
            State::Calls { body: String::new(), at: body_at }
        } else {
            self.release_header(&format!("{raw}{}", l.s.header_end), at, written, &format!("a segment header whose word `{}` names no part", raw.trim()), out);
            State::Text(Part::Content)
        };
    }

    /// A call segment ended (or the output did): its calls, or its text as content.
    fn read_body(&mut self, body: &str, at: usize, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        let read = json_calls(&l.fields, body).map(|c| (c, Vec::new())).or_else(|| read_calls(&l.call_open, &l.body, body));
        let Some((calls, sub_diags)) = read else {
            self.diags.add(at, format!("a call segment that holds no call: kept as content ({RULE})"));
            self.emit.content(body, out);
            return;
        };
        for d in sub_diags {
            self.diags.add(at + d.offset, d.message);
        }
        for (name, args) in calls {
            let index = self.calls;
            self.calls += 1;
            out.push(Delta::ToolCall { index, id: None, name: Some(name), arguments: None });
            self.emit.tool_args(index, args, out);
        }
    }

    /// The current segment ends at marker `mk` (its end, another's, a turn end or the next header).
    fn end_segment(&mut self, state: State, mk: &str, at: usize, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        match state {
            State::Text(Part::Reasoning) if mk == l.closes[0] => self.emit.reasoning_marker(mk, out),
            State::Calls { body, at: b_at } => self.read_body(&body, b_at, out),
            _ => {}
        }
        if mk == l.s.header_start {
            self.diags.add(at, format!("a segment without its end before the next header ({RULE})"));
            self.state = State::Header { raw: String::new(), at, written: !self.diags.in_prompt(at) };
        }
    }
}

/// A body that is a JSON call object, or an array of them, in the template's call object
/// (`[{"name": …, "arguments": {…}}]`): the calls (name, argument text).
fn json_calls(fields: &[String; 3], body: &str) -> Option<Vec<(String, String)>> {
    let v: Value = serde_json::from_str(body.trim()).ok()?;
    let items = match v {
        Value::Array(items) if !items.is_empty() => items,
        o @ Value::Object(_) => vec![o],
        _ => return None,
    };
    let field = |f: &String, default: &'static str| if f.is_empty() { default.to_string() } else { f.clone() };
    let (wrapper, name_f, args_f) = (fields[0].clone(), field(&fields[1], "name"), field(&fields[2], "arguments"));
    items
        .iter()
        .map(|item| {
            let o = item.get(&wrapper).filter(|w| w.is_object() && !wrapper.is_empty()).unwrap_or(item);
            let name = o.get(&name_f)?.as_str()?.to_string();
            let args = match o.get(&args_f).or_else(|| o.get("parameters")) {
                Some(Value::String(s)) => serde_json::from_str::<serde_json::Map<String, Value>>(s).ok().map(|_| s.clone())?,
                Some(a @ Value::Object(_)) => a.to_string(),
                None => "{}".to_string(),
                Some(_) => return None,
            };
            Some((name, args))
        })
        .collect()
}

impl Machine for SegmentsParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        if is_partial {
            return Ok(());
        }
        // A header or a call segment the output left open.
        match std::mem::replace(&mut self.state, State::Between { ws: String::new() }) {
            State::Calls { body, at } => self.read_body(&body, at, out),
            State::Header { raw, at, written } => self.release_header(&raw, at, written, "the output ended inside a segment header", out),
            other => self.state = other,
        }
        Ok(())
    }

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let l = Rc::clone(&self.l);
        self.scan_step(rest, &MarkerSet::new(&l.markers_in(&self.state)), at, at_end, out)
    }
}

impl MarkerMachine for SegmentsParser {
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        let l = Rc::clone(&self.l);
        match &mut self.state {
            State::Between { ws } => super::text_outside(&mut self.emit, &mut self.diags, ws, (text, at), || format!("text outside a segment, kept as content ({RULE})"), out),
            State::Header { raw, written, at: h_at } => match super::header_break(raw, text, MAX_HEADER, !l.s.header_end.contains('\n')) {
                None => raw.push_str(text),
                Some(j) => {
                    raw.push_str(head(text, j));
                    let (raw, written, h_at) = (std::mem::take(raw), *written, *h_at);
                    self.release_header(&raw, h_at, written, "a malformed segment header", out);
                    self.state = State::Text(Part::Content);
                    return j;
                }
            },
            State::Text(Part::Content) => self.emit.content(text, out),
            State::Text(Part::Reasoning) => self.emit.reasoning(text, out),
            State::Calls { body, .. } => body.push_str(text),
        }
        text.len()
    }

    fn on_marker(&mut self, mk: &str, at: usize, out: &mut Vec<Delta>) {
        let l = Rc::clone(&self.l);
        let written = !self.diags.in_prompt(at);
        let state = std::mem::replace(&mut self.state, State::Between { ws: String::new() });
        match state {
            State::Between { .. } if mk == l.s.header_start => self.state = State::Header { raw: String::new(), at, written },
            State::Between { .. } => {
                if !l.turn_ends.iter().any(|t| t == mk) {
                    self.diags.add(at, format!("`{mk}` outside a segment dropped ({RULE})"));
                }
            }
            State::Header { raw, at: h_at, written: w } if mk == l.s.header_start => {
                self.release_header(&raw, h_at, w, "a segment header without its end", out);
                self.state = State::Header { raw: String::new(), at, written };
            }
            State::Header { raw, at: h_at, written: w } => self.open_segment(&raw, h_at, w, at + mk.len(), out),
            other => {
                let own = match &other {
                    State::Text(Part::Reasoning) => &l.closes[0],
                    State::Text(Part::Content) => &l.closes[1],
                    _ => &l.closes[2],
                };
                if mk != own && mk != l.s.header_start && !l.turn_ends.iter().any(|t| t == mk) {
                    self.diags.add(at, format!("a segment ended by `{mk}` ({RULE})"));
                }
                self.end_segment(other, mk, at, out);
            }
        }
    }
}

#[cfg(feature = "full")]
/// No region: the spec's regions open on fixed markers, and a segment's opener is shared by every part
/// up to its word (and may start in the generation prompt).
static NO_REGIONS: ReplyRegions = ReplyRegions::unsupported(&[RegionLoss::unsupported(
    "segments.headers",
    "the reply is several segments whose headers share their tokens and differ by a word (reasoning, answer, calls), the first header begun by the generation prompt: the spec cannot route a region by the word after a shared opener",
)]);

/// The headed-segments format.
pub struct Segments;

impl Segments {
    fn segments(a: &Analysis) -> HeadedSegments {
        a.segments.clone().unwrap_or_default()
    }
}

#[cfg(feature = "full")]
/// A segment's header in a grammar: its start is optional (the generation prompt may have written it).
fn header(s: &HeadedSegments, word: &str) -> Expr {
    Expr::seq([Expr::opt(Expr::lit(s.header_start.clone())), Expr::lit(format!("{word}{}", s.header_end))])
}

/// The part of the generation prompt the output continues: from its last header's start (the
/// header the prompt opened, whole or up to its word).
fn prompt_tail<'g>(s: &HeadedSegments, generation_prompt: &'g str) -> &'g str {
    match generation_prompt.rfind(s.header_start.as_str()) {
        Some(i) if !s.header_start.is_empty() => &generation_prompt[i..],
        _ => "",
    }
}

impl Format for Segments {
    fn parser(&self, a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        match SegmentsParser::new(a, options) {
            Some(p) => prefilled(p, prompt_tail(&Self::segments(a), generation_prompt)),
            None => super::auto::Auto.parser(a, options, generation_prompt),
        }
    }

    fn continuation_prefill(&self, a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
        let s = Self::segments(a);
        let mut text = String::new();
        if !reasoning.is_empty() || content.is_none() {
            text.push_str(&s.open(&s.reasoning_word));
            text.push_str(reasoning);
            if content.is_some() {
                text.push_str(&s.close(&s.reasoning_word));
                text.push_str(&s.between);
            }
        }
        if let Some(c) = content {
            text.push_str(&s.open(&s.content_word));
            text.push_str(c);
        }
        // The prompt may have opened the first header already (`<|im_start|>assistant`).
        let overlap = (0..=text.len().min(generation_prompt.len())).rev().find(|&k| text.is_char_boundary(k) && generation_prompt.ends_with(&text[..k])).unwrap_or(0);
        format!("{generation_prompt}{}", &text[overlap..])
    }

    #[cfg(feature = "full")]
    fn reasoning_block(&self, g: &mut ToolGrammar, a: &Analysis, _thinking: bool) -> Expr {
        let s = Self::segments(a);
        let (end, space) = (s.close(&s.reasoning_word), g.b.space());
        let block = Expr::seq([header(&s, &s.reasoning_word), g.b.until(&end), Expr::lit(end), space]);
        Expr::opt(g.b.add("reasoning", block))
    }

    #[cfg(feature = "full")]
    /// The answer's segment holding the value (its end is the end of the output, where the model stops).
    fn response(&self, g: &mut ToolGrammar, a: &Analysis, value: Expr, thinking: bool) -> Expr {
        let s = Self::segments(a);
        let reasoning = self.reasoning_block(g, a, thinking);
        let sp = g.b.space();
        Expr::seq([reasoning, header(&s, &s.content_word), sp.clone(), value, sp])
    }

    #[cfg(feature = "full")]
    /// The call segment: its header (the start optional: the prompt may have written it), the body in
    /// the analysis' tool format, its end.
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        let s = Self::segments(a);
        let Some(word) = s.calls_word.clone() else { return Ok(None) };
        let body = auto_grammar::shape(g, &body_analysis(a), tools)?.calls;
        let head = format!("{word}{}", s.header_end);
        let calls = Expr::seq([header(&s, &word), body, Expr::lit(s.close(&word))]);
        let (hs, he) = (regex_escape(&s.header_start), regex_escape(&head));
        let triggers = vec![Trigger::pattern(format!("^((?:{hs})?{he})")), Trigger::word(s.open(&word))];
        Ok(Some(Shape { calls, triggers, content_stop: None, preserved: self.preserved_tokens(a) }))
    }

    #[cfg(feature = "full")]
    fn preserved_tokens(&self, a: &Analysis) -> Vec<String> {
        a.preserved_tokens.iter().flat_map(|m| crate::gbnf::token_units(m)).collect()
    }

    #[cfg(feature = "full")]
    fn writes_calls(&self, a: &Analysis) -> bool {
        a.segments.as_ref().is_some_and(|s| s.calls_word.is_some())
    }

    #[cfg(feature = "full")]
    fn reasoning_markers(&self, _a: &Analysis) -> Option<(String, String)> {
        None // a segment of its own (`reasoning_block`), not a tag pair
    }

    #[cfg(feature = "full")]
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        Some(&NO_REGIONS)
    }
}
