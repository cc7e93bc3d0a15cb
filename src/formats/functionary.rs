//! Functionary v3.2 output: a sequence of `>>>recipient\n…` blocks. `>>>all\ntext` is content;
//! `>>>NAME\n{json}` is a tool call (arguments end with their JSON value); `>>>python\n<code>` is the
//! code interpreter call, reported as `{"code": "<code>"}`. The turn ends at `<|eot_id|>`.
//!
//! The generation prompt ends with `>>>`, so model output starts with a recipient. The part of the
//! generation prompt before its first `>>>` (the role header) is prompt, not output, and is skipped.
//! A recipient that is not an identifier followed by a newline (`>>> print(1)` in prose) is content.

use super::call_args::{CallArgs, CallHead, CallSink, Over};
#[cfg(feature = "full")]
use super::regions::{Open, Part, Region, RegionLoss, ReplyRegions};
use super::{prefilled, Format};
use crate::findings::Analysis;
use crate::api::{Delta, ReasoningFormat, RequestOptions};
#[cfg(feature = "full")]
use crate::gbnf::{Expr, Shape, Tool, ToolGrammar, Trigger};
use crate::parse::drive::{head, machine_parts, Input, Machine, MarkerMachine, MarkerSet};
use crate::parse::emit::{release_after_ws, Diagnostics, Emitter};
use crate::parse::OutputParser;
use crate::Result;

const RECIPIENT: &str = ">>>";
const EOT: &str = "<|eot_id|>";
const AFTER_STOP: &str = "text after <|eot_id|> ignored";
const MARKERS: [&str; 2] = [RECIPIENT, EOT];
/// The recipient that means "the user": plain content.
const ALL: &str = "all";
/// The code-interpreter recipient, whose body is raw code.
const PYTHON: &str = "python";
const MAX_NAME: usize = 128;

#[derive(Debug, Clone)]
enum State {
    /// Skipping the generation prompt's role header; `matched` bytes of it seen so far.
    Preamble { matched: usize },
    /// Reading a recipient name up to `\n`; `explicit` when `>>>` was seen (not only implied),
    /// `written` when that `>>>` is model output (not the generation prompt's).
    Recipient { name: String, explicit: bool, written: bool },
    Content,
    AfterCall { ws: String },
    Args(CallArgs),
    Stopped,
}

/// The Functionary v3.2 output parser.
#[derive(Debug, Clone)]
pub struct FunctionaryParser {
    emit: Emitter,
    skip: String,
    state: State,
    input: Input,
    calls: usize,
    diags: Diagnostics,
    stopped: bool,
    /// Where the generation prompt ends in the input (0 when the input turned out not to start with it).
    prompt_end: usize,
    /// Arguments stream as written instead of going out whole once valid (`streamArguments`).
    stream_arguments: bool,
}

impl FunctionaryParser {
    /// `generation_prompt`: the text the parser will see first (its role header is skipped). Feeding
    /// only the model output works too: the header is skipped only where the text matches it.
    pub fn new(reasoning: ReasoningFormat, json_response: bool, generation_prompt: &str) -> Self {
        let skip = match generation_prompt.find(RECIPIENT) {
            Some(p) => head(generation_prompt, p),
            None => generation_prompt,
        };
        let state = if skip.is_empty() { implicit_recipient() } else { State::Preamble { matched: 0 } };
        FunctionaryParser {
            emit: Emitter::new(reasoning, json_response),
            skip: skip.to_string(),
            state,
            input: Input::default(),
            calls: 0,
            diags: Diagnostics::default(),
            stopped: false,
            prompt_end: generation_prompt.len(),
            stream_arguments: false,
        }
    }

    /// Stream call arguments as written (the request's `streamArguments`).
    pub fn stream_arguments(mut self, on: bool) -> Self {
        self.stream_arguments = on;
        self
    }

    /// A complete recipient line: content or a tool call. `written`: its `>>>` is model output (not
    /// the generation prompt's), so it is part of the call's text.
    fn open(&mut self, name: String, written: bool, body_at: usize, out: &mut Vec<Delta>) {
        if name == ALL {
            self.state = State::Content;
            return;
        }
        let wrap = (name == PYTHON).then_some("code");
        let source = format!("{}{name}\n", if written { RECIPIENT } else { "" });
        let head = CallHead { name, id: None, source };
        let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
        self.state = State::Args(CallArgs::new(head, body_at, wrap, &MARKERS, self.stream_arguments, &mut sink));
    }

    /// Release a recipient that turned out not to be one as content.
    fn flush_recipient(&mut self, at: usize, explicit: bool, out: &mut Vec<Delta>) {
        if let State::Recipient { name, .. } = std::mem::replace(&mut self.state, State::Content) {
            let mut s = String::new();
            if explicit {
                self.diags.add(at, "malformed >>> recipient, kept as content");
                s.push_str(RECIPIENT);
            }
            s.push_str(&name);
            self.emit.content(&s, out);
        }
    }

}

fn implicit_recipient() -> State {
    State::Recipient { name: String::new(), explicit: false, written: false }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || "_-.".contains(c)
}

impl Machine for FunctionaryParser {
    machine_parts!();

    fn settle(&mut self, is_partial: bool, out: &mut Vec<Delta>) -> Result<()> {
        let mut result = Ok(());
        match &mut self.state {
            State::Recipient { explicit, name, .. } if !is_partial && name != ALL => {
                let (explicit, at) = (*explicit, self.input.offset());
                self.flush_recipient(at, explicit, out);
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
            State::Preamble { .. } => &[],
            State::Stopped => &[],
            State::Args(a) if !a.is_raw() => {
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                let (consumed, over) = a.feed(rest, at_end, &mut sink).outcome();
                if let Some(over) = over {
                    self.state = if over == Over::Ended { State::AfterCall { ws: String::new() } } else { State::Content };
                }
                return consumed;
            }
            _ => &MARKERS,
        };
        self.scan_step(rest, &MarkerSet::new(markers), at, at_end, out)
    }


    fn stopped(&self) -> bool {
        self.stopped
    }
}

impl MarkerMachine for FunctionaryParser {
    fn on_marker(&mut self, m: &str, at: usize, out: &mut Vec<Delta>) {
        match std::mem::replace(&mut self.state, State::Content) {
            State::Recipient { name, explicit, written } => {
                if m == RECIPIENT && name.is_empty() && !explicit {
                    self.state = State::Recipient { name, explicit: true, written: at >= self.prompt_end };
                    return;
                }
                self.state = State::Recipient { name, explicit, written };
                self.flush_recipient(at, explicit, out);
            }
            State::Args(mut a) => {
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                a.close(&mut sink);
            }
            _ => {}
        }
        if m == EOT {
            self.stopped = true;
            self.state = State::Stopped;
        } else if !matches!(self.state, State::Recipient { .. }) {
            self.state = State::Recipient { name: String::new(), explicit: true, written: at >= self.prompt_end };
        }
    }

    fn on_text(&mut self, text: &str, at: usize, out: &mut Vec<Delta>) -> usize {
        match &mut self.state {
            State::Preamble { matched } => {
                let want = self.skip.get(*matched..).unwrap_or("");
                let same: usize =
                    text.chars().zip(want.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
                *matched += same;
                if *matched == self.skip.len() {
                    self.state = implicit_recipient();
                } else if same < text.len() {
                    // The text does not start with the prompt after all (the caller may feed only
                    // the model output): what matched is output.
                    self.prompt_end = 0;
                    let seen = head(&self.skip, *matched).to_string();
                    if !seen.is_empty() {
                        self.diags.add(at + same, "output starts like the generation prompt but departs from it");
                        self.emit.content(&seen, out);
                    }
                    self.state = implicit_recipient();
                }
                return same;
            }
            State::Recipient { name, explicit, written } => {
                let room = MAX_NAME.saturating_sub(name.len());
                let end = text.char_indices().find(|&(i, c)| !is_name_char(c) || i + c.len_utf8() > room);
                let Some((j, c)) = end else {
                    name.push_str(text);
                    return text.len();
                };
                name.push_str(head(text, j));
                if c == '\n' && !name.is_empty() {
                    let (name, written) = (std::mem::take(name), *written);
                    self.open(name, written, at + j + 1, out);
                    return j + 1;
                }
                let explicit = *explicit;
                self.flush_recipient(at + j, explicit, out);
                return j;
            }
            State::Content => self.emit.content(text, out),
            State::AfterCall { ws } => {
                if let Some(mut s) = release_after_ws(ws, text) {
                    // Leaving AfterCall: the whitespace it still holds is content now.
                    s.push_str(&std::mem::take(ws));
                    self.emit.content(&s, out);
                    self.state = State::Content;
                }
            }
            State::Args(a) => {
                // Raw arguments (the only ones stepped by markers) take all text.
                let mut sink = CallSink { calls: &mut self.calls, diags: &mut self.diags, emit: &mut self.emit, out };
                a.feed(text, false, &mut sink);
            }
            State::Stopped => {
                // Dropped, but never silently: one diagnostic for all text after the stop.
                let reported = self.diags.list().last().map_or(false, |d| d.message == AFTER_STOP);
                if !text.trim().is_empty() && !reported {
                    self.diags.add(at, AFTER_STOP);
                }
            }
        }
        text.len()
    }
}


/// The generation prompt for a continued assistant message (`continue_final_message`): text goes to
/// the `all` recipient, so continued content follows `>>>all\n` (the template's prompt ends with
/// `>>>`). Functionary writes no reasoning.
pub fn continuation_prefill(generation_prompt: &str, content: Option<&str>) -> String {
    let mut gp = generation_prompt.to_string();
    if let Some(content) = content {
        if !gp.ends_with(RECIPIENT) {
            gp.push_str(RECIPIENT);
        }
        gp.push_str("all\n");
        gp.push_str(content);
    }
    gp
}

/// The Functionary v3.2 format.
pub struct Functionary;

impl Format for Functionary {
    fn parser(&self, _a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        let p = FunctionaryParser::new(options.reasoning_format, options.json_schema.is_some(), generation_prompt).stream_arguments(options.stream_arguments);
        prefilled(p, generation_prompt)
    }

    fn continuation_prefill(&self, _a: &Analysis, generation_prompt: &str, _reasoning: &str, content: Option<&str>) -> String {
        continuation_prefill(generation_prompt, content)
    }

    #[cfg(feature = "full")]
    fn reasoning_markers(&self, _a: &Analysis) -> Option<(String, String)> {
        None
    }

    #[cfg(feature = "full")]
    /// The prompt ends with `>>>`; the model writes `NAME\n{…}`, further calls `>>>NAME\n{…}`, and
    /// `all\n…` for plain content.
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>> {
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = g.json_args(tool, &format!("{hint}-args"))?;
            alts.push(g.b.add(&hint, Expr::seq([Expr::lit(format!("{}\n", tool.name)), args])));
        }
        let any = g.b.add("tool-call", Expr::alt(alts));
        let sp = g.b.space();
        let sep = Expr::seq([sp, Expr::lit(RECIPIENT)]);
        let content = g.b.until(RECIPIENT);
        let leading = Expr::opt(Expr::seq([Expr::lit("all\n"), content, Expr::lit(RECIPIENT)]));
        let calls = Expr::seq([Expr::opt(Expr::lit(RECIPIENT)), leading, g.repeated(any, sep)]);
        Ok(Some(Shape { calls, triggers: vec![Trigger::pattern(">>>(?!all)")], content_stop: None, preserved: self.preserved_tokens(a) }))
    }

    #[cfg(feature = "full")]
    fn preserved_tokens(&self, _a: &Analysis) -> Vec<String> {
        vec![format!("{RECIPIENT}{ALL}")]
    }

    #[cfg(feature = "full")]
    fn fresh_parser(&self, options: &RequestOptions, generation_prompt: &str) -> Option<Box<dyn OutputParser>> {
        Some(Box::new(FunctionaryParser::new(options.reasoning_format, options.json_schema.is_some(), generation_prompt).stream_arguments(options.stream_arguments)))
    }

    #[cfg(feature = "full")]
    /// `>>>NAME\n{…}` calls, the rest content.
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        static REGIONS: ReplyRegions = ReplyRegions {
            anchor: None,
            regions: &[
                Region { part: Part::ToolCall, open: Open::Pattern(">>>(?P<name>[\\w.\\-]+)\\n"), close: &[], joined: false },
                Region { part: Part::Content, open: Open::Outside, close: &[], joined: true },
            ],
            losses: &[RegionLoss {
                feature: "functionary.recipients",
                severity: "unsupported",
                detail: "`>>>recipient` blocks have no closing marker and `>>>all` is content: the spec cannot end a region at the next opener nor exclude one name",
            }],
        };
        Some(&REGIONS)
    }
}
