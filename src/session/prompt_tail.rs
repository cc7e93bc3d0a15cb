//! The generation prompt without a template to render: a continued message's, rebuilt from the prompt's
//! tail (shared with the rendering request layer), and a parser spec's (`chat-autoparser/parser`).

use crate::api::{text_of, RequestOptions};
use crate::findings::{Analysis, ParserSpec};
use crate::formats::format_of;

/// `generation_prompt` as the request's output continues it: for a continued assistant message
/// (`continue_final_message`), rebuilt from that message as llama.cpp does; otherwise as it is.
pub fn continued(analysis: &Analysis, options: &RequestOptions, generation_prompt: String) -> String {
    let Some(msg) = options.continued_message() else { return generation_prompt };
    let content = options.continued_content();
    let reasoning = text_of(msg.get("reasoning_content"));
    format_of(analysis.handler).continuation_prefill(analysis, &generation_prompt, &reasoning, content.as_deref())
}

/// The generation prompt of a request parsed by `spec`: the caller's `generationPrompt`, else the
/// tail the template appends in the request's thinking mode (rendered when the spec was compiled), then
/// as [`continued`] makes it. What the request layer renders for the same request as long as the tail
/// does not depend on its conversation, tools or extra context (the spec's renders had one user
/// message, no tools and none).
pub fn spec_generation_prompt(spec: &ParserSpec, options: &RequestOptions) -> String {
    let tail = match &options.generation_prompt {
        Some(given) => given.clone(),
        None => spec.generation_prompts.for_thinking(options.enable_thinking).to_string(),
    };
    continued(&spec.analysis, options, tail)
}
