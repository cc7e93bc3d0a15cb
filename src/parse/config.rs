//! What the auto parser needs to know, derived once from an [`Analysis`] and the request options.
//!
//! Mirrors llama.cpp's parser building (design/autoparser.md, "Parser Building"): which reasoning
//! markers apply, whether content is wrapped, and the tool-call layout, with markers pre-split into
//! [`Marker`]s and tool schemas reduced to what parsing needs (is this argument a string?).

use super::marker::Marker;
use super::auto::call_syntax;
use super::auto::bare_json_call::BareCallPlace;
use crate::findings::{Analysis, CallIdPosition, ContentMode, ReasoningMode, ToolFormat};
use crate::api::{ReasoningFormat, RequestOptions, ToolChoice};
use serde_json::Value;
use std::rc::Rc;

/// One tool the model may call.
#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: String,
    /// Parameter names whose schema admits a string (their tagged values are quoted).
    pub string_params: Vec<String>,
    /// Parameter names declared with a non-string type (their tagged values are raw JSON).
    pub typed_params: Vec<String>,
    /// String parameters whose schema admits `null` too (`anyOf: [{type: null}, {type: string}]`):
    /// a tagged value `null` is null, not the string "null".
    pub nullable_params: Vec<String>,
    /// Parameters whose schema is one scalar type (`{"type": "integer"}`): a literal value of another
    /// scalar type is converted where that is exact (rule R49, `parse::auto::scalar_coercion`).
    pub scalar_params: Vec<(String, super::auto::scalar_coercion::Scalar)>,
}

impl ToolDef {
    /// Whether the schema declares `param`.
    pub fn declares(&self, param: &str) -> bool {
        self.string_params.iter().chain(&self.typed_params).any(|p| p == param)
    }

    /// The one scalar type `param`'s schema declares, if it declares exactly one.
    pub fn scalar(&self, param: &str) -> Option<super::auto::scalar_coercion::Scalar> {
        self.scalar_params.iter().find(|(p, _)| p == param).map(|(_, s)| *s)
    }

    /// Whether `param` is a string parameter that admits null as well.
    pub fn is_nullable(&self, param: &str) -> bool {
        self.nullable_params.iter().any(|p| p == param)
    }

    /// Whether a tagged value of `param` is a string. Undeclared parameters are strings.
    pub fn is_string(&self, param: &str) -> bool {
        !self.typed_params.iter().any(|p| p == param) || self.string_params.iter().any(|p| p == param)
    }
}

/// JSON field layout of a JSON_NATIVE call.
#[derive(Debug, Clone)]
pub struct JsonLayout {
    pub name_key: String,
    pub args_key: String,
    /// Key of a nested object holding name and arguments (`"function"`).
    pub nest_key: String,
    /// The format itself nests name and arguments in that object (otherwise a nested object is
    /// the OpenAI wrapper, accepted with a diagnostic).
    pub nested: bool,
    pub id_keys: Vec<String>,
    /// `{"get_weather": {...}}`: the function name is the key.
    pub fun_name_is_key: bool,
    /// With `fun_name_is_key`: the value is the arguments themselves (no `args_key` wrapper).
    pub args_direct: bool,
    pub array_wrapped: bool,
}

/// Tool-call markers and layout.
#[derive(Debug, Clone)]
pub struct ToolConfig {
    pub format: ToolFormat,
    pub section_start: Marker,
    pub section_end: Marker,
    pub per_call_start: Marker,
    pub per_call_end: Marker,
    pub name_prefix: Marker,
    pub name_suffix: Marker,
    pub close: Marker,
    pub args_start: Marker,
    pub args_end: Marker,
    pub arg_name_prefix: Marker,
    pub arg_name_suffix: Marker,
    pub value_prefix: Marker,
    /// Value prefix that marks a JSON (non-string) value; empty when the prefix does not tell.
    pub typed_value_prefix: Marker,
    /// Raw string-value wrapper (`<![CDATA[`, `]]>`); empty when the template has none.
    pub raw_value: (String, String),
    pub value_suffix: Marker,
    pub arg_separator: Marker,
    /// Literal argument values (see `ArgumentsAnalysis::literal_values`) and their string delimiter.
    pub literal: bool,
    pub string_delim: String,
    pub id_pos: CallIdPosition,
    pub id_prefix: Marker,
    pub id_suffix: Marker,
    pub json: JsonLayout,
    pub tools: Vec<ToolDef>,
    /// The text that starts tool calls in content.
    pub trigger: Marker,
    /// Whether the trigger is part of the call body (a bare `{` / `[`), not consumed as a marker.
    pub trigger_is_body: bool,
    /// A call may also start without its section: the per-call start marker (section formats).
    pub call_trigger: Marker,
    /// Numbered headers (`functions.f:0`): the text between the name and the counter digits; the
    /// header up to the digits is the call id and `name_suffix` is what follows the digits.
    pub counter_head: Option<String>,
    /// A call whose name the layout delimits may name a tool the request did not declare (rule
    /// R22): only in the template's own layout, never in the fallback or another call syntax.
    pub undeclared: bool,
    /// The openers of the template's role tag pairs (`<user>`), in which a whole call may be
    /// written (rule R29, `parse::auto::tag_wrapped_call`): looked for in content only.
    pub wrapper_trigger: Marker,
    /// Text other than blanks the template writes between two calls with per-call markers (tools.12):
    /// layout after a call when another call follows it.
    pub marked_call_separator: Marker,
}

impl ToolConfig {
    /// Index of the tool called `name`.
    pub fn tool(&self, name: &str) -> Option<usize> {
        self.tools.iter().position(|t| t.name == name)
    }
}

/// Longest name of a tool the request did not declare that is read as one (rule R22).
pub const MAX_TOOL_NAME: usize = 64;

/// Whether `c` may be part of a tool name the request did not declare: OpenAI's `[A-Za-z0-9_-]`, and `.`.
pub fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Whether `name` is a well-formed tool name (rule R22): 1 to [`MAX_TOOL_NAME`] name characters.
pub fn is_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len()) && name.chars().all(is_tool_name_char)
}

/// Everything the auto parser is configured with.
#[derive(Debug, Clone)]
pub struct ParserConfig {
    /// `(start, end)` when reasoning is extracted; `start` may be empty (delimiter style).
    pub reasoning: Option<(Marker, Marker)>,
    /// `(start, end)` content wrapper markers stripped from content.
    pub content_wrap: Option<(Marker, Marker)>,
    /// A tool call inside reasoning ends it (reasoning the template renders only before calls).
    pub reasoning_ends_at_call: bool,
    /// Thinking is not off: an output that does not open reasoning may still be reasoning up to an
    /// end marker (its opener missing, rule R5).
    pub thinking: bool,
    pub tools: Option<ToolConfig>,
    /// With no tools in the request, the template's tool-call openers (its section and per-call
    /// start markers): one inside open reasoning ends it as a call would (rule R1's decision), the
    /// markup staying content (rule R25). Empty when the request has tools or reasoning is not read.
    pub reasoning_call_openers: Vec<Marker>,
    /// End-of-turn special tokens the model may write in content (dropped, rule R7); none that is
    /// also one of the markers above.
    pub turn_end: Vec<Marker>,
    /// The template's label in front of past replies (`analysis.contentLabel`), dropped where the
    /// reply's content begins (rule R47); empty for none.
    pub content_label: String,
    /// Tool-result wrapper markers the model may write in content (dropped, text kept, rule R15);
    /// none that is also one of the markers above.
    pub tool_result: Vec<Marker>,
    /// For a tool format of the fallback (see [`fallback_configs`]): the convention, named in the
    /// diagnostic every call read this way adds.
    pub fallback_rule: Option<String>,
    /// For a marker-less call of a template that has a marked tool format (rules R28, R34, see
    /// [`fallback_configs`]): the diagnostic every call read this way adds.
    pub bare_note: Option<&'static str>,
    /// For a dialect that is a departure of its own rather than another spelling (rule R21,
    /// `parse::auto::call_syntax`): the diagnostic entering it adds.
    pub dialect_note: Option<&'static str>,
    /// For a dialect whose calls count only whole (rule R29, `parse::auto::tag_wrapped_call`): a call goes
    /// out once its closing marker is read, adding this diagnostic; a call that breaks or is not
    /// closed is content.
    pub whole_call_note: Option<String>,
    /// The configuration that reads a pythonic call where this one's JSON call object is due
    /// (rule R20, `parse::auto::call_syntax`); `None` unless the tool format writes JSON call objects.
    pub pythonic: Option<Rc<ParserConfig>>,
    /// Source tokens that may stand right before a call (rule R11, `parse::auto::markers::source_markers`).
    pub call_prefixes: Vec<String>,
    /// The closer of the call section's opener by the template's token convention, which the
    /// template itself never writes (`[/TOOL_CALLS]`): dropped after the calls (rule R9).
    pub unwritten_closer: Marker,
    /// JSON call arguments stream as they come instead of going out whole once valid (the request's
    /// `stream_arguments`).
    pub stream_arguments: bool,
    /// The template's raw-code call of its code-interpreter tool, when the request declares that tool
    /// (rule R41, `parse::raw_code`).
    pub raw_code: Option<Rc<super::raw_code::RawCodeConfig>>,
    /// Reasoning markers that are plain phrases (`analysis.reasoning.phrases`, with their contracted
    /// spellings, `parse::auto::phrase_reasoning`): read as a pair with thinking on (rule R43).
    pub reasoning_phrases: Option<(Marker, Marker)>,
}

/// One tool format the fallback tries: the whole configuration with it as the tool format, and
/// whether its calls only start at the start of a line.
#[derive(Debug, Clone)]
pub struct FallbackConfig {
    pub cfg: Rc<ParserConfig>,
    pub line_start: bool,
    /// A marker-less call where the template has a marked tool format (rules R28, R34): where it may
    /// stand; it is read only once the whole call is seen to be one (`parse::auto::bare_json_call`).
    pub bare: Option<BareCallPlace>,
}

impl ParserConfig {
    /// Markers dropped wherever they show in content: end-of-turn tokens (R7), tool-result wrappers (R15).
    pub fn dropped_in_content(&self) -> impl Iterator<Item = &Marker> {
        self.turn_end.iter().chain(&self.tool_result)
    }

    /// Build the configuration for `analysis` and `options`.
    pub fn new(analysis: &Analysis, options: &RequestOptions) -> ParserConfig {
        let r = &analysis.reasoning;
        let extracting = options.reasoning_format != ReasoningFormat::None && r.mode != ReasoningMode::None;
        let reasoning = (extracting && !Marker::new(&r.end).is_empty()).then(|| (Marker::new(&r.start), Marker::new(&r.end)));

        let c = &analysis.content;
        let mut content_wrap = match c.mode {
            ContentMode::Plain => None,
            ContentMode::AlwaysWrapped | ContentMode::WrappedWithReasoning => {
                let (s, e) = (Marker::new(&c.start), Marker::new(&c.end));
                (!s.is_empty() && !e.is_empty()).then_some((s, e))
            }
        };
        let has_schema = options.json_schema.as_ref().is_some_and(|s| s.as_object().is_some_and(|o| !o.is_empty()));
        let tools_on = !options.tools.is_empty()
            && options.tool_choice != ToolChoice::None
            && analysis.tools.format.mode != ToolFormat::None;
        let tools = if has_schema {
            // A response-format schema makes the whole answer one JSON value, maybe fenced.
            content_wrap = Some((Marker::new("```json"), Marker::new("```")));
            None
        } else if tools_on {
            Some(tool_config(analysis, &options.tools))
        } else {
            None
        };
        let reasoning_ends_at_call = r.mode == ReasoningMode::ToolsOnly;
        let reasoning_call_openers = if tools.is_none() && reasoning.is_some() { tool_openers(analysis) } else { Vec::new() };
        let mut cfg = ParserConfig { reasoning, content_wrap, reasoning_ends_at_call, thinking: options.enable_thinking != Some(false), tools, reasoning_call_openers, turn_end: Vec::new(), content_label: analysis.content_label.clone(), tool_result: Vec::new(), fallback_rule: None, dialect_note: None, whole_call_note: None, bare_note: None, pythonic: None, call_prefixes: Vec::new(), unwritten_closer: Marker::default(), stream_arguments: options.stream_arguments, reasoning_phrases: super::auto::phrase_reasoning::reasoning_phrases(analysis, options), raw_code: None };
        let taken: Vec<String> = {
            let text = cfg.reasoning.iter().chain(cfg.content_wrap.iter()).flat_map(|(s, e)| [s.core.clone(), e.core.clone()]);
            let tools = cfg.tools.iter().flat_map(|t| {
                [&t.section_start, &t.section_end, &t.per_call_start, &t.per_call_end, &t.name_prefix, &t.name_suffix, &t.close, &t.args_start, &t.args_end]
                    .into_iter()
                    .map(|m| m.core.clone())
            });
            text.chain(tools).collect()
        };
        cfg.turn_end = analysis.turn_end.iter().filter(|m| !taken.iter().any(|t| t.contains(m.as_str()))).map(|m| Marker::new(m)).collect();
        let free = |m: &&String| !taken.iter().chain(&analysis.turn_end).any(|t| !t.is_empty() && (t.contains(m.as_str()) || m.contains(t.as_str())));
        cfg.tool_result = analysis.tool_result_markers.iter().filter(free).map(|m| Marker::new(m)).collect();
        cfg.respell_text_markers(analysis);
        cfg.source_markers(analysis);
        let roles = [analysis.user_start.as_str(), analysis.assistant_start.as_str()];
        let wrappers = super::auto::tag_wrapped_call::wrapper_openers(&cfg, &roles, &analysis.source_tokens);
        if let (Some(t), Some((first, rest))) = (cfg.tools.as_mut(), wrappers.split_first()) {
            t.wrapper_trigger = Marker::new(first).with_alts(rest.to_vec());
        }
        cfg.pythonic = call_syntax::pythonic_variant(&cfg).map(Rc::new);
        if cfg.tools.is_some() {
            cfg.raw_code = super::raw_code::RawCodeConfig::new(analysis, &options.tools).map(Rc::new);
        }
        cfg
    }
}

fn last_segment(field: &str, default: &str) -> String {
    let f = field.rsplit('.').next().unwrap_or("");
    if f.is_empty() { default.to_string() } else { f.to_string() }
}

/// The markers that open the template's tool calls, as [`tool_config`] takes them for its triggers:
/// the section start marker, and the per-call start marker where it opens a call (not inside a
/// section of JSON calls). A format whose calls start at their name or their body has none.
fn tool_openers(analysis: &Analysis) -> Vec<Marker> {
    let f = &analysis.tools.format;
    if f.mode == ToolFormat::None {
        return Vec::new();
    }
    let section = Marker::new(&f.section_start);
    let per_call = (section.is_empty() || f.mode != ToolFormat::JsonNative).then(|| Marker::new(&f.per_call_start));
    [Some(section), per_call].into_iter().flatten().filter(|m| !m.is_empty()).collect()
}

fn tool_config(analysis: &Analysis, tools: &[Value]) -> ToolConfig {
    let t = &analysis.tools;
    let f = &t.format;
    let nest = f.name_field.split('.').next().filter(|_| f.name_field.contains('.'));
    let json = JsonLayout {
        name_key: last_segment(&f.name_field, "name"),
        args_key: last_segment(&f.args_field, "arguments"),
        nested: nest.is_some(),
        nest_key: nest.map(str::to_string).unwrap_or_else(|| if f.function_field.is_empty() { "function".into() } else { f.function_field.clone() }),
        id_keys: [&f.id_field, &f.gen_id_field].into_iter().filter(|k| !k.is_empty()).map(|k| last_segment(k, "id")).collect(),
        fun_name_is_key: f.fun_name_is_key,
        args_direct: f.args_field.is_empty(),
        array_wrapped: f.tools_array_wrapped,
    };
    let section_start = Marker::new(&f.section_start);
    let per_call_start = Marker::new(&f.per_call_start);
    let name_prefix = Marker::new(&t.function.name_prefix);
    let (trigger, trigger_is_body) = if !section_start.is_empty() {
        (section_start.clone(), false)
    } else if !per_call_start.is_empty() {
        (per_call_start.clone(), false)
    } else if f.mode == ToolFormat::JsonNative {
        (Marker::new(if f.tools_array_wrapped { "[" } else { "{" }), true)
    } else {
        (name_prefix.clone(), false)
    };
    // The counter digit splits the name suffix: `:` before it, `<|tool_call_argument_begin|>` after.
    let counter = t.call_id.header_counter_at.and_then(|at| {
        let (head, rest) = (t.function.name_suffix.get(..at)?, t.function.name_suffix.get(at + 1..)?);
        Some((head.to_string(), rest.to_string()))
    });
    let name_suffix = match &counter {
        Some((_, rest)) => Marker::new(rest),
        None => Marker::new(&t.function.name_suffix),
    };
    let per_call_marked = !per_call_start.is_empty() && !Marker::new(&f.per_call_end).is_empty();
    let call_trigger = if !section_start.is_empty() && f.mode != ToolFormat::JsonNative { per_call_start.clone() } else { Marker::default() };
    ToolConfig {
        format: f.mode,
        section_start,
        section_end: Marker::new(&f.section_end),
        per_call_start,
        per_call_end: Marker::new(&f.per_call_end),
        name_prefix,
        name_suffix,
        close: Marker::new(&t.function.close),
        args_start: Marker::new(&t.arguments.start),
        args_end: Marker::new(&t.arguments.end),
        arg_name_prefix: Marker::new(&t.arguments.name_prefix),
        arg_name_suffix: Marker::new(&t.arguments.name_suffix),
        value_prefix: Marker::new(&t.arguments.value_prefix),
        typed_value_prefix: Marker::new(&t.arguments.typed_value_prefix),
        raw_value: (t.arguments.raw_value_start.clone(), t.arguments.raw_value_end.clone()),
        value_suffix: Marker::new(&t.arguments.value_suffix),
        arg_separator: Marker::new(&t.arguments.separator),
        literal: t.arguments.literal_values,
        string_delim: t.arguments.string_delimiter.clone(),
        id_pos: t.call_id.pos,
        id_prefix: Marker::new(&t.call_id.prefix),
        id_suffix: Marker::new(&t.call_id.suffix),
        json,
        tools: tools.iter().filter_map(tool_def).collect(),
        trigger,
        trigger_is_body,
        call_trigger,
        counter_head: counter.map(|(head, _)| head),
        // A bare JSON object is a call only by the name it gives: that one must be declared.
        undeclared: !trigger_is_body,
        wrapper_trigger: Marker::default(),
        marked_call_separator: if per_call_marked { Marker::new(&f.call_separator) } else { Marker::default() },
    }
}

/// Does this JSON schema admit a string value?
fn may_be_string(schema: &Value) -> Option<bool> {
    let obj = schema.as_object()?;
    if let Some(t) = obj.get("type") {
        return Some(match t {
            Value::String(s) => s == "string",
            Value::Array(a) => a.iter().any(|x| x == "string"),
            _ => true,
        });
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(alts)) = obj.get(key) {
            return Some(alts.iter().any(|a| may_be_string(a).unwrap_or(true)));
        }
    }
    if let Some(Value::Array(e)) = obj.get("enum") {
        return Some(e.iter().any(Value::is_string));
    }
    if let Some(c) = obj.get("const") {
        return Some(c.is_string());
    }
    None
}

/// Does this JSON schema admit null? Only an explicit `null` type (or an alternative of it) counts.
fn may_be_null(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else { return false };
    match obj.get("type") {
        Some(Value::String(s)) => return s == "null",
        Some(Value::Array(a)) => return a.iter().any(|x| x == "null"),
        _ => {}
    }
    ["anyOf", "oneOf"].iter().any(|key| matches!(obj.get(*key), Some(Value::Array(alts)) if alts.iter().any(may_be_null)))
}

/// The name a request's tool declares (`{type, function: {name}}`, or a bare `{name}`).
pub fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("function").unwrap_or(tool).get("name")?.as_str()
}

fn tool_def(tool: &Value) -> Option<ToolDef> {
    let func = tool.get("function").unwrap_or(tool);
    let name = tool_name(tool)?.to_string();
    let mut def = ToolDef { name, string_params: Vec::new(), typed_params: Vec::new(), nullable_params: Vec::new(), scalar_params: Vec::new() };
    if let Some(props) = func.get("parameters").and_then(|p| p.get("properties")).and_then(Value::as_object) {
        for (k, schema) in props {
            if let Some(s) = super::auto::scalar_coercion::Scalar::of_schema(schema) {
                def.scalar_params.push((k.clone(), s));
            }
            match may_be_string(schema) {
                Some(false) => def.typed_params.push(k.clone()),
                Some(true) if may_be_null(schema) => {
                    def.string_params.push(k.clone());
                    def.nullable_params.push(k.clone());
                }
                _ => def.string_params.push(k.clone()),
            }
        }
    }
    Some(def)
}

