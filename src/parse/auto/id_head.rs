//! A call whose head is its id (rule R48): the template writes the call's id where a name goes and no
//! name at all (`analysis.tools.callId.pos` IN_NAME_PLACE, tools.14: `<|tool_call_begin|>{{ id }}<|tool_call_argument_begin|>`),
//! and a model writes an id that names the tool (`functions.get_weather:0`, `get_weather:0`,
//! `call_get_weather_1`). The head — one word up to the marker after it — is the call's id, and the call's
//! name is the declared tool it names as a delimited word (between characters that are not letters or
//! digits, or its ends); a name inside another declared name's occurrence (`weather` in `get_weather`) is
//! that one's. A head that names no declared tool, or more than one, is no call: its text stays content,
//! as a name that is not a tool's does where the layout does not delimit one (no name to read, rule R22).

use super::tool::{longest, name_window, past_name_limit, NameMatch, MAX_NAME};
use crate::parse::config::ToolConfig;
use crate::parse::marker::Marker;
use crate::text::is_space;

/// The head at the start of `text` (blanks before it skipped by the caller): `Found(tool, bytes of the
/// head)` when it names exactly one declared tool. It ends at a blank or at the marker after a name (the
/// name suffix, else the arguments' first marker), whichever comes first — or at another call marker, so a
/// head never runs over one; the name suffix state reads what follows it.
pub(super) fn match_id_head(text: &str, t: &ToolConfig, eof: bool) -> NameMatch {
    let args = if t.args_start.is_empty() { &t.arg_name_prefix } else { &t.args_start };
    let markers = [&t.name_suffix, args, &t.per_call_start, &t.per_call_end, &t.section_end, &t.close];
    let ends: Vec<&Marker> = markers.into_iter().filter(|m| !m.is_empty()).collect();
    let reach = longest(&ends).max(1);
    let window = name_window(text, reach);
    let blank = window.find(is_space);
    let marker = ends.iter().filter_map(|m| m.find(window)).map(|(s, _)| s).min();
    let held = if eof { 0 } else { ends.iter().map(|m| m.holdback(window)).max().unwrap_or(0) };
    let at = match (blank, marker) {
        (Some(b), Some(m)) => b.min(m),
        (Some(b), None) if b < window.len() - held => b,
        (None, Some(m)) => m,
        // Without a marker or blank, the output's end ends the head.
        _ if eof => window.len(),
        _ if past_name_limit(text, reach) => return NameMatch::No,
        _ => return NameMatch::NeedMore,
    };
    let head = text.get(..at).unwrap_or("");
    if head.is_empty() || at > MAX_NAME {
        return NameMatch::No;
    }
    match named_tool(head, t) {
        Some(i) => NameMatch::Found(i, at),
        None => NameMatch::No,
    }
}

/// The one declared tool `head` names as a delimited word.
fn named_tool(head: &str, t: &ToolConfig) -> Option<usize> {
    let delimits = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    for (i, def) in t.tools.iter().enumerate().filter(|(_, d)| !d.name.is_empty()) {
        for (s, name) in head.match_indices(def.name.as_str()) {
            let e = s + name.len();
            if delimits(head[..s].chars().next_back()) && delimits(head[e..].chars().next()) {
                found.push((i, s, e));
            }
        }
    }
    let within = |&(_, s, e): &(usize, usize, usize)| found.iter().any(|&(_, s2, e2)| s2 <= s && e <= e2 && e2 - s2 > e - s);
    let outer: Vec<usize> = found.iter().filter(|f| !within(f)).map(|&(i, ..)| i).collect();
    let first = *outer.first()?;
    outer.iter().all(|&i| i == first).then_some(first)
}

impl super::AutoParser {
    /// The head read (the call's name already set from it): it is the call's id, said so.
    pub(super) fn id_head(&mut self, head: &str, abs: usize) {
        self.call.data.id = head.to_string();
        let message = format!("tool call head {head:?} read as the call's id, which the template writes where a name goes; the call's name is the declared tool it names, {:?} (rule R48)", self.call.data.name);
        self.diag(abs, message);
    }
}
