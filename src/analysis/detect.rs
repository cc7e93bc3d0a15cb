//! Dedicated handlers, chosen from features of the template source (never from names) for the
//! three formats the general analysis cannot express.

use crate::findings::Handler;

/// Which code path parses this template's output.
pub fn detect_handler(src: &str) -> Handler {
    // `[THINK]` reasoning plus `[TOOL_CALLS]name[ARGS]{…}` calls without call ids.
    if src.contains("[SYSTEM_PROMPT]") && src.contains("[TOOL_CALLS]") && src.contains("[ARGS]") && !src.contains("[CALL_ID]") {
        return Handler::Ministral3;
    }
    // Harmony: every message is `<|start|>role<|channel|>…<|message|>…`, routed by channel.
    if src.contains("<|channel|>") && src.contains("<|message|>") && src.contains("<|start|>") {
        return Handler::GptOss;
    }
    // Recipient routing: every assistant block is `>>>recipient\n…` (`all` for plain text).
    if src.contains(">>>") && src.contains("recipient") {
        return Handler::FunctionaryV32;
    }
    Handler::Autoparser
}

/// The decision once the renders were read: a template the source names no dedicated format for,
/// whose reply the renders show in headed segments (`analysis::segments`), is read as such.
pub fn with_read_structure(handler: Handler, headed_segments: bool) -> Handler {
    match handler {
        Handler::Autoparser if headed_segments => Handler::Segments,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_template_is_autoparser() {
        assert_eq!(detect_handler("{% for m in messages %}{{ m.content }}{% endfor %}"), Handler::Autoparser);
        assert_eq!(detect_handler("{{ '<|start|>' + role + '<|channel|>final<|message|>' }}"), Handler::GptOss);
    }
}
