//! The crate's one error type.
//!
//! Every fallible function returns [`Error`]; its [`ErrorKind`] lets callers (and JS, via the `kind`
//! property) branch without parsing messages. Display is `kind: detail`, plus `(line L, column C)` when
//! the error points into a template or an input text.

use std::fmt;

/// What went wrong, coarsely. New kinds may be added.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ErrorKind {
    /// The template does not parse (line and column are set when known).
    TemplateSyntax,
    /// The template raised an error while rendering (`raise_exception`, a bad filter call, …).
    Render,
    /// A resource limit for untrusted templates was hit (fuel, recursion, output size).
    Limit,
    /// An argument from the caller is invalid (wrong type, bad JSON, unknown option).
    InvalidInput,
    /// The template could not be analysed.
    Analysis,
    /// Model output could not be parsed (only in non-partial, non-streaming use).
    Parse,
    /// A GBNF grammar is invalid or could not be built.
    Grammar,
    /// A JSON schema is invalid or unsupported.
    Schema,
    /// A parser spec (`compileParser`) of a spec format version this build does not read.
    SpecVersion,
}

impl ErrorKind {
    /// Stable name of the kind, as exposed to JS (`err.kind`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TemplateSyntax => "TemplateSyntax",
            ErrorKind::Render => "Render",
            ErrorKind::Limit => "Limit",
            ErrorKind::InvalidInput => "InvalidInput",
            ErrorKind::Analysis => "Analysis",
            ErrorKind::Parse => "Parse",
            ErrorKind::Grammar => "Grammar",
            ErrorKind::Schema => "Schema",
            ErrorKind::SpecVersion => "SpecVersion",
        }
    }

    /// Human description of the kind.
    pub fn description(self) -> &'static str {
        match self {
            ErrorKind::TemplateSyntax => "template syntax error",
            ErrorKind::Render => "template render error",
            ErrorKind::Limit => "resource limit exceeded",
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::Analysis => "template analysis failed",
            ErrorKind::Parse => "output parse error",
            ErrorKind::Grammar => "grammar error",
            ErrorKind::Schema => "schema error",
            ErrorKind::SpecVersion => "parser spec of another version",
        }
    }
}

/// The error type of every fallible operation in this crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    detail: String,
    /// 1-based line and column in the template or input text the error refers to.
    location: Option<(usize, usize)>,
    /// Byte offset in the input text, for parse errors.
    offset: Option<usize>,
}

impl Error {
    /// A new error of `kind` with a detail message.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Error { kind, detail: detail.into(), location: None, offset: None }
    }

    /// Attach a 1-based line/column.
    pub fn with_location(mut self, line: usize, column: usize) -> Self {
        self.location = Some((line, column));
        self
    }

    /// Attach a byte offset into the parsed text.
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = Some(offset);
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The detail message, without the kind prefix.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// 1-based (line, column), if known.
    pub fn location(&self) -> Option<(usize, usize)> {
        self.location
    }

    /// Byte offset into parsed text, if known.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.description(), self.detail)?;
        if let Some((line, col)) = self.location {
            write!(f, " (line {line}, column {col})")?;
        } else if let Some(off) = self.offset {
            write!(f, " (at byte {off})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Shorthand result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::new(ErrorKind::InvalidInput, format!("invalid JSON: {e}"))
    }
}
