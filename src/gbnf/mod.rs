//! GBNF grammars for constrained decoding: an IR, a printer, JSON Schema conversion, tool-call
//! grammars built from an [`Analysis`](crate::analysis::Analysis), and a checker.

pub mod builder;
pub mod check;
pub mod ir;
pub mod print;
pub mod schema;
pub mod tools;

pub use builder::GrammarBuilder;
pub use check::{check_grammar, CheckResult, ParsedGrammar};
pub use ir::{Expr, Rule};
pub use schema::SchemaConverter;
pub use tools::{build_grammar, Grammar, Trigger, TriggerKind};
