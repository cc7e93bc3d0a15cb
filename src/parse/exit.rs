//! The guarantees checked where calls leave the parser (issue #24): one choke point, called by
//! `StreamParser::finish` for every format (dedicated ones and declared response templates included)
//! and so for both the streaming and the whole-text API.
//!
//! At the end of the output every call's `arguments` is valid JSON and never `""`. Deltas already
//! sent cannot be taken back, so the fix is *appended*, as one more argument delta of that call, and
//! the deltas still rebuild the message exactly: a call with no argument text gets `{}`; a call whose
//! arguments stop inside a JSON value (cut off by the end of the output, or ended by a marker in the
//! middle of a value) is closed by [`json_complete::complete`] (open strings, arrays and objects
//! closed; a dangling key or separator given `null`), with a diagnostic saying what was appended.
//! Arguments that no appended text can make valid are reported by a diagnostic
//! ([`ExitCheck::broken`] counts them): the machines hold a JSON call until its arguments parse, so
//! only a call that was streamed already (`streamArguments`) may end that way.

use crate::api::{Delta, Diagnostic, Message};
use crate::parse::json_complete::{complete, Completion};

/// The exit check of one parse.
#[derive(Debug, Clone, Default)]
pub struct ExitCheck {
    /// Diagnostics of the calls it closed or found broken.
    diagnostics: Vec<Diagnostic>,
    /// Calls whose arguments could not be made valid by appending.
    broken: usize,
}

impl ExitCheck {
    /// The end of the output (`end`: its length in bytes): append to `out` what makes every call
    /// of `message` (the message the deltas so far build) whole. (Not called for a partial request,
    /// `isPartial`: its text is a snapshot of a stream that goes on.)
    pub fn finish(&mut self, message: &Message, end: usize, out: &mut Vec<Delta>) {
        for (index, call) in message.tool_calls.iter().enumerate() {
            let args = &call.function.arguments;
            let name = &call.function.name;
            match complete(args) {
                Completion::Valid => {}
                Completion::Append(suffix) => {
                    let what = if args.trim().is_empty() {
                        format!("tool call {index} ({name}) has no arguments: `{suffix}` appended")
                    } else {
                        format!("tool call {index} ({name}): its arguments end inside a JSON value; closed to valid JSON by appending `{suffix}`")
                    };
                    self.diagnostics.push(Diagnostic::new(end, what));
                    out.push(Delta::ToolCall { index, id: None, name: None, arguments: Some(suffix) });
                }
                Completion::Broken(why) => {
                    self.broken += 1;
                    self.diagnostics.push(Diagnostic::new(end, format!("tool call {index} ({name}): its arguments are not valid JSON ({why}) and no appended text can make them valid")));
                }
            }
        }
    }

    /// What the check reported.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// How many calls' arguments stayed invalid.
    pub fn broken(&self) -> usize {
        self.broken
    }
}
