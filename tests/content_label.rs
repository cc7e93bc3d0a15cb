//! Content labels (rule R47, issue #26): a template that writes a label in its own words in front of past
//! replies (`Asistente: `) while its generation prompt stops before it. The model writes the label to begin
//! its reply; the analysis finds it by comparing a past reply's turn with the generation prompt, and the
//! parser drops it where the content begins, whole and in any chunking, from the template and from a
//! compiled spec alike. The template is synthetic (tests/fixtures/synthetic/README.md).

mod common;

use chat_autoparser::api::RequestOptions;
use chat_autoparser::{verify_template, ChatTemplate, CompiledParser, RenderOptions};
use common::leniency::{has, parse_chunked};

const LABELLED: &str = "content-label.jinja";
const SIZES: [usize; 4] = [1, 2, 3, 7];

fn template(name: &str) -> ChatTemplate {
    ChatTemplate::new(&common::template_source(name), RenderOptions::default()).unwrap()
}

#[test]
fn the_analysis_finds_the_label_the_prompt_leaves_out() {
    let t = template(LABELLED);
    let a = t.analysis().unwrap();
    assert_eq!(a.content_label, "Asistente:");
    assert!(verify_template(&t).ok, "the round trip reads past replies without their label");
    // Templates whose generation prompt holds everything before the reply have none.
    for name in ["Qwen-Qwen3-0.6B.jinja", "meta-llama-Llama-3.1-8B-Instruct.jinja", "google-gemma-2-2b-it.jinja", "openai-gpt-oss-120b.jinja"] {
        assert_eq!(template(name).analysis().unwrap().content_label, "", "{name}");
    }
}

#[test]
fn the_label_where_the_reply_begins_is_dropped() {
    let options = RequestOptions::default();
    for (out, content, labelled) in [
        ("Asistente: Hola, ¿qué tal?", "Hola, ¿qué tal?", true),
        ("\nAsistente:Hola", "Hola", true),
        ("Asistente: ", "", true),
        // No label, or the label anywhere but where the content begins: content as written.
        ("Hola, ¿qué tal?", "Hola, ¿qué tal?", false),
        ("Asistent", "Asistent", false),
        ("Dijo: Asistente: hola", "Dijo: Asistente: hola", false),
        ("Asistente: uno\nAsistente: dos", "uno\nAsistente: dos", true),
    ] {
        let (m, d) = parse_chunked(LABELLED, &options, out, &SIZES);
        assert_eq!(m.content.trim(), content, "{out:?}: {d:?}");
        assert_eq!(has(&d, "R47"), labelled, "{out:?}: {d:?}");
        assert!(d.iter().filter(|x| x.contains("R47")).count() <= 1, "{out:?}: {d:?}");
    }
}

#[test]
fn a_compiled_spec_drops_it_too() {
    let t = template(LABELLED);
    let spec = t.compile_parser(&Default::default()).unwrap().to_json();
    assert!(spec.contains("\"contentLabel\":\"Asistente:\""), "{spec}");
    let compiled = CompiledParser::from_json(&spec).unwrap();
    let out = "Asistente: Hola";
    for n in [1, 2, 5] {
        let run = |mut p: chat_autoparser::StreamParser| {
            for c in chat_autoparser::testing::chunks(out, n) {
                p.push(c);
            }
            p.finish().unwrap();
            (p.message().clone(), p.diagnostics().to_vec())
        };
        let options = RequestOptions::default();
        let (a, b) = (run(t.stream_parser(&options).unwrap()), run(compiled.stream_parser(&options).unwrap()));
        assert_eq!(a.0.content, "Hola");
        assert_eq!(a, b, "chunks of {n}");
    }
}
