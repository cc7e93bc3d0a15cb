//! `reasoningFormat` means the same for every output format. With the message under `auto` as the
//! reference:
//! - `deepseek` is `auto`;
//! - `none` extracts nothing: no `reasoning_content`, the reasoning (with its markers) stays in content;
//! - `deepseek-legacy` reports reasoning as `auto` does and content as `none` does;
//! - tool calls do not depend on it (names and arguments; generated ids follow the text before the
//!   call, and `deepseek-legacy` gets the ids of `none`, whose content it has);
//! and each holds streamed byte by byte as well as whole.

use chat_autoparser::api::{Message, ReasoningFormat, RequestOptions};
use chat_autoparser::response_template::{declared_stream_parser, parse_response_as, parse_response_with, response_template, CompiledTemplate, ResponseTemplateOptions};
use chat_autoparser::{ChatTemplate, RenderOptions, StreamParser};
use serde_json::{json, Value};
use std::rc::Rc;

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
            "headed segments",
            "{%- for m in messages %}{% if m.role == 'assistant' %}{% if m.reasoning_content %}<|im_start|>assistant/think\n{{ m.reasoning_content }}<|im_end|>\n{% endif %}{% if m.content %}<|im_start|>assistant\n{{ m.content }}<|im_end|>\n{% endif %}{% if m.tool_calls %}<|im_start|>assistant -> tool/function_call\n{{ m.tool_calls | map(attribute='function') | list | tojson }}<|im_end|>\n{% endif %}{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant{% endif %}",
            "/think\nLet me think.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]<|im_end|>",
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

fn options(format: ReasoningFormat) -> RequestOptions {
    let tools = vec![json!({ "type": "function", "function": { "name": "get_weather", "parameters": { "type": "object", "properties": { "city": { "type": "string" } } } } })];
    RequestOptions { tools, reasoning_format: format, ..Default::default() }
}

fn parse(t: &ChatTemplate, output: &str, format: ReasoningFormat, chunk: usize) -> Message {
    run(t.stream_parser(&options(format)).expect("parser"), output, chunk)
}

/// `output` streamed in chunks of `chunk` bytes.
fn run(mut p: StreamParser, output: &str, chunk: usize) -> Message {
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

/// Declared response templates (issue #24) go through the emitter: for each case, the template's own
/// derived `response_template`, declared, places reasoning as the template's parser does under every
/// `reasoningFormat` — as a request's parser (`parseOutput` / `StreamParser` of a `ChatTemplate` built
/// with it; streamed byte by byte as well as whole) and through `parseResponse` (its dict's `thinking`
/// and `content`). The declared template's text is stripped region by region and keeps no delimiters,
/// so what is compared is where the reasoning goes, not the bytes around it.
#[test]
fn reasoning_format_means_the_same_for_declared_response_templates() {
    let mut failures = Vec::new();
    for (name, source, output, reasoning) in cases() {
        let t = ChatTemplate::new(source, RenderOptions::default()).expect("compiles");
        let derived = response_template(&t, &ResponseTemplateOptions::default()).expect("derives").response_template;
        // A reply the spec cannot express (headed segments: no region, the losses say why) has no
        // declared template to compare.
        if derived.get("fields").and_then(|f| f.as_object()).is_some_and(|f| f.is_empty()) {
            continue;
        }
        let declared = Rc::new(CompiledTemplate::from_value(&derived).expect("a valid template"));
        let mut check = |ok: bool, what: String| {
            if !ok {
                failures.push(format!("{name}: {what}"));
            }
        };
        let in_content = |content: &str| !reasoning.is_empty() && content.contains(reasoning);
        let mut declared_calls = Vec::new();
        for format in FORMATS {
            let ours = parse(&t, output, format, usize::MAX);
            let opts = options(format);
            let prompt = t.generation_prompt(&opts).expect("a generation prompt");
            let by_declared = |chunk| run(declared_stream_parser(declared.clone(), &prompt, &opts).expect("parser"), output, chunk);
            let whole = by_declared(usize::MAX);
            check(by_declared(1) == whole, format!("{format:?}: the declared parser streamed byte by byte differs from whole"));
            check(whole.reasoning_content.trim() == ours.reasoning_content.trim(), format!("{format:?}: reasoning {:?}, parseOutput's {:?}", whole.reasoning_content, ours.reasoning_content));
            check(in_content(&whole.content) == in_content(&ours.content), format!("{format:?}: content {:?}, parseOutput's {:?}", whole.content, ours.content));
            declared_calls.push(whole.tool_calls.iter().map(|c| (c.function.name.clone(), c.function.arguments.clone())).collect::<Vec<_>>());

            // Where transformers raises (a template the derivation reports unsupported), so does every format.
            let dict = parse_response_as(declared.clone(), output, &prompt, &opts.tools, format);
            let Ok(transformers) = parse_response_with(declared.clone(), output, &prompt, &opts.tools) else {
                check(dict.is_err(), format!("{format:?}: parseResponse parses what transformers does not"));
                continue;
            };
            let dict = dict.expect("parses as transformers does");
            let field = |key: &str| dict.get(key).and_then(Value::as_str).unwrap_or("").trim().to_string();
            check(field("thinking") == ours.reasoning_content.trim(), format!("{format:?}: parseResponse's thinking {:?}, parseOutput's reasoning {:?}", field("thinking"), ours.reasoning_content));
            check(in_content(&field("content")) == in_content(&ours.content), format!("{format:?}: parseResponse's content {:?}, parseOutput's {:?}", field("content"), ours.content));
            if matches!(format, ReasoningFormat::Auto | ReasoningFormat::Deepseek) {
                check(dict == transformers, format!("{format:?}: parseResponse is transformers' dict"));
            }
        }
        check(declared_calls.iter().all(|c| c == &declared_calls[0]), format!("tool calls depend on reasoningFormat: {declared_calls:?}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same with a hand-written declared template (transformers' Qwen3 one: reasoning and tool calls,
/// no content field) over a template whose prompt opens reasoning, as `pkg-tests/response-template.test.mjs`
/// checks it through the package.
#[test]
fn reasoning_format_places_reasoning_alike_for_a_declared_qwen3_template() {
    let source = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance/templates/Qwen3.5-4B.jinja")).expect("vendored");
    let t = ChatTemplate::new(&source, RenderOptions::default()).expect("compiles");
    let rt = json!({
        "defaults": { "role": "assistant" },
        "start_anchor": "<|im_start|>assistant\n",
        "fields": { "thinking": { "open": "<think>", "close": "</think>", "content": "text" } },
    });
    let declared = Rc::new(CompiledTemplate::from_value(&rt).expect("valid"));
    let output = "hmm</think>\n\nHi";
    for format in FORMATS {
        let opts = RequestOptions { reasoning_format: format, ..Default::default() };
        let prompt = t.generation_prompt(&opts).expect("prompt");
        let ours = run(t.stream_parser(&opts).expect("parser"), output, usize::MAX);
        let by_declared = run(declared_stream_parser(declared.clone(), &prompt, &opts).expect("parser"), output, usize::MAX);
        let dict = parse_response_as(declared.clone(), output, &prompt, &[], format).expect("parses");
        let extracted = format != ReasoningFormat::None;
        let inline = matches!(format, ReasoningFormat::None | ReasoningFormat::DeepseekLegacy);
        assert_eq!(ours.reasoning_content.is_empty(), !extracted, "{format:?}: {ours:?}");
        assert_eq!(by_declared.reasoning_content, ours.reasoning_content, "{format:?}");
        assert_eq!(dict.get("thinking").and_then(Value::as_str).unwrap_or(""), ours.reasoning_content, "{format:?}: {dict}");
        assert_eq!(ours.content.contains("hmm"), inline, "{format:?}: {ours:?}");
        assert_eq!(by_declared.content.contains("hmm"), inline, "{format:?}: {by_declared:?}");
        assert_eq!(dict.get("content").and_then(Value::as_str).unwrap_or("").contains("hmm"), inline, "{format:?}: {dict}");
    }
}
