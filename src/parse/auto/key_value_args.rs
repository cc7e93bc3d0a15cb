//! Rule R24: a tagged call's arguments written as `key=value` pairs after its name, where the
//! template writes argument markers (`<tool_call>multiply a=12 b=34</tool_call>` for GLM's
//! `<tool_call>multiply<arg_key>a</arg_key><arg_value>12</arg_value>…`). Read as the call's
//! arguments, each value typed as a tagged value is (the tool's schema; rule R14 without one).
//!
//! Decided where the first argument marker is due, on the whole run of pairs and the call's closing
//! marker right after it: anything else (a word without `=`, text before the closing marker) leaves
//! the call to the tagged steps, as before. The run is looked at within `REACH` bytes of its start,
//! a decision on text positions alone, so every chunking decides alike and a call that is not one
//! is not rescanned to the end of the output.

use super::tool::{Closing, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::json::escape_inner;
use crate::text::is_space;

/// How far the pairs and the closing marker after them may reach.
const REACH: usize = 4096;
/// The longest argument name.
const MAX_KEY: usize = 64;

/// One `key=value` pair: the value's text (a quoted value without its quotes) and whether it was
/// quoted.
struct Pair<'t> {
    key: &'t str,
    value: &'t str,
    quoted: bool,
    /// Where the value starts in the text.
    at: usize,
}

enum Scan<'t> {
    /// Pairs up to this byte offset.
    Pairs(Vec<Pair<'t>>, usize),
    More,
    No,
}

/// The `key=value` pairs at the start of `text`; an unquoted value ends at whitespace or where
/// `closing` begins.
fn scan_pairs<'t>(text: &'t str, closing: &str, eof: bool) -> Scan<'t> {
    let window = text.get(..super::floor_boundary(text, REACH)).unwrap_or(text);
    // Out of window: more text can still decide only while the text itself ends there.
    let out = if window.len() < text.len() || eof { Scan::No } else { Scan::More };
    let mut pairs = Vec::new();
    let mut pos = 0;
    loop {
        let rest = &window[pos..];
        let at = pos + (rest.len() - rest.trim_start_matches(is_space).len());
        let rest = &window[at..];
        if rest.is_empty() {
            return if pairs.is_empty() { out } else if window.len() < text.len() { Scan::No } else { Scan::Pairs(pairs, pos) };
        }
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return if pairs.is_empty() { Scan::No } else { Scan::Pairs(pairs, pos) };
        }
        let key_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))).unwrap_or(rest.len());
        if key_len > MAX_KEY {
            return Scan::No;
        }
        let after_key = &rest[key_len..];
        if after_key.is_empty() && !eof {
            return out;
        }
        let Some(v) = after_key.strip_prefix('=') else { return if pairs.is_empty() { Scan::No } else { Scan::Pairs(pairs, pos) } };
        let v_at = at + key_len + 1;
        let (value, quoted, value_at, end) = match v.chars().next() {
            None => return out,
            Some(q @ ('"' | '\'')) => {
                let body = &v[1..];
                let mut escaped = false;
                let Some(close) = body.char_indices().find(|&(_, c)| {
                    let hit = c == q && !escaped;
                    escaped = c == '\\' && !escaped;
                    hit
                }) else {
                    return out;
                };
                (&body[..close.0], true, v_at + 1, v_at + 1 + close.0 + 1)
            }
            Some(_) => {
                let stop = v.find(is_space).into_iter().chain(v.find(closing)).min();
                let Some(stop) = stop else { return out };
                if stop == 0 {
                    return Scan::No;
                }
                (&v[..stop], false, v_at, v_at + stop)
            }
        };
        pairs.push(Pair { key: &rest[..key_len], value, quoted, at: value_at });
        pos = end;
    }
}

impl AutoParser {
    /// Where a tagged call's first argument marker is due (`ArgNext`, no argument yet): `key=value`
    /// pairs up to the call's closing marker are its arguments (rule R24). `None` lets the tagged
    /// step run.
    pub(super) fn key_value_args(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let cfg = std::rc::Rc::clone(&self.cfg);
        let t = cfg.tools.as_ref()?;
        if !super::json_in_tagged::tagged(t) || self.call.arg_count > 0 {
            return None;
        }
        let closing = [&t.args_end, &t.close, &t.per_call_end, &t.section_end].into_iter().find(|m| !m.is_empty())?;
        let (pairs, end) = match scan_pairs(text, &closing.core, eof) {
            Scan::Pairs(pairs, end) => (pairs, end),
            Scan::More => return Some(Step::Wait),
            Scan::No => return None,
        };
        match closing.expect(&text[end..], eof) {
            crate::parse::marker::Expect::Matched(_) => {}
            crate::parse::marker::Expect::NeedMore => return Some(Step::Wait),
            crate::parse::marker::Expect::No => return None,
        }
        let skip = text.len() - text.trim_start_matches(is_space).len();
        self.diag(abs + skip, "arguments written as `key=value` pairs after the call's name, where the template writes argument markers (rule R24)");
        let tool = self.call.data.tool.and_then(|i| t.tools.get(i));
        for (k, p) in pairs.iter().enumerate() {
            let call = &mut self.call;
            call.data.args.push_str(if k == 0 { "{" } else { "," });
            call.data.args.push_str(&serde_json::Value::from(p.key).to_string());
            call.data.args.push(':');
            if p.quoted || tool.is_some_and(|d| d.declares(p.key) && d.is_string(p.key)) {
                let unescaped = if p.quoted { p.value.replace("\\\"", "\"").replace("\\'", "'") } else { p.value.to_string() };
                call.data.args.push('"');
                escape_inner(&unescaped, &mut call.data.args);
                call.data.args.push('"');
            } else {
                // Typed by the schema, or without one (R14), as a tagged value's held text is.
                call.value.typed_raw = p.value.to_string();
                call.value.typed_at = abs + p.at;
                if tool.is_some_and(|d| d.declares(p.key)) {
                    self.finish_typed_value();
                } else {
                    call.value.sniff = super::untyped_value::Sniff::Json;
                    self.finish_untyped_value();
                }
            }
        }
        let call = &mut self.call;
        call.data.args.push('}');
        call.arg_count = pairs.len();
        call.data.args_seen = true;
        call.data.args_complete = true;
        call.header_ready = true;
        self.state = State::Tool(ToolStep::AfterArgs(Closing::ArgsEnd));
        Some(Step::Adv(end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str, eof: bool) -> Option<Vec<(String, String, bool)>> {
        match scan_pairs(text, "</tool_call>", eof) {
            Scan::Pairs(p, _) => Some(p.iter().map(|p| (p.key.to_string(), p.value.to_string(), p.quoted)).collect()),
            _ => None,
        }
    }

    #[test]
    fn pairs_end_at_whitespace_the_closing_marker_or_a_quote() {
        let p = pairs(" a=1 b=\"x y\"</tool_call>", false).unwrap();
        assert_eq!(p, vec![("a".into(), "1".into(), false), ("b".into(), "x y".into(), true)]);
        assert_eq!(pairs("a=12</tool_call>", false).unwrap(), vec![("a".into(), "12".into(), false)]);
        assert!(matches!(scan_pairs(" a=1 b", "</tool_call>", false), Scan::More));
        assert!(matches!(scan_pairs("hello world", "</tool_call>", false), Scan::No));
        assert!(matches!(scan_pairs("a= b=1", "</tool_call>", true), Scan::No));
        // A word after the pairs ends them; what follows decides.
        assert_eq!(pairs("a=1 then", true).unwrap().len(), 1);
    }
}
