//! A JSON_NATIVE tool call object (`{"name": "f", "arguments": {...}, "id": "x"}` and its variants),
//! read one character at a time.
//!
//! Accepts the layouts llama.cpp's `standard_json_tools` builds — flat keys in any order, a nested
//! `"function": {...}` object, the function name as the key, id / generated-id fields, single-quoted
//! (python dict) strings — and reports the name, id and argument text as soon as each is known.

use super::config::{is_tool_name, ToolConfig};
use super::json::{Feed, JsonValue};
use crate::findings::ToolFormat;
use crate::text::is_space;

/// [`CallData::tool`] of a call that names a tool the request did not declare (rule R22): there is
/// no schema for its arguments.
pub const UNDECLARED: usize = usize::MAX;

/// What a call has produced so far (shared with the tag-format call states).
#[derive(Debug, Clone, Default)]
pub struct CallData {
    /// Index into the configured tools (or [`UNDECLARED`]), once the name is known.
    pub tool: Option<usize>,
    pub name: String,
    pub id: String,
    /// Argument text not yet emitted.
    pub args: String,
    /// Whether any argument text was produced for this call.
    pub args_seen: bool,
    /// Whether the arguments value is complete.
    pub args_complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Call,
    Nested,
    FunInner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Name,
    Id,
    Args,
    Nest,
    FunInner,
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Open,
    KeyOrEnd,
    Key,
    Colon,
    ValueStart,
    Str,
    Num,
    Value,
    CommaOrEnd,
}

/// Outcome of one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallFeed {
    More,
    Done,
    Invalid(&'static str),
}

/// Longest key or name/id string accepted.
const MAX_FIELD: usize = 4096;

/// Parse state of one JSON call object.
#[derive(Debug, Clone, Default)]
pub struct JsonCall {
    levels: Vec<Level>,
    phase: Phase,
    target: Option<Target>,
    quote: char,
    escape: bool,
    /// Inside a `\u` escape: the value and count of the hex digits read.
    unicode: Option<(u32, u8)>,
    field: String,
    value: JsonValue,
    skipped: String,
    /// A member whose key the format does not know was skipped (e.g. a mangled `"argu{ments"`).
    unknown_member: bool,
    /// The first such key, for the diagnostic.
    unknown_key: Option<String>,
    /// Python syntax in the object (single quotes, `True` / `None`), rewritten to JSON.
    python: bool,
    /// Departures from the format's canonical call object that were accepted (OpenAI wrapper,
    /// `parameters` for `arguments`), for their diagnostics.
    leniencies: Vec<String>,
}

/// Keys a call object may carry that hold nothing the message needs.
const IGNORABLE_KEYS: [&str; 2] = ["type", "index"];

impl JsonCall {
    /// The first member key the format does not know (its value was skipped), if any.
    pub fn unknown_key(&self) -> Option<&str> {
        self.unknown_key.as_deref()
    }

    /// Whether the object was written with Python syntax (single quotes, `True` / `None`).
    pub fn python(&self) -> bool {
        self.python || self.value.rewrote_python()
    }

    /// The departures from the canonical call object this call was read with, described.
    pub fn leniencies(&self) -> &[String] {
        &self.leniencies
    }

    /// Feed one character.
    pub fn feed(&mut self, c: char, cfg: &ToolConfig, data: &mut CallData) -> CallFeed {
        // Some phases end on a character that belongs to the next phase: loop to re-dispatch it.
        loop {
            match self.phase {
                Phase::Open => {
                    if is_space(c) {
                        return CallFeed::More;
                    }
                    if c != '{' {
                        return CallFeed::Invalid("a tool call object must start with '{'");
                    }
                    self.levels.push(Level::Call);
                    self.phase = Phase::KeyOrEnd;
                    return CallFeed::More;
                }
                Phase::KeyOrEnd => {
                    return match c {
                        _ if is_space(c) || c == ',' => CallFeed::More,
                        '"' | '\'' => {
                            self.python |= c == '\'';
                            self.quote = c;
                            self.field.clear();
                            self.phase = Phase::Key;
                            CallFeed::More
                        }
                        '}' => self.close_level(data),
                        _ => CallFeed::Invalid("expected a key in the tool call object"),
                    };
                }
                Phase::Key | Phase::Str => return self.string_char(c, cfg, data),
                Phase::Colon => {
                    if is_space(c) {
                        return CallFeed::More;
                    }
                    if c != ':' {
                        return CallFeed::Invalid("expected ':' in the tool call object");
                    }
                    let target = self.target_for_key(cfg, data);
                    if target == Target::Skip && !IGNORABLE_KEYS.contains(&self.field.as_str()) {
                        self.unknown_member = true;
                        if self.unknown_key.is_none() {
                            self.unknown_key = Some(self.field.clone());
                        }
                    }
                    self.target = Some(target);
                    self.phase = Phase::ValueStart;
                    return CallFeed::More;
                }
                Phase::ValueStart => {
                    if is_space(c) {
                        return CallFeed::More;
                    }
                    let target = self.target.unwrap_or(Target::Skip);
                    match (target, c) {
                        (Target::Name | Target::Id, '"' | '\'') => {
                            self.python |= c == '\'';
                            self.quote = c;
                            self.field.clear();
                            self.phase = Phase::Str;
                            return CallFeed::More;
                        }
                        (Target::Id, '0'..='9' | '-') => {
                            self.field.clear();
                            self.field.push(c);
                            self.phase = Phase::Num;
                            return CallFeed::More;
                        }
                        (Target::Name, _) => return CallFeed::Invalid("the function name must be a string"),
                        (Target::Nest, '{') => {
                            self.levels.push(Level::Nested);
                            self.phase = Phase::KeyOrEnd;
                            return CallFeed::More;
                        }
                        (Target::FunInner, '{') => {
                            self.levels.push(Level::FunInner);
                            self.phase = Phase::KeyOrEnd;
                            return CallFeed::More;
                        }
                        (Target::FunInner, _) => return CallFeed::Invalid("expected an object after the function name"),
                        (Target::Nest | Target::Id, _) => self.target = Some(Target::Skip),
                        _ => {}
                    }
                    self.python |= self.value.rewrote_python();
                    self.value = JsonValue::default();
                    self.phase = Phase::Value;
                    // Re-dispatch `c` as the value's first character.
                }
                Phase::Num => {
                    if c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-') {
                        self.field.push(c);
                        if self.field.len() > MAX_FIELD {
                            return CallFeed::Invalid("call id too long");
                        }
                        return CallFeed::More;
                    }
                    data.id = std::mem::take(&mut self.field);
                    self.phase = Phase::CommaOrEnd;
                }
                Phase::Value => {
                    let is_args = self.target == Some(Target::Args);
                    let sink = if is_args { &mut data.args } else { &mut self.skipped };
                    let feed = self.value.feed(c, sink);
                    if is_args {
                        data.args_seen = true;
                    } else {
                        self.skipped.clear();
                    }
                    match feed {
                        Feed::More => return CallFeed::More,
                        Feed::Invalid => return CallFeed::Invalid("invalid JSON value in the tool call"),
                        Feed::Done | Feed::EndedBefore => {
                            if is_args {
                                data.args_complete = true;
                            }
                            self.phase = Phase::CommaOrEnd;
                            if feed == Feed::Done {
                                return CallFeed::More;
                            }
                        }
                    }
                }
                Phase::CommaOrEnd => {
                    return match c {
                        _ if is_space(c) => CallFeed::More,
                        ',' => {
                            self.phase = Phase::KeyOrEnd;
                            CallFeed::More
                        }
                        '}' => self.close_level(data),
                        _ => CallFeed::Invalid("expected ',' or '}' in the tool call object"),
                    };
                }
            }
        }
    }

    /// End of input: a trailing bare number (an id) is complete.
    pub fn finish(&mut self, data: &mut CallData) {
        if self.phase == Phase::Value && self.target == Some(Target::Args) {
            self.value.finish(&mut data.args);
        }
        if self.phase == Phase::Num {
            data.id = std::mem::take(&mut self.field);
            self.phase = Phase::CommaOrEnd;
        }
    }

    fn string_char(&mut self, c: char, cfg: &ToolConfig, data: &mut CallData) -> CallFeed {
        if let Some(hex) = &mut self.unicode {
            // `\uXXXX`: decoded once the four digits are in (a lone surrogate becomes U+FFFD).
            let Some(d) = c.to_digit(16) else { return CallFeed::Invalid("invalid \\u escape in the tool call object") };
            hex.0 = hex.0 * 16 + d;
            hex.1 += 1;
            if hex.1 == 4 {
                self.field.push(char::from_u32(hex.0).unwrap_or('\u{FFFD}'));
                self.unicode = None;
            }
        } else if self.escape {
            self.escape = false;
            // Keys and names compare decoded: `"a\rguments"` is not `"arguments"`.
            match c {
                'n' => self.field.push('\n'),
                't' => self.field.push('\t'),
                'r' => self.field.push('\r'),
                'b' => self.field.push('\u{8}'),
                'f' => self.field.push('\u{c}'),
                'u' => self.unicode = Some((0, 0)),
                '"' | '\\' | '/' | '\'' => self.field.push(c),
                _ => return CallFeed::Invalid("invalid escape in the tool call object"),
            }
        } else if c == '\\' {
            self.escape = true;
        } else if c == self.quote {
            if self.phase == Phase::Key {
                self.phase = Phase::Colon;
                return CallFeed::More;
            }
            self.phase = Phase::CommaOrEnd;
            let text = std::mem::take(&mut self.field);
            if self.target == Some(Target::Name) {
                match cfg.tool(&text) {
                    Some(i) => {
                        data.tool = Some(i);
                        data.name = text;
                    }
                    // The `"name"` string delimits the name: in the format's own JSON call
                    // objects, any well-formed one is a call (rule R22).
                    None if cfg.undeclared && cfg.format == ToolFormat::JsonNative && is_tool_name(&text) => {
                        data.tool = Some(UNDECLARED);
                        data.name = text;
                    }
                    None => return CallFeed::Invalid("call of an unknown function"),
                }
            } else {
                data.id = text;
            }
            return CallFeed::More;
        } else {
            self.field.push(c);
        }
        if self.field.len() > MAX_FIELD {
            return CallFeed::Invalid("key or name too long");
        }
        CallFeed::More
    }

    fn target_for_key(&mut self, cfg: &ToolConfig, data: &mut CallData) -> Target {
        let layout = &cfg.json;
        let key = self.field.as_str();
        let level = self.levels.last().copied().unwrap_or(Level::Call);
        if level == Level::Call && layout.fun_name_is_key && data.tool.is_none() {
            if let Some(i) = cfg.tool(key) {
                data.tool = Some(i);
                data.name = key.to_string();
                return if layout.args_direct { Target::Args } else { Target::FunInner };
            }
        }
        if key == layout.args_key && !data.args_seen {
            Target::Args
        } else if !data.args_seen && !layout.args_direct && args_alias(key, &layout.args_key) {
            // `parameters` where the format writes `arguments`, or the reverse: both name the
            // arguments in the call objects models write.
            self.leniencies.push(format!("arguments under {key:?} instead of {:?} accepted (rule R50)", layout.args_key));
            Target::Args
        } else if layout.id_keys.iter().any(|k| k == key) {
            Target::Id
        } else if key == "id" && layout.id_keys.is_empty() && data.id.is_empty() {
            // A model that writes its call's own id (`{"id": "call_1", "name": …}`, also inside an OpenAI
            // `function` object) where the template writes none: kept as the call's id, not dropped.
            self.leniencies.push("the call's own \"id\" member kept as its id (rule R46)".to_string());
            Target::Id
        } else if level != Level::FunInner && key == layout.name_key && data.tool.is_none() {
            Target::Name
        } else if level == Level::Call && (key == layout.nest_key || key == "function") {
            if !layout.nested {
                // `{"type": "function", "function": {"name": …, "arguments": …}}`.
                self.leniencies.push("OpenAI `{\"type\": \"function\", \"function\": {…}}` wrapper accepted (rule R50)".to_string());
            }
            Target::Nest
        } else {
            Target::Skip
        }
    }

    fn close_level(&mut self, data: &mut CallData) -> CallFeed {
        self.levels.pop();
        if !self.levels.is_empty() {
            self.phase = Phase::CommaOrEnd;
            return CallFeed::More;
        }
        if data.tool.is_none() {
            return CallFeed::Invalid("tool call object without a function name");
        }
        if self.unknown_member && !data.args_seen {
            // Its arguments are probably under the unrecognised key: say so rather than call the
            // function with none.
            return CallFeed::Invalid("tool call object has an unrecognised member and no arguments");
        }
        CallFeed::Done
    }
}

/// Whether `key` is the other common name of the arguments member.
fn args_alias(key: &str, args_key: &str) -> bool {
    matches!((key, args_key), ("parameters", "arguments") | ("arguments", "parameters"))
}
