//! `reasoningFormat` means the same for every output format. With the message under `auto` as the
//! reference:
//! - `deepseek` is `auto`;
//! - `none` extracts nothing: no `reasoning_content`, the reasoning (with its markers) stays in content;
//! - `deepseek-legacy` reports reasoning as `auto` does and content as `none` does;
//! - tool calls do not depend on it (names and arguments; generated ids follow the text before the
//!   call, and `deepseek-legacy` gets the ids of `none`, whose content it has);
//! and each holds streamed byte by byte as well as whole.

use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions};
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::json;

const FORMATS: [ReasoningFormat; 4] = [ReasoningFormat::None, ReasoningFormat::Auto, ReasoningFormat::Deepseek, ReasoningFormat::DeepseekLegacy];

/// (format name, template source, model output, the reasoning text the output holds)
fn cases() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    vec![
        (
            "auto (think tags)",
            "{%- for m in messages %}<|im_start|>{{ m.role }}\n{% if m.role == 'assistant' and m.reasoning_content %}<think>\n{{ m.reasoning_content }}\n</think>\n\n{% endif %}{{ m.content }}{% if m.tool_calls %}{% for c in m.tool_calls %}<tool_call>\n{\"name\": \"{{ c.function.name }}\", \"arguments\": {{ c.function.arguments | tojson }}}\n</tool_call>{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
            "<think>\nLet me think.\n</think>\n\nHello!<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "Let me think.",
        ),
        (
            "auto (prompt opens reasoning)",
            "{%- for m in messages %}<|im_start|>{{ m.role }}\n{% if m.role == 'assistant' %}<think>\n{{ m.reasoning_content }}\n</think>\n\n{% endif %}{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}",
            "Let me think.\n</think>\n\nHello!",
            "Let me think.",
        ),
        (
            "harmony",
            "{%- for m in messages %}<|start|>{{ m.role }}{% if m.role == 'assistant' %}<|channel|>final{% endif %}<|message|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|start|>assistant{% endif %}{# <|constrain|> <|call|> #}",
            "<|channel|>analysis<|message|>Let me think.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            "Let me think.",
        ),
        (
            "ministral",
            "[SYSTEM_PROMPT]{% for m in messages %}{% if m.role == 'user' %}[INST]{{ m.content }}[/INST]{% else %}{{ m.content }}{% endif %}{% endfor %}{# [TOOL_CALLS] [ARGS] #}",
            "[THINK]Let me think.[/THINK]Hello![TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}",
            "Let me think.",
        ),
        (
            "functionary",
            "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{% endfor %}{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n>>>{% endif %}{# '>>>' recipient #}",
            "all\nHello!>>>get_weather\n{\"city\": \"Paris\"}",
            "",
        ),
    ]
}

fn parse(t: &ChatTemplate, output: &str, format: ReasoningFormat, chunk: usize) -> Message {
    let tools = vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": { "city": { "type": "string" } } } } })];
    let options = RequestOptions { tools, reasoning_format: format, ..Default::default() };
    let mut p = t.stream_parser(&options).expect("parser");
    let mut rest = output;
    while !rest.is_empty() {
        let mut end = chunk.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        p.push(&rest[..end]);
        rest = &rest[end..];
    }
    p.finish().expect("finishes");
    p.message().clone()
}

#[test]
fn reasoning_format_means_the_same_for_every_output_format() {
    let mut failures = Vec::new();
    for (name, source, output, reasoning) in cases() {
        let t = ChatTemplate::new(source, RenderOptions::default()).expect("compiles");
        let whole: Vec<Message> = FORMATS.iter().map(|&f| parse(&t, output, f, usize::MAX)).collect();
        for (f, m) in FORMATS.iter().zip(&whole) {
            let streamed = parse(&t, output, *f, 1);
            if &streamed != m {
                failures.push(format!("{name} {f:?}: streamed {streamed:?} != whole {m:?}"));
            }
        }
        let [none, auto, deepseek, legacy] = &whole[..] else { unreachable!() };
        let mut check = |ok: bool, what: &str| {
            if !ok {
                failures.push(format!("{name}: {what}\n  none {none:?}\n  auto {auto:?}\n  legacy {legacy:?}"));
            }
        };
        check(auto.reasoning_content.trim() == reasoning, "auto extracts the reasoning");
        check(deepseek == auto, "deepseek is auto");
        check(none.reasoning_content.is_empty(), "none extracts nothing");
        check(reasoning.is_empty() || none.content.contains(reasoning), "none keeps the reasoning in content");
        check(legacy.reasoning_content == auto.reasoning_content, "deepseek-legacy reports reasoning as auto");
        check(legacy.content == none.content, "deepseek-legacy keeps content as none");
        check(auto.tool_calls.len() == usize::from(output.contains("get_weather")), "the tool call is found");
        let calls = |m: &Message| m.tool_calls.iter().map(|c| (c.function.name.clone(), c.function.arguments.clone())).collect::<Vec<_>>();
        for m in [none, legacy] {
            check(calls(m) == calls(auto), "tool calls do not depend on reasoningFormat");
        }
        check(legacy.tool_calls == none.tool_calls, "deepseek-legacy gets the ids of none");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
