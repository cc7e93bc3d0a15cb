//! Template capabilities, found by rendering probe conversations (never by name).

use serde_json::{json, Value as Json};

pub use crate::findings::Caps;

/// Probe a template's capabilities by rendering small conversations and looking for needles.
/// Probes render leniently (see [`super::Template::render_lenient`]); a render that still fails
/// counts as "not supported".
pub(crate) fn probe(t: &super::Template) -> Caps {
    let render = |messages: Json, tools: Option<Json>| -> String {
        let mut ctx = json!({ "messages": messages, "add_generation_prompt": false });
        if let Some(tools) = tools {
            ctx["tools"] = tools;
        }
        t.render_probe(&ctx).map(|(text, _)| text).unwrap_or_default()
    };
    let user = |content: Json| json!({ "role": "user", "content": content });
    let call = |name: &str, args: Json| {
        json!({ "id": "call_1___", "type": "function", "function": { "name": name, "arguments": args } })
    };
    let calls_msg = |content: &Json, calls: Json| json!({ "role": "assistant", "content": content, "tool_calls": calls });
    let mut caps = Caps::default();

    caps.supports_string_content = render(json!([user(json!("user_needle"))]), None).contains("user_needle");
    // Typed content parts count only where plain strings do not work (as llama.cpp reports it).
    caps.supports_typed_content = !caps.supports_string_content && render(json!([user(json!([{ "type": "text", "text": "user_needle" }]))]), None)
        .contains("user_needle");
    caps.supports_system_role =
        render(json!([{ "role": "system", "content": "<System Needle>" }, user(json!("Hey"))]), None)
            .contains("<System Needle>");
    let tool = json!([{ "type": "function", "function": { "name": "some_tool", "description": "Some tool.",
        "parameters": { "type": "object", "properties": { "arg": { "type": "string", "description": "Some argument." } },
        "required": ["arg"] } } }]);
    caps.supports_tools = render(json!([user(json!("Hey"))]), Some(tool.clone())).contains("some_tool");

    let args = json!({ "argument_needle": "print('Hello, World!')" });
    // The argument name shows in any format: JSON (`"argument_needle":`), Python dicts, or tags.
    let renders_args = |out: &str| out.contains("argument_needle");
    let with_calls = |content: &Json, calls: Json| render(json!([user(json!("Hey")), calls_msg(content, calls)]), Some(tool.clone()));
    let shapes = |content: &Json| {
        let str_args = renders_args(&with_calls(content, json!([call("ipython", json!(args.to_string()))])));
        (str_args, renders_args(&with_calls(content, json!([call("ipython", args.clone())]))))
    };
    // A call turn with empty content first; a template that renders calls only for `content: null`
    // (the OpenAI wire shape, `content is none`) is probed with that.
    let mut content = json!("");
    let (mut str_args, mut obj_args) = shapes(&content);
    if !str_args && !obj_args {
        content = Json::Null;
        (str_args, obj_args) = shapes(&content);
    }
    caps.supports_tool_calls = str_args || obj_args;
    caps.supports_object_arguments = obj_args;
    if caps.supports_tool_calls {
        let a = if obj_args { args.clone() } else { json!(args.to_string()) };
        let out = with_calls(&content, json!([call("test_tool1", a.clone()), call("test_tool2", a)]));
        caps.supports_parallel_tool_calls = out.contains("test_tool1") && out.contains("test_tool2");
    }
    let reasoning = render(
        json!([user(json!("Hey")),
            { "role": "assistant", "content": "Hi", "reasoning_content": "reasoning_needle" },
            user(json!("Again"))]),
        None,
    );
    caps.supports_preserve_reasoning = reasoning.contains("reasoning_needle");
    caps
}
