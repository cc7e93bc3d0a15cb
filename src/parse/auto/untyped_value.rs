//! Tagged argument values without a schema (rule R14), and `null` for a string parameter that admits it.
//!
//! A tagged value's type comes from the tool's JSON Schema; an argument the schema does not declare
//! (or a tool declared without parameters) has none, and its value is a string. Except when the
//! value is a whole JSON object or array (`[{"city": "Paris"}]`): models write structured values
//! that way and the other engines read them as JSON, so it is kept as JSON, with a diagnostic.
//! A value that only starts like JSON (`[1, 2` … `] and more`) stays the string it was written as.
//!
//! Streaming: such a value is held from its first byte until its first non-space character (a
//! string streams on from there, unchanged), and a JSON-looking one until its end, where the choice
//! is made; any chunking gives the same arguments. The held text is bounded by the value itself.

use super::tool::ToolStep;
use super::{AutoParser, State, Step};
use crate::parse::json::escape_inner;
use crate::parse::json_numbers::quote_overflowing_numbers;
use crate::text::is_space;

/// Where a schema-less tagged value stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sniff {
    /// A declared argument, or one already known to be a string: no sniffing.
    #[default]
    Off,
    /// Only whitespace seen so far (held in `typed_raw`).
    Pending,
    /// Starts with `{` or `[`: held whole until the value ends.
    Json,
    /// A string parameter that admits null: held while it can still be `null` (the template writes
    /// None so), then a string unless it is exactly that.
    Null,
}

impl AutoParser {
    /// One piece of a schema-less value (`piece`, up to `consumed` when the value ends there). Like
    /// `tagged_value`'s own tail: returns the step.
    pub(super) fn untyped_value(&mut self, piece: &str, abs: usize, consumed: Option<usize>, trail: &str) -> Step {
        let call = &mut self.call;
        if !piece.is_empty() {
            call.value.empty = false;
            call.value.hold(piece, abs);
        }
        if call.value.sniff == Sniff::Null && !"null".starts_with(call.value.typed_raw.trim_matches(is_space)) {
            call.value.sniff = Sniff::Off;
            call.data.args.push('"');
            escape_inner(&std::mem::take(&mut call.value.typed_raw), &mut call.data.args);
        }
        if call.value.sniff == Sniff::Pending {
            match call.value.typed_raw.trim_start_matches(is_space).chars().next() {
                Some('{' | '[') => call.value.sniff = Sniff::Json,
                Some(_) => {
                    // A string after all: what was held goes out, the rest streams as usual.
                    call.value.sniff = Sniff::Off;
                    call.data.args.push('"');
                    escape_inner(&std::mem::take(&mut call.value.typed_raw), &mut call.data.args);
                }
                None => {}
            }
        }
        match consumed {
            Some(e) => {
                self.finish_untyped_value();
                self.trail = trail.to_string();
                self.state = State::Tool(ToolStep::ArgNext);
                Step::Adv(e)
            }
            None if piece.is_empty() => Step::Wait,
            None => Step::Adv(piece.len()),
        }
    }

    /// The value ended (or the output did): JSON if the held text is a whole object or array, else
    /// the string it was written as. Also closes a value that streamed as a string.
    pub(super) fn finish_untyped_value(&mut self) {
        let raw = std::mem::take(&mut self.call.value.typed_raw);
        let sniff = std::mem::take(&mut self.call.value.sniff);
        let at = self.call.value.typed_at;
        if sniff == Sniff::Json {
            let text = raw.trim_matches(is_space);
            let mut parsed = serde_json::from_str::<serde_json::Value>(text).ok();
            if parsed.is_none() {
                // Numbers a double cannot hold, kept as the strings written (rule R44).
                parsed = quote_overflowing_numbers(text).and_then(|q| serde_json::from_str::<serde_json::Value>(&q).ok());
                if parsed.is_some() {
                    self.diag(at, "a number too large for a double in a JSON value: kept as the string written (rule R44)");
                }
            }
            if let Some(v) = parsed.filter(|v| v.is_object() || v.is_array()) {
                self.call.data.args.push_str(&v.to_string());
                let kind = if v.is_object() { "object" } else { "array" };
                self.diag(at, format!("argument without a schema holds a JSON {kind}: kept as JSON, not a string (rule R14)"));
                return;
            }
        }
        let args = &mut self.call.data.args;
        if sniff == Sniff::Null && raw.trim_matches(is_space) == "null" {
            args.push_str("null");
            return;
        }
        if sniff != Sniff::Off {
            args.push('"');
            escape_inner(&raw, args);
        }
        args.push('"');
    }
}

impl AutoParser {
    /// The output ended inside a schema-less value: the held text goes out as the string it began,
    /// as a string value cut off there would have. False when no schema-less value was held.
    pub(super) fn cut_untyped_value(&mut self) -> bool {
        let call = &mut self.call;
        if std::mem::take(&mut call.value.sniff) == Sniff::Off {
            return false;
        }
        call.data.args.push('"');
        escape_inner(&std::mem::take(&mut call.value.typed_raw), &mut call.data.args);
        true
    }
}
