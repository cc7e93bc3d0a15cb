//! Output formats: one [`Format`] per way a model writes its turn, each implemented once in its own
//! module.
//!
//! - [`auto`]: the differential format, described entirely by the template's [`Analysis`]
//!   (reasoning markers, content wrapper, tool-call layout); parsed by `parse::auto`.
//! - [`addressed`]: a reply of messages headed by their recipient (`Analysis.messages`), also read
//!   off the renders; each call body is read by `parse::auto` once its message ends.
//! - [`harmony`] (GPT-OSS channels), [`functionary`] (v3.2 `>>>recipient` blocks) and
//!   [`ministral`] (Ministral/Magistral 3 `[THINK]` / `[TOOL_CALLS]name[ARGS]`): the three formats
//!   the analysis cannot express.
//!
//! A format owns, for a request: its output parser (having read its part of the generation prompt),
//! the generation prompt of a continued message, its reasoning markers, its tool-call grammar and its
//! preserved tokens; for tests, a fresh parser; for `verify_template`, whether its replies hold calls;
//! and for a Hugging Face `response_template`, its reply as regions ([`regions`]). Which format a
//! template uses is decided once, by the analysis (`analysis::detect_handler`, from the special
//! tokens the template source writes — never from names); [`format_of`] maps that decision to its
//! implementation, the one table: nothing outside `analysis/` and `formats/` names a format
//! (`tests/stages.rs`).

use crate::findings::{Analysis, Handler};
use crate::api::{Delta, RequestOptions};
#[cfg(feature = "full")]
use crate::api::ToolChoice;
#[cfg(feature = "full")]
use crate::gbnf::{check_schema, parse_tools, Expr, Grammar, SchemaConverter, Shape, Tool, ToolGrammar};
use crate::parse::drive::Machine;
use crate::parse::emit::{Diagnostics, Emitter};
use crate::parse::OutputParser;
#[cfg(feature = "full")]
use crate::{Error, ErrorKind, Result};

mod addressed;
mod auto;
#[cfg(feature = "full")]
mod auto_grammar;
mod call_args;
mod functionary;
mod harmony;
mod ministral;
mod segments;
#[cfg(feature = "full")]
pub mod regions;

#[cfg(feature = "full")]
pub use auto::parser_prefill;
#[cfg(feature = "full")]
pub use functionary::FunctionaryParser;
#[cfg(feature = "full")]
pub use harmony::HarmonyParser;
#[cfg(feature = "full")]
use regions::ReplyRegions;

/// One output format.
pub trait Format: Sync {
    /// The output parser for a request whose prompt ended with `generation_prompt`, having read the
    /// part of that prompt the model's output continues (a continued message's prefill, an opened
    /// reasoning block). Returns it with the deltas that reading produced.
    fn parser(&self, a: &Analysis, options: &RequestOptions, generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>);

    /// The output parser before it reads any prompt, for a format whose parser is costly to build from the
    /// analysis and the options but does not depend on the prompt or the conversation: built once per
    /// request shape and copied for each prompt (`session::parser_cache`), then made ready by
    /// [`Format::prime`]. `None`: [`Format::parser`] builds it whole each time.
    fn unprimed(&self, _a: &Analysis, _options: &RequestOptions) -> Option<Box<dyn OutputParser>> {
        None
    }

    /// [`Format::parser`] from a copy of [`Format::unprimed`]'s parser. Only called for formats that
    /// return one.
    fn prime(&self, parser: Box<dyn OutputParser>, _a: &Analysis, _options: &RequestOptions, _generation_prompt: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
        (parser, Vec::new())
    }

    /// The generation prompt for a continued assistant message (`continue_final_message`): the
    /// template's own prompt plus the prefill's `reasoning` and — when content is continued —
    /// `content`, written as this format writes them.
    fn continuation_prefill(&self, a: &Analysis, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> String;

    #[cfg(feature = "full")]
    /// The markers of a reasoning block that may open the output (untrimmed), if any.
    fn reasoning_markers(&self, a: &Analysis) -> Option<(String, String)>;

    #[cfg(feature = "full")]
    /// The optional reasoning block before a non-lazy grammar's output.
    fn reasoning_block(&self, g: &mut ToolGrammar, a: &Analysis, _thinking: bool) -> Expr {
        g.reasoning_block(self.reasoning_markers(a))
    }

    #[cfg(feature = "full")]
    /// The whole output of a request with a response schema whose answer is `value`.
    /// Default: optional reasoning, then the value bare or in a ```` ```json ```` fence.
    fn response(&self, g: &mut ToolGrammar, a: &Analysis, value: Expr, thinking: bool) -> Expr {
        let sp = g.b.space();
        let reasoning = self.reasoning_block(g, a, thinking);
        let fenced = Expr::seq([Expr::lit("```json"), sp.clone(), value.clone(), sp.clone(), Expr::lit("```")]);
        Expr::seq([reasoning, sp.clone(), Expr::alt([fenced, value]), sp])
    }

    #[cfg(feature = "full")]
    /// The tool-call section for `tools`; `None` when the template has no tool-call format.
    fn tool_calls(&self, g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Option<Shape>>;

    #[cfg(feature = "full")]
    /// The special tokens a runtime must keep whole.
    fn preserved_tokens(&self, a: &Analysis) -> Vec<String>;

    #[cfg(feature = "full")]
    /// A fresh parser (nothing read yet), for tests and fuzzing that drive a format without a
    /// template. `generation_prompt` is only used by formats whose prompt holds a role header to skip
    /// (Functionary). `None` where the format's markers come from an analysis.
    fn fresh_parser(&self, _options: &RequestOptions, _generation_prompt: &str) -> Option<Box<dyn OutputParser>> {
        None
    }

    #[cfg(feature = "full")]
    /// The reply as regions, for a Hugging Face `response_template` (`response_template/derive.rs`);
    /// `None`: the template is read off the analysis' markers.
    fn reply_regions(&self) -> Option<&'static ReplyRegions> {
        None
    }

    #[cfg(feature = "full")]
    /// Whether a reply can hold tool calls for this template (`verify_template` renders calls only then).
    fn writes_calls(&self, _a: &Analysis) -> bool {
        true
    }
}

/// The implementation of the format the analysis decided on.
pub fn format_of(handler: Handler) -> &'static dyn Format {
    match handler {
        Handler::Autoparser => &auto::Auto,
        Handler::GptOss => &harmony::Harmony,
        Handler::FunctionaryV32 => &functionary::Functionary,
        Handler::Ministral3 => &ministral::Ministral,
        Handler::Addressed => &addressed::Addressed,
        Handler::Segments => &segments::Segments,
    }
}

/// Where a message header being read breaks in `text`, its next piece: at the first newline (when
/// `one_line`), or at the character that would take it past `max` bytes (`raw` is the header so far).
/// Real headers are a few words.
fn header_break(raw: &str, text: &str, max: usize, one_line: bool) -> Option<usize> {
    let room = max.saturating_sub(raw.len());
    text.char_indices().find(|&(i, c)| (one_line && c == '\n') || i + c.len_utf8() > room).map(|(i, _)| i)
}

/// Text outside any message or segment: whitespace is held (dropped if a marker follows), anything
/// else is content, with the diagnostic `why`.
fn text_outside(emit: &mut Emitter, diags: &mut Diagnostics, ws: &mut String, (text, at): (&str, usize), why: impl FnOnce() -> String, out: &mut Vec<Delta>) {
    if let Some(s) = crate::parse::emit::release_after_ws(ws, text) {
        diags.add(at, why());
        emit.content(&s, out);
    }
}

/// A header being read that is not one: its text — with its start token where the model wrote it (not
/// the prompt) — is content, with a diagnostic (none for a blank header the prompt opened).
/// `header`: its text so far, where it started, whether the model wrote its start.
fn release_header(emit: &mut Emitter, diags: &mut Diagnostics, start: &str, header: (&str, usize, bool), why: String, out: &mut Vec<Delta>) {
    let (raw, at, written) = header;
    if written || !raw.trim().is_empty() {
        diags.add(at, why);
    }
    let text = if written { format!("{start}{raw}") } else { raw.to_string() };
    emit.content(&text, out);
}

/// A parser that has read `prefill`, the part of the generation prompt the output continues (the
/// dedicated formats read all of it, as llama.cpp parses prompt + output), and the deltas that gave.
fn prefilled<M: Machine + 'static>(mut m: M, prefill: &str) -> (Box<dyn OutputParser>, Vec<Delta>) {
    let mut initial = Vec::new();
    m.prefill(prefill, &mut initial);
    (Box::new(m), initial)
}

#[cfg(feature = "full")]
/// Build the grammar for a request.
///
/// - `tool_choice: auto` → lazy grammar rooted at the trigger: the tool-call section, then `space`.
/// - `tool_choice: required` → whole output: optional reasoning (when thinking is on and the template
///   reasons), optional content up to the call marker, then the calls.
/// - `json_schema` → whole output: optional reasoning, then the JSON (optionally in a ```json fence).
///
/// The grammar covers model output only (never the generation prompt).
///
/// # Errors
/// `InvalidInput` for a tool without a name; `Schema` for an unusable parameter or response schema.
pub fn build_grammar(analysis: &Analysis, options: &RequestOptions) -> Result<Grammar> {
    let format = format_of(analysis.handler);
    // One rule for every builder: what a grammar cannot honour is an error naming its path, checked
    // here before any format's builder sees a schema (src/gbnf/schema_check.rs).
    if let Some(schema) = &options.json_schema {
        check_schema(schema, "jsonSchema")?;
    }
    if options.tool_choice != ToolChoice::None {
        for (i, tool) in options.tools.iter().enumerate() {
            if let Some(params) = tool.get("function").unwrap_or(tool).get("parameters") {
                check_schema(params, &format!("tools[{i}].function.parameters"))?;
            }
        }
    }
    let mut tools = if options.tool_choice == ToolChoice::None { Vec::new() } else { parse_tools(&options.tools)? };
    if let ToolChoice::Function(name) = &options.tool_choice {
        tools.retain(|t| &t.name == name);
        if tools.is_empty() {
            return Err(Error::new(ErrorKind::InvalidInput, format!("toolChoice names `{name}`, which is not among the tools")));
        }
    }
    let mut g = ToolGrammar::new(options.parallel_tool_calls);
    // Not given: the grammar allows the block the template may open.
    let thinking = options.enable_thinking != Some(false);
    let (reasoning_start, reasoning_end) =
        format.reasoning_markers(analysis).map(|(s, e)| (s.trim().to_string(), e.trim().to_string())).unwrap_or_default();
    let grammar = |gbnf: String, lazy: bool, triggers, preserved_tokens| Grammar {
        gbnf,
        lazy,
        triggers,
        preserved_tokens,
        reasoning_start: reasoning_start.clone(),
        reasoning_end: reasoning_end.clone(),
    };
    let preserved = || {
        let mut out: Vec<String> = Vec::new();
        for t in format.preserved_tokens(analysis) {
            if !t.is_empty() && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    };
    if let Some(schema) = &options.json_schema {
        let value = SchemaConverter::new(&mut g.b, schema).json(schema, "response")?;
        let root = format.response(&mut g, analysis, value, thinking);
        return Ok(grammar(g.b.finish(root), false, Vec::new(), preserved()));
    }
    let shape = if tools.is_empty() { None } else { format.tool_calls(&mut g, analysis, &tools)? };
    let Some(shape) = shape else {
        return Ok(Grammar::default());
    };
    let sp = g.b.space();
    let calls = g.b.add("tool-calls", shape.calls);
    let required = matches!(options.tool_choice, ToolChoice::Required | ToolChoice::Function(_));
    let (root, lazy) = if required || shape.triggers.is_empty() {
        let reasoning = format.reasoning_block(&mut g, analysis, thinking);
        let content = match &shape.content_stop {
            Some(stop) if !stop.is_empty() => g.b.until(stop),
            _ => Expr::Empty,
        };
        (Expr::seq([reasoning, sp.clone(), content, calls, sp]), false)
    } else {
        (Expr::seq([calls, sp]), true)
    };
    Ok(grammar(g.b.finish(root), lazy, if lazy { shape.triggers } else { Vec::new() }, preserved()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_prefills_follow_each_format() {
        let a = Analysis::default();
        let h = |handler, gp, r, c| format_of(handler).continuation_prefill(&a, gp, r, c);
        assert_eq!(
            h(Handler::GptOss, "<|start|>assistant", "R", Some("C")),
            "<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>C"
        );
        assert_eq!(h(Handler::GptOss, "<|start|>assistant", "R", None), "<|start|>assistant<|channel|>analysis<|message|>R");
        assert_eq!(h(Handler::GptOss, "<|start|>assistant", "", Some("C")), "<|start|>assistant<|channel|>final<|message|>C");
        assert_eq!(h(Handler::FunctionaryV32, "X\n\n>>>", "R", Some("C")), "X\n\n>>>all\nC");
        assert_eq!(h(Handler::Ministral3, "", "R", Some("C")), "[THINK]R[/THINK]C");
        assert_eq!(h(Handler::Ministral3, "", "R", None), "[THINK]R");
        assert_eq!(h(Handler::Ministral3, "", "", Some("C")), "C");
        // Without reasoning markers the auto format continues the content only.
        assert_eq!(h(Handler::Autoparser, "<|assistant|>", "R", Some("C")), "<|assistant|>C");
    }
}
