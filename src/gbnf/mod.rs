//! GBNF grammars for constrained decoding: an IR, a printer, JSON Schema conversion, tool-call
//! grammars built from an [`Analysis`](crate::analysis::Analysis), and a checker.

pub mod builder;
pub mod check;
pub mod ir;
pub mod print;
pub mod schema;

pub use builder::GrammarBuilder;
pub use check::{check_grammar, CheckResult, ParsedGrammar};
pub use ir::{Expr, Rule};
pub use schema::SchemaConverter;
