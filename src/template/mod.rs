//! Chat-template rendering, configured like Hugging Face transformers' Jinja2 environment.

mod caps;
mod env;
mod markup;
mod nesting;
mod pyfilters;
mod pysource;
mod pyformat;
mod pylist;
mod pymethods;
mod pyoperators;
mod render;
mod tojson;

pub use caps::Caps;
pub use nesting::MAX_EXPRESSION_DEPTH;
pub use render::{render_template, RenderOptions, Template};
