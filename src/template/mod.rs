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

/// Python's `repr` of a JSON value as a template prints it inside a container (`{'k': True}`, `'it'`):
/// what the grammar accepts where a template writes values with `str()`.
pub(crate) fn python_repr(v: &serde_json::Value) -> String {
    let mut out = String::new();
    let _ = env::python_repr(&mut out, &minijinja::Value::from(minijinja::value::Serde(v)), false, 0);
    out
}
