//! Where a streamed JSON object or array ends, without parsing it.
//!
//! Formats such as `[TOOL_CALLS]name[ARGS]{…}` or `>>>name\n{…}` have no closing marker: the arguments
//! end where the JSON value does. [`JsonExtent`] tracks only nesting depth and string/escape state,
//! one byte at a time, so it can be fed chunk by chunk.

/// Incremental end-of-value detector for a JSON object or array.
#[derive(Debug, Clone, Default)]
pub struct JsonExtent {
    depth: u64,
    in_string: bool,
    escape: bool,
    done: bool,
}

impl JsonExtent {
    /// A detector whose first byte fed must be `{` or `[` (callers skip leading whitespace and check).
    pub fn new() -> Self {
        JsonExtent::default()
    }

    /// True when `c` can start a value this detector tracks.
    pub fn starts_container(c: char) -> bool {
        c == '{' || c == '['
    }

    /// Feed `text`; returns `Some(n)` when the value ends after the first `n` bytes of `text`
    /// (always a char boundary, since the closing byte is ASCII).
    pub fn feed(&mut self, text: &str) -> Option<usize> {
        if self.done {
            return Some(0);
        }
        for (i, b) in text.bytes().enumerate() {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.done = true;
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// True once the value is complete.
    #[cfg(test)]
    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// True when `text` is one complete JSON value (surrounding whitespace allowed).
pub fn is_valid_json(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_end_across_chunks_and_ignores_braces_in_strings() {
        let mut j = JsonExtent::new();
        assert_eq!(j.feed(r#"{"a": "}{\"", "b": ["#), None);
        assert_eq!(j.feed(r#"1]}rest"#), Some(3));
        assert!(j.is_done());
    }
}
