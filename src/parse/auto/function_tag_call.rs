//! Rule R42: `<function=NAME>{JSON arguments}`, maybe closed by `</function>`, alone on its line, in a
//! template that writes its calls another way (Llama 3.1's custom-tool format, which its model card's
//! system prompt teaches while its template renders JSON calls; other models write it too). One more
//! syntax of the marker-less place (rule R28's line start): the candidate is checked whole (a declared
//! name, one JSON object that parses, then only the closer and blanks up to the line's end) before
//! the template-free `<function=` call states read it; anything else stays content as written.

use crate::parse::config::{ToolConfig, FUNCTION_TAG};
use crate::parse::json_extent::json_error;
use crate::text::is_space;

/// Longest name looked for.
const MAX_NAME: usize = 256;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Name,
    /// Before the arguments' `{`.
    Open,
    /// Inside the arguments: open objects and arrays, inside a string, after a backslash.
    Args { depth: usize, string: bool, escape: bool },
    /// Bytes of `</function>` read so far.
    Close(usize),
    /// Only blanks up to the end of the line.
    LineEnd,
}

/// The incremental check of one candidate, fed from right after its `<function=`.
#[derive(Debug, Clone, Default)]
pub(super) struct TagCheck {
    phase: Phase,
    name: String,
    args: String,
}

pub(super) enum TagVerdict {
    Call,
    /// Not a call: the character at this offset (of what was fed) shows it.
    Not(usize, &'static str),
}

impl TagCheck {
    /// Feed `c` at offset `at`.
    pub(super) fn feed(&mut self, c: char, at: usize, t: &ToolConfig) -> Option<TagVerdict> {
        let not = |why| Some(TagVerdict::Not(at, why));
        match self.phase {
            Phase::Name if c == FUNCTION_TAG.1.chars().next().unwrap_or('>') => {
                if !t.tools.iter().any(|d| d.name == self.name) {
                    return not("call of an unknown function");
                }
                self.phase = Phase::Open;
            }
            Phase::Name if (c.is_alphanumeric() || matches!(c, '_' | '-' | '.')) && self.name.len() < MAX_NAME => self.name.push(c),
            Phase::Name => return not("no function name"),
            Phase::Open if c == '{' => {
                self.args.push(c);
                self.phase = Phase::Args { depth: 1, string: false, escape: false };
            }
            Phase::Open => return not("no JSON arguments"),
            Phase::Args { depth, string, escape } => {
                self.args.push(c);
                self.phase = match c {
                    _ if escape => Phase::Args { depth, string, escape: false },
                    '\\' if string => Phase::Args { depth, string, escape: true },
                    '"' => Phase::Args { depth, string: !string, escape: false },
                    '{' | '[' if !string => Phase::Args { depth: depth + 1, string, escape },
                    '}' | ']' if !string && depth == 1 => {
                        if json_error(&self.args).is_some() {
                            return not("arguments not valid JSON");
                        }
                        Phase::Close(0)
                    }
                    '}' | ']' if !string => Phase::Args { depth: depth - 1, string, escape },
                    _ => Phase::Args { depth, string, escape },
                };
            }
            Phase::Close(n) => {
                let closer = FUNCTION_TAG.2.as_bytes();
                if n < closer.len() && c.is_ascii() && closer.get(n) == Some(&(c as u8)) {
                    self.phase = if n + 1 == closer.len() { Phase::LineEnd } else { Phase::Close(n + 1) };
                } else if n == 0 {
                    self.phase = Phase::LineEnd;
                    return self.feed(c, at, t);
                } else {
                    return not("not the call's closer");
                }
            }
            Phase::LineEnd if c == '\n' => return Some(TagVerdict::Call),
            Phase::LineEnd if is_space(c) => {}
            Phase::LineEnd => return not("text after the call on its line"),
        }
        None
    }

    /// The output ended here.
    pub(super) fn at_end(&self, at: usize) -> TagVerdict {
        match self.phase {
            Phase::Close(0) | Phase::LineEnd => TagVerdict::Call,
            _ => TagVerdict::Not(at, "cut off"),
        }
    }
}
