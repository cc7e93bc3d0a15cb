//! The request layer: everything one request needs, built from the stages below it.
//!
//! [`ChatTemplate`] is a compiled [`Template`] plus its differential [`Analysis`], computed once on
//! first use and cached here (the template stage knows nothing of analysis). For a request
//! ([`RequestOptions`]) it gives the generation prompt ([`prompt`]), the output parser
//! ([`StreamParser`], built by the template's output format) and the grammar. The JS binding, the CLI
//! and [`verify_template`] go through this layer only.

mod compiled;
mod parser_cache;
#[cfg(feature = "full")]
mod prompt;
#[cfg(feature = "full")]
mod prompt_cache;
mod prompt_tail;
mod stream;
#[cfg(feature = "full")]
mod template;
#[cfg(feature = "full")]
mod verify;

pub use compiled::CompiledParser;
#[cfg(feature = "full")]
pub use prompt::{generation_prompt, request_prompt};
pub use stream::{parse_output, StreamParser};
#[cfg(feature = "full")]
pub use template::ChatTemplate;
#[cfg(feature = "full")]
pub use verify::{fixture_tools, mismatch, verify_template, PartStatus, Verified, VerifyReport, VerifyResult};

