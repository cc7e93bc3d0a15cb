//! A generation prompt that opens a tag the template never closes (`<|im_start|>assistant\n<think>`
//! with no `</think>` anywhere, as AllenAI's OLMo thinker templates write): the reply starts inside
//! it, so the analysis reads it as the reasoning opener and `</x>` as its end (analysis rule R6 of
//! `unrendered_reasoning.rs`). A tag the template closes elsewhere is not taken.

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{ChatTemplate, RenderOptions};

fn template(prompt_end: &str, extra: &str) -> ChatTemplate {
    let src = format!(
        "{{% for m in messages %}}<|im_start|>{{{{ m.role }}}}\n{{{{ m.content }}}}<|im_end|>\n{{% endfor %}}{extra}{{% if add_generation_prompt %}}<|im_start|>assistant\n{prompt_end}{{% endif %}}"
    );
    ChatTemplate::new(&src, RenderOptions::default()).expect("compiles")
}

fn parse(t: &ChatTemplate, output: &str) -> (String, String) {
    let mut p = t.stream_parser(&RequestOptions::default()).expect("parser");
    for c in output.chars() {
        p.push(&c.to_string());
    }
    p.finish().expect("never throws on model output");
    (p.message().reasoning_content.clone(), p.message().content.clone())
}

#[test]
fn an_unclosed_tag_opened_by_the_generation_prompt_is_the_reasoning() {
    let t = template("<think>", "");
    let a = t.analysis().expect("analysis");
    assert_eq!((a.reasoning.start.as_str(), a.reasoning.end.as_str()), ("<think>", "</think>"));
    assert!(a.diagnostics.iter().any(|d| d.contains("generation prompt opens `<think>`")), "{:?}", a.diagnostics);
    assert_eq!(parse(&t, "plan</think>Answer."), ("plan".to_string(), "Answer.".to_string()));
}

#[test]
fn a_tag_the_template_closes_is_not_taken() {
    // `</answer>` is in the source: the prompt's `<answer>` is the template's own wrapper, not reasoning.
    let t = template("<answer>", "{% if false %}</answer>{% endif %}");
    assert!(t.analysis().expect("analysis").reasoning.start.is_empty());
    assert_eq!(parse(&t, "plan</answer>x").1, "plan</answer>x");
    // A prompt that ends with no tag at all.
    let t = template("", "");
    assert!(t.analysis().expect("analysis").reasoning.start.is_empty());
}
