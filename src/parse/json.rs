//! Incremental JSON: find where a JSON value ends one character at a time (string / escape / depth
//! tracking, never re-scanning), normalizing Python-style values to JSON on the way out
//! (`{'a': True}` → `{"a": true}`), the way llama.cpp's mapper does for python-dict templates.

/// Rewrites Python literals and single-quoted strings to JSON, one character at a time.
#[derive(Debug, Clone, Default)]
pub struct PyToJson {
    /// Quote character of the string we are in, if any.
    quote: Option<char>,
    escape: bool,
    /// The current bare word (outside strings), held while it can still be `True` / `False` /
    /// `None`: only a whole literal is rewritten, any other word (`TOOL_CALLS`) is written as is.
    word: String,
    in_word: bool,
    /// A single-quoted string or a Python literal was rewritten (a departure from JSON).
    pub rewrote: bool,
}

const PY_LITERALS: [(&str, &str); 3] = [("True", "true"), ("False", "false"), ("None", "null")];

impl PyToJson {
    /// True while inside a string.
    pub fn in_string(&self) -> bool {
        self.quote.is_some()
    }

    /// Write the held word: its JSON form if it is a whole Python literal, else as written. Call
    /// at the end of a value (a word also ends at the next non-word character).
    pub fn flush(&mut self, out: &mut String) {
        let word = std::mem::take(&mut self.word);
        match PY_LITERALS.iter().find(|(py, _)| *py == word) {
            Some((_, js)) => {
                self.rewrote = true;
                out.push_str(js);
            }
            None => out.push_str(&word),
        }
    }

    /// Push the JSON form of `c` to `out`. Returns true when `c` closed a string.
    pub fn push(&mut self, c: char, out: &mut String) -> bool {
        if let Some(q) = self.quote {
            if self.escape {
                self.escape = false;
                // `\'` is not a JSON escape: in a single-quoted string it is just a quote. The
                // backslash is written only now, so output never has to be taken back.
                if !(c == '\'' && q == '\'') {
                    out.push('\\');
                }
                out.push(c);
                return false;
            }
            if c == '\\' {
                self.escape = true;
            } else if c == q {
                self.quote = None;
                out.push('"');
                return true;
            } else if c == '"' {
                out.push_str("\\\"");
            } else {
                out.push(c);
            }
            return false;
        }
        if c.is_alphanumeric() || c == '_' {
            if !self.in_word {
                self.in_word = true;
                self.word.clear();
                self.word.push(c);
            } else if !self.word.is_empty() {
                self.word.push(c);
            } else {
                out.push(c);
                return false;
            }
            if !PY_LITERALS.iter().any(|(py, _)| py.starts_with(self.word.as_str())) {
                // Not a literal: the word goes out as written.
                out.push_str(&std::mem::take(&mut self.word));
            }
            return false;
        }
        self.in_word = false;
        self.flush(out);
        if c == '"' || c == '\'' {
            self.rewrote |= c == '\'';
            self.quote = Some(c);
            out.push('"');
            return false;
        }
        out.push(c);
        false
    }
}

/// Outcome of feeding one character to a [`JsonValue`] scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// The character belongs to the value; the value continues.
    More,
    /// The character completed the value.
    Done,
    /// The value (a bare scalar) ended before this character, which is not part of it.
    EndedBefore,
    /// The character cannot start or continue a JSON value here.
    Invalid,
}

/// Tracks one JSON value (object, array, string or scalar) as its characters arrive.
#[derive(Debug, Clone, Default)]
pub struct JsonValue {
    norm: PyToJson,
    /// Closing bracket of each open container, innermost last.
    open: Vec<char>,
    started: bool,
    scalar: bool,
}

/// Deepest nesting accepted in tool arguments.
const MAX_DEPTH: usize = 512;

/// Whether `c` can start a bare JSON scalar: a number, or `true` / `false` / `null` (or their
/// Python spellings). Anything else (`<`, `|`, a word) is not a value: rejecting it on the first
/// character keeps marker text out of streamed arguments.
fn starts_scalar(c: char) -> bool {
    c == '-' || c.is_ascii_digit() || matches!(c, 't' | 'f' | 'n' | 'T' | 'F' | 'N')
}

/// Whether `c` can continue a bare scalar (digits, exponent, letters of the literals).
fn continues_scalar(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_')
}

impl JsonValue {
    /// True when the value so far is a complete bare scalar (ends at end of input).
    pub fn complete_at_eof(&self) -> bool {
        self.started && self.scalar && !self.norm.in_string()
    }

    /// End of input after [`Self::complete_at_eof`]: write the held end of a bare scalar (`True`).
    pub fn finish(&mut self, out: &mut String) {
        self.norm.flush(out);
    }

    /// Whether Python syntax (single quotes, `True` / `False` / `None`) was rewritten to JSON.
    pub fn rewrote_python(&self) -> bool {
        self.norm.rewrote
    }

    /// Feed `c`, appending its normalized form to `out` when it belongs to the value.
    pub fn feed(&mut self, c: char, out: &mut String) -> Feed {
        if !self.started {
            if crate::text::is_space(c) {
                return Feed::More;
            }
            match c {
                '{' => self.open.push('}'),
                '[' => self.open.push(']'),
                '"' | '\'' => {}
                _ if starts_scalar(c) => self.scalar = true,
                _ => return Feed::Invalid,
            }
            self.started = true;
            self.norm.push(c, out);
            return Feed::More;
        }
        if self.norm.in_string() {
            let closed = self.norm.push(c, out);
            return if closed && self.open.is_empty() { Feed::Done } else { Feed::More };
        }
        if self.scalar {
            if !continues_scalar(c) {
                self.norm.flush(out);
                return Feed::EndedBefore;
            }
            self.norm.push(c, out);
            return Feed::More;
        }
        match c {
            '{' | '[' => {
                if self.open.len() >= MAX_DEPTH {
                    return Feed::Invalid;
                }
                self.open.push(if c == '{' { '}' } else { ']' });
            }
            '}' | ']' => {
                // A bracket that does not close the innermost container breaks the value.
                if self.open.pop() != Some(c) {
                    return Feed::Invalid;
                }
                self.norm.push(c, out);
                return if self.open.is_empty() { Feed::Done } else { Feed::More };
            }
            _ => {}
        }
        self.norm.push(c, out);
        Feed::More
    }
}

/// JSON-escape `s` without the surrounding quotes.
pub fn escape_inner(s: &str, out: &mut String) {
    let quoted = serde_json::Value::from(s).to_string();
    out.push_str(quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or(""));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> (String, Option<usize>) {
        let mut v = JsonValue::default();
        let mut out = String::new();
        for (i, c) in text.char_indices() {
            match v.feed(c, &mut out) {
                Feed::More => {}
                Feed::Done => return (out, Some(i + c.len_utf8())),
                Feed::EndedBefore => return (out, Some(i)),
                Feed::Invalid => return (out, None),
            }
        }
        (out, None)
    }

    #[test]
    fn finds_value_ends_and_normalizes_python() {
        assert_eq!(scan(r#"{"a": "}", "b": [1, {"c": 2}]} tail"#).1, Some(30));
        assert_eq!(scan("{'a': True, 'b': None, 'c': 'it\\'s \"x\"'}"), (r#"{"a": true, "b": null, "c": "it's \"x\""}"#.to_string(), Some(40)));
        assert_eq!(scan("42, x"), ("42".to_string(), Some(2)));
        assert_eq!(scan("Trueish"), ("Trueish".to_string(), None));
        assert_eq!(scan("[TOOL_CALLS, Non, None]"), ("[TOOL_CALLS, Non, null]".to_string(), Some(23)));
        assert_eq!(scan("False,"), ("false".to_string(), Some(5)));
        assert_eq!(scan("}"), (String::new(), None));
        assert_eq!(scan("</f>"), (String::new(), None));
        assert_eq!(scan("[\"a\"}"), ("[\"a\"".to_string(), None));
        assert_eq!(scan("-1.5e3<|end|>"), ("-1.5e3".to_string(), Some(6)));
    }
}
