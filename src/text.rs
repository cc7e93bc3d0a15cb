//! Text helpers every stage shares.

/// ASCII whitespace as C's `isspace` sees it (what llama.cpp trims).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}
