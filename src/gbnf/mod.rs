//! GBNF grammars for constrained decoding: an IR, a printer, JSON Schema conversion, the tool-call
//! grammar toolkit the output formats build with, and a checker. This stage knows no output format.
//!
//! Pipeline: `ir` (`Expr`, `Rule`) → `builder` (names, shared JSON rules, `until` automata) →
//! `print` (the only place that escapes). `schema`, `literal` and `tools` build IR; `check` parses
//! any llama.cpp GBNF text and recognizes texts with an Earley parser.
//!
//! # Limits
//! - Schemas: `pattern`, `format` and numeric bounds are accepted as the plain type.
//! - The checker treats `<token>` as its text, `<[id]>` as unmatchable and `!<…>` as any character.
//! - The checker is quadratic on right-recursive rules (the `until` automata of raw values): texts of
//!   several thousand characters inside one such rule hit [`MAX_ITEMS`] and return a `Limit` error.

mod builder;
mod check;
mod ir;
mod literal;
mod print;
mod schema;
mod schema_check;
mod tools;

pub use builder::GrammarBuilder;
pub use check::{check_grammar, CheckResult, ParsedGrammar, MAX_ITEMS, MAX_STEPS};
pub use ir::{Expr, Rule};
pub use literal::value as literal_value;
pub use schema::SchemaConverter;
pub use schema_check::check_schema;
pub use tools::{join_optional, json_str, leading_token, parse_tools, regex_escape, token_units, Grammar, Shape, Tool, ToolGrammar, Trigger, TriggerKind};
