//! The generation prompt: what the template appends for the assistant's turn.
//!
//! llama.cpp parses `generation_prompt + output`, after skipping the prompt up to the reasoning start
//! marker: a prompt ending in `<think>\n` means the output begins inside reasoning. For continued
//! assistant messages (`continue_final_message`) the generation prompt is rebuilt from the prefill:
//! `prompt-up-to-reasoning-start + start + reasoning [+ end + content]`.

use crate::findings::Analysis;
use super::prompt_tail;
use crate::api::RequestOptions;
use crate::template::Template;
use crate::Result;
use serde_json::{Map, Value};

/// Messages as the template wants them. Tool-call arguments given as a JSON string become an object
/// when the template renders object arguments (as llama.cpp does; `arguments|items` needs a mapping);
/// object arguments become a JSON string (serde_json's compact form, as the analysis probes send
/// them) when it renders only string ones (`'…' + arguments`), and a call turn's empty content
/// becomes null when the template renders calls only in that OpenAI wire shape
/// (`analysis.tools.requires_wire_shape`) and takes a null content.
fn template_messages(template: &Template, analysis: &Analysis, messages: &[Value]) -> Vec<Value> {
    let caps = template.caps();
    let (to_object, to_string) = (caps.supports_object_arguments, caps.supports_tool_calls && !caps.supports_object_arguments);
    let mut messages = messages.to_vec();
    for m in &mut messages {
        let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut).filter(|c| !c.is_empty()) else { continue };
        for call in calls {
            let Some(args) = call.get_mut("function").and_then(|f| f.get_mut("arguments")) else { continue };
            if to_object {
                if let Some(obj) = args.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok()).filter(Value::is_object) {
                    *args = obj;
                }
            } else if to_string && args.is_object() {
                *args = Value::String(args.to_string());
            }
        }
        if analysis.tools.requires_wire_shape && !analysis.content.requires_nonnull_content {
            if let Some(c) = m.get_mut("content").filter(|c| c.as_str() == Some("")) {
                *c = Value::Null;
            }
        }
    }
    messages
}

/// Tools with the optional OpenAI fields filled in (`description`, `parameters`): many templates
/// concatenate `tool.description` and fail on a tool without one.
fn template_tools(tools: &[Value]) -> Vec<Value> {
    let mut tools = tools.to_vec();
    for t in &mut tools {
        let f = match t.get_mut("function") {
            Some(f) if f.is_object() => f,
            _ => continue,
        };
        if f.get("description").is_none_or(Value::is_null) {
            f["description"] = "".into();
        }
        if f.get("parameters").is_none_or(Value::is_null) {
            f["parameters"] = serde_json::json!({ "type": "object", "properties": {} });
        }
    }
    tools
}

/// The template's renders of the conversation `messages` for the request, one per `add_generation_prompt`
/// value in `flags`, from one context (built once: the conversation and the tools are not copied per render).
fn render_each(template: &Template, analysis: &Analysis, messages: &[Value], options: &RequestOptions, flags: &[bool]) -> Result<Vec<String>> {
    let mut with_tools = context(template_messages(template, analysis, messages), options, true);
    let mut without_tools = None;
    let mut out = Vec::with_capacity(flags.len());
    // Extra context may set it too (it is inserted last): then it wins, as in one render of the whole context.
    let set_flag = !options.extra_context.contains_key("add_generation_prompt");
    for &add_generation_prompt in flags {
        if set_flag {
            with_tools.insert("add_generation_prompt".into(), add_generation_prompt.into());
        }
        let text = match template.render_lenient_map(&mut with_tools) {
            // The turn's opening rarely depends on the tool list; a template that cannot render the given
            // tools (missing fields it insists on) still yields its generation prompt without them.
            Err(e) if !options.tools.is_empty() => {
                let ctx = without_tools.get_or_insert_with(|| context(template_messages(template, analysis, messages), options, false));
                if set_flag {
                    ctx.insert("add_generation_prompt".into(), add_generation_prompt.into());
                }
                template.render_lenient_map(ctx).map_err(|_| e)
            }
            r => r,
        };
        out.push(text?.0);
    }
    Ok(out)
}

/// The render context of a request: `messages` (as the template wants them), the tools if `tools`, the
/// thinking switch and extra context; `add_generation_prompt` is set per render.
fn context(messages: Vec<Value>, options: &RequestOptions, tools: bool) -> Map<String, Value> {
    let mut ctx = Map::new();
    ctx.insert("messages".into(), Value::Array(messages));
    if tools && !options.tools.is_empty() {
        ctx.insert("tools".into(), Value::Array(template_tools(&options.tools)));
    }
    ctx.insert("add_generation_prompt".into(), false.into());
    // Not given: the template's own default, exactly as `render()` without it.
    if let Some(on) = options.enable_thinking {
        ctx.insert("enable_thinking".into(), on.into());
    }
    for (k, v) in &options.extra_context {
        ctx.insert(k.clone(), v.clone());
    }
    ctx
}

/// What the template appends when asked for a generation prompt: the text after the common prefix
/// of the renders with `add_generation_prompt` false and true. For a continued assistant message
/// (`continue_final_message`), the prompt is rebuilt from that message as llama.cpp does, using the
/// analysis' reasoning markers.
pub fn generation_prompt(template: &Template, analysis: &Analysis, options: &RequestOptions) -> Result<String> {
    prompt_parts(template, analysis, options, false).map(|(_, gp)| gp)
}

/// The whole prompt the request's output continues: the conversation as rendered before the
/// generation prompt, then [`generation_prompt`] (rendered, the caller's `generationPrompt`, or
/// rebuilt for a continued message). What a response template's `prefix` is.
pub fn request_prompt(template: &Template, analysis: &Analysis, options: &RequestOptions) -> Result<String> {
    prompt_parts(template, analysis, options, true).map(|(head, gp)| head + &gp)
}

/// (the conversation before the generation prompt — rendered only if `with_head` —, the generation prompt).
fn prompt_parts(template: &Template, analysis: &Analysis, options: &RequestOptions, with_head: bool) -> Result<(String, String)> {
    let continued = options.continued_message();
    // Without a conversation, a single user turn stands in (many templates index `messages[0]`).
    let default_history = [serde_json::json!({ "role": "user", "content": "Hello" })];
    let history = match continued {
        Some(_) => &options.messages[..options.messages.len() - 1],
        None if options.messages.is_empty() => &default_history[..],
        None => &options.messages[..],
    };
    let mut head = String::new();
    let gp = match &options.generation_prompt {
        // The prompt the caller really used ended with this (`generationPrompt`).
        Some(given) => {
            if with_head {
                head = render_each(template, analysis, history, options, &[false])?.swap_remove(0);
            }
            given.clone()
        }
        None => {
            let [without, with]: [String; 2] = render_each(template, analysis, history, options, &[false, true])?.try_into().unwrap_or_default();
            let common = without.char_indices().zip(with.chars()).find(|((_, a), b)| a != b).map_or(without.len().min(with.len()), |((i, _), _)| i);
            let common = token_start(&with, common);
            head = with[..common].to_string();
            with.get(common..).unwrap_or("").to_string()
        }
    };
    Ok((head, prompt_tail::continued(analysis, options, gp)))
}

/// Where the generation prompt starts when the two renders part at byte `common` of `with`: before a
/// `<…>` token they part inside (`<|eot_id|><|` + `end_of_text|>` or `start_header_id|>…`: a template
/// that closes a conversation without a generation prompt with a literal end token), so the prompt is
/// never half a token.
fn token_start(with: &str, common: usize) -> usize {
    let head = with.get(..common).unwrap_or("");
    match head.rfind('<') {
        Some(p) if head.get(p..).is_some_and(|t| !t.contains('>') && !t.contains(crate::text::is_space)) => p,
        _ => common,
    }
}
