//! JSON tool-call arguments go out whole and valid (issue #11 item 11).
//!
//! The scanners only find where a JSON value ends (brackets and strings): `{"city": }` or `{"a": 1 2}`
//! end fine but are not JSON. Streamed argument text cannot be taken back, so by default a call whose
//! arguments are JSON is held — still roll-back-able into content — until they end and parse with
//! serde_json; it then goes out with its arguments in one delta, and a broken one stays content, all
//! of it, markers included, with a diagnostic naming serde's error. With the request's
//! `stream_arguments` the call goes out at its name and its arguments stream as written; one that
//! breaks after that ends where it broke, with a diagnostic saying its arguments are not valid JSON.
//! Tagged-parameter calls are never held: each value is written as valid JSON on its own.
//! Valid JSON that is not an object (`"arguments": []`) is no call's arguments either (rule R37):
//! the held call stays content the same way.

use super::{AutoParser, Step};
use crate::findings::ToolFormat;
use crate::parse::json_extent::{broken_arguments_message, json_error};
use crate::parse::json_numbers::quote_overflowing_numbers;

/// Valid JSON arguments that are not an object (`[]`, `"x"`, `3`): no call's arguments (rule R37).
/// `None` for an object, or a string that encodes one (rule R17 decodes it).
fn not_an_object(args: &str) -> Option<String> {
    let kind = match args.trim_start().chars().next() {
        Some('{') | None => return None,
        Some('[') => "an array",
        // A string that encodes an object is decoded to it when it goes out (rule R17).
        Some('"') if encodes_object(args) => return None,
        Some('"') => "a string",
        Some('t' | 'f') => "a boolean",
        Some('n') => "null",
        Some(_) => "a number",
    };
    Some(format!("they are {kind}, not an object (rule R37)"))
}

fn encodes_object(args: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(args) {
        Ok(serde_json::Value::String(inner)) => serde_json::from_str::<serde_json::Value>(&inner).is_ok_and(|v| v.is_object()),
        _ => false,
    }
}

impl AutoParser {
    /// Whether the current call's arguments are JSON (not tagged values).
    pub(super) fn json_arguments_call(&self) -> bool {
        self.call.json.is_object || self.tools().is_some_and(|t| matches!(t.format, ToolFormat::JsonNative | ToolFormat::TagWithJson))
    }

    /// Whether the current call waits for its JSON arguments to be whole and valid before it goes out.
    pub(super) fn holds_json_call(&self) -> bool {
        !self.cfg.stream_arguments && self.json_arguments_call()
    }

    /// The call's JSON arguments just ended (before byte `at` of the step's text): checked once, over
    /// what was streamed of them and what is still pending. `Some` is the step that fails the call.
    pub(super) fn check_json_args(&mut self, at: usize) -> Option<Step> {
        if self.call.json.args_validated {
            return None;
        }
        self.call.json.args_validated = true;
        let sent = std::mem::take(&mut self.call.json.args_sent);
        let none_sent = sent.is_empty();
        let args = if none_sent { self.call.data.args.clone() } else { sent + &self.call.data.args };
        let detail = match json_error(&args) {
            Some((detail, _)) => detail,
            None => match not_an_object(&args) {
                Some(detail) => detail,
                None => {
                    // Valid JSON, but a number in it may be too large for a double: kept as the
                    // string written (rule R44), when nothing of the arguments went out yet.
                    if none_sent {
                        self.quote_overflowing_args();
                    }
                    return None;
                }
            },
        };
        self.call.json.fail_detail = Some(detail);
        Some(Step::Fail("tool-call arguments are not valid JSON", at))
    }

    /// The held arguments (valid JSON, none of them sent) with numbers a double cannot hold written as
    /// strings (rule R44): rewritten, said so.
    fn quote_overflowing_args(&mut self) {
        let Some(quoted) = quote_overflowing_numbers(&self.call.data.args) else { return };
        if json_error(&quoted).is_some() {
            return;
        }
        self.call.data.args = quoted;
        let at = self.call.start;
        self.diag(at, "a number too large for a double in the call's JSON arguments: kept as the string written (rule R44)");
    }

    /// Argument text about to go out while the call's JSON arguments are not checked yet (they
    /// stream, `stream_arguments`): kept for the check.
    pub(super) fn keep_streamed_args(&mut self, args: &str) {
        if !self.call.json.args_validated && self.json_arguments_call() {
            self.call.json.args_sent.push_str(args);
        }
    }

    /// The diagnostic of a call that broke with `msg`. When its JSON arguments are what broke (serde
    /// rejected them, or the call broke inside them) it says so, and whether the call is kept as
    /// content or, streamed already (`stream_arguments`), ends with arguments that are not valid JSON.
    pub(super) fn broken_call_message(&mut self, msg: &str) -> String {
        let data = &self.call.data;
        let inside_args = self.json_arguments_call() && data.args_seen && !data.args_complete;
        match self.call.json.fail_detail.take() {
            Some(why) => broken_arguments_message(&why, self.call.committed),
            None if inside_args => broken_arguments_message(msg, self.call.committed),
            None => msg.to_string(),
        }
    }

    /// The output ends inside a held call whose name is known: `true` when its arguments so far are
    /// already broken (not a prefix of any JSON value), so the call is text, not a cut-off call.
    pub(super) fn held_call_broken_at_end(&mut self) -> bool {
        if !self.holds_json_call() || self.call.data.args_complete || !self.call.data.args_seen {
            return false;
        }
        match json_error(&self.call.data.args) {
            Some((detail, false)) => {
                self.call.json.fail_detail = Some(detail);
                true
            }
            _ => false,
        }
    }
}
