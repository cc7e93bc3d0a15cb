//! tools.9–11 — what a template writes around and inside its calls beyond the markers, read so that the
//! grammar accepts what the template itself writes (issue #26 item 4):
//!
//! - tools.9: a per-call end that follows only the last call of a turn (`…</tool_call>\n<tool_call>…
//!   </tool_call><|observation|>`: between two calls the template writes none);
//! - tools.10: fields of a JSON call object with one value for every call (`"type":"tool"`);
//! - tools.11: non-string tagged values written with Python's `str()` (`['a', 'b']`, `{'k': True}`);
//! - tools.12: text other than blanks the template writes between two calls with per-call markers
//!   (`…</tool_call>\\n<tool_call>…`, a literal backslash and `n`): the call separator.
//!
//! Plain renders (not recorded as comparisons: these steps are ours, not llama.cpp's).

use super::probe::*;
use crate::findings::{FixedField, ToolFormat, ToolsAnalysis};
use crate::text::is_space;
use serde_json::{json, Value};

/// Run tools.9–11 on the analysed calls.
pub fn analyze(pr: &mut Prober, t: &mut ToolsAnalysis, parallel: bool) {
    if parallel {
        per_call_end_last_only(pr, t);
        separator_between_marked_calls(pr, t);
    }
    if t.format.mode == ToolFormat::TagWithTagged && !t.arguments.literal_values {
        t.arguments.python_repr_values = python_repr_values(pr);
    }
}

/// tools.9: the two-call render has no per-call end between the calls, one after the last.
fn per_call_end_last_only(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let end = t.format.per_call_end.trim().to_string();
    if end.is_empty() || !matches!(t.format.mode, ToolFormat::TagWithJson | ToolFormat::TagWithTagged) {
        return;
    }
    let p = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])]);
    let Ok(out) = pr.render(&p) else { return };
    // The last mentions: the tool list before the conversation names both functions too.
    let Some(f2) = out.rfind(FUN_SECOND) else { return };
    let Some(f1) = out.get(..f2).and_then(|s| s.rfind(FUN_FIRST)) else { return };
    let (between, after) = (out.get(f1..f2).unwrap_or(""), out.get(f2..).unwrap_or(""));
    t.format.per_call_end_last_only = !between.contains(&end) && after.contains(&end);
}

/// tools.12: the text between the first call's per-call end and the second call's per-call start, when
/// it is more than blanks (blanks between calls are layout the parser skips anyway).
fn separator_between_marked_calls(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let f = &t.format;
    let (start, end) = (f.per_call_start.trim_matches(is_space).to_string(), f.per_call_end.trim_matches(is_space).to_string());
    if start.is_empty() || end.is_empty() || f.per_call_end_last_only || !f.call_separator.is_empty() {
        return;
    }
    let p = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])]);
    let Ok(out) = pr.render(&p) else { return };
    let Some(f2) = out.rfind(FUN_SECOND) else { return };
    let Some(f1) = out.get(..f2).and_then(|s| s.rfind(FUN_FIRST)) else { return };
    let Some(between) = out.get(f1..f2) else { return };
    let Some(after_end) = between.find(&end).map(|i| i + end.len()) else { return };
    let Some(next_start) = between.rfind(&start).filter(|&i| i >= after_end) else { return };
    let sep = between.get(after_end..next_start).unwrap_or("");
    let core = sep.trim_matches(is_space);
    // Only short punctuation-like text: a call's own text (a name, an argument) is never a separator.
    if !core.is_empty() && core.len() <= 8 && !core.contains(FUN_FIRST) && !core.contains(FUN_SECOND) {
        t.format.call_separator = sep.to_string();
    }
}

/// tools.10: the call object's string fields that no probe value fills (`"type": "tool"`), each with the
/// analysed field it precedes. `obj` is the one call's object, `order` its analysed fields in order.
pub fn fixed_fields(obj: &Value, order: &[String], function_field: &str) -> Vec<FixedField> {
    let Some(map) = obj.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    for (k, v) in map {
        if order.iter().any(|f| f == k || f.starts_with(&format!("{k}."))) {
            out.extend(pending.drain(..).map(|(key, value)| FixedField { key, value, before: k.clone() }));
            continue;
        }
        let probe_value = v.as_str().is_none_or(|s| s.contains(FUN_FIRST) || s.contains("call0000") || s.contains(ARG_FIRST));
        if k == function_field || k.contains("id") || probe_value {
            continue;
        }
        pending.push((k.clone(), v.to_string()));
    }
    out.extend(pending.into_iter().map(|(key, value)| FixedField { key, value, before: String::new() }));
    out
}

/// tools.11: a list and a dict argument render as Python's `str()` of them.
fn python_repr_values(pr: &mut Prober) -> bool {
    let args = json!({ ARG_FIRST: ["XXXX", true], ARG_SECOND: {"YYYY": false} });
    let p = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![tool_call(FUN_FIRST, args, CALL_ID_001)])]);
    let Ok(out) = pr.render(&p) else { return false };
    out.contains("['XXXX', True]") || out.contains("{'YYYY': False}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_field_is_fixed_before_the_field_it_precedes() {
        let obj = json!({"id": "call00001", "type": "tool", "name": FUN_FIRST, "arguments": {ARG_FIRST: "XXXX"}});
        let order = ["id", "name", "arguments"].map(String::from);
        let fixed = fixed_fields(&obj, &order, "function");
        assert_eq!(fixed, vec![FixedField { key: "type".into(), value: "\"tool\"".into(), before: "name".into() }]);
    }

    #[test]
    fn probe_values_ids_and_numbers_are_not_fixed() {
        let obj = json!({"name": FUN_FIRST, "arguments": {ARG_FIRST: "XXXX"}, "index": 0, "call_id": "x", "kind": "fn"});
        let order = ["name", "arguments"].map(String::from);
        let fixed = fixed_fields(&obj, &order, "function");
        assert_eq!(fixed, vec![FixedField { key: "kind".into(), value: "\"fn\"".into(), before: String::new() }]);
    }
}
