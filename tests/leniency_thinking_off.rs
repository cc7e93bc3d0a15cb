//! Rule R27 (README "Leniency"): a reasoning block in the output of a request that turned thinking
//! off is read as reasoning with a diagnostic (the canonical output has none); the prompt's own
//! closed block is no departure.

mod common;

use chat_autoparser::api::RequestOptions;
use common::leniency::{has, parse_chunked};

const QWEN3: &str = "Qwen-Qwen3-0.6B.jinja";
const HUNYUAN_A13B: &str = "Tencent-Hunyuan-A13B.jinja";

/// What each template writes after its reasoning end marker.
fn blank_after(template: &str) -> &'static str {
    if template == QWEN3 { "\n\n" } else { "\n" }
}

fn thinking(on: Option<bool>) -> RequestOptions {
    RequestOptions { enable_thinking: on, ..Default::default() }
}

#[test]
fn a_reasoning_block_with_thinking_off_is_reasoning_and_says_so() {
    for template in [QWEN3, HUNYUAN_A13B] {
        let (m, d) = parse_chunked(template, &thinking(Some(false)), &format!("<think>\nhmm\n</think>{}It is sunny.", blank_after(template)), &[1, 3]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("hmm", "It is sunny."), "{template}");
        assert!(has(&d, "R27"), "{template}: {d:?}");
    }
}

#[test]
fn the_prompt_s_own_closed_block_and_thinking_on_are_no_departure() {
    for template in [QWEN3, HUNYUAN_A13B] {
        let (m, d) = parse_chunked(template, &thinking(Some(false)), "It is sunny.", &[1, 3]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("", "It is sunny."), "{template}");
        assert!(d.is_empty(), "{template}: {d:?}");
        let (m, d) = parse_chunked(template, &thinking(Some(true)), &format!("<think>\nhmm\n</think>{}It is sunny.", blank_after(template)), &[1, 3]);
        assert_eq!((m.reasoning_content.as_str(), m.content.as_str()), ("hmm", "It is sunny."), "{template}");
        assert!(!has(&d, "R27"), "{template}: {d:?}");
    }
}
