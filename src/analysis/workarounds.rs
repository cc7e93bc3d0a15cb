//! Post-analysis patches for templates whose renders do not reveal what the model writes.
//!
//! Each entry is keyed on a feature of the template SOURCE (never a model name), says why the
//! differential analysis cannot see the truth, and is recorded by name in `Analysis.workarounds`
//! when applied. Keep this list short: a new entry is a last resort after improving the analysis.

use super::types::{Analysis, ArgumentsAnalysis, FunctionAnalysis, ReasoningMode, ToolFormat};

struct Workaround {
    name: &'static str,
    /// Applies the patch if the source has the feature; true when applied.
    apply: fn(&str, &mut Analysis) -> bool,
}

const WORKAROUNDS: &[Workaround] = &[
    // The template describes the `{"name": …, "parameters": …}` format in prose and renders past
    // calls that way, but models also emit the OpenAI `{"type":"function","function":{…}}` wrapper.
    Workaround { name: "name/parameters instruction accepts the OpenAI wrapper", apply: openai_wrapper },
    // The `<|im_assistant|>…<|im_middle|>` protocol with `<|tool_calls_section_begin|>` calls: this
    // template drops reasoning_content entirely, but the protocol's thinking variant renders
    // `<think>…</think>` before the answer and checkpoints sharing the tokens write it. Keyed on the
    // protocol tokens and the absence of any think tag.
    // Why no general probe can see it: the tags are nowhere in this template — no render shows them
    // (R1–R3), no past turn strips them (R4), no instruction names them (R5), the source has no
    // closing tag to try. They are known only from the protocol family. A parser leniency (a leading
    // `<think>…</think>` read as reasoning) would not be enough either: the request layer needs the
    // tags to carry a past turn's reasoning into the prompt (without them Kimi K2's end-to-end and
    // generation-prompt cases with reasoning fail: 17/19).
    Workaround { name: "im_middle protocol without rendered reasoning writes <think>", apply: im_middle_think },
    // The template lists the tools (`List of tools: [...]`) but never renders an assistant's
    // `tool_calls` (it prints `content` only), so no render shows how calls look. Its models write
    // pythonic calls between their tool-call tokens: `<|tool_call_start|>[f(a="x", n=1)]<|tool_call_end|>`
    // (the same layout the literal-argument analysis finds where a sibling template renders them).
    Workaround { name: "tool list without rendered calls: pythonic tool-call tokens", apply: pythonic_tool_call_tokens },
];

/// Apply every matching workaround; returns the names applied.
pub fn apply(src: &str, a: &mut Analysis) -> Vec<String> {
    WORKAROUNDS.iter().filter(|w| (w.apply)(src, a)).map(|w| w.name.to_string()).collect()
}

fn openai_wrapper(src: &str, a: &mut Analysis) -> bool {
    if !(src.contains("Respond in the format {\"name\": function name") && src.contains("Do not use variables.")) {
        return false;
    }
    if a.tools.format.mode != ToolFormat::JsonNative {
        return false;
    }
    a.tools.format.openai_wrapper_trigger = true;
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
    a.preserve_tokens(&["<think>", "</think>"]);
    true
}

fn pythonic_tool_call_tokens(src: &str, a: &mut Analysis) -> bool {
    if !src.contains("List of tools: ") || src.contains("tool_calls") || a.tools.format.mode != ToolFormat::None {
        return false;
    }
    let t = &mut a.tools;
    t.format.mode = ToolFormat::TagWithTagged;
    t.format.section_start = "<|tool_call_start|>[".into();
    t.format.section_end = "]<|tool_call_end|>".into();
    t.function = FunctionAnalysis::default();
    t.arguments = ArgumentsAnalysis {
        start: "(".into(),
        end: ")".into(),
        name_suffix: "=".into(),
        separator: ", ".into(),
        literal_values: true,
        string_delimiter: "\"".into(),
        ..Default::default()
    };
    a.preserve_tokens(&["<|tool_call_start|>", "<|tool_call_end|>"]);
    true
}
