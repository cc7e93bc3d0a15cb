//! Phase 3, tag formats — the markers inside one call: function name (tools.3), argument names and
//! values (A1, A2), argument separator (tools.5), argument container (tools.6) and call id (tools.7).

use super::diff::{trim_leading_ws, trim_ws, until_common_prefix};
use super::pattern::{choice, get, last_marker_to_end, lit, not, seq, star, star_not, tag, until, until_one_of, P};
use super::probe::*;
use crate::findings::{CallIdPosition, ToolFormat, ToolsAnalysis};
use serde_json::json;

fn params_with_call(call: serde_json::Value) -> Params {
    Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![call])])
}

fn set_call(p: &mut Params, call: serde_json::Value) {
    p.messages = vec![user(USER_MSG), assistant_calls(vec![call])];
}

fn one_arg(value: &str) -> serde_json::Value {
    tool_call(FUN_FIRST, json!({ ARG_FIRST: value }), CALL_ID_001)
}

/// The last marker of `s` with the text after it (`None` if `s` has no marker).
fn last_marker_with_tail(s: &str) -> Option<String> {
    seq(vec![star_not(last_marker_to_end()), tag("m", last_marker_to_end())]).parse(s).map(|t| get(&t, "m"))
}

/// tools.3: a call to FUN_FIRST vs the same call to FUN_SECOND.
pub fn extract_function_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(first_call());
    let Some(cmp) = pr.compare("extract_function_markers", "function name changed", &a, |p| set_call(p, second_call())) else {
        return;
    };
    let d = &cmp.diff;
    if !d.left.contains(FUN_FIRST) || !d.right.contains(FUN_SECOND) {
        return;
    }
    let f = &t.format;
    let open = if f.per_call_start.is_empty() { &f.section_start } else { &f.per_call_start };
    if let Some(p) = (!open.is_empty()).then(|| d.prefix.rfind(open.as_str())).flatten() {
        t.function.name_prefix = d.prefix[p + open.len()..].to_string();
    }
    let name = seq(vec![tag("pre", until(FUN_FIRST)), lit(FUN_FIRST), tag("post", star_not(P::Marker))]);
    if let Some(tags) = name.parse(&d.left) {
        t.function.name_prefix += &get(&tags, "pre");
        t.function.name_suffix = get(&tags, "post");
    }
    // The name suffix runs on into the common suffix: up to the JSON arguments (markers included)
    // for TAG_WITH_JSON, up to the first marker for tagged arguments.
    if f.mode == ToolFormat::TagWithJson {
        let non_json = choice(vec![P::Marker, seq(vec![not(lit("{")), not(lit("[")), P::Any])]);
        let p = seq(vec![tag("ext", star(non_json)), star_not(P::Marker), P::Marker]);
        if let Some(tags) = p.parse(&d.suffix) {
            t.function.name_suffix += &get(&tags, "ext");
        }
    } else if let Some(tags) = tag("ext", star_not(P::Marker)).parse(&d.suffix) {
        t.function.name_suffix += &get(&tags, "ext");
    }
    // Compact formats (`f{a:…}`, `[f(a=…)]`) have no marker between name and arguments: the name
    // suffix ends where the first argument name begins.
    if let Some(p) = t.function.name_suffix.find(ARG_FIRST) {
        t.function.name_suffix.truncate(p);
    }
    // A call id printed before the name (`id<|name|>f`) is not part of the name prefix.
    if let Some(p) = t.function.name_prefix.find(CALL_ID_001) {
        t.function.name_prefix.drain(..p + CALL_ID_001.len());
    }
    // The closer sits between the last argument value (YYYY) and the call / section end.
    let end = if f.per_call_end.is_empty() { f.section_end.clone() } else { f.per_call_end.clone() };
    let closer_text = if end.is_empty() {
        let Some(nt) = pr.compare("extract_function_markers", "tool call replaced by text content", &a, |p| {
            p.messages = vec![user(USER_MSG), assistant_text(ASSISTANT_MSG)];
        }) else {
            return;
        };
        let from = nt.diff.left.find("YYYY").map(|p| p + 4).unwrap_or(3);
        nt.diff.left.get(from..).unwrap_or("").to_string()
    } else {
        d.suffix.find(&end).map(|p| &d.suffix[..p]).unwrap_or(&d.suffix).to_string()
    };
    if !closer_text.is_empty() {
        match f.mode {
            ToolFormat::TagWithTagged => {
                let p = seq(vec![until("YYYY"), lit("YYYY"), P::Space, P::Marker, P::Space, tag("close", P::Rest)]);
                // The text-content comparison's closer starts right after the last value.
                let after_value = seq(vec![P::Space, P::Marker, P::Space, tag("close", P::Rest)]);
                let tags = if closer_text.contains("YYYY") { p.parse(&closer_text) } else { after_value.parse(&closer_text) };
                if let Some(tags) = tags {
                    t.function.close = get(&tags, "close");
                }
            }
            ToolFormat::TagWithJson => {
                let p = seq(vec![until("YYYY"), lit("YYYY"), tag("post", P::Rest)]);
                if let Some(tags) = p.parse(&closer_text) {
                    let post = get(&tags, "post");
                    if let Some(pos) = post.rfind(['}', ']']) {
                        if pos + 1 < post.len() {
                            t.function.close = trim_leading_ws(&post[pos + 1..]).to_string();
                        }
                    }
                }
            }
            _ => {}
        }
    }
    t.function.close = trim_leading_ws(&t.function.close).to_string();
}

/// A1: one argument named ARG_FIRST vs one named ARG_SECOND.
pub fn extract_argument_name_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    find_argument_name_markers(pr, t);
    // When the first argument directly follows the name (`f{a:…}`), the structure before it is
    // the function's, not the argument's.
    let a = &mut t.arguments;
    if let Some(p) = a.name_prefix.find(FUN_FIRST) {
        let rest = &a.name_prefix[p + FUN_FIRST.len()..];
        a.name_prefix = rest.strip_prefix(t.function.name_suffix.as_str()).unwrap_or(rest).to_string();
    }
}

fn find_argument_name_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(one_arg("XXXX"));
    let other = tool_call(FUN_FIRST, json!({ ARG_SECOND: "YYYY" }), CALL_ID_001);
    let Some(cmp) = pr.compare("extract_argument_name_markers", "argument name (and value) changed", &a, |p| set_call(p, other)) else {
        return;
    };
    let d = &cmp.diff;
    if d.left.is_empty() || d.right.is_empty() {
        return;
    }
    let around = |arg: &str, stop: &str| seq(vec![tag("pre", until(arg)), lit(arg), tag("suffix", until_one_of(&["\"", stop]))]);
    let l = around(ARG_FIRST, "X").parse_anywhere(&d.left);
    let r = around(ARG_SECOND, "Y").parse_anywhere(&d.right);
    if let (Some(l), Some(r)) = (&l, &r) {
        let (lp, ls) = (get(l, "pre"), get(l, "suffix"));
        if !lp.is_empty() && lp == get(r, "pre") && ls == get(r, "suffix") {
            // The name sits inside a structure that differs as a whole: keep the shared wrapper.
            t.arguments.name_prefix = lp;
            t.arguments.name_suffix = ls;
            return;
        }
    }
    if d.left.starts_with(ARG_FIRST) && d.right.starts_with(ARG_SECOND) {
        // The name alone differs: its prefix is the last marker before it.
        t.arguments.name_prefix = last_marker_with_tail(&d.prefix).unwrap_or_else(|| d.prefix.clone());
        let after = format!("{}{}", &d.left[ARG_FIRST.len()..], d.suffix);
        let p = tag("suffix", seq(vec![star_not(P::Marker), P::Marker, P::Space]));
        if let Some(tags) = p.parse_anywhere(&after) {
            t.arguments.name_suffix = get(&tags, "suffix");
        }
    }
}

/// A2: the same argument with value XXXX vs YYYY.
pub fn extract_argument_value_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(one_arg("XXXX"));
    let Some(cmp) = pr.compare("extract_argument_value_markers", "argument value changed", &a, |p| set_call(p, one_arg("YYYY"))) else {
        return;
    };
    let d = &cmp.diff;
    if d.left != "XXXX" || d.right != "YYYY" {
        return;
    }
    let name_end = format!("{ARG_FIRST}{}", t.arguments.name_suffix);
    let prefix = match d.prefix.rfind(&name_end) {
        Some(p) => &d.prefix[p + name_end.len()..],
        None => d.prefix.as_str(),
    };
    if !prefix.is_empty() {
        t.arguments.value_prefix = last_marker_with_tail(prefix).unwrap_or_else(|| prefix.to_string());
    }
    let f = &t.format;
    let stop = if !t.function.close.is_empty() {
        t.function.close.as_str()
    } else if !f.per_call_end.is_empty() {
        f.per_call_end.as_str()
    } else {
        f.section_end.as_str()
    };
    let suffix = match (!stop.is_empty()).then(|| d.suffix.find(stop)).flatten() {
        Some(p) => &d.suffix[..p],
        None => d.suffix.as_str(),
    };
    if !trim_ws(suffix).is_empty() {
        t.arguments.value_suffix = suffix.to_string();
    }
}

/// tools.5: one argument vs two.
pub fn extract_argument_separator(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(one_arg("XXXX"));
    let Some(cmp) = pr.compare("extract_argument_separator", "second argument added", &a, |p| set_call(p, first_call())) else {
        return;
    };
    if !cmp.diff.right.is_empty() {
        t.arguments.separator = until_common_prefix(&cmp.diff.right, ARG_FIRST, ARG_SECOND).to_string();
    }
}

/// tools.6: no arguments vs one. Only JSON_NATIVE formats read a container from it.
pub fn extract_args_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(tool_call(FUN_FIRST, json!({}), CALL_ID_001));
    let Some(cmp) = pr.compare("extract_args_markers", "one argument added to an empty argument list", &a, |p| set_call(p, one_arg("XXXX"))) else {
        return;
    };
    if t.format.mode != ToolFormat::JsonNative {
        return;
    }
    let d = &cmp.diff;
    let f = &t.format;
    let open = if f.section_start.is_empty() { &f.per_call_start } else { &f.section_start };
    let close = if f.section_end.is_empty() { &f.per_call_end } else { &f.section_end };
    let pre_at = if open.is_empty() { 0 } else { d.prefix.rfind(open.as_str()).map(|p| p + open.len()).unwrap_or(open.len()) };
    let suf_at = if close.is_empty() { d.suffix.len() } else { d.suffix.find(close.as_str()).unwrap_or(d.suffix.len()) };
    let prefix_cut = d.prefix.get(pre_at..).unwrap_or("");
    let suffix_cut = d.suffix.get(..suf_at).unwrap_or("");
    let mut start = until_common_prefix(prefix_cut, "{}", "{\"first\":");
    let end = super::diff::after_common_suffix(suffix_cut, "{}", "\"XXXX\"}");
    if start.is_empty() && end.is_empty() {
        return;
    }
    for needle in [FUN_FIRST, CALL_ID_001] {
        if let Some(p) = start.find(needle) {
            start = &start[p + needle.len()..];
        }
    }
    t.arguments.start = start.to_string();
    t.arguments.end = end.to_string();
}

/// tools.7: call id `call00001` vs `call99999`: where the id sits and its markers.
pub fn extract_call_id_markers(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = params_with_call(first_call());
    let alt = tool_call(FUN_FIRST, json!({ARG_FIRST: "XXXX", ARG_SECOND: "YYYY"}), CALL_ID_999);
    let Some(cmp) = pr.compare("extract_call_id_markers", "call id changed", &a, |p| set_call(p, alt)) else {
        return;
    };
    let d = &cmp.diff;
    if d.left.is_empty() && d.right.is_empty() {
        return;
    }
    let common_id = &CALL_ID_001[..super::diff::common_prefix_len(CALL_ID_001, CALL_ID_999)];
    let first_marker = |s: &str| tag("m", P::Marker).parse_anywhere(s).map(|x| get(&x, "m")).unwrap_or_default();
    let last_marker = |s: &str| {
        seq(vec![star_not(last_marker_to_end()), tag("m", P::Marker)]).parse_anywhere(s).map(|x| get(&x, "m")).unwrap_or_default()
    };
    let id = &mut t.call_id;
    // Only the assistant turn counts: the tool definitions earlier in the prompt name FUN_FIRST too.
    let turn_from = d.prefix.rfind(USER_MSG).map_or(0, |p| p + USER_MSG.len());
    match (d.prefix[turn_from..].rfind(FUN_FIRST).map(|p| p + turn_from), d.suffix.find(FUN_FIRST)) {
        (Some(fp), None) => {
            let args_in_prefix = d.prefix[fp..].find('{').map(|p| p + fp);
            if d.suffix.contains('{') && args_in_prefix.is_none() {
                id.pos = CallIdPosition::BetweenFuncAndArgs;
                let after_func = &d.prefix[fp + FUN_FIRST.len()..];
                let p = seq(vec![tag("prefix", P::Marker), star(seq(vec![not(P::Marker), not(lit(common_id)), P::Any])), lit(common_id)]);
                id.prefix = match p.parse_anywhere(after_func) {
                    Some(x) => get(&x, "prefix"),
                    None => last_marker(after_func),
                };
                let s = seq(vec![star(seq(vec![not(P::Marker), not(lit("{")), P::Any])), tag("suffix", P::Marker)]);
                if let Some(x) = s.parse_anywhere(&d.suffix) {
                    id.suffix = get(&x, "suffix");
                }
            } else if let Some(ap) = args_in_prefix {
                id.pos = CallIdPosition::PostArgs;
                let after_args = &d.prefix[ap..];
                if let Some(cb) = after_args.rfind('}') {
                    id.prefix = last_marker(&after_args[cb + 1..]);
                }
                id.suffix = first_marker(&d.suffix);
            }
        }
        (None, Some(fs)) => {
            id.pos = CallIdPosition::PreFuncName;
            id.prefix = last_marker(&d.prefix);
            id.suffix = first_marker(&d.suffix[..fs]);
        }
        _ => {}
    }
    if id.prefix == t.arguments.end {
        id.prefix.clear();
    }
    if id.suffix == t.arguments.start {
        id.suffix.clear();
    }
    // The call id's closing marker may have been taken for the per-call end.
    if id.pos != CallIdPosition::None && !id.suffix.is_empty() && t.format.per_call_end.starts_with(&id.suffix) {
        t.format.per_call_end.clear();
    }
}

/// Does the call header number the calls? The name suffix holds the first call's counter (`:0`)
/// when, with two calls, the second call's header shows the same suffix counting `1`. Rendered
/// without a recorded comparison: the two renders differ by more than the counter.
pub fn detect_header_counter(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let suffix = &t.function.name_suffix;
    let Some(at) = suffix.find('0') else { return };
    // A counter stands alone: not part of a longer number.
    if suffix[at + 1..].starts_with(|c: char| c.is_ascii_digit()) || suffix[..at].ends_with(|c: char| c.is_ascii_digit()) {
        return;
    }
    let mut p = params_with_call(first_call());
    p.messages = vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])];
    let Ok(two) = pr.render(&p) else { return };
    let second = format!("{FUN_SECOND}{}1{}", &suffix[..at], &suffix[at + 1..]);
    if two.contains(&format!("{FUN_FIRST}{suffix}")) && two.contains(&second) {
        t.call_id.header_counter_at = Some(at);
    }
}

/// Does the value prefix tell the value's type? A number argument vs the string one: when the
/// text between the argument name and the value differs (`string="false"` vs `string="true"`), the
/// number's is the typed prefix. Rendered without a recorded comparison.
pub fn detect_typed_value_prefix(pr: &mut Prober, t: &mut ToolsAnalysis) {
    let a = &t.arguments;
    if a.value_prefix.is_empty() {
        return;
    }
    let name_end = format!("{ARG_FIRST}{}", a.name_suffix);
    let mut between = |value: serde_json::Value, shown: &str| -> Option<String> {
        let out = pr.render(&params_with_call(tool_call(FUN_FIRST, json!({ ARG_FIRST: value }), CALL_ID_001))).ok()?;
        let from = out.rfind(&name_end)? + name_end.len();
        let len = out[from..].find(shown)?;
        Some(out[from..from + len].to_string())
    };
    let (Some(string), Some(number)) = (between(json!("XXXX"), "XXXX"), between(json!(12345), "12345")) else { return };
    if string != number && string.ends_with(&t.arguments.value_prefix) && !trim_ws(&number).is_empty() {
        let lead = string.len() - t.arguments.value_prefix.len();
        if number.get(..lead) == string.get(..lead) {
            t.arguments.typed_value_prefix = number[lead..].to_string();
        }
    }
}

/// Does the template wrap string values that hold markup characters? A value with `<`, `&` and a
/// newline vs a plain one: text around the special value that the plain one lacks (`<![CDATA[` …
/// `]]>`) is a raw-value wrapper. Rendered without a recorded comparison.
pub fn detect_raw_value_wrapper(pr: &mut Prober, t: &mut ToolsAnalysis) {
    const SPECIAL: &str = "X<Y&Z\nW";
    let a = &t.arguments;
    let (open, close) = (format!("{ARG_FIRST}{}{}", a.name_suffix, a.value_prefix), a.value_suffix.clone());
    if trim_ws(&close).is_empty() {
        return;
    }
    let mut around = |value: &str| -> Option<(String, String)> {
        let out = pr.render(&params_with_call(one_arg(value))).ok()?;
        let from = out.rfind(&open)? + open.len();
        let at = out[from..].find(value)? + from;
        let after = at + value.len();
        let end = out[after..].find(trim_ws(&close))? + after;
        Some((out[from..at].to_string(), out[after..end].to_string()))
    };
    let (Some(plain), Some(wrapped)) = (around("XXXX"), around(SPECIAL)) else { return };
    if plain.0.is_empty() && plain.1.is_empty() && !trim_ws(&wrapped.0).is_empty() && !trim_ws(&wrapped.1).is_empty() {
        t.arguments.raw_value_start = wrapped.0;
        t.arguments.raw_value_end = wrapped.1;
    }
}
