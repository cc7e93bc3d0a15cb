//! Addressed messages (rule R30): a template whose reply is a run of messages headed by their recipient
//! (`<|start|>assistant to=self<|message|>…<|eom|>`, `… to=user<|message|>…<|eot|>`, `… to=TOOL<|message|>`
//! + a call block) is read off the renders, and its output parsed by the recipient: reasoning, content,
//! calls. Whole and chunked parses agree; what is not a call stays content.

mod common;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::gbnf::check_grammar;
use chat_autoparser::{build_grammar, verify_template, ChatTemplate, RenderOptions};
use common::leniency::{calls, has, parse_chunked};
use serde_json::json;

const TEMPLATE: &str = "ollama-glimmer_chat_template.jinja";
const SIZES: [usize; 4] = [1, 2, 3, 7];

fn options() -> RequestOptions {
    let tools = json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
        {"type": "function", "function": {"name": "muse.bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}
    ]);
    RequestOptions { tools: tools.as_array().unwrap().clone(), parallel_tool_calls: true, ..RequestOptions::default() }
}

fn call_block(name: &str, params: &[(&str, &str)]) -> String {
    let args: String = params.iter().map(|(k, v)| format!("<atem:parameter name=\"{k}\">{v}</atem:parameter>\n")).collect();
    format!("<atem:function_calls>\n<atem:invoke name=\"{name}\">\n{args}</atem:invoke>\n</atem:function_calls>")
}

#[test]
fn the_analysis_reads_the_message_structure() {
    let t = ChatTemplate::new(&common::template_source(TEMPLATE), RenderOptions::default()).unwrap();
    let a = t.analysis().unwrap();
    assert_eq!(serde_json::to_value(a.handler).unwrap(), "addressed messages");
    let m = a.messages.as_ref().expect("messages");
    assert_eq!((m.message_start.as_str(), m.recipient_prefix.as_str(), m.header_end.as_str()), ("<|start|>assistant", " to=", "<|message|>"));
    assert_eq!((m.content_recipient.as_str(), m.reasoning_recipient.as_deref()), ("user", Some("self")));
    assert_eq!(m.message_ends, ["<|eot|>", "<|eom|>"]);
    // The call body's own name markers, not the header's.
    assert_eq!(a.tools.function.name_prefix, "<atem:invoke name=\"");
    assert_eq!(a.tools.function.name_suffix, "\">\n");
}

#[test]
fn reasoning_content_and_calls_go_by_recipient() {
    let out = format!(
        " to=self<|message|>Check the weather.<|eom|><|start|>assistant to=get_weather<|message|>{}<|eom|><|start|>assistant to=user<|message|>Let me see.<|eot|>",
        call_block("get_weather", &[("city", "Paris"), ("days", "3")])
    );
    let (m, diags) = parse_chunked(TEMPLATE, &options(), &out, &SIZES);
    assert_eq!(m.reasoning_content, "Check the weather.");
    assert_eq!(m.content, "Let me see.");
    assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "Paris", "days": 3}))]);
    assert!(diags.is_empty(), "the canonical form needs no leniency: {diags:?}");
}

#[test]
fn parallel_calls_are_messages_of_their_own() {
    let out = format!(
        " to=get_weather<|message|>{}<|eom|><|start|>assistant to=muse.bash<|message|>{}<|eot|>",
        call_block("get_weather", &[("city", "Oslo")]),
        call_block("muse.bash", &[("command", "ls")])
    );
    let (m, _) = parse_chunked(TEMPLATE, &options(), &out, &SIZES);
    assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "Oslo"})), ("muse.bash".to_string(), json!({"command": "ls"}))]);
    assert_eq!(m.content, "");
}

#[test]
fn an_end_token_inside_an_argument_value_is_text() {
    let out = format!(" to=muse.bash<|message|>{}<|eot|>", call_block("muse.bash", &[("command", "echo <|eot|> and <|start|>assistant to=user<|message|> x")]));
    let (m, _) = parse_chunked(TEMPLATE, &options(), &out, &SIZES);
    assert_eq!(calls(&m), [("muse.bash".to_string(), json!({"command": "echo <|eot|> and <|start|>assistant to=user<|message|> x"}))]);
}

#[test]
fn a_call_in_a_message_to_the_user_or_to_no_one_is_read_with_a_diagnostic() {
    for head in [" to=user<|message|>", "<|message|>", " to=muse<|message|>"] {
        let out = format!("{head}{}<|eom|>", call_block("muse.bash", &[("command", "pwd")]));
        let (m, diags) = parse_chunked(TEMPLATE, &options(), &out, &SIZES);
        assert_eq!(calls(&m), [("muse.bash".to_string(), json!({"command": "pwd"}))], "{head}");
        assert!(has(&diags, "R30"), "{head}: {diags:?}");
    }
}

#[test]
fn text_around_a_call_block_keeps_the_whole_body_as_content() {
    for body in [format!("Running:\n{}", call_block("muse.bash", &[("command", "pwd")])), format!("{}\nDone.", call_block("muse.bash", &[("command", "pwd")]))] {
        let (m, _) = parse_chunked(TEMPLATE, &options(), &format!(" to=user<|message|>{body}<|eot|>"), &SIZES);
        assert_eq!((m.content.as_str(), m.tool_calls.len()), (body.as_str(), 0));
    }
}

#[test]
fn a_message_to_a_tool_that_is_no_call_is_content() {
    let (m, diags) = parse_chunked(TEMPLATE, &options(), " to=get_weather<|message|>just words<|eom|>", &SIZES);
    assert_eq!((m.content.as_str(), m.tool_calls.len()), ("just words", 0));
    assert!(has(&diags, "R30"), "{diags:?}");
}

#[test]
fn a_message_start_token_in_text_is_text() {
    let (m, _) = parse_chunked(TEMPLATE, &options(), " to=user<|message|>Use `<|start|>` here.", &SIZES);
    assert_eq!(m.content, "Use `<|start|>` here.");
    let (m, _) = parse_chunked(TEMPLATE, &options(), " to=self<|message|>Use `<|start|>` here.", &SIZES);
    assert_eq!(m.reasoning_content, "Use `<|start|>` here.");
}

#[test]
fn a_message_without_its_end_token_ends_where_the_next_starts() {
    let out = format!(" to=self<|message|>Think<|start|>assistant to=get_weather<|message|>{}<|start|>assistant to=user<|message|>Done<|eot|>", call_block("get_weather", &[("city", "SF")]));
    let (m, diags) = parse_chunked(TEMPLATE, &options(), &out, &SIZES);
    assert_eq!((m.reasoning_content.as_str(), m.content.as_str(), m.tool_calls.len()), ("Think", "Done", 1));
    assert!(has(&diags, "R30"));
}

#[test]
fn a_stray_header_end_in_a_call_name_and_a_repeated_namespace_are_read() {
    for body in [
        "<atem:function_calls>\n<atem:invoke name=\"get_weather<|message|>\">\n<atem:parameter name=\"city\">SF</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
        "<atem:function_calls>\n<atem:invoke name=\"get_weather<|message|><atem:parameter name=\"city\">SF</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
    ] {
        let (m, diags) = parse_chunked(TEMPLATE, &options(), &format!(" to=get_weather<|message|>{body}<|eot|>"), &SIZES);
        assert_eq!(calls(&m), [("get_weather".to_string(), json!({"city": "SF"}))], "{body}");
        assert!(has(&diags, "R30"));
    }
    let (m, diags) = parse_chunked(TEMPLATE, &options(), &format!(" to=muse<|message|>{}<|eot|>", call_block("muse.muse.bash", &[("command", "ls")])), &SIZES);
    assert_eq!(calls(&m)[0].0, "muse.bash");
    assert!(has(&diags, "R30"));
}

#[test]
fn nothing_is_lost_when_a_header_breaks_or_is_cut_off() {
    let (m, diags) = parse_chunked(TEMPLATE, &options(), " to=se", &SIZES);
    assert_eq!(m.content, " to=se");
    assert!(has(&diags, "R30"));
    let (m, _) = parse_chunked(TEMPLATE, &options(), " hello\nworld", &SIZES);
    assert_eq!(m.content, " hello\nworld");
}

#[test]
fn the_grammar_writes_calls_as_messages() {
    let t = ChatTemplate::new(&common::template_source(TEMPLATE), RenderOptions::default()).unwrap();
    let mut o = options();
    o.tool_choice = chat_autoparser::api::ToolChoice::Required;
    let g = build_grammar(t.analysis().unwrap(), &o).unwrap();
    let one = format!(" to=get_weather<|message|>{}", call_block("get_weather", &[("city", "\"Paris\"")]).replace("\"Paris\"", "Paris"));
    assert!(check_grammar(&g.gbnf, &one).unwrap().accepted, "{one}\n{}", g.gbnf);
    assert!(!check_grammar(&g.gbnf, " to=user<|message|>hi").unwrap().accepted);
}

#[test]
fn the_template_round_trips() {
    let t = ChatTemplate::new(&common::template_source(TEMPLATE), RenderOptions::default()).unwrap();
    let report = verify_template(&t);
    let failed: Vec<String> = report.results.iter().filter(|r| !r.ok).map(|r| format!("{}: {:?}", r.name, r.error)).collect();
    assert!(report.ok, "{failed:?}");
}

/// Functionary v2.2: `<|from|>assistant\n<|recipient|>NAME\n<|content|>` + the call's JSON arguments, with
/// no recipient prefix and no end token between messages — the same structure, read by the same rules.
const FUNCTIONARY_V2: &str = "hfjs-meetkai-functionary-medium-v2.2.jinja";

#[test]
fn a_recipient_header_with_json_arguments_as_the_body() {
    let t = ChatTemplate::new(&common::template_source(FUNCTIONARY_V2), RenderOptions::default()).unwrap();
    let m = t.analysis().unwrap().messages.clone().expect("messages");
    assert_eq!((m.message_start.as_str(), m.recipient_prefix.as_str(), m.header_end.as_str()), ("<|from|>assistant\n<|recipient|>", "", "\n<|content|>"));
    assert_eq!((m.content_recipient.as_str(), m.reasoning_recipient.as_deref(), m.message_ends.as_slice()), ("all", None, &["<|stop|>".to_string()][..]));
    let out = "all\n<|content|>Checking both.\n<|from|>assistant\n<|recipient|>get_weather\n<|content|>{\"city\": \"Oslo\", \"days\": 2}\n<|from|>assistant\n<|recipient|>muse.bash\n<|content|>{\"command\": \"ls\"}<|stop|>";
    let (msg, diags) = parse_chunked(FUNCTIONARY_V2, &options(), out, &SIZES);
    assert_eq!(msg.content.trim_end(), "Checking both.");
    assert_eq!(calls(&msg), [("get_weather".to_string(), json!({"city": "Oslo", "days": 2})), ("muse.bash".to_string(), json!({"command": "ls"}))]);
    assert!(diags.is_empty(), "{diags:?}");
    // A body that is no JSON object, to a tool, is content.
    let (msg, diags) = parse_chunked(FUNCTIONARY_V2, &options(), "get_weather\n<|content|>{\"city\": <|stop|>", &SIZES);
    assert_eq!((msg.content.as_str(), msg.tool_calls.len()), ("{\"city\": ", 0));
    assert!(has(&diags, "R30"));
    let report = verify_template(&t);
    assert!(report.ok, "{:?}", report.results.iter().filter(|r| !r.ok).map(|r| (&r.name, &r.error)).collect::<Vec<_>>());
    let mut o = options();
    o.tool_choice = chat_autoparser::api::ToolChoice::Required;
    let g = build_grammar(t.analysis().unwrap(), &o).unwrap();
    assert!(check_grammar(&g.gbnf, "get_weather\n<|content|>{\"city\": \"Oslo\"}").unwrap().accepted, "{}", g.gbnf);
}

#[test]
fn hostile_message_soup_parses_in_linear_time() {
    // Linear: four times the soup takes about four times as long (quadratic: sixteen). A quadratic path
    // (re-trimming a held body per chunk, recounting a call body's values per end token) takes minutes
    // on the full sizes. A ratio within one run holds on a loaded machine where an absolute bound does not.
    let head = "<atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">";
    let soups: [Box<dyn Fn(usize) -> String>; 6] = [
        Box::new(|k| format!(" to=user<|message|>{}x<|eot|>", " ".repeat(200_000 / k))),
        Box::new(move |k| format!(" to=get_weather<|message|>{head}{}</atem:parameter>", "<|eot|>".repeat(30_000 / k))),
        Box::new(|k| format!(" to=user<|message|>{}", "<|start|>assistant to=get_weather<|message|><atem:function_calls>".repeat(5_000 / k))),
        Box::new(|k| "<|start|>".repeat(50_000 / k)),
        Box::new(|k| " to=user<|message|>".repeat(20_000 / k)),
        Box::new(|k| format!(" to=self<|message|>{}", "<|message|><|eom|>".repeat(20_000 / k))),
    ];
    let t = ChatTemplate::new(&common::template_source(TEMPLATE), RenderOptions::default()).unwrap();
    let time = |soup: &str| {
        let t0 = std::time::Instant::now();
        let mut p = t.stream_parser(&options()).unwrap();
        // Small chunks: the cost of a path that re-reads what it holds grows with their number.
        for chunk in soup.as_bytes().chunks(7) {
            p.push(std::str::from_utf8(chunk).unwrap_or(""));
        }
        let _ = p.finish();
        t0.elapsed()
    };
    for make in &soups {
        let (small, soup) = (make(4), make(1));
        let (ts, took) = (time(&small).max(std::time::Duration::from_micros(50)), time(&soup));
        let ratio = took.as_secs_f64() / ts.as_secs_f64();
        println!("{} bytes of {:?}…: {took:?} ({ratio:.1}× a quarter of it)", soup.len(), &soup[..24]);
        assert!(ratio < 9.0, "{} bytes of {:?}…: {took:?}, {ratio:.1}× a quarter's {ts:?}: not linear", soup.len(), &soup[..24]);
        assert!(took < std::time::Duration::from_secs(60), "{} bytes of {:?}…: {took:?}", soup.len(), &soup[..24]);
    }
}
