//! Tool-call grammars: from an [`Analysis`] and the request's tools, the GBNF of a valid tool call,
//! the triggers that switch a lazy grammar on, and the tokens a runtime must keep whole.
//!
//! The grammar covers model output only (never the generation prompt). Markers are matched
//! whitespace-tolerantly: a marker's leading/trailing whitespace becomes optional `space`, and word
//! triggers are the trimmed markers, so `<tool_call>` followed by any newline style triggers and parses.
//!
//! - `tool_choice: auto` → lazy grammar rooted at the trigger: the tool-call section, then `space`.
//! - `tool_choice: required` → whole output: optional reasoning (when thinking is on and the template
//!   reasons), optional content up to the call marker, then the calls.
//! - `json_schema` → whole output: optional reasoning, then the JSON (optionally in a ```json fence).

use super::builder::GrammarBuilder;
use super::ir::Expr;
use super::schema::SchemaConverter;
use crate::analysis::{Analysis, CallIdPosition, Handler, ReasoningMode, ToolFormat};
use crate::api::{RequestOptions, ToolChoice};
use crate::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A grammar for constrained decoding. `gbnf` is empty when nothing needs constraining (no tools,
/// `tool_choice: none`, no response schema, or a template without a tool format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    fn word(v: impl Into<String>) -> Self {
        Trigger { kind: TriggerKind::Word, value: v.into() }
    }
    fn pattern(v: impl Into<String>) -> Self {
        Trigger { kind: TriggerKind::Pattern, value: v.into() }
    }
}

/// One tool of the request.
struct Tool {
    name: String,
    params: Value,
}

fn parse_tools(tools: &[Value]) -> Result<Vec<Tool>> {
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

/// Build the grammar for a request.
///
/// # Errors
/// `InvalidInput` for a tool without a name; `Schema` for an unusable parameter or response schema.
pub fn build_grammar(analysis: &Analysis, options: &RequestOptions) -> Result<Grammar> {
    let mut tools = if options.tool_choice == ToolChoice::None { Vec::new() } else { parse_tools(&options.tools)? };
    if let ToolChoice::Function(name) = &options.tool_choice {
        tools.retain(|t| &t.name == name);
        if tools.is_empty() {
            return Err(Error::new(ErrorKind::InvalidInput, format!("toolChoice names `{name}`, which is not among the tools")));
        }
    }
    let mut g = Gen { b: GrammarBuilder::new(), a: analysis, opts: options };
    let thinking = options.enable_thinking;
    let (reasoning_start, reasoning_end) = reasoning_markers(analysis).map(|(s, e)| (s.trim().to_string(), e.trim().to_string())).unwrap_or_default();
    let grammar = |gbnf: String, lazy: bool, triggers: Vec<Trigger>, preserved_tokens: Vec<String>| Grammar {
        gbnf,
        lazy,
        triggers,
        preserved_tokens,
        reasoning_start: reasoning_start.clone(),
        reasoning_end: reasoning_end.clone(),
    };
    if let Some(schema) = &options.json_schema {
        let root = g.response_root(schema, thinking)?;
        let preserved = g.preserved(handler_tokens(analysis.handler));
        return Ok(grammar(g.b.finish(root), false, Vec::new(), preserved));
    }
    let has_format = analysis.handler != Handler::Autoparser || analysis.tools.format.mode != ToolFormat::None;
    if tools.is_empty() || !has_format {
        return Ok(Grammar { gbnf: String::new(), lazy: false, triggers: Vec::new(), preserved_tokens: Vec::new(), reasoning_start: String::new(), reasoning_end: String::new() });
    }
    let shape = g.shape(&tools)?;
    let sp = g.b.space();
    let calls = g.b.add("tool-calls", shape.calls);
    let required = matches!(options.tool_choice, ToolChoice::Required | ToolChoice::Function(_));
    let (root, lazy) = if required || shape.triggers.is_empty() {
        let reasoning = g.reasoning_block(thinking);
        let content = match &shape.content_stop {
            Some(stop) if !stop.is_empty() => g.b.until(stop),
            _ => Expr::Empty,
        };
        (Expr::seq([reasoning, sp.clone(), content, calls, sp]), false)
    } else {
        (Expr::seq([calls, sp]), true)
    };
    let preserved = g.preserved(shape.preserved);
    Ok(grammar(g.b.finish(root), lazy, if lazy { shape.triggers } else { Vec::new() }, preserved))
}

/// What a format contributes: the tool-call section and how a runtime finds it.
struct Shape {
    calls: Expr,
    triggers: Vec<Trigger>,
    /// Marker content runs up to before the calls (for non-lazy grammars).
    content_stop: Option<String>,
    preserved: Vec<String>,
}

struct Gen<'a> {
    b: GrammarBuilder,
    a: &'a Analysis,
    opts: &'a RequestOptions,
}

/// Whether the template's output may start with reasoning.
fn reasons(a: &Analysis) -> bool {
    a.reasoning.mode != ReasoningMode::None && !a.reasoning.end.trim().is_empty()
}

impl Gen<'_> {
    /// A marker with its surrounding whitespace made optional.
    fn marker(&mut self, m: &str) -> Expr {
        let core = m.trim();
        if core.is_empty() {
            return if m.is_empty() { Expr::Empty } else { self.b.space() };
        }
        let lead = if m.starts_with(char::is_whitespace) { self.b.space() } else { Expr::Empty };
        let trail = if m.ends_with(char::is_whitespace) { self.b.space() } else { Expr::Empty };
        Expr::seq([lead, Expr::lit(core), trail])
    }

    fn parallel(&self) -> bool {
        self.opts.parallel_tool_calls
    }

    /// `item (sep item)*` when parallel calls are allowed, else `item`.
    fn repeated(&self, item: Expr, sep: Expr) -> Expr {
        if self.parallel() {
            Expr::seq([item.clone(), Expr::star(Expr::seq([sep, item]))])
        } else {
            item
        }
    }

    /// Optional reasoning block before a non-lazy grammar's output. The start marker is optional:
    /// the generation prompt may already have opened the block.
    fn reasoning_block(&mut self, thinking: bool) -> Expr {
        if self.a.handler == Handler::GptOss {
            let body = self.b.until("<|end|>");
            let block = Expr::seq([Expr::lit("<|channel|>analysis<|message|>"), body, Expr::lit("<|end|><|start|>assistant")]);
            return Expr::opt(self.b.add("reasoning", block));
        }
        let Some((start, end)) = reasoning_markers(self.a).filter(|_| thinking || self.a.handler != Handler::Autoparser) else {
            return Expr::Empty;
        };
        let start = self.marker(&start);
        let body = self.b.until(end.trim());
        let end = self.marker(&end);
        let block = Expr::seq([Expr::opt(start), body, end]);
        Expr::opt(self.b.add("reasoning", block))
    }

    fn response_root(&mut self, schema: &Value, thinking: bool) -> Result<Expr> {
        let value = SchemaConverter::new(&mut self.b, schema).json(schema, "response")?;
        let sp = self.b.space();
        let reasoning = self.reasoning_block(thinking);
        if self.a.handler == Handler::GptOss {
            let constrain = self.harmony_constrain();
            return Ok(Expr::seq([reasoning, Expr::lit("<|channel|>final"), constrain, Expr::lit("<|message|>"), sp.clone(), value, sp]));
        }
        let fenced = Expr::seq([Expr::lit("```json"), sp.clone(), value.clone(), sp.clone(), Expr::lit("```")]);
        Ok(Expr::seq([reasoning, sp.clone(), Expr::alt([fenced, value]), sp]))
    }

    /// Arguments of one tool as JSON.
    fn json_args(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        SchemaConverter::new(&mut self.b, &tool.params).json(&tool.params, hint)
    }

    fn preserved(&self, extra: Vec<String>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let base = if self.a.handler == Handler::Autoparser { self.a.preserved_tokens.iter().flat_map(|m| token_units(m)).collect() } else { Vec::new() };
        for t in base.into_iter().chain(extra) {
            if !t.is_empty() && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    fn shape(&mut self, tools: &[Tool]) -> Result<Shape> {
        match self.a.handler {
            Handler::GptOss => self.harmony(tools),
            Handler::FunctionaryV32 => self.functionary_v32(tools),
            Handler::Ministral3 => self.ministral3(tools),
            Handler::Autoparser => self.general(tools),
        }
    }

    // ---- the general formats ----------------------------------------------------------------

    fn general(&mut self, tools: &[Tool]) -> Result<Shape> {
        let f = self.a.tools.format.clone();
        let sp = self.b.space();
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let body = match f.mode {
                ToolFormat::JsonNative => self.json_native_call(tool, &hint)?,
                ToolFormat::TagWithJson | ToolFormat::TagWithTagged => self.tagged_call(tool, &hint, f.mode)?,
                ToolFormat::None => return Err(Error::new(ErrorKind::Grammar, "template has no tool-call format")),
            };
            alts.push(self.b.add(&hint, body));
        }
        let any = self.b.add("tool-call", Expr::alt(alts));
        // Closing markers may follow optional whitespace (`}\n</tool_call>`).
        let closing = |g: &mut Self, m: &str| if m.is_empty() { Expr::Empty } else { Expr::seq([g.b.space(), g.marker(m)]) };
        let (start, mut end) = (self.marker(&f.per_call_start), closing(self, &f.per_call_end));
        // Sectioned JSON calls are delimited by their own start marker and the section end, so a
        // left-out per-call end is recoverable: the parser tolerates it and llama.cpp's grammar
        // for such a protocol (Kimi K2) makes it optional.
        let self_delimited = f.mode == ToolFormat::TagWithJson && !f.section_start.trim().is_empty() && !f.per_call_start.trim().is_empty();
        if self_delimited {
            end = Expr::opt(end);
        }
        let call = Expr::seq([start.clone(), any.clone(), end.clone()]);
        let calls = if f.tools_array_wrapped {
            // The call markers wrap the whole array (`<TOOLCALL>[{…}, {…}]</TOOLCALL>`), as the parser reads them.
            let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
            let list = self.repeated(any, sep);
            Expr::seq([start, Expr::lit("["), sp.clone(), list, sp.clone(), Expr::lit("]"), end])
        } else if self.a.tools.arguments.literal_values && f.per_call_start.is_empty() {
            // Literal calls in one section are a list: `[f(a=1), g(b=2)]`.
            self.repeated(call, Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]))
        } else {
            self.repeated(call, sp.clone())
        };
        let (ss, se) = (self.marker(&f.section_start), closing(self, &f.section_end));
        // Calls may also start at their own marker without the section (as the parser accepts; the
        // trigger stays the section marker, as llama.cpp's for these formats).
        let bare_calls = !f.section_start.trim().is_empty() && !f.per_call_start.trim().is_empty() && f.mode != ToolFormat::JsonNative;
        let section = if bare_calls {
            Expr::alt([Expr::seq([ss, calls.clone(), se.clone()]), Expr::seq([calls, Expr::opt(se)])])
        } else {
            Expr::seq([ss, calls, se])
        };
        // The trigger: the first fixed text of a call section.
        let fn_prefix = self.a.tools.function.name_prefix.clone();
        let word = [f.section_start.trim(), f.per_call_start.trim(), if f.mode == ToolFormat::JsonNative { "" } else { fn_prefix.trim() }]
            .into_iter()
            .find(|w| !w.is_empty())
            .map(str::to_string);
        let triggers = match &word {
            // Calls the grammar accepts without their section must also switch it on.
            Some(w) if bare_calls => vec![Trigger::word(leading_token(w)), Trigger::word(leading_token(f.per_call_start.trim()))],
            Some(w) => vec![Trigger::word(leading_token(w))],
            None if f.mode == ToolFormat::JsonNative => vec![self.raw_json_trigger(tools)],
            None => tools.iter().map(|t| Trigger::word(format!("{}{}", fn_prefix, t.name).trim().to_string())).collect(),
        };
        Ok(Shape { calls: section, triggers, content_stop: word, preserved: Vec::new() })
    }

    /// Output that is a bare JSON call: the whole output must start with it.
    fn raw_json_trigger(&self, tools: &[Tool]) -> Trigger {
        let f = &self.a.tools.format;
        let names: Vec<String> = tools.iter().map(|t| regex_escape(&t.name)).collect();
        let names = names.join("|");
        let open = if f.tools_array_wrapped { r"\[\s*\{" } else { r"\{" };
        let value = if f.fun_name_is_key {
            format!(r#"\s*({open}\s*"(?:{names})"[\s\S]*)"#)
        } else {
            format!(r#"\s*({open}[\s\S]*"{}"\s*:\s*"(?:{names})"[\s\S]*)"#, regex_escape(&f.name_field))
        };
        Trigger { kind: TriggerKind::PatternFull, value }
    }

    fn json_native_call(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        let f = self.a.tools.format.clone();
        let sp = self.b.space();
        let args = self.json_args(tool, &format!("{hint}-args"))?;
        let colon = Expr::seq([sp.clone(), Expr::lit(":"), sp.clone()]);
        let quoted_name = Expr::lit(json_str(&tool.name));
        if f.fun_name_is_key || f.name_field.is_empty() {
            return Ok(Expr::seq([Expr::lit("{"), sp.clone(), quoted_name, colon, args, sp, Expr::lit("}")]));
        }
        let mut order: Vec<String> = f.parameter_order.clone();
        for field in [&f.name_field, &f.args_field, &f.id_field, &f.gen_id_field] {
            if !field.is_empty() && !order.contains(field) {
                order.push(field.clone());
            }
        }
        let id_value = {
            let s = self.b.json_string();
            let n = self.b.json_integer();
            Expr::alt([s, n])
        };
        let mut fields = Vec::new();
        for field in order {
            let key = Expr::lit(json_str(&field));
            if field == f.name_field {
                fields.push((Expr::seq([key, colon.clone(), quoted_name.clone()]), false));
            } else if field == f.args_field {
                fields.push((Expr::seq([key, colon.clone(), args.clone()]), false));
            } else {
                fields.push((Expr::seq([key, colon.clone(), id_value.clone()]), true));
            }
        }
        let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
        let body = join_optional(&mut self.b, hint, fields, &sep);
        Ok(Expr::seq([Expr::lit("{"), sp.clone(), body, sp, Expr::lit("}")]))
    }

    fn call_id(&mut self) -> Expr {
        let id = self.a.tools.call_id.clone();
        if id.pos == CallIdPosition::None {
            return Expr::Empty;
        }
        let value = if id.suffix.trim().is_empty() {
            Expr::plus(Expr::ranges(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_'), ('-', '-')]))
        } else {
            self.b.until(id.suffix.trim())
        };
        // `<|tool_call:begin|>ID<|tool_call:name|>f`: markers the id shares with the call start and
        // the name prefix are written once, by the call start and the name (see `tagged_call`).
        let f = &self.a.tools;
        let pre = id.pos == CallIdPosition::PreFuncName;
        let shared_prefix = pre && id.prefix.trim() == f.format.per_call_start.trim();
        let shared_suffix = pre && id.suffix.trim() == f.function.name_prefix.trim();
        let prefix = if shared_prefix { Expr::Empty } else { self.marker(&id.prefix) };
        let suffix = if shared_suffix { Expr::Empty } else { self.marker(&id.suffix) };
        Expr::seq([Expr::opt(Expr::seq([prefix, value])), suffix])
    }

    fn tagged_call(&mut self, tool: &Tool, hint: &str, mode: ToolFormat) -> Result<Expr> {
        let t = self.a.tools.clone();
        let np = self.marker(&t.function.name_prefix);
        // A numbered header (`functions.f:0`) counts calls: any number where the first call has 0.
        let split = t.call_id.header_counter_at.and_then(|at| Some((t.function.name_suffix.get(..at)?, t.function.name_suffix.get(at + 1..)?)));
        let ns = match split {
            Some((head, rest)) => Expr::seq([Expr::lit(head), Expr::plus(Expr::ranges(&[('0', '9')])), self.marker(rest)]),
            None => self.marker(&t.function.name_suffix),
        };
        let name = Expr::seq([np, Expr::lit(tool.name.clone()), ns]);
        let id = self.call_id();
        let (pre_id, mid_id, post_id) = match t.call_id.pos {
            CallIdPosition::PreFuncName => (id, Expr::Empty, Expr::Empty),
            CallIdPosition::BetweenFuncAndArgs => (Expr::Empty, id, Expr::Empty),
            CallIdPosition::PostArgs => (Expr::Empty, Expr::Empty, id),
            CallIdPosition::None => (Expr::Empty, Expr::Empty, Expr::Empty),
        };
        let (astart, aend) = (self.marker(&t.arguments.start), self.marker(&t.arguments.end));
        let args = if mode == ToolFormat::TagWithJson {
            self.json_args(tool, &format!("{hint}-args"))?
        } else {
            self.tagged_args(tool, hint)?
        };
        let close = if t.function.close.is_empty() { Expr::Empty } else { Expr::seq([self.b.space(), self.marker(&t.function.close)]) };
        Ok(Expr::seq([pre_id, name, mid_id, astart, args, aend, post_id, close]))
    }

    /// `<name_prefix>k<name_suffix><value_prefix>v<value_suffix>` per parameter, in declared order,
    /// optional parameters optional; string values raw up to the value's closing marker.
    fn tagged_args(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        let t = self.a.tools.clone();
        let params = &tool.params;
        let props: Vec<(String, Value)> = params
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let required: Vec<String> =
            params.get("required").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default();
        let terminator = [&t.arguments.value_suffix, &t.function.close, &t.arguments.end, &t.format.per_call_end, &t.format.section_end]
            .into_iter()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_string();
        let mut fields = Vec::new();
        for (k, schema) in &props {
            let arg_hint = format!("{hint}-arg-{k}");
            let mut value = if t.arguments.literal_values {
                super::literal::value(&mut self.b, schema, &t.arguments.string_delimiter)
            } else {
                SchemaConverter::new(&mut self.b, params).raw(schema, &arg_hint, &terminator)?
            };
            let is_string = schema.get("type").and_then(Value::as_str) == Some("string");
            let (raw_open, raw_close) = (&t.arguments.raw_value_start, &t.arguments.raw_value_end);
            if is_string && !raw_open.is_empty() && !raw_close.is_empty() {
                // Or verbatim inside the template's raw wrapper (`<![CDATA[…]]>`).
                // An enum (or const) keeps its values inside the wrapper too.
                let allowed: Option<Vec<Expr>> = match (schema.get("enum").and_then(Value::as_array), schema.get("const")) {
                    (Some(vals), _) => Some(vals.iter().filter_map(Value::as_str).map(Expr::lit).collect()),
                    (None, Some(v)) => Some(v.as_str().map(Expr::lit).into_iter().collect()),
                    (None, None) => None,
                };
                let body = match allowed {
                    Some(vals) => Expr::alt(vals),
                    None => self.b.until(raw_close),
                };
                let raw = Expr::seq([Expr::lit(raw_open.clone()), body, Expr::lit(raw_close.clone())]);
                value = Expr::alt([raw, value]);
            }
            let (np, ns) = (self.marker(&t.arguments.name_prefix), self.marker(&t.arguments.name_suffix));
            // A typed value prefix (`string="false"`) introduces every non-string value.
            let typed = !is_string && !t.arguments.typed_value_prefix.is_empty();
            let vp = self.marker(if typed { &t.arguments.typed_value_prefix } else { &t.arguments.value_prefix });
            let vs = self.marker(&t.arguments.value_suffix);
            let arg = Expr::seq([np, Expr::lit(k.clone()), ns, vp, value, vs]);
            fields.push((self.b.add(&arg_hint, arg), !required.contains(k)));
        }
        let sp = self.b.space();
        let sep = if t.arguments.separator.trim().is_empty() { sp.clone() } else { Expr::seq([sp.clone(), Expr::lit(t.arguments.separator.trim()), sp.clone()]) };
        // Models write tagged arguments in any order (each tag names its argument). Required ones
        // stay in declared order so none can be left out; optional ones may appear between them.
        let optional: Vec<Expr> = fields.iter().filter(|f| f.1).map(|f| f.0.clone()).collect();
        let required: Vec<Expr> = fields.iter().filter(|f| !f.1).map(|f| f.0.clone()).collect();
        if optional.is_empty() {
            let all = required.into_iter().map(|r| (r, false)).collect();
            return Ok(Expr::seq([sp.clone(), join_optional(&mut self.b, hint, all, &sep), sp]));
        }
        let any_opt = self.b.add(&format!("{hint}-optional"), Expr::alt(optional));
        let items = Expr::alt(std::iter::once(any_opt.clone()).chain(required.iter().cloned()));
        if required.is_empty() {
            let list = Expr::opt(Expr::seq([any_opt.clone(), Expr::star(Expr::seq([sep.clone(), any_opt]))]));
            let _ = items;
            return Ok(Expr::seq([sp.clone(), list, sp]));
        }
        let opts_before = Expr::star(Expr::seq([any_opt.clone(), sep.clone()]));
        let opts_after = Expr::star(Expr::seq([sep.clone(), any_opt]));
        let mut seq = vec![sp.clone(), opts_before.clone()];
        for (i, r) in required.into_iter().enumerate() {
            if i > 0 {
                seq.push(sep.clone());
                seq.push(opts_before.clone());
            }
            seq.push(r);
        }
        seq.push(opts_after);
        seq.push(sp);
        let _ = items;
        Ok(Expr::seq(seq))
    }

    // ---- dedicated handlers ---------------------------------------------------------------------

    fn harmony_constrain(&mut self) -> Expr {
        let sp = self.b.space();
        let word = Expr::plus(Expr::ranges(&[('A', 'Z'), ('a', 'z'), ('0', '9'), ('_', '_'), ('-', '-')]));
        Expr::opt(Expr::seq([sp, Expr::opt(Expr::lit("<|constrain|>")), word]))
    }

    /// GPT-OSS harmony: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`
    /// (the recipient may also come before the channel).
    fn harmony(&mut self, tools: &[Tool]) -> Result<Shape> {
        let channel = Expr::seq([Expr::lit("<|channel|>"), Expr::alt([Expr::lit("commentary"), Expr::lit("analysis")])]);
        let constrain = self.harmony_constrain();
        let sp = self.b.space();
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = self.json_args(tool, &format!("{hint}-args"))?;
            let recipient = Expr::seq([Expr::lit(" to=functions."), Expr::lit(tool.name.clone())]);
            let head = Expr::alt([Expr::seq([recipient.clone(), channel.clone()]), Expr::seq([channel.clone(), recipient])]);
            let body = Expr::seq([head, constrain.clone(), Expr::lit("<|message|>"), sp.clone(), args, sp.clone(), Expr::opt(Expr::lit("<|call|>"))]);
            alts.push(self.b.add(&hint, body));
        }
        let any = self.b.add("tool-call", Expr::alt(alts));
        let calls = self.repeated(any, Expr::lit("<|start|>assistant"));
        let triggers = vec![
            Trigger::pattern(r"^\s+to$"),
            Trigger::pattern(r"^<\|channel\|>(?:commentary|analysis)\s+to=functions$"),
            Trigger::pattern(r"<\|start\|>assistant(\s+to)"),
            Trigger::pattern(r"<\|start\|>assistant(<\|channel\|>(?:commentary|analysis)\s+to)"),
        ];
        Ok(Shape { calls, triggers, content_stop: None, preserved: handler_tokens(Handler::GptOss) })
    }

    /// Functionary v3.2: the prompt ends with `>>>`; the model writes `NAME\n{…}`, further calls
    /// `>>>NAME\n{…}`, and `all\n…` for plain content.
    fn functionary_v32(&mut self, tools: &[Tool]) -> Result<Shape> {
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = self.json_args(tool, &format!("{hint}-args"))?;
            alts.push(self.b.add(&hint, Expr::seq([Expr::lit(format!("{}\n", tool.name)), args])));
        }
        let any = self.b.add("tool-call", Expr::alt(alts));
        let sp = self.b.space();
        let sep = Expr::seq([sp, Expr::lit(">>>")]);
        let content = self.b.until(">>>");
        let leading = Expr::opt(Expr::seq([Expr::lit("all\n"), content, Expr::lit(">>>")]));
        let calls = Expr::seq([Expr::opt(Expr::lit(">>>")), leading, self.repeated(any, sep)]);
        Ok(Shape { calls, triggers: vec![Trigger::pattern(">>>(?!all)")], content_stop: None, preserved: handler_tokens(Handler::FunctionaryV32) })
    }

    /// Ministral / Magistral 3: `[TOOL_CALLS]NAME[ARGS]{…}`, one section per call.
    fn ministral3(&mut self, tools: &[Tool]) -> Result<Shape> {
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let args = self.json_args(tool, &format!("{hint}-args"))?;
            alts.push(self.b.add(&hint, Expr::seq([Expr::lit(tool.name.clone()), Expr::lit("[ARGS]"), args])));
        }
        let any = self.b.add("tool-call", Expr::alt(alts));
        let sp = self.b.space();
        let calls = self.repeated(Expr::seq([Expr::lit("[TOOL_CALLS]"), any]), sp);
        Ok(Shape { calls, triggers: vec![Trigger::word("[TOOL_CALLS]")], content_stop: Some("[TOOL_CALLS]".into()), preserved: handler_tokens(Handler::Ministral3) })
    }
}

/// The markers of the reasoning block that may open the output (harmony's analysis channel is a
/// message of its own, not a block).
fn reasoning_markers(a: &Analysis) -> Option<(String, String)> {
    match a.handler {
        Handler::Ministral3 => Some(("[THINK]".to_string(), "[/THINK]".to_string())),
        Handler::GptOss | Handler::FunctionaryV32 => None,
        Handler::Autoparser if reasons(a) => Some((a.reasoning.start.clone(), a.reasoning.end.clone())),
        Handler::Autoparser => None,
    }
}

/// The special tokens of a marker. A marker that is special tokens glued to punctuation or a call
/// counter (`<|tool_call_start|>[`, `:0<|tool_call_argument_begin|>`, `</param></function>`) is
/// its tokens: a runtime can only keep single tokens whole. Any other marker stays as it is.
fn token_units(marker: &str) -> Vec<String> {
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
fn leading_token(marker: &str) -> String {
    match token_units(marker).into_iter().next() {
        Some(first) if marker.starts_with(&first) => first,
        _ => marker.to_string(),
    }
}

/// The special tokens a dedicated handler's protocol writes (the general formats take theirs from
/// the analysis).
fn handler_tokens(h: Handler) -> Vec<String> {
    let tokens: &[&str] = match h {
        Handler::GptOss => &["<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>"],
        Handler::Ministral3 => &["[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]"],
        Handler::FunctionaryV32 => &[">>>all"],
        Handler::Autoparser => &[],
    };
    tokens.iter().map(|t| t.to_string()).collect()
}

/// Join fields with `sep`; optional fields may be left out without leaving a dangling separator.
/// Leading optional fields carry their separator after them, later ones before them.
fn join_optional(b: &mut GrammarBuilder, hint: &str, fields: Vec<(Expr, bool)>, sep: &Expr) -> Expr {
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

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Escape regex metacharacters (ECMAScript / std::regex syntax).
fn regex_escape(s: &str) -> String {
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
