//! Post-analysis patches for templates whose renders do not reveal what the model writes.
//!
//! Each entry is keyed on a feature of the template SOURCE (never a model name), says why the
//! differential analysis cannot see the truth, and is recorded by name in `Analysis.workarounds`
//! when applied. Keep this list short: a new entry is a last resort after improving the analysis.

use crate::findings::{Analysis, ReasoningMode};

struct Workaround {
    name: &'static str,
    /// Applies the patch if the source has the feature; true when applied.
    apply: fn(&str, &mut Analysis) -> bool,
}

const WORKAROUNDS: &[Workaround] = &[
    // The `<|im_assistant|>…<|im_middle|>` protocol with `<|tool_calls_section_begin|>` calls: this
    // template drops reasoning_content entirely, but the protocol's thinking variant renders
    // `<think>…</think>` before the answer and checkpoints sharing the tokens write it. Keyed on the
    // protocol tokens and the absence of any think tag.
    // Why no general probe can see it: the tags are nowhere in this template — no render shows them
    // (reasoning.1–3), no past turn strips them (reasoning.4), no instruction names them (reasoning.5), the source has no
    // closing tag to try. They are known only from the protocol family. A parser leniency (a leading
    // `<think>…</think>` read as reasoning) would not be enough either: the request layer needs the
    // tags to carry a past turn's reasoning into the prompt (without them Kimi K2's end-to-end and
    // generation-prompt cases with reasoning fail: 17/19).
    Workaround { name: "im_middle protocol without rendered reasoning writes <think>", apply: im_middle_think },
];

/// Apply every matching workaround; returns the names applied.
pub fn apply(src: &str, a: &mut Analysis) -> Vec<String> {
    WORKAROUNDS.iter().filter(|w| (w.apply)(src, a)).map(|w| w.name.to_string()).collect()
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

