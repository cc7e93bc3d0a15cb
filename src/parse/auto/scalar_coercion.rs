//! Rule R49: a literal argument value of another scalar type than the one its schema declares.
//!
//! Models that write arguments in a literal syntax (pythonic calls, Gemma's `{key:<|"|>…<|"|>}`) pick
//! each value's type by how they spell it, and sometimes spell it against the schema: `value='25'`
//! for an integer parameter, `enabled='true'` for a boolean, `count=5` for a string. A value is
//! converted to the declared type only where the conversion is exact — the text the model wrote is
//! the new value's own spelling (`'25'` → `25`, `5` → `"5"`, `True` → `"True"`) — so nothing it wrote
//! is lost; anything else is kept as written. JSON arguments are never converted (a JSON value's
//! type is what the model wrote: llama.cpp and the OpenAI API keep it).
//!
//! Configuration half: [`Scalar::of_schema`], each parameter's one scalar type (`ToolDef::scalar_params`).
//! Run-time half: [`ScalarHold`] in the literal argument reader (`arg_value.rs`): a value of such a
//! parameter is held while it is read, unless its first character shows it needs nothing (a string
//! for a string parameter streams as ever), and written once it ends: converted where that is exact,
//! else as written. Nothing of a held value went out before, so a stream and a whole parse write the
//! same arguments.

use crate::text::is_space;
use serde_json::Value;

/// A schema's one scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    String,
    Integer,
    Number,
    Boolean,
}

impl Scalar {
    /// The one scalar type `schema` declares (`{"type": "integer"}`), if that is all it declares.
    pub fn of_schema(schema: &Value) -> Option<Scalar> {
        let obj = schema.as_object()?;
        if ["anyOf", "oneOf", "allOf", "enum", "const"].iter().any(|k| obj.contains_key(*k)) {
            return None;
        }
        match obj.get("type")?.as_str()? {
            "string" => Some(Scalar::String),
            "integer" => Some(Scalar::Integer),
            "number" => Some(Scalar::Number),
            "boolean" => Some(Scalar::Boolean),
            _ => None,
        }
    }

    /// Whether a value of this type is written as a string.
    pub fn is_string(self) -> bool {
        self == Scalar::String
    }
}

/// The JSON of `json` (one whole value, read from the literal `written`) converted to `target`,
/// when it is a scalar of another type and the conversion is exact; `None` keeps it as it is.
pub fn coerce(json: &str, written: &str, target: Scalar) -> Option<String> {
    let value: Value = serde_json::from_str(json).ok()?;
    match (target, &value) {
        // A bare word for a string parameter: its text as written (`True`, `None`, `007`).
        (Scalar::String, Value::Number(_) | Value::Bool(_) | Value::Null) => Some(Value::from(written.trim()).to_string()),
        (Scalar::Integer, Value::String(s)) => is_integer(s).then(|| s.clone()),
        (Scalar::Number, Value::String(s)) => is_number(s).then(|| s.clone()),
        (Scalar::Boolean, Value::String(s)) => match s.as_str() {
            "true" | "True" => Some("true".into()),
            "false" | "False" => Some("false".into()),
            _ => None,
        },
        _ => None,
    }
}

/// `-?(0|[1-9][0-9]*)`: the one spelling of an integer, which a double holds exactly.
fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    canonical && s.parse::<i64>().is_ok_and(|n| n.unsigned_abs() <= 1 << 53)
}

/// A JSON number's text, with no blanks around it.
fn is_number(s: &str) -> bool {
    s.trim() == s && !s.is_empty() && serde_json::from_str::<serde_json::Number>(s).is_ok()
}

#[derive(Debug, Clone, Default)]
enum Hold {
    /// Nothing to convert: the value is written as it is read.
    #[default]
    Off,
    /// Before the value's first character.
    Undecided(Scalar),
    /// The value's JSON and the literal the model wrote, held until the value ends.
    Held { target: Scalar, json: String, written: String },
}

#[derive(Debug, Clone, Default)]
pub struct ScalarHold(Hold);

impl ScalarHold {
    /// For an argument whose schema declares `target` (none: nothing to convert).
    pub fn new(target: Option<Scalar>) -> Self {
        ScalarHold(target.map_or(Hold::Off, Hold::Undecided))
    }

    /// Before the literal reader reads `c` (strings open with a quote or `delim`): where the JSON it
    /// writes goes — the held buffer, or `None` for the arguments.
    pub fn buffer_for(&mut self, c: char, delim: &str) -> Option<&mut String> {
        if let Hold::Undecided(target) = self.0 {
            if is_space(c) {
                return None;
            }
            let string = c == '\'' || c == '"' || (!delim.is_empty() && delim.starts_with(c));
            self.0 = if target.is_string() && string { Hold::Off } else { Hold::Held { target, json: String::new(), written: String::new() } };
        }
        match &mut self.0 {
            Hold::Held { json, written, .. } => {
                written.push(c);
                Some(json)
            }
            _ => None,
        }
    }

    /// `c` (the last character passed to [`Self::buffer_for`]) was not part of the value.
    pub fn unread_last(&mut self) {
        if let Hold::Held { written, .. } = &mut self.0 {
            written.pop();
        }
    }

    /// Where the held value's JSON goes while the reader finishes it at the end of the output.
    pub fn buffer(&mut self) -> Option<&mut String> {
        match &mut self.0 {
            Hold::Held { json, .. } => Some(json),
            _ => None,
        }
    }

    /// The value ended: its JSON goes into `args`, converted when `whole` and the conversion is
    /// exact. Returns the diagnostic of a conversion.
    pub fn release(&mut self, args: &mut String, whole: bool) -> Option<String> {
        let Hold::Held { target, json, written } = std::mem::take(&mut self.0) else { return None };
        match coerce(&json, &written, target).filter(|_| whole) {
            Some(converted) => {
                args.push_str(&converted);
                Some(format!("argument value {:?} of {} parameter read as {converted} (rule R49)", written.trim(), name(target)))
            }
            None => {
                args.push_str(&json);
                None
            }
        }
    }
}

fn name(s: Scalar) -> &'static str {
    match s {
        Scalar::String => "a string",
        Scalar::Integer => "an integer",
        Scalar::Number => "a number",
        Scalar::Boolean => "a boolean",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_conversions_only() {
        assert_eq!(coerce("\"25\"", "'25'", Scalar::Integer).as_deref(), Some("25"));
        assert_eq!(coerce("\"025\"", "'025'", Scalar::Integer), None);
        assert_eq!(coerce("\"2.5\"", "'2.5'", Scalar::Integer), None);
        assert_eq!(coerce("\"2.5\"", "'2.5'", Scalar::Number).as_deref(), Some("2.5"));
        assert_eq!(coerce("\" 2\"", "' 2'", Scalar::Number), None);
        assert_eq!(coerce("\"true\"", "'true'", Scalar::Boolean).as_deref(), Some("true"));
        assert_eq!(coerce("\"yes\"", "'yes'", Scalar::Boolean), None);
        assert_eq!(coerce("5", "5", Scalar::String).as_deref(), Some("\"5\""));
        assert_eq!(coerce("true", "True", Scalar::String).as_deref(), Some("\"True\""));
        assert_eq!(coerce("null", "None", Scalar::String).as_deref(), Some("\"None\""));
        assert_eq!(coerce("\"x\"", "'x'", Scalar::String), None);
        assert_eq!(coerce("25", "25", Scalar::Integer), None);
        assert_eq!(coerce("[1]", "[1]", Scalar::String), None);
    }

    #[test]
    fn only_a_schema_of_one_scalar_type() {
        assert_eq!(Scalar::of_schema(&json!({"type": "integer"})), Some(Scalar::Integer));
        assert_eq!(Scalar::of_schema(&json!({"type": ["integer", "null"]})), None);
        assert_eq!(Scalar::of_schema(&json!({"type": "string", "enum": ["a"]})), None);
        assert_eq!(Scalar::of_schema(&json!({"type": "object"})), None);
        assert_eq!(Scalar::of_schema(&json!({"anyOf": [{"type": "string"}]})), None);
    }
}
