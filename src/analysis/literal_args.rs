//! Phase 3b — literal arguments: calls written as `f(a='x', n=1)` (Python) or
//! `f{a:<|"|>x<|"|>,n:1}` / `f{a:<escape>x<escape>}` (key/value with a string delimiter token),
//! where every value delimits itself instead of sitting between value markers.
//!
//! Found by two differences: a string argument vs a number (`'XXXX'` vs `12345`: the string is
//! wrapped in a delimiter and the number is bare, both after the same key/value separator), and the
//! call's layout, which must be punctuation only between the name, the arguments and their values
//! (tagged formats have words there: `<parameter=…>`). One call vs two then tells whether the text
//! before the name repeats per call (`<|tool_call>call:f{…}<tool_call|><|tool_call>call:g{…}`) or
//! opens a section whose calls are separated by a comma (`<|tool_call_start|>[f(…), g(…)]…`).
//!
//! Runs after every other comparison so that the recorded diffs keep llama.cpp's order.

use super::diff::{segmentize_markers, trim_leading_ws, trim_ws, SegmentKind};
use super::pattern::{get, seq, tag, P};
use super::probe::*;
use crate::findings::{ArgumentsAnalysis, FunctionAnalysis, ToolFormat, ToolsAnalysis};
use serde_json::{json, Value};

/// Probe number: renders bare in literal formats.
const NUMBER: i64 = 12345;

/// Re-read a TAG_WITH_TAGGED analysis as literal arguments when the renders show that syntax.
pub fn analyze(pr: &mut Prober, t: &mut ToolsAnalysis, parallel: bool) {
    if t.format.mode != ToolFormat::TagWithTagged {
        return;
    }
    let Some((kv, delim)) = value_syntax(pr) else { return };
    let Some(call) = call_layout(pr, &kv, &delim) else { return };
    let between = if parallel { calls_between(pr, &delim, &call.close) } else { None };
    let f = &mut t.format;
    f.section_start.clear();
    f.section_end.clear();
    f.per_call_start.clear();
    f.per_call_end.clear();
    let mut name_prefix = String::new();
    match between {
        // The whole call prefix repeats: per-call markers; the text after the last call's end marker
        // (e.g. the start of the tool response the template expects next) is not model output.
        Some(b) if !call.before.is_empty() && b.ends_with(&call.before) => {
            f.per_call_end = trim_ws(&b[..b.len() - call.before.len()]).to_string();
            match seq(vec![tag("m", P::Marker), tag("rest", P::Rest)]).parse(&call.before) {
                Some(tags) => {
                    f.per_call_start = get(&tags, "m");
                    name_prefix = get(&tags, "rest");
                }
                None => f.per_call_start = call.before.clone(),
            }
        }
        // Calls separated by punctuation inside one section.
        _ => {
            f.section_start = call.before.clone();
            f.section_end = trim_ws(&call.after).to_string();
            f.call_separator = between.unwrap_or_default();
        }
    }
    t.function = FunctionAnalysis { name_prefix, name_suffix: String::new(), close: String::new() };
    t.arguments = ArgumentsAnalysis {
        start: call.open,
        end: call.close,
        name_suffix: trim_ws(&kv).to_string(),
        separator: call.separator,
        literal_values: true,
        string_delimiter: delim,
        ..Default::default()
    };
}

fn punctuation(s: &str) -> bool {
    s.chars().all(|c| !c.is_alphanumeric() && c != '_')
}

fn one_call(args: Value) -> Vec<Value> {
    vec![user(USER_MSG), assistant_calls(vec![tool_call(FUN_FIRST, args, CALL_ID_001)])]
}

/// A string value vs a number: `(key/value separator, string delimiter)`.
fn value_syntax(pr: &mut Prober) -> Option<(String, String)> {
    let a = Params::with_tools(one_call(json!({ ARG_FIRST: "XXXX" })));
    let cmp = pr.compare("detect_literal_arguments", "string argument value replaced by a number", &a, |p| {
        p.messages = one_call(json!({ ARG_FIRST: NUMBER }));
    })?;
    // The last mention of the argument is the call's (the tool list comes first).
    let after = |s: &str| s.rfind(ARG_FIRST).and_then(|p| s.get(p + ARG_FIRST.len()..)).map(str::to_string);
    let (sa, sb) = (after(&cmp.output_a)?, after(&cmp.output_b)?);
    let kv = sb.get(..sb.find(&NUMBER.to_string())?)?;
    let rest = sa.strip_prefix(kv)?;
    let x = rest.find("XXXX")?;
    let delim = rest.get(..x)?;
    let closed = rest.get(x + 4..)?.starts_with(delim);
    let short = kv.len() <= 4 && delim.len() <= 8;
    // A delimiter is punctuation (`'`, `<|"|>`) or one marker token (`<escape>`).
    let one_marker = matches!(segmentize_markers(delim).as_slice(), [s] if s.kind == SegmentKind::Marker);
    let delim_ok = punctuation(delim) || one_marker;
    (closed && short && !trim_ws(kv).is_empty() && !delim.is_empty() && punctuation(kv) && delim_ok)
        .then(|| (kv.to_string(), delim.to_string()))
}

/// One call's text around the name and arguments.
struct CallLayout {
    /// Text before the function name (section / call markers and name prefix).
    before: String,
    /// Opening of the argument list (`(`, `{`) and its mirror.
    open: String,
    close: String,
    separator: String,
    /// Text after the closing bracket.
    after: String,
}

fn mirror(open: &str) -> String {
    open.chars()
        .rev()
        .map(|c| match c {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            c => c,
        })
        .collect()
}

/// Read the one-call render (tools.1's tool-call section) as `before f open a kv v sep b kv v close after`.
fn call_layout(pr: &mut Prober, kv: &str, delim: &str) -> Option<CallLayout> {
    let h = pr.diffs.iter().find(|d| d.step == "analyze_tool_calls" && d.ok)?.right.clone();
    let f = h.find(FUN_FIRST)?;
    let before = trim_leading_ws(h.get(..f)?).to_string();
    let body = h.get(f + FUN_FIRST.len()..)?;
    let a1 = body.find(ARG_FIRST)?;
    let open = trim_ws(body.get(..a1)?).to_string();
    let first_value = format!("{kv}{delim}XXXX{delim}");
    let rest = body.get(a1 + ARG_FIRST.len()..)?.strip_prefix(first_value.as_str())?;
    let separator = rest.get(..rest.find(ARG_SECOND)?)?.to_string();
    let second_value = format!("{ARG_SECOND}{kv}{delim}YYYY{delim}");
    let tail = trim_leading_ws(rest.strip_prefix(separator.as_str())?.strip_prefix(second_value.as_str())?);
    let close = mirror(&open);
    let after = tail.strip_prefix(close.as_str())?.to_string();
    let ok = !open.is_empty() && punctuation(&open) && !trim_ws(&separator).is_empty() && punctuation(&separator);
    ok.then_some(CallLayout { before, open, close, separator, after })
}

/// One call vs two: the text between the first call's closing bracket and the second call's name.
fn calls_between(pr: &mut Prober, delim: &str, close: &str) -> Option<String> {
    let a = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call()])]);
    let cmp = pr.compare("detect_literal_arguments", "second tool call added", &a, |p| {
        p.messages = vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])];
    })?;
    let o = &cmp.output_b;
    let turn = o.rfind(USER_MSG)? + USER_MSG.len();
    let end_of_first = format!("YYYY{delim}{close}");
    let e = o.get(turn..)?.find(&end_of_first)? + turn + end_of_first.len();
    let s = o.get(e..)?.find(FUN_SECOND)? + e;
    o.get(e..s).map(str::to_string)
}
