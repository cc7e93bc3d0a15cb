//! Subjects for the leniency departures of issue #13 that no conformance case writes (rules R5 in
//! the Ministral format, R7 after a call, R14–R18, R20, R21, R23, R24, R25, R26, R29, R30, R31, R33): the long fuzz run mutates and chunks them like
//! every other subject.

use super::{parsers_for, subject, Factory, Subject, Templates};
use chat_autoparser::api::RequestOptions;
use chat_autoparser::testing::format_parser;
use chat_autoparser::{ChatTemplate, RenderOptions};
use serde_json::{json, Value};
use std::rc::Rc;

fn tool(name: &str, props: Value) -> Value {
    json!({ "type": "function", "function": { "name": name, "parameters": { "type": "object", "properties": props } } })
}

/// `(template, thinking, output)`: each output departs from its template's canonical form.
const OUTPUTS: &[(&str, bool, &str)] = &[
    ("google-gemma-4-31B-it.jinja", false, "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|><|tool_response>Done."),
    ("deepseek-ai-DeepSeek-V3.1.jinja", false, "Results: <｜tool▁output▁begin｜>Paris: 22°C<｜tool▁output▁end｜> and <｜tool▁output▁begin｜><｜tool▁output▁end｜> ok"),
    ("Qwen-Qwen3-0.6B.jinja", false, "It says <tool_response>\nsunny\n</tool_response> today."),
    ("Qwen-Qwen3-0.6B.jinja", false, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n{\"name\": \"get_time\", \"arguments\": {}}; {\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\"}}\n</tool_call>"),
    ("Qwen-Qwen3-0.6B.jinja", false, "<tool_call>\n[{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}, {\"name\": \"get_time\", \"arguments\": {}}]\n</tool_call>"),
    ("meta-llama-Llama-3.1-8B-Instruct.jinja", false, "{\"name\": \"get_weather\", \"parameters\": \"{\\\"city\\\": \\\"Paris\\\"}\"}; {\"name\": \"get_time\", \"parameters\": {}}"),
    ("mistralai-Mistral-Nemo-Instruct-2407.jinja", false, "[TOOL_CALLS]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"),
    ("Qwen3-Coder.jinja", false, "<tool_call>\n<function=get_weather>\n<parameter=where>\n[{\"country\": \"France\", \"city\": \"Paris\"}]\n</parameter>\n<parameter=city>\n{not json}\n</parameter>\n</function>\n</tool_call>"),
    ("LFM2-8B-A1B.jinja", false, "<|tool_call_start|>[get_weather(city=\"Paris\"); {\"name\": \"get_time\", \"arguments\": {}}]<|tool_call_end|>"),
    ("LFM2-8B-A1B.jinja", false, "<|tool_call_start|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_time\", \"arguments\": {}}]<|tool_call_end|>"),
    ("mistralai-Ministral-3-14B-Reasoning-2512.jinja", true, "let me think[/THINK][TOOL_CALLS]get_time[ARGS]{}"),
    ("mistralai-Ministral-3-14B-Reasoning-2512.jinja", true, "thinking[/THInot end tag"),
];

/// The call-syntax and bracket departures (rules R20, R21), JSON in tagged calls (R23, R26), a call without its opener (R31), `key=value` arguments (R24), a call in a role tag (R29) and markers without their special-token part (R33): read whole as written, nothing lost.
const CALL_SYNTAX_OUTPUTS: &[(&str, bool, &str)] = &[
    // R20: pythonic calls where the template writes JSON call objects.
    ("Qwen-Qwen3-0.6B.jinja", false, "<tool_call>\nget_weather(city=\"Paris\")\n</tool_call>\n<tool_call>\n[get_time(tz='UTC'), {\"name\": \"get_time\", \"arguments\": {}}]\n</tool_call>"),
    ("mistralai-Mistral-Nemo-Instruct-2407.jinja", false, "[TOOL_CALLS][get_weather(city=\"Paris\"), get_time()]"),
    // R21: a pythonic section without its brackets; a bare array where bare call objects are due.
    ("LFM2.5-8B-A1B.jinja", false, "Sure.<|tool_call_start|>get_weather(city=\"Paris\"), {\"name\": \"get_time\", \"arguments\": {}}<|tool_call_end|>"),
    ("meta-llama-Llama-3.1-8B-Instruct.jinja", false, "[{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}},\n {\"name\": \"get_time\", \"parameters\": {}}]"),
    ("meta-llama-Llama-3.1-8B-Instruct.jinja", false, "See [1]. [get_weather(city=\"Paris\"), get_time()]"),
    // R20 / R21 in the fallback of templates without a tool format (R13).
    ("LFM2-8B-A1B.jinja", false, "<|tool_call_start|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}<|tool_call_end|> and <|tool_call_start|>get_time()<|tool_call_end|>"),
    ("google-gemma-2-2b-it.jinja", false, "<tool_call>\nget_weather(city=\"Paris\")\n</tool_call>"),
    // R26: a JSON object as a tagged call's arguments.
    ("Qwen3-Coder.jinja", false, "<tool_call>\n<function=get_weather>\n{\"city\": \"Paris\"}\n</function>\n</tool_call>"),
    ("deepseek-ai-DeepSeek-V3.2.jinja", false, "<｜DSML｜function_calls> <｜DSML｜invoke name=\"get_weather\"> { \"city\": \"Paris\" } </｜DSML｜invoke> </｜DSML｜function_calls>"),
    // R20 + R16: pythonic calls one per line in one JSON call block.
    ("Qwen-Qwen3-0.6B.jinja", false, "<tool_call>\nget_weather(city=\"Paris\")\nget_time(tz='UTC'); get_time()\n</tool_call>"),
    // R31: a call without its per-call opener right after the section opener.
    ("deepseek-ai-DeepSeek-V3.1.jinja", false, "<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
    // R29: a whole call in one of the template's role tags, tagged or as a JSON call object.
    ("ollama-laguna_v2_chat_template.jinja", false, "Sure.\n<user>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</user>\n<assistant>\n{\"name\": \"get_time\", \"arguments\": {}}\n</assistant>"),
    // R33: tool-call markers written without their special-token part.
    ("deepseek-ai-DeepSeek-V3.2.jinja", false, "Sure.\n\n<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\" string=\"true\">Paris</parameter>\n</invoke>\n<invoke name=\"get_time\">\n</invoke>\n</function_calls>"),
    ("deepseek-ai-DeepSeek-V4.jinja", false, "<tool_calls><invoke name=\"get_weather\"><parameter name=\"city\" string=\"false\">{\"name\": \"Paris\"}</parameter></invoke></tool_calls>"),
    // R24: `key=value` arguments after a tagged call's name.
    ("node-llama-cpp-glm4_7flash.jinja", false, "Sure.<tool_call>get_weather city=Paris days=3\nnote='two words'</tool_call><tool_call>get_time tz=UTC</tool_call>"),
    // R23: a JSON call object in a tagged call's markers.
    ("GLM-4.6.jinja", false, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n<tool_call>get_time</tool_call>"),
    ("Qwen3-Coder.jinja", false, "<tool_call>\n{\"name\": \"get_time\", \"parameters\": {\"tz\": \"UTC\"}}\n</tool_call>"),
];

/// Label part of the subjects of [`CALL_SYNTAX_OUTPUTS`].
pub const CALL_SYNTAX: &str = "call syntax";

/// A tool-call opener inside open reasoning in a request without tools (rule R25): parsed with no
/// tools declared.
const NO_TOOLS_OUTPUTS: &[(&str, bool, &str)] = &[
    ("Qwen-Qwen3-0.6B.jinja", true, "Let me look<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call> and more"),
    ("Qwen-Qwen3-0.6B.jinja", true, "Maybe <tool_call>\n{\"name\": \"get_time\"}\n</tool_call> no.</think>Done."),
    ("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", true, "I need weather<tool_call><function=get_weather><parameter=location>NYC</parameter></function></tool_call>"),
    ("Kimi-K2-Thinking.jinja", true, "<think>reasoning<|tool_calls_section_begin|>tool_call_data</think>after"),
];

/// Addressed messages (rule R30): the canonical form and its departures, in a template whose reply is
/// messages headed by their recipient.
const ADDRESSED_OUTPUTS: &[(&str, bool, &str)] = &[
    ("hfjs-meetkai-functionary-medium-v2.2.jinja", false, "all\n<|content|>Both.\n<|from|>assistant\n<|recipient|>get_weather\n<|content|>{\"city\": \"Oslo\"}\n<|from|>assistant\n<|recipient|>get_time\n<|content|>{}<|stop|>"),
    ("hfjs-meetkai-functionary-medium-v2.2.jinja", false, "get_time\n<|content|>{\"tz\": <|stop|>\n<|from|>assistant\n<|recipient|>\n<|content|>x"),
    ("ollama-glimmer_chat_template.jinja", true, " to=self<|message|>Check.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|><|start|>assistant to=user<|message|>Done.<|eot|>"),
    ("ollama-glimmer_chat_template.jinja", true, " to=user<|message|><atem:function_calls>\n<atem:invoke name=\"get_time<|message|><atem:parameter name=\"tz\">a <|eot|> b</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|start|>assistant<|message|>Use `<|start|>` here."),
    ("ollama-glimmer_chat_template.jinja", true, " to=get_time<|message|>not a call<|eom|><|start|>assistant to=user<|message|>Running:\n<atem:function_calls>\n<atem:invoke name=\"get_time\">\n</atem:invoke>\n</atem:function_calls>\nDone.<|eot|> after"),
];

/// Label part of the subjects of [`NO_TOOLS_OUTPUTS`].
const NO_TOOLS: &str = "no tools";

/// Every departure output, once per parser that reads it (the request's own format parser too).
pub fn departure_subjects(templates: &mut Templates) -> Vec<Subject> {
    let tools = vec![tool("get_weather", json!({ "city": { "type": "string" } })), tool("get_time", json!({ "tz": { "type": "string" } }))];
    let mut out = Vec::new();
    let all = OUTPUTS.iter().chain(ADDRESSED_OUTPUTS).map(|o| (o, "")).chain(CALL_SYNTAX_OUTPUTS.iter().map(|o| (o, CALL_SYNTAX))).chain(NO_TOOLS_OUTPUTS.iter().map(|o| (o, NO_TOOLS)));
    for (i, (&(name, thinking, output), group)) in all.enumerate() {
        let (handler, mut markers, analysis) = templates.get(name);
        if let Some(m) = analysis.as_ref().and_then(|a| a.messages.as_ref()) {
            // A call message's header names the tool its body calls again: the header's copy is syntax.
            let names = ["get_weather", "get_time"].map(|n| format!("{}{n}", m.recipient_prefix.trim()));
            markers = Rc::new(markers.iter().cloned().chain(names).collect());
        }
        let tools = if group == NO_TOOLS { Vec::new() } else { tools.clone() };
        let options = RequestOptions { tools, enable_thinking: Some(thinking), parallel_tool_calls: true, ..Default::default() };
        let Ok(t) = ChatTemplate::new(&super::common::template_source(name), RenderOptions::default()) else { continue };
        let gp = t.generation_prompt(&options).unwrap_or_default();
        let mut parsers = parsers_for(handler, analysis.as_ref(), &options, &gp);
        if let Some(a) = analysis {
            let (o, g) = (options.clone(), gp.clone());
            let make: Factory = Rc::new(move || format_parser(&a, &o, &g));
            parsers.push(("format", make, false));
        }
        for (kind, make, feeds_gp) in parsers {
            out.push(subject(format!("departure {i} ({name}) {group} {kind}"), (make, feeds_gp), &gp, output, false, &markers));
        }
    }
    out
}
