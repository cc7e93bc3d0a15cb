//! The generation prompt (what the template appends for the assistant's turn) and the part of it a
//! parser must consume before the model output.
//!
//! llama.cpp parses `generation_prompt + output`, after skipping the prompt up to the reasoning start
//! marker: a prompt ending in `<think>\n` means the output begins inside reasoning. For continued
//! assistant messages (`continue_final_message`) the generation prompt is rebuilt from the prefill:
//! `prompt-up-to-reasoning-start + start + reasoning [+ end + content]`.

use crate::analysis::types::Analysis;
use crate::api::RequestOptions;
use crate::template::ChatTemplate;
use crate::Result;
use serde_json::{Map, Value};

/// Whether the request continues its last (assistant) message instead of starting a new one.
fn continued_message(options: &RequestOptions) -> Option<&Value> {
    if options.continue_final_message == "none" || options.continue_final_message.is_empty() {
        return None;
    }
    options.messages.last().filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
}

fn continues_content(options: &RequestOptions) -> bool {
    matches!(options.continue_final_message.as_str(), "content" | "auto")
}

/// Text of a message field that may be a string or a list of `{type: "text", text}` parts.
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

/// Messages as the template wants them: tool-call arguments given as a JSON string become an object
/// when the template renders object arguments (as llama.cpp does; `arguments|items` needs a mapping).
fn template_messages(template: &ChatTemplate, messages: &[Value]) -> Vec<Value> {
    let mut messages = messages.to_vec();
    if template.caps().supports_object_arguments {
        for m in &mut messages {
            let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut) else { continue };
            for call in calls {
                let Some(args) = call.get_mut("function").and_then(|f| f.get_mut("arguments")) else { continue };
                if let Some(obj) = args.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok()).filter(Value::is_object) {
                    *args = obj;
                }
            }
        }
    }
    messages
}

fn render(template: &ChatTemplate, messages: &[Value], options: &RequestOptions, add_generation_prompt: bool) -> Result<String> {
    let mut ctx = Map::new();
    ctx.insert("messages".into(), Value::Array(template_messages(template, messages)));
    if !options.tools.is_empty() {
        ctx.insert("tools".into(), Value::Array(options.tools.clone()));
    }
    ctx.insert("add_generation_prompt".into(), add_generation_prompt.into());
    ctx.insert("enable_thinking".into(), options.enable_thinking.into());
    for (k, v) in &options.extra_context {
        ctx.insert(k.clone(), v.clone());
    }
    template.render_lenient(&Value::Object(ctx)).map(|(text, _)| text)
}

/// What the template appends when asked for a generation prompt: the text after the common prefix
/// of the renders with `add_generation_prompt` false and true. For a continued assistant message
/// (`continue_final_message`), the prompt is rebuilt from that message as llama.cpp does, using the
/// analysis' reasoning markers.
pub fn generation_prompt(template: &ChatTemplate, analysis: &Analysis, options: &RequestOptions) -> Result<String> {
    let continued = continued_message(options);
    // Without a conversation, a single user turn stands in (many templates index `messages[0]`).
    let default_history = [serde_json::json!({ "role": "user", "content": "Hello" })];
    let history = match continued {
        Some(_) => &options.messages[..options.messages.len() - 1],
        None if options.messages.is_empty() => &default_history[..],
        None => &options.messages[..],
    };
    let without = render(template, history, options, false)?;
    let with = render(template, history, options, true)?;
    let common = without.char_indices().zip(with.chars()).find(|((_, a), b)| a != b).map_or(without.len().min(with.len()), |((i, _), _)| i);
    let mut gp = with.get(common..).unwrap_or("").to_string();
    if let Some(msg) = continued {
        let r = &analysis.reasoning;
        if !r.start.is_empty() {
            let cut = gp.find(r.start.as_str()).unwrap_or(gp.len());
            gp.truncate(cut);
            gp.push_str(&r.start);
            gp.push_str(&text_of(msg.get("reasoning_content")));
            if continues_content(options) {
                gp.push_str(&r.end);
            }
        }
        if continues_content(options) {
            gp.push_str(&text_of(msg.get("content")));
        }
    }
    Ok(gp)
}

/// The part of `generation_prompt` the parser consumes before the model output: from the reasoning
/// start marker on (so the output starts inside reasoning), else the continued message's content.
pub fn parser_prefill(analysis: &Analysis, generation_prompt: &str, options: &RequestOptions) -> String {
    let start = analysis.reasoning.start.trim_matches(super::marker::is_space);
    if !start.is_empty() {
        // The last occurrence: a continued message may repeat the marker after the template's own.
        if let Some(p) = generation_prompt.rfind(start) {
            return generation_prompt.get(p..).unwrap_or("").to_string();
        }
    }
    if let Some(msg) = continued_message(options).filter(|_| continues_content(options)) {
        let content = text_of(msg.get("content"));
        if generation_prompt.ends_with(&content) {
            return content;
        }
    }
    String::new()
}
