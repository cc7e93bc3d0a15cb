//! Reasoning markers that only a generation prompt shows (no render of a past reply has them):
//! - the thinking-off prompt's empty block (`<think>\n\n</think>\n`, Hunyuan-A13B) gives both markers;
//! - a prompt that always opens a tag a past reply does not show (`<|im_start|>assistant\n<think>`,
//!   OLMo / Tülu thinker) opens reasoning, closed by the tag's pair (analysis rule R6 in
//!   `analysis/unrendered_reasoning.rs`).
//!
//! Outputs are parsed whole and in chunks of 1 and 3 characters.

mod common;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};
use common::leniency::{has, parse_chunked};

fn reasoning_markers(template: &str) -> (String, String) {
    let t = ChatTemplate::new(&common::template_source(template), RenderOptions::default()).expect("compiles");
    let r = &t.analysis().expect("analyses").reasoning;
    (r.start.clone(), r.end.clone())
}

#[test]
fn an_empty_block_in_the_thinking_off_prompt_gives_both_markers() {
    const HUNYUAN_A13B: &str = "Tencent-Hunyuan-A13B.jinja";
    assert_eq!(reasoning_markers(HUNYUAN_A13B), ("<think>\n".into(), "\n</think>\n".into()));
    // Its default prompt opens nothing: the model's block is read from its opener.
    let (m, d) = parse_chunked(HUNYUAN_A13B, &RequestOptions::default(), "<think>\nplan\n</think>\n<answer>\nSunny.\n</answer>", &[1, 3]);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("plan", "<answer>\nSunny.\n</answer>"));
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_tag_the_prompt_always_opens_is_reasoning() {
    for template in ["open-instruct-olmo_thinker.jinja", "open-instruct-tulu_thinker.jinja"] {
        assert_eq!(reasoning_markers(template).1, "</think>", "{template}");
        let options = RequestOptions::default();
        let (m, d) = parse_chunked(template, &options, "plan</think>Sunny.", &[1, 3]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("plan", "Sunny."), "{template}");
        assert!(d.is_empty(), "{template}: {d:?}");
        // The opener written again after the prompt's: dropped (rule R2), as for every template.
        let (m, d) = parse_chunked(template, &options, "<think>plan</think>Sunny.", &[1, 3]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("plan", "Sunny."), "{template}");
        assert!(has(&d, "R2"), "{template}: {d:?}");
    }
}

#[test]
fn a_prompt_that_opens_nothing_or_a_tag_the_history_shows_is_not_reasoning() {
    // ChatML without reasoning: its prompt ends with the reply's own prefix.
    assert_eq!(reasoning_markers("chujiezheng-chatml.jinja"), (String::new(), String::new()));
}
