//! Where a streamed JSON object or array ends, without parsing it.
//!
//! Formats such as `[TOOL_CALLS]name[ARGS]{…}` or `>>>name\n{…}` have no closing marker: the arguments
//! end where the JSON value does. [`JsonExtent`] tracks only nesting depth and string/escape state,
//! one byte at a time, so it can be fed chunk by chunk.

use crate::parse::drive::tail;

/// Incremental end-of-value detector for a JSON object or array.
#[derive(Debug, Clone, Default)]
pub struct JsonExtent {
    /// The closing bracket of each open container, innermost last.
    open: Vec<u8>,
    in_string: bool,
    escape: bool,
    done: bool,
}

/// Whether `b` may stand outside strings in JSON: whitespace, punctuation, and the characters of
/// numbers and of `true` / `false` / `null`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_whitespace() || b"{}[],:-+.eE0123456789truefalsn".contains(&b)
}

/// Where a value fed to [`JsonExtent::scan`] stands after a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// All of the text belongs to the value, which goes on.
    More,
    /// The value ends after this many bytes of the text.
    End(usize),
    /// The byte at this offset is a closing bracket that does not close the innermost container:
    /// the value is broken there (what came before it belongs to it).
    Broken(usize),
    /// The value goes on, but the bytes from this offset may begin a stop marker: feed them again
    /// with the text that follows.
    Held(usize),
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

    #[cfg(feature = "full")]
    /// Feed `text`; returns `Some(n)` when the value ends after the first `n` bytes of `text`
    /// (always a char boundary, since the closing byte is ASCII). Only nesting depth counts: a `]`
    /// closes a `{` too.
    pub fn feed(&mut self, text: &str) -> Option<usize> {
        match self.step(text, false, &[], true) {
            Extent::End(n) => Some(n),
            _ => None,
        }
    }

    /// Feed `text`, telling also where the value breaks: at a closing bracket of the wrong kind, a
    /// byte outside strings that no JSON token has (a bare word, `<`), or one of `stops` (the
    /// format's call markers, `[TOOL_CALLS]`) outside strings. Unless `at_end`, a possible start of a
    /// stop marker at the end of `text` is held.
    pub fn scan(&mut self, text: &str, stops: &[&str], at_end: bool) -> Extent {
        self.step(text, true, stops, at_end)
    }

    fn step(&mut self, text: &str, strict: bool, stops: &[&str], at_end: bool) -> Extent {
        if self.done {
            return Extent::End(0);
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
            for stop in stops.iter().filter(|m| m.as_bytes().first() == Some(&b)) {
                let rest = tail(text, i);
                if rest.starts_with(stop) {
                    return Extent::Broken(i);
                }
                if !at_end && stop.starts_with(rest) {
                    return Extent::Held(i);
                }
            }
            match b {
                b'"' => self.in_string = true,
                b'{' => self.open.push(b'}'),
                b'[' => self.open.push(b']'),
                b'}' | b']' => {
                    if self.open.pop().is_some_and(|c| c != b) && strict {
                        return Extent::Broken(i);
                    }
                    if self.open.is_empty() {
                        self.done = true;
                        return Extent::End(i + 1);
                    }
                }
                _ if strict && !is_token_byte(b) => return Extent::Broken(i),
                _ => {}
            }
        }
        Extent::More
    }

    /// True once the value is complete.
    #[cfg(test)]
    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// Why `text` is not one JSON value (serde_json's words), and whether it may still become one: it
/// is a cut-off start of a value, not a broken one. `None` when it is valid.
pub fn json_error(text: &str) -> Option<(String, bool)> {
    let e = serde_json::from_str::<serde::de::IgnoredAny>(text).err()?;
    // serde says EOF for `"celsi\us"}` too (it reads four characters for a `\u` escape before it looks
    // at them): cut off only where appending can still make the text JSON.
    let cut_off = e.is_eof() && super::json_complete::JsonPrefix::new().push_str(text).is_ok();
    Some((e.to_string(), cut_off))
}

/// The diagnostic of a tool call whose arguments are not valid JSON (`why`): by default the call is
/// kept as content; a call whose arguments were streamed already (`streamArguments`) ends there.
pub fn broken_arguments_message(why: &str, streamed: bool) -> String {
    if streamed {
        format!("tool-call arguments are not valid JSON ({why}); the call was streamed already (streamArguments): it ends here with arguments that are not valid JSON, the rest is content")
    } else {
        format!("tool-call arguments are not valid JSON ({why}); the call is kept as content")
    }
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
        // Depth only for `feed`; `scan` tells a closing bracket of the wrong kind.
        assert_eq!(JsonExtent::new().feed(r#"{"a": [1}]"#), Some(10));
        let scan = |text: &str, at_end: bool| JsonExtent::new().scan(text, &["[TOOL_CALLS]"], at_end);
        assert_eq!(scan(r#"{"a": [1}]"#, false), Extent::Broken(8));
        assert_eq!(scan(r#"[{"a": "]}"}] x"#, false), Extent::End(13));
        assert_eq!(scan(r#"{"a": x"#, false), Extent::Broken(6));
        assert_eq!(scan(r#"{"a": [true, null, -1.5e3]}"#, false), Extent::End(27));
        // A stop marker outside strings breaks the value where it starts; its start at the end waits.
        assert_eq!(scan(r#"{"a": 1[TOOL_CALLS]g"#, false), Extent::Broken(7));
        assert_eq!(scan(r#"{"a": "[TOOL_CALLS]"}"#, false), Extent::End(21));
        assert_eq!(scan(r#"{"a": 1[TOOL_"#, false), Extent::Held(7));
        assert_eq!(scan(r#"{"a": [1"#, true), Extent::More);
    }

    #[test]
    fn json_error_tells_cut_off_from_broken_at_any_depth() {
        assert_eq!(json_error(r#"{"a": [1, {"b": null}]}"#), None);
        assert!(json_error(r#"{"a": "Par"#).is_some_and(|(_, cut_off)| cut_off));
        assert!(json_error(r#"{"a": }"#).is_some_and(|(e, cut_off)| !cut_off && e.contains("expected value")));
        // serde reports EOF inside a `\u` escape whose next characters are no hex digits: broken.
        assert!(json_error(r#"{"unit": "celsi\us"}"#).is_some_and(|(_, cut_off)| !cut_off));
        assert!(json_error(r#"{"unit": "celsi\u00"#).is_some_and(|(_, cut_off)| cut_off));
        // Skipping a value (serde's IgnoredAny) does not recurse: any nesting is checked without
        // growing the stack (the scanners bound nesting before, see SECURITY.md).
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(json_error(&nested(100_000)), None);
    }
}
