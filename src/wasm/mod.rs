//! The JS binding: a thin layer over the core. Compiled only for wasm32.
//!
//! Two modules are built from it: the full package (`full`: templates, analysis, grammars, response
//! templates, parsing; the default `full` feature) and the parse-only `chat-autoparser/parser` (`parser`:
//! parsing from a compiled parser spec; `--no-default-features --features parser`). Both parse through
//! `parsing`, over the same core `StreamParser`.

mod convert;
#[cfg(feature = "full")]
mod declared;
#[cfg(feature = "full")]
mod full;
#[cfg(not(feature = "full"))]
mod parser;
mod parsing;
mod recent;
#[cfg(feature = "full")]
mod registry;
mod request_options;
