//! The analysis result: how a template's model writes reasoning, content and tool calls.
//!
//! Data only (types, and what the parsers read off them): below the analysis, so that a parse-only
//! build (`--no-default-features --features parser`) has them without the template engine or the
//! analysis. `analysis` re-exports all of it.
//!
//! Field-for-field the structure of llama.cpp's `autoparser` analysis (see
//! `shared/conformance/README.md`), serialized camelCase, plus `handler`, `caps`, `diffs` and
//! `diagnostics`.

use serde::{Deserialize, Serialize};

mod fallback;
pub mod spec;

pub use fallback::{fallback_formats, CallBody, FallbackFormat, FallbackMarker};
pub use spec::{ParserSpec, PARSER_SPEC_VERSION};

/// How reasoning is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReasoningMode {
    /// No reasoning markers.
    #[default]
    None,
    /// `<think>…</think>`.
    TagBased,
    /// Reasoning ends at a delimiter; no start marker.
    Delimiter,
    /// The generation prompt already opened the reasoning block.
    ForcedOpen,
    /// `enable_thinking=false` emits both tags; true emits only the start.
    ForcedClosed,
    /// Reasoning appears only with tool calls.
    ToolsOnly,
}

/// How content is wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ContentMode {
    /// No markers.
    #[default]
    Plain,
    /// Always `<response>…</response>`.
    AlwaysWrapped,
    /// Wrapped only when reasoning is present.
    WrappedWithReasoning,
}

/// Tool-call format family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ToolFormat {
    /// No tool calls.
    #[default]
    None,
    /// `{"name": …, "arguments": {…}}`.
    JsonNative,
    /// `<function=X>{…}</function>`.
    TagWithJson,
    /// `<function=X><param=k>v</param></function>`.
    TagWithTagged,
}

/// Where a call id sits in a tag-based call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallIdPosition {
    /// No call id.
    #[default]
    None,
    /// Before the function name.
    PreFuncName,
    /// Between name and arguments.
    BetweenFuncAndArgs,
    /// After the arguments.
    PostArgs,
    /// In the name's place: the template writes the call's id where a name goes and no name at all
    /// (`<|tool_call_begin|>{{ id }}<|tool_call_argument_begin|>…`, tools.14). The name markers enclose
    /// the id; a model writes an id that names the tool (`functions.get_weather:0`), and the parser takes
    /// the declared tool it names for the call's name (rule R48).
    InNamePlace,
}

/// Reasoning markers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningAnalysis {
    pub mode: ReasoningMode,
    pub start: String,
    pub end: String,
    /// reasoning.7: `[start, end]` plain phrases the instructions added with thinking on teach as the
    /// reasoning's start and the answer's start (`'Here is my thought process:'` …
    /// `'Here is my response:'`, Granite 3.2); empty for none. Read only with thinking on, and only as
    /// a pair (rule R43); `mode` stays as the renders show it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phrases: Vec<String>,
}

/// Names under which templates read the thinking switch, besides `enable_thinking` (the analysis
/// turns them on with it; a request turns them on through `extraContext`).
pub const THINKING_SWITCHES: &[&str] = &["thinking"];

/// Content markers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentAnalysis {
    pub mode: ContentMode,
    pub start: String,
    pub end: String,
    pub requires_nonnull_content: bool,
}

/// Tool-call container and JSON field layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolFormatAnalysis {
    pub mode: ToolFormat,
    pub section_start: String,
    pub section_end: String,
    pub per_call_start: String,
    pub per_call_end: String,
    pub fun_name_is_key: bool,
    pub tools_array_wrapped: bool,
    pub openai_wrapper_trigger: bool,
    pub uses_python_dicts: bool,
    pub function_field: String,
    pub name_field: String,
    pub args_field: String,
    pub id_field: String,
    pub gen_id_field: String,
    pub parameter_order: Vec<String>,
    /// The template writes the section end only after a second call: a turn with one call ends without
    /// it (`…<｜tool▁call▁end｜>` then the turn's end; tools.8).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub section_end_optional: bool,
    /// The per-call end follows only the last call of a turn: between two calls the template writes none
    /// (`…</tool_call>\n<tool_call>…</tool_call><|observation|>`; tools.9).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_call_end_last_only: bool,
    /// What the template writes between two calls of one section when no per-call marker separates them
    /// (literal calls: `, ` in `[f(a=1), g(b=2)]`, a newline between lines of a code block), or text other
    /// than blanks between one call's per-call end and the next call's per-call start (tools.12); empty
    /// when not read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub call_separator: String,
    /// Fields of a JSON call object that the template writes with the same value for every call
    /// (`"type": "tool"`), in the template's order among `parameter_order`'s fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed_fields: Vec<FixedField>,
}

/// A field of a JSON call object with one value for every call (`"type": "tool"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixedField {
    pub key: String,
    /// Its value as the template writes it (JSON text).
    pub value: String,
    /// The field of `parameter_order` it is written before; empty: after all of them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub before: String,
}

impl Default for ToolFormatAnalysis {
    fn default() -> Self {
        ToolFormatAnalysis {
            mode: ToolFormat::None,
            section_start: String::new(),
            section_end: String::new(),
            per_call_start: String::new(),
            per_call_end: String::new(),
            fun_name_is_key: false,
            tools_array_wrapped: false,
            openai_wrapper_trigger: false,
            uses_python_dicts: false,
            function_field: "function".into(),
            name_field: "name".into(),
            args_field: "arguments".into(),
            id_field: String::new(),
            gen_id_field: String::new(),
            parameter_order: Vec::new(),
            section_end_optional: false,
            per_call_end_last_only: false,
            call_separator: String::new(),
            fixed_fields: Vec::new(),
        }
    }
}

/// Function name markers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionAnalysis {
    pub name_prefix: String,
    pub name_suffix: String,
    pub close: String,
}

/// Argument markers (tagged arguments and argument containers).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgumentsAnalysis {
    pub start: String,
    pub end: String,
    pub name_prefix: String,
    pub name_suffix: String,
    pub value_prefix: String,
    pub value_suffix: String,
    pub separator: String,
    /// The value prefix of a non-string (JSON) value when it differs from `value_prefix`, the
    /// string one (`" string="false">` vs `" string="true">`): the prefix then tells the type.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub typed_value_prefix: String,
    /// Wrapper around string values holding markup characters (`<![CDATA[` … `]]>`): the text
    /// between is the raw value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub raw_value_start: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub raw_value_end: String,
    /// Values are self-delimiting literals (`f(a='x', n=1)`, `f{a:<|"|>x<|"|>,n:1}`): strings in
    /// `string_delimiter`, other values bare, rather than raw text between value markers.
    #[serde(default)]
    pub literal_values: bool,
    /// With `literal_values`: the token around string values (`'`, `<|"|>`).
    #[serde(default)]
    pub string_delimiter: String,
    /// Non-string values (lists, dicts, booleans, None) are written with Python's `str()`
    /// (`['a', 'b']`, `{'k': True}`), not as JSON (a template printing `value | string`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub python_repr_values: bool,
}

/// Call-id markers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallIdAnalysis {
    pub pos: CallIdPosition,
    pub prefix: String,
    pub suffix: String,
    /// The call header numbers the calls of a turn (`functions.f:0`, `functions.g:1`): the byte
    /// offset in `tools.function.name_suffix` where the first call's counter (`0`) starts. The
    /// model-written header `name_prefix + name + name_suffix[..counter end]` is then the call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_counter_at: Option<usize>,
}

/// Everything about tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsAnalysis {
    pub format: ToolFormatAnalysis,
    pub function: FunctionAnalysis,
    pub arguments: ArgumentsAnalysis,
    pub call_id: CallIdAnalysis,
    /// The template renders a tool-call turn only in the OpenAI wire shape, `content: null` and
    /// `arguments` a JSON string (`content is none`, `'…' + arguments`): the probes were sent that way,
    /// and so are the request layer's tool-call turns.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_wire_shape: bool,
    /// With no tool format (`format.mode` NONE): tool-call markers mined from the template source,
    /// read by the parser's fallback (see `analysis::fallback`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback_markers: Vec<fallback::FallbackMarker>,
    /// How the template writes a call of a code-interpreter tool whose arguments are raw code, when it
    /// writes it otherwise than an ordinary call (`<|python_tag|>code<|eom_id|>`; tools.13, rule R41).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_code_call: Option<RawCodeCall>,
}

/// Tool names templates give the built-in code interpreter (`{% if name == "python" %}`): a call of one
/// may hold raw code rather than JSON arguments (tools.13, rule R41).
pub const CODE_TOOL_NAMES: [&str; 3] = ["python", "ipython", "code_interpreter"];

/// The arguments key a raw-code call's code goes under when the request's tool declares no single
/// string parameter (rule R41).
pub const RAW_CODE_KEY: &str = "code";

/// A code-interpreter call the template writes around raw code (tools.13): `start` + code + `end`, where
/// an ordinary call of another name is written otherwise. Read off a render of one such call against
/// the text turn it replaces: `start` is what the call writes before the code (call markers, the name, a
/// fence opener), `end` what it writes after (a fence closer, call closers, a call turn's own end
/// token); either may be empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawCodeCall {
    /// The tool's name (one of [`CODE_TOOL_NAMES`]).
    pub name: String,
    pub start: String,
    pub end: String,
}

/// One comparison the analyzer made: what variant B changed and the split of the two renders.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffRecord {
    /// Analysis step, e.g. `compare_reasoning_presence`.
    pub step: String,
    /// What variant B changed relative to A, in words.
    pub changed: String,
    /// Whether both variants rendered.
    pub ok: bool,
    pub prefix: String,
    pub left: String,
    pub right: String,
    pub suffix: String,
}

/// A reply written as messages headed by their recipient (`<|start|>assistant to=user<|message|>…`):
/// the header routes each body to content, reasoning or a tool call (see `analysis::addressed`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressedMessages {
    /// What starts every further message of the reply (`<|start|>assistant`); the generation prompt
    /// ends with it, so the output starts with the first header's recipient prefix.
    pub message_start: String,
    /// Text before the recipient (` to=`).
    pub recipient_prefix: String,
    /// Text that ends a header (`<|message|>`).
    pub header_end: String,
    /// The recipient of plain text (`user`).
    pub content_recipient: String,
    /// The recipient of reasoning (`self`), if the template writes reasoning as a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_recipient: Option<String>,
    /// Tokens that end a message (`<|eom|>`, `<|eot|>`).
    pub message_ends: Vec<String>,
    /// The one of them written between two messages of a reply (`<|eom|>`); empty when a message
    /// runs up to the next one's start.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub between: String,
}

/// A reply written as several headed segments, each header naming what follows with the same tokens
/// and a word that makes the difference (`<|im_start|>assistant/think\n…<|im_end|>` then
/// `<|im_start|>assistant\n…<|im_end|>`, or `<|open|>think<|sep|>…<|close|>think<|sep|>` then
/// `<|open|>response<|sep|>…`): see `analysis::segments`. A header is `header_start` + word + `header_end`;
/// a segment ends with `end_open` + (the word, when `end_names_word`) + `end_close`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadedSegments {
    /// What starts every header (`<|im_start|>assistant`, `<|open|>`).
    pub header_start: String,
    /// What ends every header (`\n`, `<|sep|>`).
    pub header_end: String,
    /// The word of the reasoning segment's header (`/think`, `think`).
    pub reasoning_word: String,
    /// The word of the answer's header (empty for `<|im_start|>assistant\n`, `response`).
    pub content_word: String,
    /// The word of the call segment's header (` -> tool/function_call`, `tools`), if the template writes calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_word: Option<String>,
    /// A segment's end (`<|im_end|>`, `<|close|>`), trimmed.
    pub end_open: String,
    /// What follows the word in an end that names it (`<|sep|>`); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub end_close: String,
    /// The end repeats its segment's word (`<|close|>think<|sep|>`).
    #[serde(default)]
    pub end_names_word: bool,
    /// What the template writes between a segment's end and the next header (`\n`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub between: String,
    /// What the template writes after the turn's last segment (`<|close|>message<|sep|><|end_of_msg|>`),
    /// trimmed; empty when nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub turn_end: String,
}

impl HeadedSegments {
    /// The header of the segment `word` names.
    pub fn open(&self, word: &str) -> String {
        format!("{}{word}{}", self.header_start, self.header_end)
    }

    /// The end of the segment `word` names.
    pub fn close(&self, word: &str) -> String {
        if self.end_names_word {
            format!("{}{word}{}", self.end_open, self.end_close)
        } else {
            format!("{}{}", self.end_open, self.end_close)
        }
    }
}

/// Characters of a recipient word (`user`, `self`, `functions.get_weather`, `muse.bash`).
pub fn is_recipient_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// Which code path handles the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Handler {
    /// The general differential analysis.
    #[default]
    #[serde(rename = "autoparser")]
    Autoparser,
    /// GPT-OSS harmony channels.
    #[serde(rename = "GPT-OSS")]
    GptOss,
    /// Functionary v3.2 `>>>recipient` format.
    #[serde(rename = "Functionary v3.2")]
    FunctionaryV32,
    /// Ministral / Magistral 3 `[THINK]` / `[TOOL_CALLS]name[ARGS]` format.
    #[serde(rename = "Ministral/Magistral Large 3")]
    Ministral3,
    /// Messages headed by their recipient, read off the renders (`Analysis.messages`).
    #[serde(rename = "addressed messages")]
    Addressed,
    /// A reply in headed segments, read off the renders (`Analysis.segments`).
    #[serde(rename = "headed segments")]
    Segments,
}

/// The complete analysis of a template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// Which code path parses this template's output.
    pub handler: Handler,
    /// Capabilities found by probing the template.
    pub caps: Caps,
    /// Text that starts a user turn.
    pub user_start: String,
    /// Text that starts an assistant turn.
    pub assistant_start: String,
    /// A label the template writes in front of past replies in its own words (`Asistente:`) that its
    /// generation prompt does not end with: the model writes it to begin its reply, and it is not content
    /// (the parser drops it at the start of the content with a diagnostic, rule R47).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content_label: String,
    /// Special tokens that end an assistant turn (`<|im_end|>`): a model may write them at the end of
    /// its output (the parser drops them with a diagnostic, rule R7).
    #[serde(default)]
    pub turn_end: Vec<String>,
    /// Markers the template prints only around a tool message's text (`<｜tool▁output▁begin｜>`,
    /// `<tool_response>`): a model quoting a tool result may write them (the parser drops them and
    /// keeps the text, rule R15).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_result_markers: Vec<String>,
    pub reasoning: ReasoningAnalysis,
    pub content: ContentAnalysis,
    pub tools: ToolsAnalysis,
    /// The reply's message structure, when each message is headed by its recipient (handler
    /// `addressed messages`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<AddressedMessages>,
    /// The reply's segments, when it is written as several headed segments (handler `headed segments`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<HeadedSegments>,
    /// Union of all non-empty markers (tokens a runtime must not split).
    pub preserved_tokens: Vec<String>,
    /// Special-token-like literals of the template source (`<|python_tag|>`, `[/TOOL_CALLS]`), rendered
    /// by a probe or not: the parser reads other spellings of its markers and call prefixes from them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_tokens: Vec<String>,
    /// False when some step could not complete (see `diagnostics`).
    pub analysis_complete: bool,
    /// Every comparison made, in order.
    pub diffs: Vec<DiffRecord>,
    /// Workarounds applied, by name.
    pub workarounds: Vec<String>,
    /// Problems met during analysis.
    pub diagnostics: Vec<String>,
}

impl Analysis {
    #[cfg(feature = "full")]
    /// Append tokens to `preserved_tokens` that are not there yet (late phases add theirs last).
    pub(crate) fn preserve_tokens(&mut self, tokens: &[&str]) {
        for t in tokens {
            if !self.preserved_tokens.iter().any(|x| x == t) {
                self.preserved_tokens.push(t.to_string());
            }
        }
    }
}

/// What a template supports. Same flags as llama.cpp's `jinja::caps`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Caps {
    pub supports_tools: bool,
    pub supports_tool_calls: bool,
    pub supports_system_role: bool,
    pub supports_parallel_tool_calls: bool,
    pub supports_preserve_reasoning: bool,
    pub supports_string_content: bool,
    pub supports_typed_content: bool,
    /// Tool-call arguments may be given as an object (else only as a JSON string).
    pub supports_object_arguments: bool,
}
