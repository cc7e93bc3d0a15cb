//! tools.13 — a code-interpreter call written around raw code. Templates branch on the built-in code
//! interpreter's name (`{% if tool_call.function.name == "python" %}`) and write that call's arguments, raw
//! code, their own way: `<|python_tag|>` + code + `<|eom_id|>` where other calls are `<function=…>{…}</function>`,
//! a ```` ```python ```` fence where other calls have ```` ```json ````. A model then writes such a call that way.
//!
//! Probed only when the source names one of [`CODE_TOOL_NAMES`] as a string: one call of that name with
//! raw code as its arguments, against the same call of an ordinary name (the template must write them
//! differently, beyond the name) and against the text turn it replaces (what surrounds the code is the
//! call's start and end). Plain renders, not recorded as comparisons (this step is ours, not llama.cpp's).

use super::diff::calculate_diff_split;
use super::probe::*;
use crate::findings::{RawCodeCall, CODE_TOOL_NAMES};
use serde_json::Value;

/// The probe's code: a newline and quotes, so that a template escaping its arguments shows no raw code.
const CODE: &str = "CODE_PROBE_C = \"1\"\nprint(CODE_PROBE_C)";

/// tools.13: how the template writes a raw-code call of the code-interpreter name its source tests, if
/// it writes one otherwise than an ordinary call.
pub fn analyze(pr: &mut Prober, source: &str) -> Option<RawCodeCall> {
    let name = CODE_TOOL_NAMES.into_iter().find(|n| source.contains(&format!("\"{n}\"")) || source.contains(&format!("'{n}'")))?;
    let call = |n: &str| Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![tool_call(n, Value::String(CODE.into()), CALL_ID_001)])]);
    let code = pr.render(&call(name)).ok()?;
    let ordinary = pr.render(&call(FUN_FIRST)).ok()?;
    // Written as any call, the name apart: nothing of its own to read.
    let d = calculate_diff_split(&ordinary, &code);
    if d.left.replace(FUN_FIRST, name) == d.right {
        return None;
    }
    let text = pr.render(&Params::with_tools(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)])).ok()?;
    let right = calculate_diff_split(&text, &code).right;
    let at = right.find(CODE)?;
    let (start, end) = (right.get(..at)?, right.get(at + CODE.len()..)?);
    // A call shows by its start; code in a turn of prose is prose.
    if start.trim().is_empty() || start.contains(ASSISTANT_MSG) || end.contains(CODE) {
        return None;
    }
    Some(RawCodeCall { name: name.to_string(), start: start.to_string(), end: end.to_string() })
}
