//! The tool-call fallback for templates that render no tool calls (rule R13).
//!
//! Some templates list the tools but never render an assistant's `tool_calls` (or only describe the
//! call syntax in their system text), so the differential analysis finds no tool format although
//! their models do write calls. For those, this phase mines the template SOURCE for
//! special-token-like literals that name a tool call (`<|tool_call_start|>`, `<tool_call>`,
//! `[TOOL_CALLS]`, …, or the `call` member of a `<|tool_…_start|>` token family the source writes),
//! and [`fallback_formats`] turns them, followed by the common conventions
//! (`<|tool_call_start|>[f(a=1)]<|tool_call_end|>`, `<tool_call>{json}</tool_call>`, bare JSON call
//! objects and pythonic call lists at the start of a line), into tool formats that the parser tries
//! side by side. A call is accepted only when it names a declared tool.

pub use crate::findings::{fallback_formats, CallBody, FallbackFormat, FallbackMarker};
use crate::findings::{Analysis, ToolFormat};

/// Tool-call markers named by the template source, for a template without a tool format.
pub fn mine_markers(src: &str) -> Vec<FallbackMarker> {
    let tokens = special_tokens(src);
    let mut out: Vec<FallbackMarker> = Vec::new();
    let mut push = |start: String, end: String, body: CallBody| {
        if !out.iter().any(|m| m.start == start) {
            out.push(FallbackMarker { start, end, body });
        }
    };
    for t in &tokens {
        let name = t.trim_matches(|c| matches!(c, '<' | '>' | '|' | '[' | ']')).to_ascii_lowercase();
        if name.starts_with('/') || !(name.contains("tool_call") || name.contains("function_call")) {
            continue;
        }
        if name.ends_with("_end") {
            continue;
        }
        let Some(end) = closing_token(t) else { continue };
        // A closer the source never writes is still the natural one for `<x>` tags; `[X]` tokens
        // without their `[/X]` end with their value (a JSON list of calls).
        let end = if !end.is_empty() && (src.contains(end.as_str()) || t.starts_with('<')) { end } else { String::new() };
        let guess = if t.starts_with("<|") && !end.is_empty() { CallBody::Pythonic } else { CallBody::Json };
        let body = body_after(src, t).unwrap_or(guess);
        push(t.clone(), end, body);
    }
    // A `<|tool_…_start|>` / `<|tool_…_end|>` family (a tool list, a tool response) implies its call
    // member, whose body the source does not show: a pythonic list, like the family's list.
    for t in &tokens {
        for (open, close) in [("_start|>", "_end|>"), ("_begin|>", "_end|>")] {
            let Some(stem) = t.strip_prefix("<|tool_").and_then(|r| r.strip_suffix(open)) else { continue };
            if stem.contains(['|', '<', '>']) || !tokens.iter().any(|x| *x == format!("<|tool_{stem}{close}")) {
                continue;
            }
            push(format!("<|tool_call{open}"), format!("<|tool_call{close}"), CallBody::Pythonic);
        }
    }
    out
}

/// The closing token of a tool-call token: `</x>` for `<x>`, `<|x_end|>` for `<|x_start|>` /
/// `<|x_begin|>`, `[/X]` for `[X]`, none (empty) for another `<|x|>`; None for a token that is not
/// an opener.
fn closing_token(t: &str) -> Option<String> {
    if let Some(inner) = t.strip_prefix("<|").and_then(|r| r.strip_suffix("|>")) {
        // A lone `<|tool_call|>` opens calls that end with their value.
        let Some(stem) = inner.strip_suffix("_start").or_else(|| inner.strip_suffix("_begin")) else { return Some(String::new()) };
        return Some(format!("<|{stem}_end|>"));
    }
    if let Some(inner) = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
        return Some(format!("</{inner}>"));
    }
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    Some(format!("[/{inner}]"))
}

/// What the source writes right after `token` (its own description of a call), if it says.
fn body_after(src: &str, token: &str) -> Option<CallBody> {
    for (i, _) in src.match_indices(token) {
        let mut rest = src.get(i + token.len()..)?;
        // Whitespace, as written or as a `\n` escape inside a Jinja string.
        loop {
            let r = rest.trim_start();
            let r = r.strip_prefix("\\n").unwrap_or(r);
            if r.len() == rest.len() {
                break;
            }
            rest = r;
        }
        let mut chars = rest.chars();
        match (chars.next(), chars.next()) {
            (Some('{'), _) | (Some('['), Some('{')) => return Some(CallBody::Json),
            (Some('['), Some(c)) if c.is_alphabetic() || c == '_' => return Some(CallBody::Pythonic),
            _ => {}
        }
    }
    None
}

/// Special-token-like literals of the source: `<|x|>`, `<x>` / `</x>` (a bare identifier), `[X]` /
/// `[/X]` (upper case), in order of first appearance.
fn special_tokens(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let found = match b[i] {
            b'<' => scan_token(src, i, b'>', |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|' | '/' | '-' | '.' | ':')),
            b'[' => scan_token(src, i, b']', |c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '_' | '/')),
            _ => None,
        };
        if let Some(t) = found {
            i += t.len();
            if !out.contains(&t) {
                out.push(t);
            }
        } else {
            i += 1;
        }
    }
    out
}

fn scan_token(src: &str, at: usize, close: u8, ok: impl Fn(char) -> bool) -> Option<String> {
    let rest = src.get(at + 1..)?;
    let end = rest.bytes().take(64).position(|c| c == close)?;
    let inner = rest.get(..end)?;
    let has_letter = inner.chars().any(|c| c.is_ascii_alphabetic());
    (has_letter && inner.chars().all(ok)).then(|| src.get(at..at + end + 2).unwrap_or("").to_string())
}

/// Whether a grammar constrains the fallback's calls (to its first format): the template has no
/// tool format and either names call markers in its source, or shows the tools to the model without
/// rendering any call. Otherwise nothing says how its model calls, and constraining to one
/// convention would forbid the others the parser reads.
pub fn fallback_grammar_applies(a: &Analysis) -> bool {
    a.tools.format.mode == ToolFormat::None && (!a.tools.fallback_markers.is_empty() || a.caps.supports_tools && !a.caps.supports_tool_calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mines_tool_call_tokens_and_families() {
        let m = mine_markers("x <tool_call>\\n{\"name\": ...}</tool_call> <|im_end|>");
        assert_eq!(m, vec![FallbackMarker { start: "<tool_call>".into(), end: "</tool_call>".into(), body: CallBody::Json }]);
        let m = mine_markers("'List of tools: <|tool_list_start|>[' ... ']<|tool_list_end|>' '<|tool_response_start|>' '<|tool_response_end|>'");
        assert_eq!(m, vec![FallbackMarker { start: "<|tool_call_start|>".into(), end: "<|tool_call_end|>".into(), body: CallBody::Pythonic }]);
        let m = mine_markers("{{ '[TOOL_CALLS][' }} [AVAILABLE_TOOLS]");
        assert_eq!(m, vec![FallbackMarker { start: "[TOOL_CALLS]".into(), end: String::new(), body: CallBody::Json }]);
        let m = mine_markers("respond only with <|tool_call|> followed by a JSON list of tools used");
        assert_eq!(m, vec![FallbackMarker { start: "<|tool_call|>".into(), end: String::new(), body: CallBody::Json }]);
        assert!(mine_markers("<|im_start|>assistant <think> [INST]").is_empty());
        // Closers are not openers.
        assert!(mine_markers("</tool_call> <|tool_call_end|>").is_empty());
    }
}
