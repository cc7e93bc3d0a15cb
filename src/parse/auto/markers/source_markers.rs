//! What the parser takes from the template's source tokens (`Analysis::source_tokens`) besides
//! marker spellings: tokens that may introduce a call (rule R11) and the closer a call section's
//! opener pairs with by the template's own convention (rule R9).

use crate::findings::Analysis;
use crate::parse::config::ParserConfig;
use crate::parse::marker::Marker;

/// The source tokens that may stand right before a call (`<|python_tag|>{"name": …}`, rule R11): lone
/// opening tokens — none that is, contains or is contained in one of `markers` (the analysed markers
/// and role markers), none that closes (`</x>`, `[/X]`, `<x|>`) and none that opens a pair the source
/// also closes (a wrapper such as `<tools>` … `</tools>`).
pub fn call_prefixes(tokens: &[String], markers: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| !markers.iter().any(|m| !m.is_empty() && (m.contains(t.as_str()) || t.contains(m))))
        .filter(|t| !closes(t) && !tokens.iter().any(|c| closer_of(t).as_deref() == Some(c.as_str())))
        .cloned()
        .collect()
}

/// Whether `t` is shaped like a closing token.
fn closes(t: &str) -> bool {
    t.starts_with("</") || t.starts_with("[/") || t.starts_with("<|/") || (t.ends_with("|>") && !t.starts_with("<|"))
}

/// The closing token of an opening one under the usual conventions: `[X]` → `[/X]`, `<x>` → `</x>`,
/// `<|x|>` → `<|/x|>`, `<|x>` → `<x|>`.
fn closer_of(t: &str) -> Option<String> {
    if closes(t) {
        return None;
    }
    if let Some(body) = t.strip_prefix("<|").and_then(|b| b.strip_suffix("|>")) {
        return Some(format!("<|/{body}|>"));
    }
    if let Some(body) = t.strip_prefix("<|").and_then(|b| b.strip_suffix('>')) {
        return Some(format!("<{body}|>"));
    }
    if let Some(body) = t.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        return Some(format!("[/{body}]"));
    }
    t.strip_prefix('<').and_then(|b| b.strip_suffix('>')).map(|body| format!("</{body}>"))
}

/// The closer of `opener` by the convention the template follows for its other tokens: `[/TOOL_CALLS]`
/// for `[TOOL_CALLS]` when the source closes `[INST]` with `[/INST]`. `None` when the source shows no
/// such pair, or writes that closer itself (then the analysis knows its place).
pub fn paired_closer(opener: &str, tokens: &[String]) -> Option<String> {
    let closer = closer_of(opener)?;
    let shape = |t: &str| closer_of(t).map(|c| c.replace(|ch: char| ch.is_alphanumeric() || ch == '_', ""));
    let convention = tokens.iter().any(|t| t != opener && closer_of(t).is_some_and(|c| tokens.contains(&c)) && shape(t) == shape(opener));
    (convention && !tokens.contains(&closer)).then_some(closer)
}

/// Configuration half of rule R11 (and R9's paired closer).
impl ParserConfig {
    /// Call prefixes and the unwritten section closer, from the template's source tokens.
    pub(crate) fn source_markers(&mut self, analysis: &Analysis) {
        let Some(t) = &self.tools else { return };
        let tokens = &analysis.source_tokens;
        let (f, fun, args, id) = (&analysis.tools.format, &analysis.tools.function, &analysis.tools.arguments, &analysis.tools.call_id);
        let mut markers: Vec<&str> = vec![&analysis.user_start, &analysis.assistant_start, &analysis.reasoning.start, &analysis.reasoning.end, &analysis.content.start, &analysis.content.end];
        markers.extend(analysis.turn_end.iter().map(String::as_str));
        markers.extend([&f.section_start, &f.section_end, &f.per_call_start, &f.per_call_end, &fun.name_prefix, &fun.name_suffix, &fun.close].map(String::as_str));
        markers.extend([&args.start, &args.end, &args.name_prefix, &args.name_suffix, &args.value_prefix, &args.value_suffix, &args.string_delimiter, &id.prefix, &id.suffix].map(String::as_str));
        let markers: Vec<&str> = markers.into_iter().map(str::trim).filter(|m| !m.is_empty()).collect();
        self.call_prefixes = call_prefixes(tokens, &markers);
        let opener = if t.section_start.is_empty() { &t.per_call_start } else { &t.section_start };
        let closer = if t.section_start.is_empty() { &t.per_call_end } else { &t.section_end };
        if closer.is_empty() && !opener.is_empty() {
            self.unwritten_closer = paired_closer(&opener.core, tokens).map(|c| Marker::new(&c)).unwrap_or_default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn prefixes_are_lone_openers_outside_the_markers() {
        let tokens = v(&["<|start_header_id|>", "<|eot_id|>", "<|python_tag|>", "<tools>", "</tools>", "</x>"]);
        assert_eq!(call_prefixes(&tokens, &["<|start_header_id|>assistant", "<|eot_id|>"]), v(&["<|python_tag|>"]));
    }

    #[test]
    fn closer_by_the_templates_convention() {
        let tokens = v(&["[INST]", "[/INST]", "[TOOL_CALLS]"]);
        assert_eq!(paired_closer("[TOOL_CALLS]", &tokens).as_deref(), Some("[/TOOL_CALLS]"));
        assert_eq!(paired_closer("[TOOL_CALLS]", &v(&["[TOOL_CALLS]"])), None);
        assert_eq!(paired_closer("<tool_call>", &tokens), None);
    }
}
