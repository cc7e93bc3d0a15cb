//! The reader of a call written as JSON: a JSON call object (`{"name": …, "arguments": …}`, whatever
//! the format: also rules R16, R18, R23) or a tagged call's JSON arguments. Its state lives here; the
//! checks that decide whether the call may go out are in `json_hold.rs`, the departures it allows in
//! `json_departures.rs` and `wrapped_args.rs`.

use crate::parse::json::JsonValue;
use crate::parse::jsoncall::JsonCall;

#[derive(Debug, Clone, Default)]
pub struct JsonRead {
    /// The call object's scanner.
    pub object: JsonCall,
    /// A tagged call's JSON arguments value (TAG_WITH_JSON).
    pub value: JsonValue,
    /// The call is read as a JSON call object, so its arguments are JSON.
    pub is_object: bool,
    /// A JSON call object read where the template writes a tagged call (rule R23): the call's own
    /// end marker closes it.
    pub in_tagged: bool,
    /// The arguments' first byte was looked at; they open as a JSON string, held (rule R17).
    pub args_checked: bool,
    pub args_string: bool,
    /// The arguments' opening was looked at for a wrapper key; they open with it, held (rule R38).
    pub wrap_checked: bool,
    pub wrap_held: bool,
    /// The one-object-for-an-array departure was reported (rule R16).
    pub object_not_array_said: bool,
    /// Why the call failed, in more words than the step's static message (serde's JSON error).
    pub fail_detail: Option<String>,
    /// The JSON arguments were checked (once, when they ended, before a held call goes out).
    pub args_validated: bool,
    /// JSON argument text already streamed before the check (`stream_arguments`), for the check.
    pub args_sent: String,
}
