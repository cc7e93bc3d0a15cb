//! The guarantees checked where calls leave the parser (issue #24): one choke point, called by
//! `StreamParser::finish` for every format (dedicated ones and declared response templates included)
//! and so for both the streaming and the whole-text API.
//!
//! At the end of the output every call's `arguments` is valid JSON and never `""`; arguments that are
//! valid JSON but not an object are reported (rule R37: held calls are kept as content before this). Deltas already
//! sent cannot be taken back, so the fix is *appended*, as one more argument delta of that call, and
//! the deltas still rebuild the message exactly: a call with no argument text gets `{}` (a call
//! written without arguments, no diagnostic); a call whose
//! arguments stop inside a JSON value (cut off by the end of the output, or ended by a marker in the
//! middle of a value) is closed by [`json_complete::complete`] (open strings, arrays and objects
//! closed; a dangling key or separator given `null`), with a diagnostic saying what was appended.
//! A call cut off by the end of the output this way (the last thing the output wrote) makes the
//! parse end with `finishReason` `"length"` (a strict request fails), as when a machine itself
//! finds the output ended inside a call. Arguments that no appended text can make valid are only
//! reported by a diagnostic: no machine writes them (the JSON machines hold a call until its
//! arguments parse, literal arguments are written through [`crate::parse::json_complete::JsonPrefix`],
//! tagged values are checked one by one), and the mutation fuzzing (`examples/mutation_census.rs`,
//! `tests/exit_guarantees.rs`) finds none.

use crate::api::{Delta, Diagnostic, Message};
use crate::parse::json_complete::{complete, Completion};

/// The exit check of one parse.
#[derive(Debug, Clone, Default)]
pub struct ExitCheck {
    /// Diagnostics of the calls it closed or found broken.
    diagnostics: Vec<Diagnostic>,
}

impl ExitCheck {
    /// The end of the output (`end`: its length in bytes): append to `out` what makes every call
    /// of `message` (the message the deltas so far build) whole. `last_call`: the call the last
    /// delta before the end belonged to (none when text came after it). Returns true when that call
    /// was cut off by the end of the output: its arguments stopped inside a JSON value. (Not called
    /// for a partial request, `isPartial`: its text is a snapshot of a stream that goes on.)
    pub fn finish(&mut self, message: &Message, end: usize, last_call: Option<usize>, out: &mut Vec<Delta>) -> bool {
        let mut cut_off = false;
        for (index, call) in message.tool_calls.iter().enumerate() {
            let args = &call.function.arguments;
            let name = &call.function.name;
            match complete(args) {
                Completion::Valid => {
                    // Held JSON calls are checked before they go out (rule R37); one that went out
                    // already (streamed arguments, a dedicated format) can only be reported.
                    if !args.trim_start().starts_with('{') {
                        self.diagnostics.push(Diagnostic::new(end, format!("tool call {index} ({name}): its arguments are valid JSON but not an object (rule R37)")));
                    }
                }
                Completion::Append(suffix) => {
                    let last = last_call == Some(index) && !args.trim().is_empty();
                    cut_off |= last;
                    let what = match () {
                        // A call written without arguments (`{"name": "f"}`): not a departure.
                        _ if args.trim().is_empty() => None,
                        _ if last => Some(format!("tool call {index} ({name}) is cut off by the end of the output inside its arguments; closed to valid JSON by appending `{suffix}` (rule R53)")),
                        _ => Some(format!("tool call {index} ({name}): its arguments end inside a JSON value; closed to valid JSON by appending `{suffix}` (rule R53)")),
                    };
                    self.diagnostics.extend(what.map(|what| Diagnostic::new(end, what)));
                    out.push(Delta::ToolCall { index, id: None, name: None, arguments: Some(suffix) });
                }
                Completion::Broken(why) => {
                    self.diagnostics.push(Diagnostic::new(end, format!("tool call {index} ({name}): its arguments are not valid JSON ({why}) and no appended text can make them valid")));
                }
            }
        }
        cut_off
    }

    /// What the check reported.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}
