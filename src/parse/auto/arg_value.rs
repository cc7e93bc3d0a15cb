//! The reader of one argument value of a tagged or literal call (`<parameter=city>Paris</parameter>`,
//! `city="Paris"`): its state, made afresh by the argument-name step for each argument, and what it
//! does with the value's text. The call's arguments text is passed in; the value owns the rest.

use super::untyped_value::Sniff;
use crate::parse::json::{escape_inner, Feed, PyToJson};
use crate::parse::literal::LiteralValue;
use super::scalar_coercion::{Scalar, ScalarHold};

/// A string value's raw wrapper (`<![CDATA[…]]>`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RawWrap {
    /// Not looked for yet.
    #[default]
    Unchecked,
    /// Absent, or closed.
    Outside,
    Inside,
}

/// One argument value being read.
#[derive(Debug, Clone, Default)]
pub struct ArgValue {
    /// Written as a JSON string (escaped as it streams); otherwise a typed value, held.
    pub is_string: bool,
    /// Nothing of the value was read yet.
    pub empty: bool,
    pub raw_wrap: RawWrap,
    /// A typed (non-string) tagged value's text, held until its end: it is written to the arguments
    /// only once known to be JSON (else as a JSON string), so `arguments` is always valid JSON.
    pub typed_raw: String,
    /// Where the held typed value began (for its diagnostic).
    pub typed_at: usize,
    /// Literal-syntax value scanner.
    pub literal: LiteralValue,
    /// The literal value held for a conversion to its schema's type (rule R49).
    pub scalar: ScalarHold,
    /// A tagged value without a schema, maybe JSON (rule R14, `untyped_value.rs`).
    pub sniff: Sniff,
}

impl ArgValue {
    /// A value written as a string (`is_string`) or typed; `scalar`: its schema's one scalar type in a
    /// literal call (rule R49); `sniff`: how a schema-less or nullable value is decided (rule R14).
    pub fn new(is_string: bool, scalar: Option<Scalar>, sniff: Sniff) -> Self {
        ArgValue { is_string, empty: true, scalar: ScalarHold::new(scalar), sniff, ..ArgValue::default() }
    }

    /// A piece of the value's text (starting at input offset `abs`): escaped into `args` for a string,
    /// held for a typed value.
    pub fn push_piece(&mut self, piece: &str, abs: usize, args: &mut String) {
        if piece.is_empty() {
            return;
        }
        self.empty = false;
        if self.is_string {
            escape_inner(piece, args);
        } else {
            self.hold(piece, abs);
        }
    }

    /// Hold a piece of a typed (or not yet decided) value's text.
    pub fn hold(&mut self, piece: &str, abs: usize) {
        if self.typed_raw.is_empty() {
            self.typed_at = abs;
        }
        self.typed_raw.push_str(piece);
    }

    /// One character of a literal value into `args` (or into the R49 hold).
    pub fn feed_literal(&mut self, c: char, delim: &str, args: &mut String) -> Feed {
        match self.scalar.buffer_for(c, delim) {
            Some(held) => self.literal.feed(c, delim, held),
            None => self.literal.feed(c, delim, args),
        }
    }

    /// The output ended inside a literal value: closed into `args` (or the hold) when it is whole there.
    pub fn finish_literal(&mut self, args: &mut String) -> bool {
        let whole = self.literal.complete_at_eof();
        if whole {
            match self.scalar.buffer() {
                Some(held) => self.literal.finish(held),
                None => self.literal.finish(args),
            }
        }
        whole
    }

    /// Write the held typed value into `args`: its JSON form (Python literals mapped) when that parses
    /// as JSON, else the text as a JSON string, and then the offset where it began for the diagnostic
    /// (`3 days`, `N/A` for an integer parameter; rule R14).
    pub fn finish_typed(&mut self, args: &mut String) -> Option<usize> {
        let raw = std::mem::take(&mut self.typed_raw);
        if raw.is_empty() {
            return None;
        }
        let mut norm = PyToJson::default();
        let mut json = String::new();
        for c in raw.chars() {
            norm.push(c, &mut json);
        }
        norm.flush(&mut json);
        if serde_json::from_str::<serde_json::Value>(&json).is_ok() {
            args.push_str(&json);
            None
        } else {
            args.push_str(&serde_json::Value::from(raw.trim()).to_string());
            Some(self.typed_at)
        }
    }
}
