//! Wire types shared by Rust and JS: the parsed assistant message, streaming deltas and request options.
//!
//! Field names follow the OpenAI chat-completions wire format (`reasoning_content`, `tool_calls`), so
//! they serialize as-is; request options are camelCase as the JS API promises.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// The function part of a tool call: its name and its arguments as a JSON text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Function name.
    pub name: String,
    /// Arguments, a JSON object text (may be incomplete while streaming).
    pub arguments: String,
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id: the model's own, or a generated one (see `parse::call_ids`); never empty in a
    /// parsed message.
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// Name and arguments.
    pub function: FunctionCall,
}

fn function_type() -> String {
    "function".into()
}

impl ToolCall {
    /// A function tool call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            kind: function_type(),
            function: FunctionCall { name: name.into(), arguments: arguments.into() },
        }
    }
}

/// An OpenAI-style assistant message. Empty `content` / `reasoning_content` serialize as `null`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Always `"assistant"`.
    pub role: String,
    /// Visible content.
    #[serde(serialize_with = "empty_as_null", default, deserialize_with = "null_as_empty")]
    pub content: String,
    /// Reasoning ("thinking") text.
    #[serde(serialize_with = "empty_as_null", default, deserialize_with = "null_as_empty")]
    pub reasoning_content: String,
    /// Tool calls, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

impl Default for Message {
    fn default() -> Self {
        Message { role: "assistant".into(), content: String::new(), reasoning_content: String::new(), tool_calls: Vec::new() }
    }
}

fn empty_as_null<S: Serializer>(s: &String, ser: S) -> Result<S::Ok, S::Error> {
    if s.is_empty() {
        ser.serialize_none()
    } else {
        ser.serialize_str(s)
    }
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// One streaming delta, shaped like an OpenAI `chat.completion.chunk` `choices[0].delta`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// `{content}`
    Content(String),
    /// `{reasoning_content}`
    Reasoning(String),
    /// `{tool_calls: [{index, id?, type?, function: {name?, arguments?}}]}`. The first delta of a call
    /// carries `id`, `type` and `name` (sent once the name is complete) and serializes `arguments`
    /// (`""` if none yet), as OpenAI's `chat.completion.chunk`; later ones carry argument text. From a
    /// [`crate::parse::StreamParser`] the first delta always has a non-empty `id`.
    ToolCall {
        /// Index of the call in the message.
        index: usize,
        /// Call id, on the first delta of the call; a later delta of the same call carries one only
        /// when the model wrote its id after the name, and that id replaces the earlier one.
        id: Option<String>,
        /// Function name, on the first delta of the call only.
        name: Option<String>,
        /// Argument text to append.
        arguments: Option<String>,
    },
}

impl Serialize for Delta {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        serde_json::Value::from(self).serialize(ser)
    }
}

impl From<&Delta> for Value {
    fn from(d: &Delta) -> Value {
        match d {
            Delta::Content(s) => serde_json::json!({ "content": s }),
            Delta::Reasoning(s) => serde_json::json!({ "reasoning_content": s }),
            Delta::ToolCall { index, id, name, arguments } => {
                let mut call = serde_json::Map::new();
                call.insert("index".into(), (*index).into());
                let mut function = serde_json::Map::new();
                if let Some(id) = id {
                    call.insert("id".into(), id.clone().into());
                }
                if let Some(name) = name {
                    call.insert("type".into(), "function".into());
                    function.insert("name".into(), name.clone().into());
                }
                // The first delta (the one with the name) always carries `arguments`, `""` if none
                // yet, as OpenAI's `chat.completion.chunk` does.
                match (arguments, name) {
                    (Some(a), _) => _ = function.insert("arguments".into(), a.clone().into()),
                    (None, Some(_)) => _ = function.insert("arguments".into(), "".into()),
                    (None, None) => {}
                }
                call.insert("function".into(), Value::Object(function));
                serde_json::json!({ "tool_calls": [Value::Object(call)] })
            }
        }
    }
}

impl Message {
    /// Apply one delta to this message (what a client does with a stream).
    pub fn apply(&mut self, delta: &Delta) {
        match delta {
            Delta::Content(s) => self.content.push_str(s),
            Delta::Reasoning(s) => self.reasoning_content.push_str(s),
            Delta::ToolCall { index, id, name, arguments } => {
                while self.tool_calls.len() <= *index {
                    self.tool_calls.push(ToolCall::new("", "", ""));
                }
                let call = &mut self.tool_calls[*index];
                if let Some(id) = id {
                    // Replaces (a model's own id written after the name replaces the generated one).
                    call.id.clone_from(id);
                }
                if let Some(name) = name {
                    call.function.name.push_str(name);
                }
                if let Some(a) = arguments {
                    call.function.arguments.push_str(a);
                }
            }
        }
    }

    /// Rebuild a message from a sequence of deltas.
    pub fn from_deltas<'a>(deltas: impl IntoIterator<Item = &'a Delta>) -> Message {
        let mut m = Message::default();
        for d in deltas {
            m.apply(d);
        }
        m
    }
}

/// How reasoning is reported (llama.cpp's `reasoning_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ReasoningFormat {
    /// Leave reasoning in content, markers included.
    #[serde(rename = "none")]
    None,
    /// Extract reasoning into `reasoning_content` (default).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Same as auto.
    #[serde(rename = "deepseek")]
    Deepseek,
    /// Extract reasoning but also keep it in content (streaming legacy mode).
    #[serde(rename = "deepseek-legacy")]
    DeepseekLegacy,
}

/// The key a message and its deltas give reasoning text: `reasoning_content` (llama.cpp, DeepSeek;
/// the default), `reasoning` (vLLM ≥ 0.11) or `thinking` (transformers, ollama).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ReasoningField {
    #[default]
    #[serde(rename = "reasoning_content")]
    ReasoningContent,
    #[serde(rename = "reasoning")]
    Reasoning,
    #[serde(rename = "thinking")]
    Thinking,
}

impl ReasoningField {
    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            ReasoningField::ReasoningContent => "reasoning_content",
            ReasoningField::Reasoning => "reasoning",
            ReasoningField::Thinking => "thinking",
        }
    }

    /// `value` (a serialized [`Message`] or [`Delta`]) with its reasoning key renamed to this one.
    pub fn rename(self, value: Value) -> Value {
        let Value::Object(m) = value else { return value };
        if self == ReasoningField::ReasoningContent {
            return Value::Object(m);
        }
        Value::Object(m.into_iter().map(|(k, v)| if k == "reasoning_content" { (self.key().to_string(), v) } else { (k, v) }).collect())
    }
}

impl Message {
    /// The message as JSON with reasoning under `field`'s key (`reasoning_content` by default).
    pub fn to_json(&self, field: ReasoningField) -> Value {
        field.rename(serde_json::to_value(self).unwrap_or(Value::Null))
    }
}

/// `tool_choice`: `"auto"`, `"required"`, `"none"`, or OpenAI's object form
/// `{type: "function", function: {name}}` (the model must call that tool).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model may call tools.
    #[default]
    Auto,
    /// The model must call a tool.
    Required,
    /// No tools.
    None,
    /// The model must call this tool (and only it).
    Function(String),
}

impl Serialize for ToolChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            ToolChoice::Auto => s.serialize_str("auto"),
            ToolChoice::Required => s.serialize_str("required"),
            ToolChoice::None => s.serialize_str("none"),
            ToolChoice::Function(name) => serde_json::json!({"type": "function", "function": {"name": name}}).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let v = Value::deserialize(d)?;
        match &v {
            Value::String(s) if s == "auto" => Ok(ToolChoice::Auto),
            Value::String(s) if s == "required" => Ok(ToolChoice::Required),
            Value::String(s) if s == "none" => Ok(ToolChoice::None),
            Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("function") => {
                match o.get("function").and_then(|f| f.get("name")).and_then(Value::as_str).filter(|n| !n.is_empty()) {
                    Some(name) => Ok(ToolChoice::Function(name.to_string())),
                    None => Err(D::Error::custom("toolChoice: {type: 'function'} needs function.name")),
                }
            }
            _ => Err(D::Error::custom(format!(
                "toolChoice: expected \"auto\", \"required\", \"none\" or {{type: 'function', function: {{name}}}}, got {v}"
            ))),
        }
    }
}

/// Request options: one field per request field llama.cpp's parser takes. camelCase in JS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RequestOptions {
    /// OpenAI-style tool list: `[{type: "function", function: {name, description, parameters}}]`.
    pub tools: Vec<Value>,
    /// The conversation (default: one user message).
    pub messages: Vec<Value>,
    /// Render the generation prompt (default true).
    pub add_generation_prompt: bool,
    /// `none` | `content` | `reasoning` | `auto` (or a boolean: true = `auto`, false = `none`): the last
    /// message is an assistant prefill being continued. Anything else is `InvalidInput`.
    #[serde(deserialize_with = "continue_mode")]
    pub continue_final_message: String,
    /// Thinking on/off. Not given: whatever the template does without it (the same context
    /// `render()` gets), for the prompt and the parser alike.
    pub enable_thinking: Option<bool>,
    /// The text the prompt really ended with (e.g. rendered by transformers or a server): overrides the
    /// generation prompt rendered from the template, so parsing starts where that prompt left off.
    pub generation_prompt: Option<String>,
    /// `finish()` of output that ends inside a tool call fails (a `Parse` error with the call's
    /// offset) instead of ending with the incomplete call and `finish_reason` `"length"`.
    pub strict: bool,
    /// How reasoning is reported.
    pub reasoning_format: ReasoningFormat,
    /// Allow several tool calls.
    pub parallel_tool_calls: bool,
    /// auto | required | none.
    pub tool_choice: ToolChoice,
    /// Response-format JSON schema: an object or a boolean schema (anything else is `InvalidInput`).
    #[serde(deserialize_with = "schema_value")]
    pub json_schema: Option<Value>,
    /// Whether the text may be truncated (a partial tool call is kept, not an error).
    pub is_partial: bool,
    /// Stream the arguments of JSON-format tool calls piece by piece as the model writes them. By
    /// default (false) such a call goes out once its arguments are whole and valid JSON, in one
    /// delta, and a call whose JSON is broken stays content (with a diagnostic). With it, a call that
    /// breaks after its arguments began to stream ends there with a diagnostic: only then may its
    /// `arguments` be invalid JSON. Tagged-parameter formats stream value by value either way.
    pub stream_arguments: bool,
    /// Extra template context keys.
    pub extra_context: serde_json::Map<String, Value>,
    /// The key messages and deltas give reasoning (`reasoning_content` | `reasoning` | `thinking`).
    pub reasoning_field: ReasoningField,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            tools: Vec::new(),
            messages: Vec::new(),
            add_generation_prompt: true,
            continue_final_message: "none".into(),
            enable_thinking: None,
            generation_prompt: None,
            strict: false,
            reasoning_format: ReasoningFormat::Auto,
            parallel_tool_calls: false,
            tool_choice: ToolChoice::Auto,
            json_schema: None,
            is_partial: false,
            stream_arguments: false,
            extra_context: serde_json::Map::new(),
            reasoning_field: ReasoningField::ReasoningContent,
        }
    }
}

/// A diagnostic about malformed model output (streaming never throws; it reports these instead).
///
/// The same problem seen again right after (the next diagnostic would have the same message, e.g. a
/// stray marker repeated 100,000 times) is counted in the first one instead of listed again: `count`
/// occurrences from `offset` to `last_offset`. A list of diagnostics therefore grows with the distinct
/// runs of problems, not with the length of an adversarial output (issue #11 item 8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Byte offset in the model output where the problem was seen (its first occurrence when counted).
    pub offset: usize,
    /// What was wrong.
    pub message: String,
    /// How many times in a row it was seen (1 unless repeated; omitted from JSON when 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: usize,
    /// Offset of the last occurrence when `count` > 1 (`offset` is then the first).
    #[serde(default, rename = "lastOffset", skip_serializing_if = "Option::is_none")]
    pub last_offset: Option<usize>,
    /// The leniency rule of an accepted departure (`"R16"`, see [`crate::rules`]); omitted when the
    /// diagnostic reports no departure the parser accepted (text kept as content, a cut-off call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl Diagnostic {
    /// One occurrence at `offset`. Its rule is the one the message names (`… (rule R16)`), when the
    /// catalogue has it: the parsers say each accepted departure's rule in its message, and this is
    /// the one place the id is read off it.
    pub fn new(offset: usize, message: impl Into<String>) -> Self {
        let message = message.into();
        let rule = crate::rules::rule_named_in(&message).and_then(crate::rules::known_id).map(str::to_string);
        Diagnostic { offset, message, count: 1, last_offset: None, rule }
    }
}

impl RequestOptions {
    /// Check the shapes serde cannot (tools and messages are free-form JSON): each tool is
    /// `{type: "function", function: {name: string, …}}` and each message has a string `role`.
    /// The error names the field, e.g. `options.tools[1].function.name`.
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |path: String, what: &str| Err(crate::Error::new(crate::ErrorKind::InvalidInput, format!("options.{path}: {what}")));
        for (i, tool) in self.tools.iter().enumerate() {
            let Some(obj) = tool.as_object() else { return bad(format!("tools[{i}]"), "expected a tool object") };
            let function = obj.get("function").unwrap_or(tool);
            match function.get("name") {
                Some(Value::String(n)) if !n.is_empty() => {}
                Some(_) => return bad(format!("tools[{i}].function.name"), "expected a non-empty string"),
                None => return bad(format!("tools[{i}].function.name"), "missing"),
            }
            if let Some(p) = function.get("parameters") {
                if !p.is_object() && !p.is_null() {
                    return bad(format!("tools[{i}].function.parameters"), "expected a JSON schema object");
                }
            }
        }
        for (i, m) in self.messages.iter().enumerate() {
            if !m.get("role").is_some_and(Value::is_string) {
                return bad(format!("messages[{i}].role"), "expected a string");
            }
        }
        Ok(())
    }
}

/// The continued assistant message of a request (`continue_final_message`).
impl RequestOptions {
    /// The last message, when the request continues it instead of starting a new one.
    pub fn continued_message(&self) -> Option<&Value> {
        if self.continue_final_message == "none" || self.continue_final_message.is_empty() {
            return None;
        }
        self.messages.last().filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
    }

    /// Whether the continued message's content is continued (`content` / `auto`), not only its reasoning.
    pub fn continues_content(&self) -> bool {
        matches!(self.continue_final_message.as_str(), "content" | "auto")
    }

    /// The continued message's content, when content is continued.
    pub fn continued_content(&self) -> Option<String> {
        self.continued_message().filter(|_| self.continues_content()).map(|m| text_of(m.get("content")))
    }
}

/// Text of a message field that may be a string or a list of `{type: "text", text}` parts.
pub fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

/// `continueFinalMessage`: one of the documented modes, or a boolean.
fn continue_mode<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    use serde::de::Error as _;
    match Value::deserialize(d)? {
        Value::Bool(b) => Ok(if b { "auto" } else { "none" }.to_string()),
        Value::String(s) if ["none", "content", "reasoning", "auto"].contains(&s.as_str()) => Ok(s),
        v => Err(D::Error::custom(format!("continueFinalMessage: expected a boolean or \"none\", \"content\", \"reasoning\", \"auto\", got {v}"))),
    }
}

/// `jsonSchema`: a JSON Schema is an object or a boolean; null means none.
fn schema_value<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    use serde::de::Error as _;
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v @ (Value::Object(_) | Value::Bool(_)) => Ok(Some(v)),
        v => Err(D::Error::custom(format!("jsonSchema: expected an object or a boolean schema, got {v}"))),
    }
}
