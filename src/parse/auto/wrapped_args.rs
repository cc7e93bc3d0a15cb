//! Arguments written under a wrapper key (rule R38): a call whose only argument is `properties`
//! holding an object (LFM2 writes `get_weather(properties={"location": "Tokyo"})`, the JSON
//! Schema's own word for the parameters) is read as that object's arguments, when the declared tool
//! has no `properties` parameter and the object's keys are parameters it declares (or it declares
//! none). An arguments-encoding step: it reads the call's argument text as every call syntax writes
//! it (JSON, pythonic, `key=value`, tagged), so it applies to all of them. Argument text that opens
//! with the `properties` key is held (not streamed) until the arguments end; any other goes out as
//! before.

use super::AutoParser;
use serde_json::Value;

/// The wrapper key.
const WRAPPER: &str = "properties";

/// Whether argument text `args` opens with the wrapper key: `Some(true)`, `Some(false)`, `None`
/// while it may still (only blanks, `{`, or a prefix of the key so far).
fn opens_with_wrapper(args: &str) -> Option<bool> {
    let text = args.trim_start();
    let Some(rest) = text.strip_prefix('{') else { return if text.is_empty() { None } else { Some(false) } };
    let rest = rest.trim_start();
    let key = format!("\"{WRAPPER}\"");
    match () {
        _ if rest.starts_with(&key) => Some(true),
        _ if key.starts_with(rest) => None,
        _ => Some(false),
    }
}

impl AutoParser {
    /// Whether the call's argument text is held back now (called before each flush of argument
    /// text, after rule R17's hold): text that opens with the wrapper key waits for the arguments'
    /// end, then goes out unwrapped when it is the sole argument of a tool that does not declare it.
    pub(super) fn hold_wrapped_arguments(&mut self) -> bool {
        if self.call.json.wrap_checked && !self.call.json.wrap_held {
            return false;
        }
        if !self.call.json.wrap_held {
            let tool = self.call.data.tool.and_then(|i| self.tools().and_then(|t| t.tools.get(i)));
            let candidate = match tool {
                Some(def) if !def.declares(WRAPPER) => opens_with_wrapper(&self.call.data.args),
                _ => Some(false),
            };
            match candidate {
                None if !self.call.data.args_complete => return true,
                Some(true) => self.call.json.wrap_held = true,
                _ => {
                    self.call.json.wrap_checked = true;
                    return false;
                }
            }
            self.call.json.wrap_checked = true;
        }
        if !self.call.data.args_complete {
            return true;
        }
        self.call.json.wrap_held = false;
        self.unwrap_arguments();
        false
    }

    /// The call broke or the output ended: held text goes out (unwrapped if whole).
    pub(super) fn release_wrapped_arguments(&mut self) {
        if self.call.json.wrap_held && self.call.data.args_complete {
            self.hold_wrapped_arguments();
        }
        self.call.json.wrap_held = false;
        self.call.json.wrap_checked = true;
    }

    /// Whole arguments `{"properties": {…}}`: the inner object, when its keys fit the tool.
    fn unwrap_arguments(&mut self) {
        let Ok(Value::Object(mut outer)) = serde_json::from_str::<Value>(&self.call.data.args) else { return };
        if outer.len() != 1 {
            return;
        }
        let Some(Value::Object(inner)) = outer.remove(WRAPPER) else { return };
        let tool = self.call.data.tool.and_then(|i| self.tools().and_then(|t| t.tools.get(i)));
        let Some(def) = tool else { return };
        let none_declared = def.string_params.is_empty() && def.typed_params.is_empty();
        if !none_declared && !inner.keys().all(|k| def.declares(k)) {
            return;
        }
        self.call.data.args = Value::Object(inner).to_string();
        let at = self.call.start;
        self.diag(at, format!("tool-call arguments written as the only argument {WRAPPER:?}, which the tool does not declare: its object read as the arguments (rule R38)"));
    }
}
