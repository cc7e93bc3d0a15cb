//! Phase 3 — tool calls: tools.1 (classify the format and find the section / per-call markers) and tools.2
//! (one call vs two: are the markers per call or per section?). The finer markers (tools.3–7) are in
//! `tool_markers.rs`.

use super::diff::{trim_leading_ws, trim_ws};
use super::pattern::{choice, get, lit, not, seq, tag, until, until_one_of, P};
use super::probe::*;
use crate::findings::{CallIdAnalysis, CallIdPosition, ReasoningAnalysis, ToolFormat, ToolsAnalysis};
use serde_json::Value;

/// Run tools.1–7 (and tools.14, which may find that the template writes every call of a turn: then
/// `parallel` is set). Only called when the template supports tool calls.
pub fn analyze(pr: &mut Prober, reasoning: &ReasoningAnalysis, parallel: &mut bool) -> ToolsAnalysis {
    let mut t = ToolsAnalysis::default();
    let haystack = analyze_tool_calls(pr, &mut t, reasoning, *parallel);
    if super::id_as_name::shows_id_for_name(&t, &haystack) {
        t = ids_as_names(pr, reasoning, parallel).unwrap_or(t);
    }
    let parallel = *parallel;
    let mode = t.format.mode;
    if mode == ToolFormat::JsonNative {
        // Bare call objects (no marker before them) are recognised by their JSON shape alone, so
        // the OpenAI shape of a call, `{"type": "function", "function": {…}}`, starts one as well
        // (the parser accepts that wrapper in every JSON format, with a diagnostic).
        let f = &mut t.format;
        f.openai_wrapper_trigger =
            f.section_start.trim().is_empty() && f.per_call_start.trim().is_empty() && !f.fun_name_is_key && !f.tools_array_wrapped;
    }
    if mode != ToolFormat::None && mode != ToolFormat::JsonNative {
        if parallel {
            check_per_call_markers(pr, &mut t);
        }
        super::tool_markers::extract_function_markers(pr, &mut t);
        if mode == ToolFormat::TagWithTagged {
            super::tool_markers::extract_argument_name_markers(pr, &mut t);
            super::tool_markers::extract_argument_value_markers(pr, &mut t);
            super::tool_markers::detect_typed_value_prefix(pr, &mut t);
            super::tool_markers::detect_raw_value_wrapper(pr, &mut t);
        }
        super::tool_markers::extract_argument_separator(pr, &mut t);
        super::tool_markers::extract_args_markers(pr, &mut t);
        super::tool_markers::extract_call_id_markers(pr, &mut t);
        if parallel {
            super::tool_markers::detect_header_counter(pr, &mut t);
        }
    }
    if pr.ids_as_names {
        t.call_id = CallIdAnalysis { pos: CallIdPosition::InNamePlace, ..CallIdAnalysis::default() };
    }
    t
}

/// tools.14 (`id_as_name.rs`): tools.1 again with every call's id made of its name. `None` (and the
/// probes as before) when that shows no call layout either.
fn ids_as_names(pr: &mut Prober, reasoning: &ReasoningAnalysis, parallel: &mut bool) -> Option<ToolsAnalysis> {
    pr.ids_as_names = true;
    let both = *parallel || super::id_as_name::both_calls_named(pr);
    let mut t = ToolsAnalysis::default();
    analyze_tool_calls(pr, &mut t, reasoning, both);
    if !super::id_as_name::found_layout(&t) {
        pr.ids_as_names = false;
        return None;
    }
    pr.diagnostics.push("tools.14: the template writes the call's id where the name goes: its probes are rendered with ids made of the names".into());
    *parallel = both;
    Some(t)
}

/// A section or call end glued to the marker that ends the reply (`</TOOLCALL><SPECIAL_12>`) ends
/// before it: that marker closes every assistant turn, calls or not.
pub fn drop_reply_end(t: &mut ToolsAnalysis, reply_end: &str) {
    if reply_end.is_empty() {
        return;
    }
    for end in [&mut t.format.section_end, &mut t.format.per_call_end] {
        if let Some(rest) = end.strip_suffix(reply_end).map(trim_ws).filter(|r| !r.is_empty()) {
            *end = rest.to_string();
        }
    }
}

fn one_call_params() -> Params {
    Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call()])])
}

fn two_calls(p: &mut Params) {
    p.messages = vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])];
}

/// tools.1: text turn vs a turn with one tool call; the right side is the tool-call section (returned).
fn analyze_tool_calls(pr: &mut Prober, t: &mut ToolsAnalysis, reasoning: &ReasoningAnalysis, parallel: bool) -> String {
    let a = Params::with_tools(vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)]);
    let Some(cmp) = pr.compare("analyze_tool_calls", "text content replaced by one tool call", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant_calls(vec![first_call()])];
    }) else {
        return String::new();
    };
    let haystack = cmp.diff.right;
    if haystack.is_empty() {
        return haystack;
    }
    // The one heuristic of the design: is a needle inside JSON (`{"needle"` or `: "needle"`)?
    let in_json = |needle: &str| {
        let p = seq(vec![choice(vec![lit("{"), lit(":")]), P::Space, lit("\""), lit(needle), lit("\"")]);
        p.parse_anywhere(&haystack).is_some()
    };
    t.format.mode = if in_json(FUN_FIRST) {
        ToolFormat::JsonNative
    } else if in_json(ARG_FIRST) {
        ToolFormat::TagWithJson
    } else {
        ToolFormat::TagWithTagged
    };
    // Python-style dicts (`{'arg': 'value'}`) are read as tagged by the JSON test above; note them so
    // the parser accepts single quotes.
    t.format.uses_python_dicts = haystack.contains(&format!("'{ARG_FIRST}'"));

    let clean = remove_first(&remove_first(&haystack, &reasoning.start), &reasoning.end);
    if t.format.mode == ToolFormat::JsonNative {
        if let Err(e) = json_native_format(t, &clean) {
            pr.diagnostics.push(format!("analyze_tool_calls: {e}"));
            pr.incomplete = true;
        }
        if parallel {
            json_native_parallel_calls(pr, t);
        }
    } else {
        non_json_format(t, &clean);
    }
    // Whitespace before an end marker never matters to a parser.
    t.format.section_end = trim_ws(&t.format.section_end).to_string();
    t.format.per_call_end = trim_ws(&t.format.per_call_end).to_string();
    haystack
}

fn remove_first(s: &str, needle: &str) -> String {
    match (!needle.is_empty()).then(|| s.find(needle)).flatten() {
        Some(p) => format!("{}{}", &s[..p], &s[p + needle.len()..]),
        None => s.to_string(),
    }
}

/// JSON_NATIVE: read the call object's field names by matching values to the probe needles.
fn json_native_format(t: &mut ToolsAnalysis, clean: &str) -> Result<(), String> {
    let (Some(mut start), Some(mut end)) = (clean.find('{'), clean.rfind('}')) else {
        return Err("no JSON object in the tool-call section".into());
    };
    if end < start {
        return Err("unbalanced JSON in the tool-call section".into());
    }
    let cut = &clean[start..=end];
    // A template printing object arguments with `{{ arguments }}` writes a Python dict inside JSON.
    let obj: Value = serde_json::from_str(cut)
        .or_else(|e| if t.format.uses_python_dicts { serde_json::from_str(&single_quotes_to_double(cut)) } else { Err(e) })
        .map_err(|e| format!("tool call is not one JSON object: {e}"))?;
    let f = &mut t.format;
    let mut register = |prefix: &str, key: &str, value: &Value| {
        let path = if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
        match value.as_str() {
            Some(s) if s.contains("call0000") => f.id_field = path,
            Some(s) if s == FUN_FIRST => f.name_field = path,
            _ if value.to_string().contains(ARG_FIRST) => f.args_field = path,
            _ if key.contains("id") => f.gen_id_field = path,
            _ => {}
        }
    };
    let mut fun_name_is_key = false;
    let mut function_field = None;
    if let Some(map) = obj.as_object() {
        for (k, v) in map {
            if k == FUN_FIRST {
                fun_name_is_key = true;
                continue;
            }
            // A function object: it holds the name (`"function": {"name": …, "arguments": …}`, the
            // whole OpenAI call), or anything but the arguments.
            let names = v.as_object().is_some_and(|m| m.values().any(|x| x.as_str() == Some(FUN_FIRST)));
            if v.is_object() && (names || !v.to_string().contains(ARG_FIRST)) {
                function_field = Some(k.clone());
                for (sk, sv) in v.as_object().into_iter().flatten() {
                    register(k, sk, sv);
                }
                if names {
                    continue;
                }
            }
            register("", k, v);
        }
    }
    if fun_name_is_key {
        // The function name is the key: no name field, the arguments are its value.
        f.fun_name_is_key = true;
        f.name_field.clear();
        f.args_field.clear();
    }
    if let Some(ff) = function_field {
        f.function_field = ff;
    }
    let array = seq(vec![tag("pre", seq(vec![lit("["), P::Space])), lit(cut), tag("post", seq(vec![P::Space, lit("]")]))]);
    if let Some(tags) = array.parse_anywhere(clean) {
        f.tools_array_wrapped = true;
        start = start.saturating_sub(get(&tags, "pre").len());
        end += get(&tags, "post").len();
    }
    end += 1;
    let mut located: Vec<(usize, String)> = [&f.name_field, &f.args_field, &f.id_field, &f.gen_id_field]
        .into_iter()
        .filter(|x| !x.is_empty())
        .map(|x| (field_position(clean, x), x.clone()))
        .collect();
    located.sort();
    f.parameter_order = located.into_iter().map(|(_, n)| n).collect();
    f.fixed_fields = super::call_extras::fixed_fields(&obj, &f.parameter_order, &f.function_field);
    f.section_start = trim_leading_ws(clean.get(..start).unwrap_or("")).to_string();
    f.section_end = trim_ws(clean.get(end..).unwrap_or("")).to_string();
    // The array's closing bracket belongs to the JSON, not to a section marker.
    if f.tools_array_wrapped && f.section_end == "]" {
        f.section_end.clear();
    }
    Ok(())
}

/// Where a call object's field is written: a nested one (`function.name`) at its key after its parent's.
fn field_position(clean: &str, field: &str) -> usize {
    let Some((parent, key)) = field.split_once('.') else { return clean.find(field).unwrap_or(usize::MAX) };
    let quoted = |k: &str| [format!("\"{k}\""), format!("'{k}'")];
    let find_from = |from: usize, k: &str| quoted(k).iter().filter_map(|q| clean.get(from..)?.find(q.as_str()).map(|i| from + i)).min();
    find_from(0, parent).and_then(|p| find_from(p + 1, key)).unwrap_or(usize::MAX)
}

/// The probe's Python-dict text as JSON: single-quoted strings become double-quoted (the probe values
/// hold no quotes or backslashes, so no escaping is needed here; the parser normalises real output).
fn single_quotes_to_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_double = false;
    let mut escaped = false;
    for c in s.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => in_double = !in_double,
            '\'' if !in_double => {
                out.push('"');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// JSON_NATIVE with parallel calls: a section marker repeated for the second call is per call.
fn json_native_parallel_calls(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let Some(cmp) = pr.compare("analyze_json_native_parallel_calls", "second tool call added", &one_call_params(), two_calls) else {
        return;
    };
    let f = &mut t.format;
    if !f.section_start.is_empty() && cmp.diff.right.contains(&f.section_start) {
        f.per_call_start = std::mem::take(&mut f.section_start);
        f.per_call_end = std::mem::take(&mut f.section_end);
    }
}

/// Tag formats: the tag holding the function name, then up to two opening markers before it
/// (section, call) and up to two closing markers at the end.
fn non_json_format(t: &mut ToolsAnalysis, clean: &str) {
    let name_tag = choice(vec![
        seq(vec![
            tag("fun_pre", seq(vec![lit("<"), until_one_of(&[">", FUN_FIRST])])),
            lit(FUN_FIRST),
            tag("fun_post", seq(vec![not(seq(vec![P::Space, lit("<")])), until(">"), lit(">")])),
            P::Space,
        ]),
        seq(vec![
            tag("fun_pre", seq(vec![lit("["), until_one_of(&["]", FUN_FIRST])])),
            lit(FUN_FIRST),
            tag("fun_post", seq(vec![not(seq(vec![P::Space, lit("["), until("]"), lit("]")])), P::Space])),
        ]),
    ]);
    let fun = tag("fun_marker", name_tag).parse_anywhere(clean);
    let fun_marker = fun.as_ref().map(|x| get(x, "fun_marker")).unwrap_or_else(|| FUN_FIRST.to_string());
    let marker_ws = |name| tag(name, seq(vec![P::Marker, P::Space]));
    let per_call = seq(vec![
        marker_ws("sec_start"),
        marker_ws("call_start"),
        tag("fun_pre", until(&fun_marker)),
        lit(&fun_marker),
        tag("rest", P::Rest),
    ]);
    let (open, close) = match per_call.parse_anywhere(clean) {
        Some(open) => {
            let closers = seq(vec![marker_ws("call_end"), marker_ws("sec_end"), P::End]);
            let close = closers.parse_anywhere(&get(&open, "rest"));
            let fun_pre = fun.as_ref().map(|x| get(x, "fun_pre")).unwrap_or_default();
            t.function.name_prefix = fun_pre + &t.function.name_prefix;
            (Some(open), close)
        }
        None => {
            let section = seq(vec![marker_ws("sec_start"), lit(&fun_marker), tag("rest", P::Rest)]);
            let open = section.parse_anywhere(clean);
            let rest = open.as_ref().map(|x| get(x, "rest")).unwrap_or_default();
            let close = seq(vec![marker_ws("sec_end"), P::End]).parse_anywhere(&rest);
            (open, close)
        }
    };
    let o = |n| open.as_ref().map(|x| get(x, n)).unwrap_or_default();
    let c = |n| close.as_ref().map(|x| get(x, n)).unwrap_or_default();
    t.format.per_call_start = o("call_start");
    t.format.per_call_end = c("call_end");
    t.format.section_start = o("sec_start");
    t.format.section_end = c("sec_end");
}

/// tools.2: one call vs two. If the second call starts with the section marker, it is a per-call
/// marker.
fn check_per_call_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let Some(cmp) = pr.compare("check_per_call_markers", "second tool call added", &one_call_params(), two_calls) else {
        return;
    };
    let second = pr.split("check_per_call_markers", "common suffix vs the added call", &cmp.diff.suffix, &cmp.diff.right);
    let f = &mut t.format;
    if !f.section_start.is_empty() && trim_leading_ws(&second.right).starts_with(&f.section_start) {
        f.per_call_start = std::mem::take(&mut f.section_start);
        f.per_call_end = std::mem::take(&mut f.section_end);
    }
}

#[cfg(test)]
mod python_dict_tests {
    use super::single_quotes_to_double;

    #[test]
    fn a_python_dict_inside_json_reads_as_json() {
        let s = r#"{"name": "f", "arguments": {'a': 'x', 'b': "it's"}}"#;
        let v: serde_json::Value = serde_json::from_str(&single_quotes_to_double(s)).unwrap();
        assert_eq!(v["arguments"]["a"], "x");
        assert_eq!(v["arguments"]["b"], "it's");
    }
}
