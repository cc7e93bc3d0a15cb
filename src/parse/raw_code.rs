//! A code-interpreter call written as raw code (rule R41): the template writes a call of its built-in code
//! interpreter (`python`) around raw code rather than JSON arguments (`analysis.tools.rawCodeCall`, tools.13:
//! `<|python_tag|>code<|eom_id|>`, a ```` ```python ```` fence), or its message format writes any call's
//! arguments raw, so a message to `python` holds code. The code becomes the call's arguments as JSON: a
//! string under the request's tool's one string parameter, else under [`RAW_CODE_KEY`].

use super::config::tool_name;
use super::marker::Marker;
use crate::findings::{Analysis, RAW_CODE_KEY};
use serde_json::Value;

/// The diagnostic of a raw-code call.
pub fn note(name: &str) -> String {
    format!("raw code as a call of the code-interpreter tool `{name}`: its arguments are the code as a JSON string (rule R41)")
}

/// The key the code goes under for the request's declaration of `name`: its one parameter when that
/// parameter takes a string, else [`RAW_CODE_KEY`].
pub fn code_key(tools: &[Value], name: &str) -> String {
    let decl = tools.iter().find(|t| tool_name(t) == Some(name));
    let props = decl.map(|t| t.get("function").unwrap_or(t)).and_then(|f| f.get("parameters")?.get("properties")?.as_object());
    let single = props.filter(|p| p.len() == 1).and_then(|p| p.iter().next());
    let string = |s: &Value| match s.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    single.filter(|(_, s)| string(s)).map_or_else(|| RAW_CODE_KEY.to_string(), |(k, _)| k.clone())
}

/// The call's arguments: `{"<key>": code}`, the code without the line breaks around it (layout of the
/// markers around it).
pub fn arguments(key: &str, code: &str) -> String {
    let code = code.trim_matches(['\n', '\r']);
    let mut args = serde_json::Map::new();
    args.insert(key.to_string(), Value::String(code.to_string()));
    Value::Object(args).to_string()
}

/// Whether the request declares `name`, a tool the model may call.
pub fn declared(tools: &[Value], name: &str) -> bool {
    tools.iter().any(|t| tool_name(t) == Some(name))
}

/// The template's raw-code call, as the auto parser reads it.
#[derive(Debug, Clone)]
pub struct RawCodeConfig {
    pub name: String,
    pub start: Marker,
    /// Empty: the code runs to the end of the output (or an end-of-turn token).
    pub end: Marker,
    /// The arguments key (see [`code_key`]).
    pub key: String,
}

impl RawCodeConfig {
    /// The configuration when the analysis found a raw-code call and the request declares its tool.
    pub fn new(a: &Analysis, tools: &[Value]) -> Option<RawCodeConfig> {
        let r = a.tools.raw_code_call.as_ref().filter(|r| declared(tools, &r.name))?;
        Some(RawCodeConfig { name: r.name.clone(), start: Marker::new(&r.start), end: Marker::new(&r.end), key: code_key(tools, &r.name) })
    }

    /// The call's arguments for `code`.
    pub fn arguments(&self, code: &str) -> String {
        arguments(&self.key, code)
    }
}
