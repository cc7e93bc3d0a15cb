//! The tool-call fallback's formats (rule R13): the markers `analysis::fallback` mines from the template
//! source and the common conventions, as tool formats the parser tries side by side. Data and their
//! reading only: a parse-only build has them without the analysis.

use super::{Analysis, ArgumentsAnalysis, FunctionAnalysis, ToolFormat, ToolsAnalysis};
use serde::{Deserialize, Serialize};

/// How a call between mined markers is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallBody {
    /// `{"name": …, "arguments": …}` (or an array of them when the marker has no end).
    Json,
    /// `[f(a=1), g(b="x")]`.
    Pythonic,
}

/// A tool-call marker pair mined from the template source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackMarker {
    pub start: String,
    /// Empty when the source has no closing token (the body ends with its JSON value / list).
    pub end: String,
    pub body: CallBody,
}

/// One way the fallback reads calls: a tool format for the parser, where it may start, and the
/// convention's name for the diagnostic every accepted call adds.
#[derive(Debug, Clone)]
pub struct FallbackFormat {
    pub tools: ToolsAnalysis,
    /// The call only counts at the start of a line (bare JSON and pythonic lists, which ordinary
    /// text also contains).
    pub line_start: bool,
    pub rule: String,
}

/// The formats the fallback tries, in order: the mined markers (the template's own tokens), then
/// the common conventions — the special-token pair with a pythonic list, `<tool_call>` with JSON,
/// bare JSON objects and pythonic lists at the start of a line. The parser tries them side by side
/// (the earliest trigger wins); the grammar constrains to the first.
pub fn fallback_formats(a: &Analysis) -> Vec<FallbackFormat> {
    let mut out = Vec::new();
    for m in &a.tools.fallback_markers {
        let tools = match (m.body, m.end.is_empty()) {
            (CallBody::Pythonic, _) => pythonic(&format!("{}[", m.start), &format!("]{}", m.end)),
            (CallBody::Json, false) => json_calls(&m.start, &m.end, false),
            (CallBody::Json, true) => json_calls(&m.start, "", true),
        };
        let rule = format!("{} calls between the template's {} tokens", if m.body == CallBody::Json { "JSON" } else { "pythonic" }, m.start);
        out.push(FallbackFormat { tools, line_start: false, rule });
    }
    let mined = |start: &str| a.tools.fallback_markers.iter().any(|m| m.start == start);
    if !mined("<|tool_call_start|>") {
        let rule = "<|tool_call_start|>[f(a=1)]<|tool_call_end|> convention".into();
        out.push(FallbackFormat { tools: pythonic("<|tool_call_start|>[", "]<|tool_call_end|>"), line_start: false, rule });
    }
    if !mined("<tool_call>") {
        let rule = "<tool_call>{json}</tool_call> convention".into();
        out.push(FallbackFormat { tools: json_calls("<tool_call>", "</tool_call>", false), line_start: false, rule });
    }
    out.push(FallbackFormat { tools: json_calls("", "", false), line_start: true, rule: "bare JSON call object at the start of a line".into() });
    out.push(FallbackFormat { tools: pythonic("[", "]"), line_start: true, rule: "pythonic call list at the start of a line".into() });
    out
}

fn json_calls(start: &str, end: &str, array: bool) -> ToolsAnalysis {
    let mut t = ToolsAnalysis::default();
    t.format.mode = ToolFormat::JsonNative;
    if array {
        t.format.section_start = start.into();
        t.format.tools_array_wrapped = true;
    } else {
        t.format.per_call_start = start.into();
        t.format.per_call_end = end.into();
    }
    t
}

/// `start f(a=1, b="x"), g() end`: literal keyword arguments, the layout the literal-argument
/// analysis finds where a template renders such calls.
fn pythonic(start: &str, end: &str) -> ToolsAnalysis {
    let mut t = ToolsAnalysis::default();
    t.format.mode = ToolFormat::TagWithTagged;
    t.format.section_start = start.into();
    t.format.section_end = end.into();
    t.function = FunctionAnalysis::default();
    t.arguments = ArgumentsAnalysis {
        start: "(".into(),
        end: ")".into(),
        name_suffix: "=".into(),
        separator: ", ".into(),
        literal_values: true,
        string_delimiter: "\"".into(),
        ..Default::default()
    };
    t
}
