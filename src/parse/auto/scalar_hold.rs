//! Rule R49 in the literal argument reader (`parse::scalar_coercion`): a value of a parameter whose
//! schema declares one scalar type is held while it is read, unless its first character shows it
//! needs nothing (a string for a string parameter streams as ever), and written once it ends:
//! converted where that is exact, else as written. Nothing of a held value went out before, so a
//! stream and a whole parse write the same arguments.

use crate::parse::scalar_coercion::{coerce, Scalar};
use crate::text::is_space;

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
