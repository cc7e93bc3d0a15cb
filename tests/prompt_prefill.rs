//! The parser starts where the generation prompt ended, and nothing the prompt wrote becomes part of the
//! message: with thinking off, a template that closes an empty reasoning block in the prompt
//! (`<think>\n\n</think>\n`) must not hand the whitespace after `</think>` to the model's content.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::parse_chunked;

#[test]
fn whitespace_after_a_closed_prompt_reasoning_block_is_not_content() {
    for template in ["HuggingFaceTB-SmolLM3-3B.jinja", "Qwen-Qwen3-0.6B.jinja"] {
        let options = RequestOptions { enable_thinking: Some(false), ..Default::default() };
        let (m, _) = parse_chunked(template, &options, "hello", &[1, 2]);
        assert_eq!((m.content.as_str(), m.reasoning_content.as_str()), ("hello", ""), "{template}");
        // What the model itself writes after the prompt is kept exactly.
        let (m, _) = parse_chunked(template, &options, "\nhello\n", &[1, 2]);
        assert_eq!(m.content, "\nhello\n", "{template}");
    }
}

#[test]
fn model_text_after_its_own_reasoning_is_kept() {
    let options = RequestOptions { enable_thinking: Some(true), ..Default::default() };
    let (m, _) = parse_chunked("HuggingFaceTB-SmolLM3-3B.jinja", &options, "<think>x</think>\nhello", &[1, 3]);
    assert_eq!((m.content.as_str(), m.reasoning_content.as_str()), ("\nhello", "x"));
}
