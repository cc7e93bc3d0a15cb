//! Append-only completion of a cut-off JSON value: what to write after a prefix of some valid JSON
//! text so that the whole is valid (issue #24's exit guarantee, see [`crate::parse::exit`]).
//!
//! Streamed argument text cannot be taken back, so a call cut off inside its arguments is closed by
//! *appending*: an open string is closed (a pending escape completed first), a half-written literal
//! or number finished (`tru` → `true`, `1.` → `1.0`), a value due after `:` or `,` or a key without
//! its value gets `null`, a key due after `,` in an object gets `"":null`, and every open array and
//! object is closed. serde_json decides whether the text is valid and checks the completed text; [`complete`] only works out the suffix, with [`JsonPrefix`], the
//! incremental check that a text is still a prefix of a JSON value (literal arguments are written
//! through it, so they never stop being one).

use crate::parse::json_extent::json_error;

/// How a text stands as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// Already one valid JSON value.
    Valid,
    /// A prefix of a valid JSON value: appending this makes it one (never empty).
    Append(String),
    /// Not a prefix of any JSON value: no appended text makes it valid (serde's words).
    Broken(String),
}

/// One open container and what it expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Right after `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `:`, or after `,` in an array: a value.
    Value,
    /// Right after `[`: a value or `]`.
    FirstValue,
    /// After a member or element: `,` or the closer.
    Next,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    closer: char,
    expect: Expect,
}

/// An incremental check that a text is still a prefix of one JSON value, fed a character at a time
/// (no recursion: nesting is a stack of frames). It knows what the text expects next, so it can also
/// say what closes it ([`Self::suffix`]).
#[derive(Debug, Clone, Default)]
pub struct JsonPrefix {
    stack: Vec<Frame>,
    /// The top-level value ended.
    done: bool,
    /// Inside a string; `Some(true)` when it is an object key.
    string: Option<bool>,
    escape: bool,
    /// Hex digits still due of a `\u` escape.
    hex_due: usize,
    /// A bare token (number or literal) being written.
    word: String,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

fn is_valid_word(w: &str) -> bool {
    matches!(w, "true" | "false" | "null") || serde_json::from_str::<serde_json::Number>(w).is_ok()
}

impl JsonPrefix {
    /// A check of a text that begins here.
    pub fn new() -> Self {
        JsonPrefix::default()
    }

    fn expects_value(&self) -> bool {
        self.stack.last().map_or(!self.done, |f| matches!(f.expect, Expect::Value | Expect::FirstValue))
    }

    /// A value or an object key may begin here.
    pub fn takes_value(&self) -> bool {
        self.string.is_none() && self.word.is_empty() && (self.expects_value() || self.expects_key())
    }

    fn expects_key(&self) -> bool {
        self.stack.last().is_some_and(|f| matches!(f.expect, Expect::FirstKey | Expect::Key))
    }

    /// A value ended: its container expects `,` or its closer.
    fn value_done(&mut self) {
        match self.stack.last_mut() {
            Some(f) => f.expect = Expect::Next,
            None => self.done = true,
        }
    }

    /// The bare word being written ended: false when it is no JSON literal or number.
    fn end_word(&mut self) -> bool {
        if self.word.is_empty() {
            return true;
        }
        let ok = is_valid_word(&self.word);
        self.word.clear();
        self.value_done();
        ok
    }

    /// Feed `c`: false when the text with it is no longer a prefix of a JSON value (the check is then
    /// not to be fed further).
    pub fn push(&mut self, c: char) -> bool {
        if let Some(key) = self.string {
            return self.push_in_string(c, key);
        }
        if is_word_char(c) {
            if self.word.is_empty() && !self.expects_value() {
                return false;
            }
            self.word.push(c);
            return true;
        }
        if !self.end_word() {
            return false;
        }
        let (key_due, value_due) = (self.expects_key(), self.expects_value());
        match (c, self.stack.last_mut()) {
            (c, _) if c.is_ascii_whitespace() => true,
            ('"', _) if key_due || value_due => {
                self.string = Some(key_due);
                true
            }
            ('{' | '[', _) if value_due => {
                let (closer, expect) = if c == '{' { ('}', Expect::FirstKey) } else { (']', Expect::FirstValue) };
                self.stack.push(Frame { closer, expect });
                true
            }
            ('}' | ']', Some(f)) if f.closer == c && matches!(f.expect, Expect::FirstKey | Expect::FirstValue | Expect::Next) => {
                self.stack.pop();
                self.value_done();
                true
            }
            (':', Some(f)) if f.expect == Expect::Colon => {
                f.expect = Expect::Value;
                true
            }
            (',', Some(f)) if f.expect == Expect::Next => {
                f.expect = if f.closer == '}' { Expect::Key } else { Expect::Value };
                true
            }
            _ => false,
        }
    }

    fn push_in_string(&mut self, c: char, key: bool) -> bool {
        if self.hex_due > 0 {
            self.hex_due -= 1;
            return c.is_ascii_hexdigit();
        }
        if self.escape {
            self.escape = false;
            self.hex_due = if c == 'u' { 4 } else { 0 };
            return matches!(c, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u');
        }
        match c {
            '\\' => self.escape = true,
            '"' => {
                self.string = None;
                match self.stack.last_mut() {
                    Some(f) if key => f.expect = Expect::Colon,
                    _ => self.value_done(),
                }
            }
            c if (c as u32) < 0x20 => return false,
            _ => {}
        }
        true
    }

    /// Feed `text`: `Err(n)` when its byte `n` is the first that makes it no prefix of a JSON value.
    pub fn push_str(&mut self, text: &str) -> Result<(), usize> {
        match text.char_indices().find(|&(_, c)| !self.push(c)) {
            Some((i, _)) => Err(i),
            None => Ok(()),
        }
    }

    /// The text fed so far is one whole JSON value (a bare word at the end counts once valid).
    pub fn is_complete(&self) -> bool {
        self.string.is_none() && self.stack.is_empty() && (self.done || (!self.word.is_empty() && is_valid_word(&self.word)))
    }

    /// What closes the text fed so far: an open string closed (a pending escape completed first), a
    /// half-written word finished, a value due given `null` (a key due: `"":null`), every open
    /// container closed. Empty when nothing was fed or the value is whole.
    pub fn suffix(&self) -> String {
        let mut out = String::new();
        let mut value_closed = false;
        if let Some(key) = self.string {
            if self.hex_due > 0 {
                out.extend(std::iter::repeat_n('0', self.hex_due));
            } else if self.escape {
                out.push('\\');
            }
            out.push('"');
            if key {
                out.push_str(":null");
            }
            value_closed = true;
        } else if !self.word.is_empty() {
            out.push_str(&finish_word(&self.word));
            value_closed = true;
        }
        for (i, f) in self.stack.iter().rev().enumerate() {
            if i == 0 && !value_closed {
                out.push_str(match f.expect {
                    Expect::Key => "\"\":null",
                    Expect::Colon => ":null",
                    Expect::Value => "null",
                    Expect::FirstKey | Expect::FirstValue | Expect::Next => "",
                });
            }
            out.push(f.closer);
        }
        out
    }
}

/// The rest of a half-written literal or number.
fn finish_word(word: &str) -> String {
    for lit in ["true", "false", "null"] {
        if let Some(rest) = lit.strip_prefix(word) {
            return rest.to_string();
        }
    }
    match word.chars().last() {
        Some('-' | '+' | '.' | 'e' | 'E') => "0".to_string(),
        _ => String::new(),
    }
}

/// How `text` stands as JSON, and what to append when it is cut off. Blank text is completed to
/// `{}` (a call with no arguments).
pub fn complete(text: &str) -> Completion {
    if text.trim().is_empty() {
        return Completion::Append("{}".to_string());
    }
    let Some((why, _)) = json_error(text) else { return Completion::Valid };
    let mut scan = JsonPrefix::new();
    if scan.push_str(text).is_err() {
        return Completion::Broken(why);
    }
    let suffix = scan.suffix();
    let mut whole = String::with_capacity(text.len() + suffix.len());
    whole.push_str(text);
    whole.push_str(&suffix);
    match json_error(&whole) {
        None if !suffix.is_empty() => Completion::Append(suffix),
        // (e.g. a lone surrogate escape closed: serde still says no.)
        _ => Completion::Broken(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn appended(text: &str) -> String {
        match complete(text) {
            Completion::Append(s) => {
                assert!(json_error(&format!("{text}{s}")).is_none(), "{text:?} + {s:?}");
                s
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn closes_strings_containers_and_words() {
        assert_eq!(appended(""), "{}");
        assert_eq!(appended("  "), "{}");
        assert_eq!(appended("{"), "}");
        assert_eq!(appended(r#"{"city": "Par"#), "\"}");
        assert_eq!(appended(r#"{"a": [1, {"b": "x"#), "\"}]}");
        assert_eq!(appended(r#"{"a": tr"#), "ue}");
        assert_eq!(appended(r#"{"a": [fa"#), "lse]}");
        assert_eq!(appended(r#"{"a": n"#), "ull}");
        assert_eq!(appended(r#"{"a": -"#), "0}");
        assert_eq!(appended(r#"{"a": 1."#), "0}");
        assert_eq!(appended(r#"{"a": 1e"#), "0}");
        assert_eq!(appended(r#"{"a": 12"#), "}");
        assert_eq!(appended(r#"["#), "]");
        assert_eq!(appended(r#"[1,"#), "null]");
        assert_eq!(appended(r#"[1 "#), "]");
    }

    #[test]
    fn gives_a_dangling_key_or_separator_a_null() {
        assert_eq!(appended(r#"{"city":"#), "null}");
        assert_eq!(appended(r#"{"city" "#), ":null}");
        assert_eq!(appended(r#"{"ci"#), "\":null}");
        assert_eq!(appended(r#"{"a": 1,"#), "\"\":null}");
        assert_eq!(appended(r#"{"a": {"b": 1}, "c": ["#), "]}");
    }

    #[test]
    fn completes_pending_escapes() {
        assert_eq!(appended(r#"{"a": "x\"#), "\\\"}");
        assert_eq!(appended(r#"{"a": "x\u00"#), "00\"}");
        assert_eq!(appended(r#"{"a\"#), "\\\":null}");
    }

    #[test]
    fn tells_valid_and_broken_text() {
        assert_eq!(complete(r#"{"a": 1}"#), Completion::Valid);
        assert_eq!(complete("[]"), Completion::Valid);
        assert!(matches!(complete(r#"{"a": }"#), Completion::Broken(_)));
        assert!(matches!(complete(r#"{"a": b'z'"#), Completion::Broken(_)));
        assert!(matches!(complete(r#"{"a": 1}}"#), Completion::Broken(_)));
        assert!(matches!(complete("{city:"), Completion::Broken(_)));
    }

    #[test]
    fn the_prefix_check_rejects_the_first_byte_no_json_has() {
        let first_bad = |t: &str| JsonPrefix::new().push_str(t).err();
        assert_eq!(first_bad(r#"{"a": [1, "x"], "b": {"c": null}}"#), None);
        assert_eq!(first_bad(r#"{"a":,"#), Some(5));
        assert_eq!(first_bad(r#"{"a":}"#), Some(5));
        assert_eq!(first_bad(r#"["x" "y"]"#), Some(5));
        assert_eq!(first_bad(r#"{"a" "b"}"#), Some(5));
        assert_eq!(first_bad(r#"{"a":1:}"#), Some(6));
        assert_eq!(first_bad(r#"{"a":tru,"#), Some(8));
        assert_eq!(first_bad(r#""a\\x""#), None);
        assert_eq!(first_bad(r#""a\x""#), Some(3));
        assert_eq!(first_bad("\"a\nb\""), Some(2));
        assert_eq!(first_bad("1 2"), Some(2));
        assert!(JsonPrefix::new().push_str("-1.5e3").is_ok());
        let mut p = JsonPrefix::new();
        assert!(p.push_str(r#"{"a": [1"#).is_ok() && !p.is_complete());
        assert!(p.push_str("]}").is_ok() && p.is_complete());
    }

    #[test]
    fn deep_nesting_is_closed_without_recursion() {
        let text = "[".repeat(100_000);
        assert_eq!(appended(&text), "]".repeat(100_000));
    }
}
