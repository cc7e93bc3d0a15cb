//! A call wrapped in another of the template's own tags (rule R29): a model that writes its call in
//! the tag pair of one of the template's turns (`<user>get_weather<arg_key>…</arg_value></user>`
//! where the template writes `<tool_call>…</tool_call>`, its user turn being `<user>…</user>`).
//!
//! The tag pairs are the template's role markers written as tags (`<X>`, with `</X>` among the
//! source's special-token-like literals) that no marker of the configuration uses. Tags that wrap
//! other parts of the prompt are left out on purpose: `<tools>…</tools>` holds the tool
//! definitions, which a model may echo, and an echoed definition (`{"name": …, "parameters": …}`)
//! reads as a call. Each pair gives a dialect of the tool configuration with that pair in place of
//! the per-call markers, entered from content only (never from reasoning), reading declared tools
//! only, and taking a call only whole: it goes out once its closing tag is read, and anything else
//! gives the whole text back to the content, as written. Only for a layout of single calls each
//! wrapped in a marker pair (no call section).
//!
//! Run-time half: such a call counts only whole, held — still roll-back-able into content — until
//! its closing tag is read, and given back to the content, as written, when anything else comes
//! where that tag is due.

use super::tool::{Closer, ToolStep};
use super::{AutoParser, State, Step};
use crate::parse::config::ParserConfig;
use crate::parse::marker::Marker;

/// `<X>` for a tag name `X` of word characters.
fn tag_name(token: &str) -> Option<&str> {
    let name = token.strip_prefix('<')?.strip_suffix('>')?;
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))).then_some(name)
}

/// The openers of the role tag pairs that may wrap a call of `cfg` (see the module): of `roles`
/// (the role markers), those that are tags closed by a tag among `source_tokens`.
pub fn wrapper_openers(cfg: &ParserConfig, roles: &[&str], source_tokens: &[String]) -> Vec<String> {
    let Some(t) = cfg.tools.as_ref() else { return Vec::new() };
    if t.trigger_is_body || !t.section_start.is_empty() || t.per_call_start.is_empty() || t.per_call_end.is_empty() {
        return Vec::new();
    }
    let tool_markers = [
        &t.per_call_start, &t.per_call_end, &t.name_prefix, &t.name_suffix, &t.close, &t.args_start, &t.args_end, &t.arg_name_prefix,
        &t.arg_name_suffix, &t.value_prefix, &t.typed_value_prefix, &t.value_suffix, &t.arg_separator, &t.id_prefix, &t.id_suffix,
    ];
    let pairs = cfg.reasoning.iter().chain(cfg.content_wrap.iter()).flat_map(|(s, e)| [s, e]);
    let taken: Vec<&Marker> = tool_markers.into_iter().chain(pairs).chain(&cfg.turn_end).chain(&cfg.tool_result).collect();
    let used = |s: &str| taken.iter().any(|m| m.spellings().any(|c| c.contains(s) || s.contains(c)));
    let mut out: Vec<String> = Vec::new();
    for token in roles.iter().map(|r| r.trim_matches(crate::text::is_space)) {
        let Some(name) = tag_name(token) else { continue };
        let closer = format!("</{name}>");
        if source_tokens.contains(&closer) && !used(token) && !used(&closer) && !out.iter().any(|o| o == token) {
            out.push(token.to_string());
        }
    }
    out
}

/// The dialects of `cfg` for its wrapper openers (`t.wrapper_trigger`): each reads one call in that
/// tag pair.
pub fn wrapper_dialects(cfg: &ParserConfig) -> Vec<ParserConfig> {
    let Some(t) = cfg.tools.as_ref() else { return Vec::new() };
    let (open, close) = (&t.per_call_start, &t.per_call_end);
    let respelled = |m: &Marker, core: &str| Marker::new(&format!("{}{core}{}", m.lead, m.trail));
    let mut out = Vec::new();
    for opener in t.wrapper_trigger.spellings() {
        let Some(name) = tag_name(opener) else { continue };
        let closer = format!("</{name}>");
        let mut d = t.clone();
        d.per_call_start = respelled(open, opener);
        d.per_call_end = respelled(close, &closer);
        d.trigger = d.per_call_start.clone();
        d.call_trigger = Marker::default();
        d.wrapper_trigger = Marker::default();
        d.undeclared = false;
        let note = format!("a tool call wrapped in {opener:?} … {closer:?}, another of the template's tags, where it writes {:?} … {:?} (rule R29)", open.core, close.core);
        out.push(ParserConfig { tools: Some(d), whole_call_note: Some(note), dialect_note: None, ..cfg.clone() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_names_are_words() {
        assert_eq!(tag_name("<user>"), Some("user"));
        assert_eq!(tag_name("<|im_start|>"), None);
        assert_eq!(tag_name("</user>"), None);
        assert_eq!(tag_name("<>"), None);
    }
}

impl AutoParser {
    /// Whether the current call is one that counts only whole and its closing marker is not read yet.
    pub(super) fn held_until_closed(&self) -> bool {
        self.cfg.whole_call_note.is_some() && self.state != State::Tool(ToolStep::RepeatedClose(Closer::Call))
    }

    /// Where the call's closing marker is due and something else is written: for a call that counts
    /// only whole, the step that gives it back to the content. `None` for any other call.
    pub(super) fn whole_call_not_closed(&self) -> Option<Step> {
        self.cfg.whole_call_note.is_some().then_some(Step::Fail("tool call in a role tag of the template not closed right after it: kept as content", 0))
    }
}
