//! The tool-call grammar toolkit every output format builds with: the [`Grammar`] a request gets
//! (GBNF, lazy [`Trigger`]s, preserved tokens), the request's tools, and [`ToolGrammar`] helpers
//! (whitespace-tolerant markers, repetition of parallel calls, JSON arguments from a schema, the
//! reasoning block). Which grammar a format writes is the format's business (`crate::formats`); this
//! module knows no format.
//!
//! Markers are matched whitespace-tolerantly: a marker's leading/trailing whitespace becomes optional
//! `space`, and word triggers are the trimmed markers, so `<tool_call>` followed by any newline style
//! triggers and parses.

use super::builder::GrammarBuilder;
use super::ir::Expr;
use super::schema::SchemaConverter;
use crate::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A grammar for constrained decoding. `gbnf` is empty when nothing needs constraining (no tools,
/// `tool_choice: none`, no response schema, or a template without a tool format).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grammar {
    /// GBNF text; `root` is the start rule.
    pub gbnf: String,
    /// Apply the grammar only once a trigger fires (from the trigger on).
    pub lazy: bool,
    /// What switches a lazy grammar on.
    pub triggers: Vec<Trigger>,
    /// Strings the runtime must keep as single special tokens.
    pub preserved_tokens: Vec<String>,
    /// The reasoning block's markers (trimmed; empty when the output has none). A runtime applying
    /// a lazy grammar should not fire triggers inside a closed reasoning block, as llama.cpp skips
    /// thinking blocks when it searches for triggers: a call the model only thinks about is text.
    #[serde(default)]
    pub reasoning_start: String,
    /// See `reasoning_start`.
    #[serde(default)]
    pub reasoning_end: String,
}

/// A lazy-grammar trigger, as llama.cpp's `common_grammar_trigger`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    /// How `value` is matched (`type` on the wire, as llama.cpp's `grammar_triggers`).
    #[serde(rename = "type")]
    pub kind: TriggerKind,
    /// The word, regex or token text.
    pub value: String,
}

/// Trigger kinds (serialized as llama.cpp names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    /// A literal word anywhere in the output; the grammar starts at the word.
    Word,
    /// A regex searched in the output; the grammar starts at its first capture group (or the match).
    Pattern,
    /// A regex the whole output must match; the grammar starts at its first capture group.
    PatternFull,
    /// A single special token.
    Token,
}

impl Trigger {
    /// A literal word trigger.
    pub fn word(v: impl Into<String>) -> Self {
        Trigger { kind: TriggerKind::Word, value: v.into() }
    }
    /// A regex trigger.
    pub fn pattern(v: impl Into<String>) -> Self {
        Trigger { kind: TriggerKind::Pattern, value: v.into() }
    }
}

/// One tool of the request.
pub struct Tool {
    /// The function name.
    pub name: String,
    /// Its parameters' JSON Schema (an empty object schema when the tool gives none).
    pub params: Value,
}

/// The request's tools; `InvalidInput` for a tool without a name.
pub fn parse_tools(tools: &[Value]) -> Result<Vec<Tool>> {
    let mut out = Vec::new();
    for t in tools {
        let f = t.get("function").unwrap_or(t);
        let name = f.get("name").and_then(Value::as_str).filter(|n| !n.is_empty());
        let Some(name) = name else {
            return Err(Error::new(ErrorKind::InvalidInput, format!("tool without a name: {t}")));
        };
        let params = f.get("parameters").cloned().unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        out.push(Tool { name: name.to_string(), params });
    }
    Ok(out)
}

/// What a format contributes to a tool-call grammar: the tool-call section and how a runtime finds it.
pub struct Shape {
    /// The calls (one, or several when parallel calls are allowed).
    pub calls: Expr,
    /// What switches a lazy grammar on.
    pub triggers: Vec<Trigger>,
    /// Marker content runs up to before the calls (for non-lazy grammars).
    pub content_stop: Option<String>,
    /// Special tokens of the format's protocol.
    pub preserved: Vec<String>,
}

/// A grammar under construction for one request.
pub struct ToolGrammar {
    /// The rules built so far.
    pub b: GrammarBuilder,
    parallel: bool,
}

impl ToolGrammar {
    /// `parallel`: the request allows several tool calls.
    pub fn new(parallel: bool) -> Self {
        ToolGrammar { b: GrammarBuilder::new(), parallel }
    }

    /// A marker with its surrounding whitespace made optional.
    pub fn marker(&mut self, m: &str) -> Expr {
        let core = m.trim();
        if core.is_empty() {
            return if m.is_empty() { Expr::Empty } else { self.b.space() };
        }
        let lead = if m.starts_with(char::is_whitespace) { self.b.space() } else { Expr::Empty };
        let trail = if m.ends_with(char::is_whitespace) { self.b.space() } else { Expr::Empty };
        Expr::seq([lead, Expr::lit(core), trail])
    }

    /// `item (sep item)*` when parallel calls are allowed, else `item`.
    pub fn repeated(&self, item: Expr, sep: Expr) -> Expr {
        if self.parallel {
            Expr::seq([item.clone(), Expr::star(Expr::seq([sep, item]))])
        } else {
            item
        }
    }

    /// Arguments of one tool as JSON.
    pub fn json_args(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        SchemaConverter::new(&mut self.b, &tool.params).json(&tool.params, hint)
    }

    /// An optional reasoning block `start? body end` before a non-lazy grammar's output (the start
    /// marker is optional: the generation prompt may already have opened the block).
    pub fn reasoning_block(&mut self, markers: Option<(String, String)>) -> Expr {
        let Some((start, end)) = markers else { return Expr::Empty };
        let start = self.marker(&start);
        let body = self.b.until(end.trim());
        let end = self.marker(&end);
        let block = Expr::seq([Expr::opt(start), body, end]);
        Expr::opt(self.b.add("reasoning", block))
    }
}

/// The special tokens of a marker. A marker that is special tokens glued to punctuation or a call
/// counter (`<|tool_call_start|>[`, `:0<|tool_call_argument_begin|>`, `</param></function>`) is
/// its tokens: a runtime can only keep single tokens whole. Any other marker stays as it is.
pub fn token_units(marker: &str) -> Vec<String> {
    let mut units = Vec::new();
    let mut rest = String::new();
    let mut chars = marker.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let close = match c {
            '<' => '>',
            '[' => ']',
            _ => {
                rest.push(c);
                continue;
            }
        };
        // `<…>` without whitespace, or `[UPPER_CASE]`.
        let body_ok = |b: &str| if close == '>' { !b.is_empty() && !b.contains(char::is_whitespace) && !b.contains('<') } else { !b.is_empty() && b.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == '/') };
        let unit = marker.get(i + 1..).and_then(|after| after.find(close).map(|j| (j, after.get(..j).unwrap_or(""))));
        match unit {
            Some((j, body)) if body_ok(body) => {
                units.push(marker.get(i..i + 1 + j + 1).unwrap_or("").to_string());
                while chars.peek().is_some_and(|(k, _)| *k <= i + j + 1) {
                    chars.next();
                }
            }
            _ => rest.push(c),
        }
    }
    let glue = rest.chars().all(|c| c.is_ascii_punctuation() || c.is_ascii_digit() || c.is_whitespace());
    if units.is_empty() || !glue {
        return vec![marker.to_string()];
    }
    units
}

/// A trigger word: the special token a marker starts with when the rest is glue
/// (`<|tool_call_start|>` of `<|tool_call_start|>[`), so the trigger is what a model emits as one
/// token. It fires where the marker starts, so the grammar still sees the whole marker.
pub fn leading_token(marker: &str) -> String {
    match token_units(marker).into_iter().next() {
        Some(first) if marker.starts_with(&first) => first,
        _ => marker.to_string(),
    }
}

/// Join fields with `sep`; optional fields may be left out without leaving a dangling separator.
/// Leading optional fields carry their separator after them, later ones before them.
pub fn join_optional(b: &mut GrammarBuilder, hint: &str, fields: Vec<(Expr, bool)>, sep: &Expr) -> Expr {
    let mut out = Vec::new();
    let mut first = true;
    let all_optional = fields.iter().all(|f| f.1);
    if all_optional && !fields.is_empty() {
        // Any subset in order: the first field present, then a chain of optional tails, each tail
        // its own rule so the size stays linear.
        let mut tail = Expr::Empty;
        let mut alts = Vec::new();
        for (i, (f, _)) in fields.iter().enumerate().rev() {
            alts.push(Expr::seq([f.clone(), tail.clone()]));
            let body = Expr::seq([Expr::opt(Expr::seq([sep.clone(), f.clone()])), tail]);
            tail = b.add(&format!("{hint}-rest-{i}"), body);
        }
        alts.push(Expr::Empty);
        return Expr::alt(alts);
    }
    for (f, optional) in fields {
        match (optional, first) {
            (true, true) => out.push(Expr::opt(Expr::seq([f, sep.clone()]))),
            (true, false) => out.push(Expr::opt(Expr::seq([sep.clone(), f]))),
            (false, true) => {
                out.push(f);
                first = false;
            }
            (false, false) => out.push(Expr::seq([sep.clone(), f])),
        }
    }
    Expr::seq(out)
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Escape regex metacharacters (ECMAScript / std::regex syntax).
pub fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::token_units;

    #[test]
    fn markers_glued_to_punctuation_split_into_tokens() {
        assert_eq!(token_units("<|tool_call_start|>["), ["<|tool_call_start|>"]);
        assert_eq!(token_units(":0<|tool_call_argument_begin|>"), ["<|tool_call_argument_begin|>"]);
        assert_eq!(token_units("</param></function><|im_end|>"), ["</param>", "</function>", "<|im_end|>"]);
        assert_eq!(token_units("[TOOL_CALLS]"), ["[TOOL_CALLS]"]);
        // Words or open tags keep the marker whole.
        for m in ["<function=", "<function name=\"", "<|message_sep|>\n\nfunction call<|role_sep|>", "functions.", ">", "<a <b>"] {
            assert_eq!(token_units(m), [m]);
        }
    }
}
