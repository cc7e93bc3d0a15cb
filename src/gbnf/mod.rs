//! GBNF grammars for constrained decoding: an IR, a printer, JSON Schema conversion, tool-call
//! grammars built from an [`Analysis`](crate::analysis::Analysis), and a checker.
//!
//! Pipeline: [`ir`] (`Expr`, `Rule`) → [`builder`] (names, shared JSON rules, `until` automata) →
//! [`print`](mod@print) (the only place that escapes). [`schema`] and [`tools`] build IR; [`check`] parses any
//! llama.cpp GBNF text and recognizes texts with an Earley parser.
//!
//! # Limits
//! - Schemas: `pattern`, `format` and numeric bounds are accepted as the plain type.
//! - The checker treats `<token>` as its text, `<[id]>` as unmatchable and `!<…>` as any character.
//! - The checker is quadratic on right-recursive rules (the `until` automata of raw values): texts of
//!   several thousand characters inside one such rule hit [`check::MAX_ITEMS`] and return a `Limit` error.

pub mod builder;
pub mod check;
pub mod ir;
pub mod literal;
pub mod print;
pub mod schema;
pub mod tools;

pub use builder::GrammarBuilder;
pub use check::{check_grammar, CheckResult, ParsedGrammar};
pub use ir::{Expr, Rule};
pub use schema::SchemaConverter;
pub use tools::{build_grammar, Grammar, Trigger, TriggerKind};
