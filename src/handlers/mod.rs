//! Dedicated parsers for the three output formats the differential analysis cannot describe:
//! GPT-OSS harmony channels, Functionary v3.2 `>>>recipient` blocks and Ministral/Magistral 3
//! `[THINK]` / `[TOOL_CALLS]name[ARGS]` output.
//!
//! [`detect_handler`] recognises them from features of the template *source* (the special tokens the
//! template writes), never from file or model names; [`make_parser`] builds the matching
//! [`OutputParser`]. Everything else goes through the general analysis ([`Handler::Autoparser`]).
//!
//! # Usage
//! ```
//! use chat_autoparser::api::{Message, RequestOptions};
//! use chat_autoparser::handlers::{detect_handler, make_parser};
//!
//! let template = "{{ '<|start|>assistant<|channel|>final<|message|>' }}…<|constrain|>…<|call|>";
//! let handler = detect_handler(template);
//! let gp = "<|start|>assistant";
//! let mut parser = make_parser(handler, &RequestOptions::default(), gp);
//! let mut deltas = Vec::new();
//! parser.push(gp, &mut deltas);
//! for chunk in ["<|channel|>analysis<|message|>Hmm<|end|>", "<|start|>assistant<|channel|>final<|mess", "age|>Hi!"] {
//!     parser.push(chunk, &mut deltas);
//! }
//! parser.finish(false, &mut deltas).unwrap();
//! let msg = Message::from_deltas(&deltas);
//! assert_eq!((msg.reasoning_content.as_str(), msg.content.as_str()), ("Hmm", "Hi!"));
//! ```

use crate::analysis::Handler;
use crate::api::RequestOptions;
use crate::parse::generic::{GenericConfig, GenericParser};
use crate::parse::OutputParser;

mod call_args;
pub mod functionary;
pub mod harmony;
pub mod ministral;

pub use functionary::FunctionaryParser;
pub use harmony::HarmonyParser;
pub use ministral::MinistralParser;

/// Which dedicated handler, if any, a template needs, judged from its source text.
///
/// - Ministral 3: writes `[SYSTEM_PROMPT]`, `[TOOL_CALLS]` and `[ARGS]` but no `[CALL_ID]` (the
///   variants with call ids are described well enough by the general analysis).
/// - GPT-OSS: harmony channels (`<|channel|>`) together with `<|constrain|>` or `<|call|>`.
/// - Functionary v3.2: `>>>` used as a recipient prefix (`'>>>' + name` / `>>>all`).
pub fn detect_handler(source: &str) -> Handler {
    let has = |s: &str| source.contains(s);
    if has("[SYSTEM_PROMPT]") && has("[TOOL_CALLS]") && has("[ARGS]") && !has("[CALL_ID]") {
        Handler::Ministral3
    } else if has("<|channel|>") && (has("<|constrain|>") || has("<|call|>")) {
        Handler::GptOss
    } else if has(">>>all") || has("'>>>'") || has("\">>>\"") {
        Handler::FunctionaryV32
    } else {
        Handler::Autoparser
    }
}

/// The output parser for `handler`. `generation_prompt` is the prompt's tail that the parser is fed
/// before the model output (llama.cpp parses `generation_prompt + output`, so a continued message's
/// prefill is part of the result). Options used: `reasoningFormat` (`none` keeps reasoning, with its
/// markers, in content) and `jsonSchema` (a fenced JSON answer is unwrapped); `isPartial` is passed to
/// [`OutputParser::finish`]. Tool calls are recognised whether or not `tools` were given, so pasted
/// output is never silently turned into content. For [`Handler::Autoparser`] this returns the
/// template-free [`GenericParser`]; the analysis-driven parser lives elsewhere.
pub fn make_parser(handler: Handler, options: &RequestOptions, generation_prompt: &str) -> Box<dyn OutputParser> {
    let reasoning = options.reasoning_format;
    let json = options.json_schema.is_some();
    match handler {
        Handler::GptOss => Box::new(HarmonyParser::new(reasoning, json)),
        Handler::FunctionaryV32 => Box::new(FunctionaryParser::new(reasoning, json, generation_prompt)),
        Handler::Ministral3 => Box::new(MinistralParser::new(reasoning, json)),
        Handler::Autoparser => {
            Box::new(GenericParser::new(GenericConfig { reasoning, json_response: json, ..GenericConfig::default() }))
        }
    }
}

/// The generation prompt for a continued assistant message under a dedicated handler: the
/// template's own prompt (`generation_prompt`) plus the prefill's `reasoning` and — when content
/// is continued — `content`, written as the handler's format writes them. `None` for
/// [`Handler::Autoparser`] (the analysis' markers rebuild it; see `parse::generation_prompt`).
pub fn continuation_prefill(handler: Handler, generation_prompt: &str, reasoning: &str, content: Option<&str>) -> Option<String> {
    match handler {
        Handler::GptOss => Some(harmony::continuation_prefill(generation_prompt, reasoning, content)),
        Handler::FunctionaryV32 => Some(functionary::continuation_prefill(generation_prompt, content)),
        Handler::Ministral3 => Some(ministral::continuation_prefill(generation_prompt, reasoning, content)),
        Handler::Autoparser => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_prefills_follow_each_format() {
        let h = |handler, gp, r, c| continuation_prefill(handler, gp, r, c).unwrap_or_default();
        assert_eq!(
            h(Handler::GptOss, "<|start|>assistant", "R", Some("C")),
            "<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>C"
        );
        assert_eq!(h(Handler::GptOss, "<|start|>assistant", "R", None), "<|start|>assistant<|channel|>analysis<|message|>R");
        assert_eq!(h(Handler::GptOss, "<|start|>assistant", "", Some("C")), "<|start|>assistant<|channel|>final<|message|>C");
        assert_eq!(h(Handler::FunctionaryV32, "X\n\n>>>", "R", Some("C")), "X\n\n>>>all\nC");
        assert_eq!(h(Handler::Ministral3, "", "R", Some("C")), "[THINK]R[/THINK]C");
        assert_eq!(h(Handler::Ministral3, "", "R", None), "[THINK]R");
        assert_eq!(h(Handler::Ministral3, "", "", Some("C")), "C");
        assert!(continuation_prefill(Handler::Autoparser, "", "R", None).is_none());
    }
}
