//! JSON written where the template writes tagged arguments (`TAG_WITH_TAGGED`, issue #13):
//! - rule R26, a JSON object after a tagged call's name, where its first argument marker is due
//!   (`<function=f>{"city": "Paris"}</function>`): the call's arguments, read (and held until
//!   whole and valid) as any JSON arguments, then the call's closing markers as usual;
//! - rule R23, a JSON call object (`{"name": …, "arguments": …}`) right after a tagged call's
//!   opening marker, instead of the name (`<tool_call>{"name": "f", …}</tool_call>`): read as a
//!   JSON call, then the call's end marker.
//!
//! Both are decided on the first non-space byte being `{`, derived from the analysed layout alone.
//! A call object read by R23 goes out only once the object is closed (its arguments whole is not
//! enough): `{"name": "f", "arguments": {}</tool_call>` is broken JSON, all of it content.

use super::tool::ToolStep;
use super::{AutoParser, State, Step};
use crate::findings::ToolFormat;
use crate::parse::config::ToolConfig;
use crate::parse::jsoncall::JsonCall;
use crate::parse::json::JsonValue;
use crate::text::is_space;

/// Tagged arguments (name and value markers), not a literal call.
pub(super) fn tagged(t: &ToolConfig) -> bool {
    t.format == ToolFormat::TagWithTagged && !t.literal && !t.arg_name_prefix.is_empty()
}

/// Where `text` opens a JSON object (first non-space byte `{`): the bytes before it. `Err(true)`
/// while only whitespace is known and more may come.
fn json_object_at(text: &str, eof: bool) -> Result<usize, bool> {
    let rest = text.trim_start_matches(is_space);
    match rest.chars().next() {
        Some('{') => Ok(text.len() - rest.len()),
        None => Err(!eof),
        Some(_) => Err(false),
    }
}

impl AutoParser {
    /// A JSON call object read by rule R23 whose closing brace is not read yet: held (not committed)
    /// even once its arguments are whole, so an object that breaks after them stays content. At the
    /// end of the output (`flush_partial`) it goes out as a cut-off call; with `streamArguments` it goes out
    /// at its name as any streamed JSON call.
    pub(super) fn json_call_in_tagged_open(&self) -> bool {
        self.call.json.in_tagged && self.state == State::Tool(ToolStep::JsonObj) && !self.flush_partial && self.holds_json_call()
    }

    /// Where a tagged call's first argument marker is due (`ArgNext`, no argument yet): a JSON
    /// object is the call's arguments (rule R26). `None` lets the tagged step run; the call's
    /// header goes out then (it waits for this decision, so a JSON call can still be held).
    pub(super) fn json_body_in_tagged(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        if !tagged(t) || self.call.arg_count > 0 || self.call.header_ready {
            return None;
        }
        match json_object_at(text, eof) {
            Ok(skip) => {
                self.diag(abs + skip, "a JSON object as a tagged call's arguments, where the template writes argument markers (rule R26)");
                self.call.json.is_object = true;
                self.call.header_ready = true;
                self.call.json.value = JsonValue::default();
                self.state = State::Tool(ToolStep::JsonArgs);
                Some(Step::Adv(skip))
            }
            Err(true) => Some(Step::Wait),
            Err(false) => {
                self.call.header_ready = true;
                None
            }
        }
    }

    /// Where a tagged call's name (or its name marker) is due right after the call's opening
    /// marker: a JSON call object instead (rule R23). `None` lets the tagged step run.
    pub(super) fn json_call_in_tagged(&mut self, step: ToolStep, text: &str, abs: usize, eof: bool) -> Option<Step> {
        let t = self.cfg.tools.as_ref()?;
        // The call is opened and closed by markers of its own; an opener that names the call as an
        // attribute (`<invoke name="`) is followed by the name itself.
        let opened = !t.per_call_start.is_empty() && !t.per_call_end.is_empty() && !t.per_call_start.core.ends_with(['=', '"', '\'']);
        let due = match step {
            ToolStep::NamePrefix => !t.name_prefix.is_empty(),
            ToolStep::Name => t.name_prefix.is_empty(),
            _ => false,
        };
        if !tagged(t) || !opened || !due || self.call.data.tool.is_some() {
            return None;
        }
        match json_object_at(text, eof) {
            Ok(skip) => {
                self.diag(abs + skip, "a JSON tool call object where the template writes a tagged call (rule R23)");
                self.call.json.object = JsonCall::default();
                self.call.json.in_tagged = true;
                self.state = State::Tool(ToolStep::JsonObj);
                Some(Step::Adv(skip))
            }
            Err(true) => Some(Step::Wait),
            Err(false) => None,
        }
    }
}
