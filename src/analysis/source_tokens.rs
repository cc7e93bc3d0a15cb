//! Special-token-like literals of the template source (`<|python_tag|>`, `[/TOOL_CALLS]`, `<tool_call>`):
//! the tokens the template knows, whether or not a probe renders them. The parser takes other
//! spellings of its markers from them (rule R9), the closer a token pairs with (R9), and the tokens
//! that may introduce a call (R11).

/// At most this many tokens are kept (the parser matches each of them).
const MAX_TOKENS: usize = 64;
/// Longest token body.
const MAX_BODY: usize = 40;

/// The special-token-like literals of `source`, in order of first occurrence, each once.
pub fn source_tokens(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < source.len() && out.len() < MAX_TOKENS {
        let rest = &source[i..];
        let found = [("<|", "|>"), ("<｜", "｜>"), ("<|", ">"), ("<", "|>"), ("[", "]"), ("<", ">")]
            .into_iter()
            .find_map(|(open, close)| token_at(rest, open, close));
        match found {
            Some(tok) => {
                if !out.iter().any(|t| t == tok) {
                    out.push(tok.to_string());
                }
                i += tok.len();
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// `open body close` at the start of `text`, with a body of token characters (square-bracket tokens
/// in capitals, as `[INST]`, `[/TOOL_CALLS]` are written).
fn token_at<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let after = text.strip_prefix(open)?;
    let square = open == "[";
    let body_len = after
        .char_indices()
        .find(|&(_, c)| !body_char(c, square))
        .map_or(after.len(), |(i, _)| i);
    let body = &after[..body_len];
    let rest = &after[body_len..];
    let core = body.trim_start_matches('/');
    let plain_tag = open == "<" && close == ">";
    let ok = !core.is_empty()
        && body.len() <= MAX_BODY
        && rest.starts_with(close)
        && (!square || core.chars().any(|c| c.is_ascii_uppercase()))
        // `<x>` tags: a name, not `<=` or an expression.
        && (!plain_tag || core.chars().next().is_some_and(|c| c.is_ascii_alphabetic()));
    ok.then(|| &text[..open.len() + body_len + close.len()])
}

fn body_char(c: char, square: bool) -> bool {
    if square {
        return c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '/';
    }
    c.is_alphanumeric() || matches!(c, '_' | '▁' | '-' | '.' | ':' | '/' | '"')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_special_token_literals() {
        let src = r#"{{- "<|python_tag|>" + name }}[TOOL_CALLS][/INST]{% if a <b %}<tool_call></tool_call><|channel>x<channel|><｜tool▁sep｜><|"|>[x]"#;
        assert_eq!(
            source_tokens(src),
            ["<|python_tag|>", "[TOOL_CALLS]", "[/INST]", "<tool_call>", "</tool_call>", "<|channel>", "<channel|>", "<｜tool▁sep｜>", "<|\"|>"]
        );
    }
}
