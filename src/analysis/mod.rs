//! Differential template analysis.

pub mod types;

pub use types::*;
