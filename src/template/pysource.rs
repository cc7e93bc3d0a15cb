//! What Python Jinja2's lexer does to the template source before anything renders.

use std::borrow::Cow;

/// Jinja2 rewrites every line break in template text and string literals (`\r\n`, `\r`, `\n`) to the
/// environment's `newline_sequence`, `\n` (transformers does not change it). Templates saved with CRLF
/// line endings therefore render with `\n`. Line breaks elsewhere (between tag tokens) are whitespace
/// either way, so normalising the whole source is equivalent.
pub fn normalize_newlines(source: &str) -> Cow<'_, str> {
    if !source.contains('\r') {
        return Cow::Borrowed(source);
    }
    Cow::Owned(source.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    #[test]
    fn crlf_and_cr_in_text_and_literals_render_as_lf() {
        let src = "a\r\nb\r{{ 'x\r\ny' }}{% if true %}\r\nc{% endif %}";
        let out = render_template(src, &json!({}), RenderOptions::default()).unwrap();
        // trim_blocks removes the first newline after a block tag, as Jinja2 does after normalising.
        assert_eq!(out, "a\nb\nx\nyc");
        // An escaped `\r` in a string literal is not a line break in the source and stays.
        assert_eq!(render_template("{{ 'a\\rb' }}", &json!({}), RenderOptions::default()).unwrap(), "a\rb");
    }
}

#[cfg(test)]
mod self_reference {
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    #[test]
    fn self_attributes_are_undefined_as_in_a_template_without_blocks() {
        let out = render_template("[{{ self.DEFAULT_SYSTEM_MESSAGE }}]", &json!({}), RenderOptions::default()).unwrap();
        assert_eq!(out, "[]");
    }
}
