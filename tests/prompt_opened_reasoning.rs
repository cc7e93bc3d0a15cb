//! Analysis rule R6 (`src/analysis/unrendered_reasoning.rs`): a template whose generation prompt ends
//! by opening a tag a past reply does not show (OLMo 3 Think: `<|im_start|>assistant\n<think>`)
//! starts the reply inside that block; `</tag>` ends it as reasoning. A tag that past
//! turns show too is a role tag, not reasoning.

use chat_autoparser::analysis::ReasoningMode;
use chat_autoparser::api::RequestOptions;
use chat_autoparser::{generation_prompt, ChatTemplate, RenderOptions, StreamParser};

const THINKER: &str = "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>\n' }}{% endfor %}\
{% if add_generation_prompt %}{{ '<|im_start|>assistant\n<think>' }}{% endif %}";

/// The same shape where `<bot>` opens every assistant turn, past ones included.
const ROLE_TAG: &str = "{% for m in messages %}{% if m['role'] == 'user' %}{{ 'User: ' + m['content'] + '\n' }}{% else %}{{ '<bot>' + m['content'] + '\n' }}{% endif %}{% endfor %}\
{% if add_generation_prompt %}{{ '<bot>' }}{% endif %}";

fn parse(source: &str, output: &str) -> (String, String) {
    let t = ChatTemplate::new(source, RenderOptions::default()).unwrap();
    let options = RequestOptions::default();
    let a = t.analysis().unwrap();
    let gp = generation_prompt(&t, a, &options).unwrap();
    let mut p = StreamParser::new(a, &gp, &options).unwrap();
    p.push(output);
    p.finish().unwrap();
    (p.message().content.clone(), p.message().reasoning_content.clone())
}

#[test]
fn a_tag_the_prompt_opens_and_never_closes_is_reasoning() {
    let t = ChatTemplate::new(THINKER, RenderOptions::default()).unwrap();
    let a = t.analysis().unwrap();
    assert_eq!(a.reasoning.mode, ReasoningMode::TagBased);
    assert_eq!((a.reasoning.start.as_str(), a.reasoning.end.as_str()), ("<think>", "</think>"));
    assert!(a.diagnostics.iter().any(|d| d.contains("generation prompt opens")), "{:?}", a.diagnostics);
    assert_eq!(parse(THINKER, "Plan it.</think>The answer."), ("The answer.".into(), "Plan it.".into()));
}

#[test]
fn a_role_tag_past_turns_show_is_not_reasoning() {
    let t = ChatTemplate::new(ROLE_TAG, RenderOptions::default()).unwrap();
    assert_eq!(t.analysis().unwrap().reasoning.mode, ReasoningMode::None);
    assert_eq!(parse(ROLE_TAG, "Hello.").0, "Hello.");
}
