//! Whether a text is a pythonic call of a declared tool (`get_weather(city="Paris", days=3)`), one
//! character at a time, without writing anything: the verdict a marker-less candidate waits for
//! (rule R28 with rule R20's syntax, `parse::auto::bare_json_call`) before the ordinary pythonic
//! states read it. The arguments are keyword arguments with literal values, as those states read
//! them (`parse::literal`); a positional argument, an undeclared name or a broken value is no call.

use super::config::{is_tool_name_char, ToolConfig, MAX_TOOL_NAME};
use super::json::Feed;
use super::literal::LiteralValue;
use crate::text::is_space;

/// The string delimiter of pythonic values (quotes of either kind are read too).
const DELIM: &str = "\"";

#[derive(Debug, Clone, Default)]
enum Phase {
    /// The function name so far.
    #[default]
    Name,
    /// Before an argument's keyword (or the closing `)`).
    Key,
    /// The keyword so far (`ended`: blanks followed it).
    Keyword { ended: bool },
    Value,
    /// After a value: `,` or `)`.
    AfterValue,
}

/// Outcome of feeding one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyCheck {
    More,
    /// The character was the call's closing `)`.
    Done,
    /// Not a pythonic call of a declared tool (why).
    Not(&'static str),
}

/// The check of one pythonic call.
#[derive(Debug, Clone, Default)]
pub struct PythonicCall {
    phase: Phase,
    name: String,
    word: String,
    value: LiteralValue,
    /// What the value scanner writes (only checked, then dropped).
    sink: String,
}

/// Whether `c` may start a pythonic call (a Python identifier's first character).
pub fn starts_call(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

impl PythonicCall {
    /// Feed the next character of the call (its first one starts the name).
    pub fn feed(&mut self, c: char, t: &ToolConfig) -> PyCheck {
        match self.phase {
            Phase::Name if c == '(' => {
                if t.tool(&self.name).is_none() {
                    return PyCheck::Not("pythonic call of an undeclared tool");
                }
                self.phase = Phase::Key;
                PyCheck::More
            }
            Phase::Name if is_tool_name_char(c) && (starts_call(c) || !self.name.is_empty()) && self.name.len() < MAX_TOOL_NAME => {
                self.name.push(c);
                PyCheck::More
            }
            Phase::Name => PyCheck::Not("no pythonic call"),
            Phase::Key if is_space(c) => PyCheck::More,
            // `f()` and a trailing comma `f(a=1,)`, as Python allows.
            Phase::Key if c == ')' => PyCheck::Done,
            Phase::Key if starts_call(c) => {
                self.word.clear();
                self.word.push(c);
                self.phase = Phase::Keyword { ended: false };
                PyCheck::More
            }
            Phase::Key => PyCheck::Not("not a keyword argument"),
            Phase::Keyword { .. } if c == '=' => {
                self.value = LiteralValue::default();
                self.sink.clear();
                self.phase = Phase::Value;
                PyCheck::More
            }
            Phase::Keyword { .. } if is_space(c) => {
                self.phase = Phase::Keyword { ended: true };
                PyCheck::More
            }
            Phase::Keyword { ended: false } if c.is_alphanumeric() || c == '_' => {
                self.word.push(c);
                PyCheck::More
            }
            Phase::Keyword { .. } => PyCheck::Not("not a keyword argument"),
            Phase::Value => match self.value.feed(c, DELIM, &mut self.sink) {
                Feed::More => PyCheck::More,
                Feed::Done => {
                    self.phase = Phase::AfterValue;
                    PyCheck::More
                }
                Feed::EndedBefore => {
                    self.phase = Phase::AfterValue;
                    self.feed(c, t)
                }
                Feed::Invalid => PyCheck::Not("invalid literal argument value"),
            },
            Phase::AfterValue if is_space(c) => PyCheck::More,
            Phase::AfterValue if c == ',' => {
                self.phase = Phase::Key;
                PyCheck::More
            }
            Phase::AfterValue if c == ')' => PyCheck::Done,
            Phase::AfterValue => PyCheck::Not("not a pythonic call"),
        }
    }
}
