//! Post-analysis patches for templates whose renders do not reveal what the model writes.
//!
//! Each entry is keyed on a feature of the template SOURCE (never a model name), says why the
//! differential analysis cannot see the truth, and is recorded by name in `Analysis.workarounds`
//! when applied. Keep this list short: a new entry is a last resort after improving the analysis.

use super::types::{Analysis, ContentMode, ReasoningMode, ToolFormat};

struct Workaround {
    name: &'static str,
    /// Applies the patch if the source has the feature; true when applied.
    apply: fn(&str, &mut Analysis) -> bool,
}

const WORKAROUNDS: &[Workaround] = &[
    // Templates that strip `…</think>` from past turns (`content.split('</think>')`) never render
    // reasoning, but their models write it. Keyed on the split on a closing tag; the tag name is
    // taken from the source, so any `<x>…</x>` pair works.
    Workaround { name: "reasoning tag stripped from history", apply: stripped_reasoning_tag },
    // The system prompt tells the model to write `<think>…</think><response>…</response>`, but no
    // rendered turn contains these tags.
    Workaround { name: "think/response tags instructed in the system prompt", apply: instructed_think_response },
    // The assistant turn is `<|CHATBOT_TOKEN|>text<|END_OF_TURN_TOKEN|>`; the turn marker is in the
    // common prefix of every probe so the content analysis cannot see it as a wrapper.
    Workaround { name: "chatbot-token turns wrap content", apply: chatbot_token_content },
    // `<function=name>{json}</function>` calls are rendered by a macro that the content probe also
    // hits; the renders make the section/call split ambiguous.
    Workaround { name: "function-tag calls without a section", apply: function_tag_calls },
    // A DeepSeek-style template that renders calls as `<｜tool▁call▁begin｜>type<｜tool▁sep｜>name
    // ```json …```` with the tool type where a name marker would be expected.
    Workaround { name: "fullwidth tool-call markers with type prefix", apply: fullwidth_tool_markers },
    // Every assistant turn is rendered as `<think>\n` + content (reasoning_content is dropped) and
    // calls as `<TOOLCALL>[…]</TOOLCALL>` glued to the end-of-turn token, so neither the reasoning
    // tags nor the call markers can be separated by diffing. Keyed on the template's special tokens.
    Workaround { name: "numbered special-token turns with <TOOLCALL> arrays", apply: special_token_toolcall },
    // The `<|im_assistant|>…<|im_middle|>` protocol with `<|tool_calls_section_begin|>` calls: this
    // template drops reasoning_content entirely, but the protocol's thinking variant renders
    // `<think>…</think>` before the answer and checkpoints sharing the tokens write it; nothing
    // rendered shows the tags. Keyed on the protocol tokens and the absence of any think tag.
    Workaround { name: "im_middle protocol without rendered reasoning writes <think>", apply: im_middle_think },
];

/// Apply every matching workaround; returns the names applied.
pub fn apply(src: &str, a: &mut Analysis) -> Vec<String> {
    WORKAROUNDS.iter().filter(|w| (w.apply)(src, a)).map(|w| w.name.to_string()).collect()
}

fn push_tokens(a: &mut Analysis, tokens: &[&str]) {
    for t in tokens {
        if !a.preserved_tokens.iter().any(|x| x == t) {
            a.preserved_tokens.push(t.to_string());
        }
    }
}

fn stripped_reasoning_tag(src: &str, a: &mut Analysis) -> bool {
    if a.reasoning.mode != ReasoningMode::None || src.contains("reasoning_content") {
        return false;
    }
    let Some(close) = ["content.split('</", "content.split(\"</"].iter().find_map(|pat| {
        let at = src.find(pat)? + pat.len();
        let name_len = src[at..].find('>')?;
        Some(src[at..at + name_len].to_string())
    }) else {
        return false;
    };
    if close.is_empty() || close.contains(['\'', '"', ' ']) {
        return false;
    }
    a.reasoning.mode = ReasoningMode::TagBased;
    a.reasoning.start = format!("<{close}>");
    a.reasoning.end = format!("</{close}>");
    let (s, e) = (a.reasoning.start.clone(), a.reasoning.end.clone());
    push_tokens(a, &[&s, &e]);
    true
}

fn instructed_think_response(src: &str, a: &mut Analysis) -> bool {
    if !src.contains("Write your thoughts between <think></think> and write your response between <response></response>") {
        return false;
    }
    a.reasoning.mode = ReasoningMode::TagBased;
    a.reasoning.start = "<think>".into();
    a.reasoning.end = "</think>".into();
    a.content.mode = ContentMode::WrappedWithReasoning;
    a.content.start = "<response>".into();
    a.content.end = "</response>".into();
    push_tokens(a, &["<think>", "</think>", "<response>", "</response>"]);
    true
}

fn chatbot_token_content(src: &str, a: &mut Analysis) -> bool {
    if !(src.contains("<|CHATBOT_TOKEN|>") && src.contains("<|END_OF_TURN_TOKEN|>") && a.content.start.is_empty()) {
        return false;
    }
    a.content.mode = ContentMode::AlwaysWrapped;
    a.content.start = "<|CHATBOT_TOKEN|>".into();
    a.content.end = "<|END_OF_TURN_TOKEN|>".into();
    a.user_start = "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>".into();
    push_tokens(a, &["<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"]);
    true
}

fn function_tag_calls(src: &str, a: &mut Analysis) -> bool {
    if !src.contains("set has_code_interpreter = tools | selectattr(\"type\", \"equalto\", \"code_interpreter\") | list | length > 0") {
        return false;
    }
    a.content.mode = ContentMode::Plain;
    a.content.end.clear();
    let t = &mut a.tools;
    t.function.name_prefix.clear();
    t.format.section_start.clear();
    t.format.section_end.clear();
    t.format.per_call_start = "<function=".into();
    t.format.per_call_end = "</function>".into();
    t.function.close.clear();
    a.preserved_tokens = ["<|eot_id|>", "<|eom_id|>", "<function=", ">", "</function>"].iter().map(|s| s.to_string()).collect();
    true
}

fn fullwidth_tool_markers(src: &str, a: &mut Analysis) -> bool {
    if !src.contains("{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>'") {
        return false;
    }
    let t = &mut a.tools;
    t.format.section_start = "<｜tool▁calls▁begin｜>".into();
    t.format.section_end = "<｜tool▁calls▁end｜>".into();
    t.format.per_call_start = "<｜tool▁call▁begin｜>function".into();
    t.function.name_prefix = "<｜tool▁sep｜>".into();
    t.format.per_call_end = "<｜tool▁call▁end｜>".into();
    t.function.close = "```".into();
    true
}

fn special_token_toolcall(src: &str, a: &mut Analysis) -> bool {
    if !["<SPECIAL_10>", "<SPECIAL_11>", "<SPECIAL_12>", "<TOOL_RESPONSE>"].iter().all(|m| src.contains(m)) {
        return false;
    }
    let f = &mut a.tools.format;
    f.mode = ToolFormat::JsonNative;
    f.section_start.clear();
    f.section_end.clear();
    f.per_call_start = "<TOOLCALL>".into();
    f.per_call_end = "</TOOLCALL>".into();
    f.tools_array_wrapped = true;
    a.content.mode = ContentMode::Plain;
    a.content.start.clear();
    a.content.end.clear();
    a.reasoning.mode = ReasoningMode::TagBased;
    a.reasoning.start = "<think>\n".into();
    a.reasoning.end = "</think>".into();
    a.assistant_start = "<SPECIAL_11>Assistant".into();
    a.user_start = "<SPECIAL_11>User".into();
    a.preserved_tokens = ["<SPECIAL_12>", "<SPECIAL_11>", "</think>", "<TOOLCALL>", "</TOOLCALL>"].iter().map(|s| s.to_string()).collect();
    true
}

fn im_middle_think(src: &str, a: &mut Analysis) -> bool {
    let protocol = ["<|im_assistant|>", "<|im_middle|>", "<|tool_calls_section_begin|>"].iter().all(|m| src.contains(m));
    if !protocol || src.contains("<think>") || a.reasoning.mode != ReasoningMode::None {
        return false;
    }
    a.reasoning.mode = ReasoningMode::TagBased;
    a.reasoning.start = "<think>".into();
    a.reasoning.end = "</think>".into();
    push_tokens(a, &["<think>", "</think>"]);
    true
}
