//! tools.14: a template that writes the call's id where the name goes and no name at all
//! (`<|tool_call_begin|>{{ tool_call['id'] }}<|tool_call_argument_begin|>…`, huggingface.js' copy of Kimi K2
//! Thinking, where the official template writes `functions.NAME:COUNTER`). tools.1 then finds the probe's id
//! in the call and the function name nowhere, so no name marker and no call layout. When the one-call render
//! shows the id outside any JSON string and no name, the probes are rendered again with each call's id made
//! of its function name (an id that embeds the name, as the models of such templates write:
//! `functions.get_weather:0`), so the call's markers are read as for a named call; `call_id.pos` then says
//! the head is the id (`IN_NAME_PLACE`), which the parser reads as the id and takes the declared tool it names
//! for the call's name (rule R48).

use super::probe::*;
use crate::findings::{ToolFormat, ToolsAnalysis};

/// Whether tools.1's call (`haystack`, the render's call section) shows the probe's id where a name would
/// be: a tagged call that writes the id, not as a JSON string, and no function name.
pub fn shows_id_for_name(t: &ToolsAnalysis, haystack: &str) -> bool {
    let tagged = matches!(t.format.mode, ToolFormat::TagWithJson | ToolFormat::TagWithTagged);
    let quoted = [format!("\"{CALL_ID_001}\""), format!("'{CALL_ID_001}'")];
    tagged && !haystack.contains(FUN_FIRST) && haystack.contains(CALL_ID_001) && !quoted.iter().any(|q| haystack.contains(q.as_str()))
}

/// Whether the tool phases found a call layout around the name: a section or per-call opener before it.
pub fn found_layout(t: &ToolsAnalysis) -> bool {
    let f = &t.format;
    matches!(f.mode, ToolFormat::TagWithJson | ToolFormat::TagWithTagged) && !(f.section_start.is_empty() && f.per_call_start.is_empty())
}

/// With ids made of names: whether a turn of two calls shows both names (the template writes every call,
/// which the capability probe, whose two calls share one id and show no name, cannot see). Not recorded.
pub fn both_calls_named(pr: &mut Prober) -> bool {
    let p = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])]);
    pr.render(&p).is_ok_and(|out| out.contains(FUN_FIRST) && out.contains(FUN_SECOND))
}
