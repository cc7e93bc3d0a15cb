//! Issue #11 item 11 (second half): a JSON tool call whose arguments are broken (`{"title": , …}`, an
//! unclosed `[`, a bare word) is never emitted: it stays in content, all of it, markers included, with
//! a diagnostic naming serde's error; whole text and one character at a time agree. Checked on every
//! conformance template's rendered `nested_arguments` fixture (the template's own call syntax), the
//! dedicated formats (Ministral / Devstral `[ARGS]`, Functionary v3.2, Harmony) included.
//!
//! With `streamArguments` the same broken call has gone out by the time it breaks: it ends with a
//! diagnostic saying its arguments are not valid JSON, and nothing is lost.

mod common;
use chat_autoparser::api::{Diagnostic, Message, RequestOptions};
use chat_autoparser::testing::fixture_tools;
use chat_autoparser::{ChatTemplate, RenderOptions, StreamParser};
use serde_json::json;

fn options(stream_arguments: bool) -> RequestOptions {
    let user = json!({ "role": "user", "content": "Please help me." });
    RequestOptions { tools: fixture_tools(), messages: vec![user], parallel_tool_calls: true, stream_arguments, ..Default::default() }
}

fn run(t: &ChatTemplate, prompt: &str, options: &RequestOptions, chunks: &[String]) -> (Message, Vec<Diagnostic>) {
    let mut p = StreamParser::new(t.analysis().unwrap(), prompt, options).unwrap();
    for c in chunks {
        p.push(c);
    }
    let _ = p.finish();
    (p.message().clone(), p.diagnostics().to_vec())
}

#[test]
fn broken_json_calls_stay_in_content() {
    let dir = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let (held, streamed) = (options(false), options(true));
    let (mut checked, mut dedicated) = (0, 0);
    for name in &names {
        let Ok(t) = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }) else { continue };
        let report = t.verify();
        let Some(r) = report.results.iter().find(|r| r.name == "nested_arguments" && r.ok && r.skipped.is_none()) else { continue };
        let is_dedicated = t.analysis().unwrap().handler != chat_autoparser::analysis::Handler::Autoparser;
        for (what, from, to) in [("missing value", "\"Standup\"", ""), ("unclosed array", "[\"ana\", \"bo\"]", "[\"ana\", \"bo\""), ("bare word", "\"Standup\"", "Standup")] {
            // Only JSON calls (tagged formats write `Standup` bare; their typed values are item 11's first half).
            let Some(at) = r.output.find(&format!("\"title\": {from}")).or_else(|| r.output.find(&format!("\"attendees\": {from}"))) else { continue };
            let text = r.output.replacen(from, to, 1);
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let (m, d) = run(&t, &r.prompt, &held, &[text.clone()]);
            assert!(m.tool_calls.is_empty(), "{name} {what}: emitted {:?}", m.tool_calls);
            // The whole call is content: the broken JSON and, in the engine's formats, the closing
            // markers after it (a dedicated format's stop marker, harmony's `<|call|>`, still stops).
            let json_end = text.rfind('}').map_or(text.len(), |e| e + 1);
            let tail = if is_dedicated { text.get(at..json_end).unwrap_or("") } else { text.get(at..).unwrap_or("").trim_end() };
            assert!(m.content.contains(tail), "{name} {what}: content {:?}", m.content);
            assert!(d.iter().any(|d| d.message.contains("not valid JSON") && d.message.contains("kept as content")), "{name} {what}: {d:?}");
            assert_eq!(run(&t, &r.prompt, &held, &chars).0, m, "{name} {what}: one character at a time");
            // Streamed: the call went out before it broke; it ends with a diagnostic, nothing is lost,
            // and every chunking agrees.
            let (s, sd) = run(&t, &r.prompt, &streamed, &[text.clone()]);
            let streamed_text: String = [s.content.as_str()].into_iter().chain(s.tool_calls.iter().map(|c| c.function.arguments.as_str())).collect();
            assert!(s.tool_calls.len() <= 1, "{name} {what}: {s:?}");
            if s.tool_calls.len() == 1 {
                assert!(sd.iter().any(|d| d.message.contains("streamArguments")), "{name} {what}: {sd:?} {s:?}");
            }
            for piece in text.get(at..json_end).unwrap_or("").split(['"', ' ', ',', ':', '{', '}', '[', ']']).filter(|p| !p.is_empty()) {
                assert!(streamed_text.contains(piece), "{name} {what}: {piece:?} lost in {s:?}");
            }
            assert_eq!(run(&t, &r.prompt, &streamed, &chars).0, s, "{name} {what}: streamed, one character at a time");
            checked += 1;
            dedicated += usize::from(is_dedicated);
        }
    }
    println!("broken JSON calls: {checked} (template × breakage) kept as content, {dedicated} of them in dedicated formats");
    // Every conformance template whose fixture has a JSON call (a template added with one adds cases).
    assert_eq!((checked, dedicated), (86, 9));
}

#[test]
fn a_call_cut_off_after_an_escape_no_text_can_complete_stays_out_of_the_calls() {
    // `"minutes": "\u"}}` then the end of the output: serde reads it as cut off (EOF inside the four
    // hex digits of `\u`), but no appended text makes it JSON. Found by fuzz_long (harmony, session 14:
    // `"celsi\us"}` at the end): the call went out with those arguments. Every format: no call leaves
    // with arguments that are not JSON, whole and one character at a time.
    let dir = common::fixtures_dir().join("conformance/templates");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let held = options(false);
    let mut checked = 0;
    for name in &names {
        let Ok(t) = ChatTemplate::new(&common::template_source(name), RenderOptions { now: Some(common::REFERENCE_NOW), ..Default::default() }) else { continue };
        let report = t.verify();
        let Some(r) = report.results.iter().find(|r| r.name == "nested_arguments" && r.ok && r.skipped.is_none()) else { continue };
        let Some(at) = r.output.find("\"minutes\": 10").or_else(|| r.output.find("\"minutes\":10")) else { continue };
        let broken = format!("{}\"minutes\": \"\\u\"}}}}", &r.output[..at]);
        let chars: Vec<String> = broken.chars().map(String::from).collect();
        for chunks in [vec![broken.clone()], chars] {
            let (m, _) = run(&t, &r.prompt, &held, &chunks);
            for c in &m.tool_calls {
                assert!(serde_json::from_str::<serde_json::Value>(&c.function.arguments).is_ok(), "{name}: {:?} in {broken:?}", c.function.arguments);
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "templates checked: {checked}");
}
