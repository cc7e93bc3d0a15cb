//! Literal argument values → JSON, one character at a time.
//!
//! Some models write tool arguments as literals of their own syntax rather than JSON: Python
//! (`f(a='x', b=True, c={"k": None})`) or key/value objects with bare keys and a string delimiter
//! token (`f{a:<|"|>x<|"|>,b:{k:1}}`). The analysis reports the string delimiter it saw
//! (`arguments.stringDelimiter`); this scanner reads one value in either syntax and writes its JSON:
//! strings in the delimiter or in `'` / `"` (backslash escapes), `True` / `False` / `None`, numbers,
//! and nested `{…}` / `[…]` whose keys may be bare words.
//!
//! Nothing is ever taken back: a multi-character delimiter is matched through a small pending
//! buffer, and a bare word (number, literal or key) is written once it ends.

use super::json::{escape_inner, Feed};
use super::json_complete::JsonPrefix;
use crate::text::is_space;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Str {
    /// Inside `'…'` or `"…"`.
    Quote(char),
    /// Inside the delimiter token pair.
    Delim,
}

/// Scanner state of one literal value.
#[derive(Debug, Clone, Default)]
pub struct LiteralValue {
    started: bool,
    /// Open containers (`{` or `[`).
    stack: Vec<char>,
    /// Inside an object, before a key.
    at_key: bool,
    string: Option<Str>,
    escape: bool,
    /// Characters that may be the start (or, inside a string, the end) of the delimiter.
    pending: String,
    /// The bare word being read (number, literal or key).
    word: String,
    /// The JSON written so far, checked: what would stop it being a prefix of a JSON value (`a=,`,
    /// `[x" "y"]`, `{k:1:}`) is never written, the value is invalid there instead (issue #24: a
    /// call's arguments stay valid JSON once closed).
    written: JsonPrefix,
}

/// Deepest nesting accepted in literal arguments.
const MAX_DEPTH: usize = 512;

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')
}

impl LiteralValue {
    /// True when the value so far is a complete bare word (it ends at the end of input).
    pub fn complete_at_eof(&self) -> bool {
        self.started && self.stack.is_empty() && self.string.is_none() && self.pending.is_empty() && !self.word.is_empty()
    }

    /// Write the pending bare word (at the end of input, after [`Self::complete_at_eof`]).
    pub fn finish(&mut self, out: &mut String) {
        let before = out.len();
        self.flush_word(out);
        self.check(out, before, Feed::Done);
    }

    /// Feed `c` of a value whose strings may use `delim`, appending JSON to `out`. Only JSON that
    /// is still a prefix of a JSON value is written; a value may end only where it is whole.
    pub fn feed(&mut self, c: char, delim: &str, out: &mut String) -> Feed {
        let before = out.len();
        let feed = self.feed_unchecked(c, delim, out);
        self.check(out, before, feed)
    }

    /// `feed` after `out[before..]` was written: cut at the first byte no JSON value has there (the
    /// value is then invalid), and a value that ends must be whole.
    fn check(&mut self, out: &mut String, before: usize, feed: Feed) -> Feed {
        if let Err(bad) = self.written.push_str(out.get(before..).unwrap_or("")) {
            out.truncate(before + bad);
            return Feed::Invalid;
        }
        match feed {
            Feed::Done | Feed::EndedBefore if !self.written.is_complete() => Feed::Invalid,
            feed => feed,
        }
    }

    fn feed_unchecked(&mut self, c: char, delim: &str, out: &mut String) -> Feed {
        match self.string {
            Some(Str::Delim) => return self.in_delim(c, delim, out),
            Some(Str::Quote(q)) => return self.in_quote(c, q, out),
            None => {}
        }
        if !self.pending.is_empty() || (delim.len() > 1 && delim.starts_with(c) && self.word.is_empty()) {
            // A string or a word goes only where JSON has a value or a key: checked at its first
            // character, before it is consumed (nothing the check refuses is lost).
            if self.pending.is_empty() && !self.written.takes_value() {
                return Feed::Invalid;
            }
            self.pending.push(c);
            if !delim.starts_with(self.pending.as_str()) {
                return Feed::Invalid;
            }
            if self.pending.len() == delim.len() {
                self.pending.clear();
                self.open_string(Str::Delim, out);
            }
            return Feed::More;
        }
        if !self.started {
            if is_space(c) {
                return Feed::More;
            }
            self.started = true;
        }
        if is_word_char(c) {
            if self.word.is_empty() && !self.written.takes_value() {
                return Feed::Invalid;
            }
            self.word.push(c);
            return Feed::More;
        }
        let top = self.stack.is_empty();
        // A bare word at the top level ends at any other character.
        if top && !self.word.is_empty() {
            self.flush_word(out);
            return Feed::EndedBefore;
        }
        self.flush_word(out);
        match c {
            '\'' | '"' => {
                self.open_string(Str::Quote(c), out);
                Feed::More
            }
            '{' | '[' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Feed::Invalid;
                }
                self.stack.push(c);
                self.at_key = c == '{';
                out.push(c);
                Feed::More
            }
            '}' | ']' => {
                let want = if c == '}' { '{' } else { '[' };
                if self.stack.pop() != Some(want) {
                    return if top { Feed::EndedBefore } else { Feed::Invalid };
                }
                out.push(c);
                self.at_key = false;
                if self.stack.is_empty() { Feed::Done } else { Feed::More }
            }
            _ if top => Feed::EndedBefore,
            ',' => {
                out.push(c);
                self.at_key = self.stack.last() == Some(&'{');
                Feed::More
            }
            ':' => {
                out.push(c);
                self.at_key = false;
                Feed::More
            }
            _ if is_space(c) => {
                out.push(c);
                Feed::More
            }
            _ => Feed::Invalid,
        }
    }

    fn open_string(&mut self, kind: Str, out: &mut String) {
        self.started = true;
        self.string = Some(kind);
        out.push('"');
    }

    /// A string closed: the value is done at the top level.
    fn close_string(&mut self, out: &mut String) -> Feed {
        self.string = None;
        out.push('"');
        if self.stack.is_empty() { Feed::Done } else { Feed::More }
    }

    fn in_quote(&mut self, c: char, q: char, out: &mut String) -> Feed {
        if self.escape {
            self.escape = false;
            // `\'` is just a quote in JSON; the other Python escapes JSON has are JSON's, and one it
            // has not (`\d`, `\x41`) is, as in Python, the backslash and the character.
            match c {
                '\'' => {}
                '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u' => out.push('\\'),
                _ => out.push_str("\\\\"),
            }
            escape_char_unless_quote(c, out);
            return Feed::More;
        }
        if c == '\\' {
            self.escape = true;
        } else if c == q {
            return self.close_string(out);
        } else {
            escape_char(c, out);
        }
        Feed::More
    }

    fn in_delim(&mut self, c: char, delim: &str, out: &mut String) -> Feed {
        self.pending.push(c);
        if delim.starts_with(self.pending.as_str()) {
            if self.pending.len() == delim.len() {
                self.pending.clear();
                return self.close_string(out);
            }
            return Feed::More;
        }
        // Not the delimiter: release characters until what is left may still start it.
        while !self.pending.is_empty() && !delim.starts_with(self.pending.as_str()) {
            let first = self.pending.chars().next().unwrap_or(' ');
            escape_char(first, out);
            self.pending.drain(..first.len_utf8());
        }
        Feed::More
    }

    /// Write the bare word: a key is quoted, Python literals become JSON's, numbers stay, any
    /// other word becomes a string.
    fn flush_word(&mut self, out: &mut String) {
        if self.word.is_empty() {
            return;
        }
        let w = std::mem::take(&mut self.word);
        if self.at_key {
            out.push('"');
            escape_inner(&w, out);
            out.push('"');
            return;
        }
        let mapped = match w.as_str() {
            "True" | "true" => "true",
            "False" | "false" => "false",
            "None" | "null" => "null",
            _ => "",
        };
        if !mapped.is_empty() {
            out.push_str(mapped);
        } else if serde_json::from_str::<serde_json::Number>(&w).is_ok() {
            out.push_str(&w);
        } else {
            out.push('"');
            escape_inner(&w, out);
            out.push('"');
        }
    }
}

/// `c` after a backslash: as it is, unless JSON needs it escaped (a control character, a quote).
fn escape_char_unless_quote(c: char, out: &mut String) {
    match c {
        '"' | '\\' | '/' => out.push(c),
        c => escape_char(c, out),
    }
}

fn escape_char(c: char, out: &mut String) {
    let mut b = [0u8; 4];
    escape_inner(c.encode_utf8(&mut b), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (JSON, end offset) of the value at the start of `text`.
    fn scan(text: &str, delim: &str) -> (String, Option<usize>) {
        let mut v = LiteralValue::default();
        let mut out = String::new();
        for (i, c) in text.char_indices() {
            match v.feed(c, delim, &mut out) {
                Feed::More => {}
                Feed::Done => return (out, Some(i + c.len_utf8())),
                Feed::EndedBefore => return (out, Some(i)),
                Feed::Invalid => return (out, None),
            }
        }
        if v.complete_at_eof() {
            v.finish(&mut out);
            return (out, Some(text.len()));
        }
        (out, None)
    }

    #[test]
    fn python_literals() {
        assert_eq!(scan("'it\\'s \"x\"', b=1", "'"), (r#""it's \"x\"""#.into(), Some(11)));
        assert_eq!(scan("True)", "'"), ("true".into(), Some(4)));
        assert_eq!(scan("-1.5e3, x", "'"), ("-1.5e3".into(), Some(6)));
        assert_eq!(scan("{\"a\": None, \"b\": [1, 'x']})", "'"), (r#"{"a": null, "b": [1, "x"]}"#.into(), Some(26)));
        assert_eq!(scan("\"line\\nnext\"", "'"), (r#""line\nnext""#.into(), Some(12)));
        assert_eq!(scan("42", "'"), ("42".into(), Some(2)));
    }

    #[test]
    fn delimited_strings_and_bare_keys() {
        let d = "<|\"|>";
        assert_eq!(scan("<|\"|>a \"q\" <b><|\"|>,", d), (r#""a \"q\" <b>""#.into(), Some(19)));
        assert_eq!(scan("{theme:<|\"|>dark<|\"|>,count:3}}", d), (r#"{"theme":"dark","count":3}"#.into(), Some(30)));
        assert_eq!(scan("[<|\"|>x<|\"|>,<|\"|>y<|\"|>]", d), (r#"["x","y"]"#.into(), Some(25)));
        assert_eq!(scan("<|\"|><|<|\"|>", d), (r#""<|""#.into(), Some(12)));
        assert_eq!(scan("null}", d), ("null".into(), Some(4)));
        assert_eq!(scan("<x", d).1, None);
    }
}
