//! Ministral / Magistral 3 (and Devstral) output: `[THINK]reasoning[/THINK]content`, then tool calls
//! `[TOOL_CALLS]name[ARGS]{json}`, repeated for parallel calls (an optional `[CALL_ID]id` between name
//! and `[ARGS]` is accepted too).
//!
//! Inside `[THINK]…[/THINK]` only the closing marker counts, so a tool call the model merely thinks
//! about stays reasoning. Arguments have no closing marker: they end with their JSON value
//! ([`CallArgs`]). A name that is not a plausible identifier is released as content with a diagnostic.

use super::call_args::{CallArgs, CallHead, CallSink, Over};
use super::Format;
#[cfg(feature = "full")]
use super::regions::{Open, Part, Region, ReplyRegions, UNTERMINATED_CALLS};
use crate::findings::Analysis;
use crate::api::{Delta, ReasoningFormat, RequestOptions};
#[cfg(feature = "full")]
use crate::gbnf::{Expr, Shape, Tool, ToolGrammar, Trigger};
use crate::parse::drive::{head, machine_parts, tail, Input, Machine, MarkerMachine, MarkerSet};
use crate::parse::missing_opener::{self, Reading};
use crate::parse::emit::{release_after_ws, Diagnostics, Emitter};
use crate::parse::OutputParser;
use crate::Result;

const THINK: &str = "[THINK]";
const THINK_END: &str = "[/THINK]";
const TOOL_CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

const CONTENT_MARKERS: [&str; 2] = [THINK, TOOL_CALLS];
const THINK_MARKERS: [&str; 1] = [THINK_END];
const NAME_MARKERS: [&str; 3] = [ARGS, CALL_ID, TOOL_CALLS];
const ID_MARKERS: [&str; 2] = [ARGS, TOOL_CALLS];
const RAW_ARGS_MARKERS: [&str; 1] = [TOOL_CALLS];

/// Longest function name or call id accepted.
const MAX_NAME: usize = 256;

#[derive(Debug, Clone)]
enum State {
    Content,
    /// After a call: whitespace held until content or the next marker.
    AfterCall { ws: String },
    Think,
    /// Thinking on but the prompt did not open `[THINK]`: reasoning up to `[/THINK]` if that comes
    /// before a call or an opener (rule R5, `parse::missing_opener`); `scanned` is the absolute
    /// offset up to which the markers were searched.
    OpenerMissing { scanned: usize },
    /// After `[TOOL_CALLS]` (`id` is `Some` after `[CALL_ID]`).
    Name { name: String, id: Option<String>, at: usize },
    Args(CallArgs),
}

/// The Ministral 3 output parser.
#[derive(Debug, Clone)]
pub struct MinistralParser {
    emit: Emitter,
    state: State,
    input: Input,
    calls: usize,
    diags: Diagnostics,
    /// Arguments stream as written instead of going out whole once valid (`streamArguments`).
    stream_arguments: bool,
}

impl MinistralParser {
    /// `json_response`: the request has a response-format schema.
    pub fn new(reasoning: ReasoningFormat, json_response: bool) -> Self {
        MinistralParser {
            emit: Emitter::new(reasoning, json_response),
            state: State::Content,
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
            stream_arguments: false,
        }
    }

    /// Stream call arguments as written (the request's `streamArguments`).
    pub fn stream_arguments(mut self, on: bool) -> Self {
        self.stream_arguments = on;
        self
    }

    /// Thinking is on (the request says so): the output may start with reasoning whose `[THINK]`
    /// the prompt did not write (rule R5). Call after the prefill.
    pub fn reasoning_may_lack_opener(&mut self) {
        if matches!(self.state, State::Content) {
            self.state = State::OpenerMissing { scanned: 0 };
        }
    }

    /// Rule R5 at the start of the output: wait for `[/THINK]`, a call or an opener.
    fn step_opener_missing(&mut self, scanned: usize, rest: &str, at: usize, at_end: bool) -> Option<usize> {
        let mut from = scanned.saturating_sub(at).min(rest.len());
        while !rest.is_char_boundary(from) {
            from -= 1;
        }
        let hay = tail(rest, from);
        let end_at = hay.find(THINK_END).map(|p| p + from);
        let stop_at = CONTENT_MARKERS.iter().filter_map(|m| hay.find(m)).min().map(|p| p + from);
        match missing_opener::read(end_at, stop_at, at_end) {
            Reading::Reasoning => {
                self.diags.add(at, missing_opener::diagnostic(THINK));
                self.state = State::Think;
                Some(0)
            }
            Reading::Content => {
                self.state = State::Content;
                Some(0)
            }
            Reading::Undecided => {
                // The searches resume where a marker could still be starting.
                let longest = THINK_END.len().max(TOOL_CALLS.len());
                self.state = State::OpenerMissing { scanned: at + rest.len().saturating_sub(longest) };
                None
            }
        }
    }

    /// Release a broken `[TOOL_CALLS]name…` as content.
    fn flush_name(&mut self, at: usize, out: &mut Vec<Delta>) {
        if let State::Name { name, id, .. } = std::mem::replace(&mut self.state, State::Content) {
            self.diags.add(at, "malformed [TOOL_CALLS] name, kept as content");
            let mut s = format!("{TOOL_CALLS}{name}");
            if let Some(id) = id {
                s.push_str(CALL_ID);
                s.push_str(&id);
            }
            self.emit.content(&s, out);
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || "_-.:/".contains(c)
}

impl Machine for MinistralParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        let mut result = Ok(());
        match &mut self.state {
            State::Name { .. } if !is_partial => {
                let at = self.input.offset();
                self.flush_name(at, out);
            }
            State::Args(a) => {
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                result = a.finish(is_partial, &mut sink);
            }
            _ => {}
        }
        result
    }

    fn step(&mut self, rest: &str, at: usize, at_end: bool, out: &mut Vec<Delta>) -> Option<usize> {
        let markers: &[&str] = match &mut self.state {
            &mut State::OpenerMissing { scanned } => return self.step_opener_missing(scanned, rest, at, at_end),
            State::Content | State::AfterCall { .. } => &CONTENT_MARKERS,
            State::Think => &THINK_MARKERS,
            State::Name { id: None, .. } => &NAME_MARKERS,
            State::Name { id: Some(_), .. } => &ID_MARKERS,
            State::Args(a) if a.is_raw() => &RAW_ARGS_MARKERS,
            State::Args(a) => {
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                let (consumed, over) = a.feed(rest, at_end, &mut sink).outcome();
                if let Some(over) = over {
                    self.state = if over == Over::Ended { State::AfterCall { ws: String::new() } } else { State::Content };
                }
                return consumed;
            }
        };
        self.scan_step(rest, &MarkerSet::new(markers), at, at_end, out)
    }

}

impl MarkerMachine for MinistralParser {
    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        match &mut self.state {
            // (OpenerMissing steps on its own and never reaches here.)
            State::Content | State::OpenerMissing { .. } => self.emit.content(text, out),
            State::AfterCall { ws } => {
                if let Some(mut s) = release_after_ws(ws, text) {
                    // Leaving AfterCall: the whitespace it still holds is content now.
                    s.push_str(&std::mem::take(ws));
                    self.emit.content(&s, out);
                    self.state = State::Content;
                }
            }
            State::Think => self.emit.reasoning(text, out),
            State::Name { name, id, .. } => {
                // Whitespace may precede the name, and spaces or tabs follow it up to `[ARGS]` (rule
                // R39); it is kept so a flush loses nothing.
                let field = id.as_mut().unwrap_or(name);
                let mut blank = field.trim().is_empty();
                let mut trailing = !blank && field.ends_with([' ', '\t']);
                let room = MAX_NAME.saturating_sub(field.len());
                let bad = text.char_indices().find(|&(i, c)| {
                    let after = !blank && (c == ' ' || c == '\t');
                    let ok = (is_name_char(c) && !trailing) || (blank && c.is_whitespace()) || after;
                    blank &= c.is_whitespace();
                    trailing |= after;
                    !ok || i + c.len_utf8() > room
                });
                match bad {
                    None => field.push_str(text),
                    Some((j, _)) => {
                        field.push_str(head(text, j));
                        self.flush_name(at + j, out);
                        return j;
                    }
                }
            }
            State::Args(a) => {
                // Raw arguments (the only ones stepped by markers) take all text.
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                a.feed(text, false, &mut sink);
            }
        }
        text.len()
    }

    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<Delta>) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Content | State::AfterCall { .. } | State::OpenerMissing { .. } => {
                self.state = if m == THINK {
                    self.emit.reasoning_marker(m, out);
                    State::Think
                } else {
                    State::Name { name: String::new(), id: None, at }
                };
            }
            State::Think => self.emit.reasoning_marker(m, out),
            State::Name { name, id, at: n_at } => match m {
                CALL_ID if !name.trim().is_empty() => self.state = State::Name { name, id: Some(String::new()), at: n_at },
                ARGS if !name.trim().is_empty() => {
                    let mut source = format!("{TOOL_CALLS}{name}");
                    if let Some(id) = &id {
                        source.push_str(CALL_ID);
                        source.push_str(id);
                    }
                    source.push_str(ARGS);
                    if [Some(&name), id.as_ref()].into_iter().flatten().any(|f| f.ends_with([' ', '\t'])) {
                        self.diags.add(n_at, "a blank between the call's name (or id) and [ARGS]: read as the call (rule R39)");
                    }
                    let id = id.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
                    let head = CallHead { name: name.trim().to_string(), id, source };
                    let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                    self.state = State::Args(CallArgs::new(head, at + m.len(), None, &RAW_ARGS_MARKERS, self.stream_arguments, &mut sink));
                }
                _ => {
                    self.state = State::Name { name, id, at: n_at };
                    self.flush_name(at, out);
                    self.on_marker(m, at, out);
                }
            },
            State::Args(mut a) => {
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                a.close(&mut sink);
                self.state = State::Name { name: String::new(), id: None, at };
            }
        }
    }
}


/// The generation prompt for a continued assistant message (`continue_final_message`): the
/// template renders reasoning only from typed `thinking` content blocks, so a prefill's
/// `reasoning_content` is rebuilt as `[THINK]reasoning[/THINK]` before the content.
pub fn continuation_prefill(generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
    let mut gp = generation_prompt.to_string();
    if !reasoning.is_empty() || content.is_none() {
        gp.push_str(THINK);
        gp.push_str(reasoning);
        if content.is_some() {
            gp.push_str(THINK_END);
        }
    }
    gp.push_str(content.unwrap_or(""));
    gp
}

/// The Ministral / Magistral 3 format.
pub struct Ministral;

impl Format for Ministral {
    fn parser(&self, _a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        let mut m = MinistralParser::new(options.reasoning_format, options.json_schema.is_some()).stream_arguments(options.stream_arguments);
        let mut initial = Vec::new();
        m.prefill(generation_prompt, &mut initial);
        if options.enable_thinking == Some(true) {
            m.reasoning_may_lack_opener();
        }
        (Box::new(m), initial)
    }

    fn continuation_prefill(&self, _a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String {
        continuation_prefill(generation_prompt, reasoning, content)
    }

    #[cfg(feature = "full")]
    fn reasoning_markers(&self, _a: &Analysis) -> Option<(String, String)> {
        Some((THINK.to_string(), THINK_END.to_string()))
    }

    #[cfg(feature = "full")]
    /// `[TOOL_CALLS]NAME[ARGS]{…}`, one section per call.
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = g.json_args(tool, &format!("{hint}-args"))?;
            alts.push(g.b.add(&hint, Expr::seq([Expr::lit(tool.name.clone()), Expr::lit(ARGS), args])));
        }
        let any = g.b.add("tool-call", Expr::alt(alts));
        let sp = g.b.space();
        let calls = g.repeated(Expr::seq([Expr::lit(TOOL_CALLS), any]), sp);
        Ok(Some(Shape { calls, triggers: vec![Trigger::word(TOOL_CALLS)], content_stop: Some(TOOL_CALLS.into()), preserved: self.preserved_tokens(a) }))
    }

    #[cfg(feature = "full")]
    fn preserved_tokens(&self, _a: &Analysis) -> Vec<String> {
        [THINK, THINK_END, TOOL_CALLS, ARGS].map(String::from).to_vec()
    }

    #[cfg(feature = "full")]
    fn fresh_parser(&self, options: &RequestOptions, _generation_prompt: &str) -> Option<Box<dyn OutputParser>> {
        Some(Box::new(MinistralParser::new(options.reasoning_format, options.json_schema.is_some()).stream_arguments(options.stream_arguments)))
    }

    #[cfg(feature = "full")]
    /// `[THINK]…[/THINK]` blocks, `[TOOL_CALLS]NAME[ARGS]{…}` calls, the rest content.
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        static REGIONS: ReplyRegions = ReplyRegions {
            anchor: None,
            regions: &[
                Region { part: Part::Reasoning, open: Open::Literal(THINK), close: &[THINK_END], joined: true },
                Region { part: Part::ToolCall, open: Open::Pattern("\\[TOOL_CALLS\\](?P<name>[^\\[\\]]+?)\\[ARGS\\]"), close: &[], joined: false },
                Region { part: Part::Content, open: Open::Outside, close: &[], joined: true },
            ],
            losses: &[UNTERMINATED_CALLS],
        };
        Some(&REGIONS)
    }
}
