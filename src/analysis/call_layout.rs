//! tools.8 — the call layout re-read from two calls (tag formats with JSON arguments).
//!
//! tools.1 splits one rendered call into section / call / name markers from its surroundings alone; when
//! the call's own markers run straight into the section end and the end of the turn
//! (`…```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>`), or when nothing surrounds the
//! name tag (`<function=f>{…}</function><|eom_id|>`), that split goes wrong. Two calls settle it:
//! what precedes both names is the call opener, what follows both argument objects is the call
//! closer, and what follows only the last call is the section end.

use super::diff::{common_prefix_len, common_suffix_len, segmentize_markers, trim_ws, SegmentKind};
use super::probe::*;
use crate::findings::{ToolFormat, ToolsAnalysis};
use serde_json::Value;

pub fn refine(pr: &mut Prober, t: &mut ToolsAnalysis) {
    if t.format.mode != ToolFormat::TagWithJson {
        return;
    }
    if let Some((opener, closer, tail)) = repeated_markers(pr) {
        if apply(t, &opener, &closer, &tail) {
            let f = &t.format;
            pr.diagnostics.push(format!(
                "tool calls: re-read from two calls (tools.8): call {:?}…{:?}, section end {:?}, function close {:?}",
                f.per_call_start, f.per_call_end, f.section_end, t.function.close
            ));
        }
    }
}

/// The call opener (before both names) and closer (after both argument objects) of a two-call render,
/// and what follows the last call's closer.
fn repeated_markers(pr: &mut Prober) -> Option<(String, String, String)> {
    let p = Params::with_tools(vec![user(USER_MSG), assistant_calls(vec![first_call(), second_call()])]);
    let out = pr.render(&p).ok()?;
    // The last mentions: the tool list before the conversation names both functions too.
    let f2 = out.rfind(FUN_SECOND)?;
    let f1 = out[..f2].rfind(FUN_FIRST)?;
    let e1 = json_end(&out, f1 + FUN_FIRST.len()).filter(|&e| e <= f2)?;
    let e2 = json_end(&out, f2 + FUN_SECOND.len())?;
    let (before_1, before_2) = (&out[..f1], &out[e1..f2]);
    let mut opener = &before_1[before_1.len() - common_suffix_len(before_1, before_2)..];
    // Start at a marker: a shared tail of text is not part of it.
    opener = &opener[opener.find(['<', '['])?..];
    let after_1 = &out[e1..f2 - opener.len()];
    let after_2 = &out[e2..];
    let mut closer = &after_1[..common_prefix_len(after_1, after_2)];
    closer = &closer[..closer.rfind(['>', ']']).map_or(0, |p| p + 1)];
    Some((opener.to_string(), closer.to_string(), after_2[closer.len()..].to_string()))
}

/// The end of the JSON value that starts at the first `{` at or after `from`.
fn json_end(s: &str, from: usize) -> Option<usize> {
    let start = from + s.get(from..)?.find('{')?;
    let mut it = serde_json::Deserializer::from_str(&s[start..]).into_iter::<Value>();
    it.next()?.ok()?;
    Some(start + it.byte_offset())
}

/// Correct the three misreadings the repeated markers reveal; leave every other layout alone. True
/// when it changed something.
fn apply(t: &mut ToolsAnalysis, opener: &str, closer: &str, tail: &str) -> bool {
    let (opener, closer) = (trim_ws(opener), trim_ws(closer));
    let f = &mut t.format;
    let func = &mut t.function;
    if closer.is_empty() {
        return false;
    }
    if f.per_call_start.is_empty() && f.section_start.is_empty() && f.per_call_end.is_empty() && func.close.is_empty() {
        // Nothing around the name tag: the opener and closer repeated per call are the call's markers.
        if trim_ws(&func.name_prefix) != opener {
            return false;
        }
        f.per_call_start = opener.to_string();
        f.per_call_end = closer.to_string();
        func.name_prefix.clear();
        return true;
    }
    let close = trim_ws(&func.close).to_string();
    // The function closer ran on past the call's end into the section end (`…```<｜tool▁call▁end｜>
    // <｜tool▁calls▁end｜>`), or one call ends the render with no marker tools.1 could pair
    // (`…```<｜tool▁call▁end｜>` alone: a template that writes the section end only after a second call).
    let ran_on = close.len() > closer.len() && close.starts_with(closer);
    let unread = close.is_empty() && f.per_call_end.is_empty() && f.section_end.is_empty();
    if (ran_on || unread) && trim_ws(&format!("{}{}", f.per_call_start, func.name_prefix)) == opener {
        let segs = segmentize_markers(closer);
        let Some(last) = segs.last().filter(|s| s.kind == SegmentKind::Marker) else { return false };
        f.per_call_end = last.value.clone();
        func.close = trim_ws(&closer[..closer.len() - last.value.len()]).to_string();
        let rest = if ran_on { trim_ws(&close[closer.len()..]) } else { trim_ws(tail) };
        f.section_end = match segmentize_markers(rest).into_iter().next() {
            Some(s) if s.kind == SegmentKind::Marker && !f.section_start.is_empty() => s.value,
            _ => String::new(),
        };
        // Read off the second call only: a lone call's turn ends without it.
        f.section_end_optional = unread && !f.section_end.is_empty();
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_end_is_the_end_of_the_object() {
        let s = r#"<function=f>{"a": "}"}</function>"#;
        assert_eq!(&s[json_end(s, 11).unwrap()..], "</function>");
    }

    #[test]
    fn a_bare_name_tag_gets_its_repeated_markers() {
        let mut t = ToolsAnalysis::default();
        t.format.mode = ToolFormat::TagWithJson;
        t.function.name_prefix = "<function=".into();
        apply(&mut t, "<function=", "</function>", "");
        assert_eq!((t.format.per_call_start.as_str(), t.format.per_call_end.as_str(), t.function.name_prefix.as_str()), ("<function=", "</function>", ""));
    }

    /// The DeepSeek layout as tools.1 reads it from one call (`close`: what it took for the function closer),
    /// corrected from the two-call render; checks the corrected markers.
    fn deepseek_corrected(close: &str) -> ToolsAnalysis {
        let mut t = ToolsAnalysis::default();
        t.format.mode = ToolFormat::TagWithJson;
        t.format.section_start = "<｜tool▁calls▁begin｜>".into();
        t.format.per_call_start = "<｜tool▁call▁begin｜>".into();
        t.function.name_prefix = "function<｜tool▁sep｜>".into();
        t.function.close = close.into();
        assert!(apply(&mut t, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>", "\n```<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"));
        assert_eq!(t.function.close, "```");
        assert_eq!(t.format.per_call_end, "<｜tool▁call▁end｜>");
        assert_eq!(t.format.section_end, "<｜tool▁calls▁end｜>");
        t
    }

    #[test]
    fn a_closer_running_into_the_section_end_is_cut() {
        // The one-call render wrote the section end: it stays required.
        assert!(!deepseek_corrected("```<｜tool▁call▁end｜><｜tool▁calls▁end｜>").format.section_end_optional);
    }

    /// One call ends the render with `…```<｜tool▁call▁end｜>` and no section end (Ollama's DeepSeek-V3).
    #[test]
    fn a_call_ending_the_render_unpaired_gets_its_markers_from_two_calls() {
        // Only the two-call render writes the section end: a lone call's turn ends without it.
        assert!(deepseek_corrected("").format.section_end_optional);
    }
}
