//! # chat-autoparser
//!
//! Give it any LLM chat template (Jinja) and it works out — by rendering the template with controlled
//! variations and diffing the outputs, never by matching model names — how that model writes reasoning,
//! content and tool calls. From that analysis it parses model output (whole or streamed, in O(n)) into
//! OpenAI-style messages and deltas, and emits GBNF grammars for constrained tool calling.
//!
//! # Key types
//! - [`ChatTemplate`]: a compiled template; `render`, `caps`.
//! - [`Error`] / [`ErrorKind`]: the one error type.
//! - [`api`]: wire types (`Message`, `Delta`, `RequestOptions`).
//! - [`gbnf::build_grammar`] → [`gbnf::Grammar`]: GBNF, lazy triggers and preserved tokens for tool
//!   calls or a response schema; [`gbnf::check_grammar`] checks a text against any GBNF grammar.

pub mod analysis;
pub mod api;
pub mod gbnf;
pub mod handlers;
pub mod parse;
mod error;
pub mod response_template;
pub mod template;
pub mod verify;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::{Error, ErrorKind, Result};
pub use template::{render_template, ChatTemplate, RenderOptions};
pub use verify::{verify_template, VerifyReport, VerifyResult};

/// Crate version.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
