//! Chat-template rendering, configured like Hugging Face transformers' Jinja2 environment.

mod caps;
mod env;
mod pylist;
mod render;
mod tojson;

pub use caps::Caps;
pub use render::{render_template, Template, RenderOptions};
