//! The accounting invariant: every letter and digit of model output ends up in content, reasoning,
//! a tool call's name, id or arguments, or is part of a marker the parser recognises — nothing is
//! dropped silently (see `fuzz_support::lost_letters` for the checker). Text a parser drops while
//! reporting it (a diagnostic or a finish error) is counted separately.

mod fuzz_support;

use fuzz_support::common::expectations::Expectations;
use fuzz_support::*;

const HARMONY_KNOWN: usize = 0;
const AUTO_KNOWN: usize = 0;

struct Tally {
    checked: usize,
    complete: usize,
    reported: Vec<String>,
    silent: Vec<String>,
}

/// Accounts every text; with `expect`, each text (`LABEL #k`, k = 0 for the unmutated text) is a case:
/// fully accounted passes, text lost with a diagnostic is a known difference.
fn tally(subjects: &[Subject], mutations: usize, seed: u64, mut expect: Option<&mut Expectations>) -> Tally {
    let mut t = Tally { checked: 0, complete: 0, reported: Vec::new(), silent: Vec::new() };
    for (i, s) in subjects.iter().enumerate() {
        let mut rng = Rng::new(seed + i as u64);
        let mut texts = vec![s.text.clone()];
        texts.extend((0..mutations).map(|_| mutate_subject(s, &mut rng)));
        for (k, text) in texts.into_iter().enumerate() {
            t.checked += 1;
            let outcome = match account(s, &text) {
                Accounting::Complete => {
                    t.complete += 1;
                    Ok(())
                }
                Accounting::Reported(lost) => {
                    t.reported.push(format!("{}: lost {lost:?} in {text:?}", s.label));
                    Err(format!("reported: lost {lost:?}"))
                }
                Accounting::Silent(lost) => {
                    t.silent.push(format!("{}: lost {lost:?} in {text:?}", s.label));
                    Err(format!("SILENT: lost {lost:?}"))
                }
            };
            if let Some(e) = expect.as_deref_mut() {
                e.record(format!("{} #{k}", s.label), outcome);
            }
        }
    }
    t
}

fn print(name: &str, t: &Tally) {
    println!(
        "{name}: {}/{} fully accounted, {} lost with a diagnostic, {} silently",
        t.complete,
        t.checked,
        t.reported.len(),
        t.silent.len()
    );
    for s in t.silent.iter().take(15) {
        println!("  SILENT {s}");
    }
    if std::env::var_os("SHOW").is_some() {
        for s in &t.reported {
            println!("  reported {s}");
        }
    }
}

#[test]
fn case_outputs_are_fully_accounted() {
    let mut templates = Templates::default();
    let mut subjects = case_subjects(&mut templates);
    subjects.extend(bench_subjects(&mut templates, &["1k"]));
    let t = tally(&subjects, 0, 0, None);
    print("accounting (cases + bench)", &t);
    assert!(t.silent.is_empty(), "{:#?}", t.silent);
}

#[test]
fn mutated_outputs_are_fully_accounted() {
    let subjects = case_subjects(&mut Templates::default());
    let mut expect = Expectations::load("accounting_mutated");
    let t = tally(&subjects, 12, 50_000, Some(&mut expect));
    print("accounting (mutated cases)", &t);
    // No parser may lose text silently (the harmony handler keeps header words it does not
    // understand as content, with a diagnostic).
    let harmony = t.silent.iter().filter(|s| s.contains("gpt-oss-120b.jinja) handler")).count();
    let auto = t.silent.iter().filter(|s| s.split(':').next().is_some_and(|l| l.ends_with(" auto"))).count();
    assert_eq!(harmony + auto, t.silent.len(), "unexpected silent losses: {:#?}", t.silent);
    assert!(harmony <= HARMONY_KNOWN && auto <= AUTO_KNOWN, "harmony {harmony}, auto {auto}");
    // Which texts are fully accounted and which lose text with a diagnostic, per text
    // (tests/expectations/accounting_mutated.jsonl): a text that moves from one to the other fails by name.
    expect.finish();
}

#[test]
fn checker_catches_dropped_text() {
    use chat_autoparser::api::{Message, ToolCall};
    let markers = vec!["<tool_call>".to_string(), "</tool_call>".to_string()];
    let out = "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"q\": \"caf\\u00e9\"}}</tool_call>";
    let mut m = Message { content: "Hi ".into(), ..Default::default() };
    m.tool_calls.push(ToolCall::new("", "f", "{\"q\": \"café\"}"));
    assert!(lost_letters(out, &markers, &m).is_empty(), "escaped arguments count unescaped");
    m.content = "H".into();
    assert_eq!(lost_letters(out, &markers, &m), vec![('i', 1)]);
    m.content = "Hi".into();
    m.tool_calls[0].function.name = "g".into();
    assert_eq!(lost_letters(out, &markers, &m), vec![('f', 1)]);
}

#[test]
fn generic_call_with_unknown_members_is_kept_as_content() {
    use chat_autoparser::analysis::Handler;
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::testing::make_parser;
    // Mutations found this: the `"": {…}` member used to vanish, leaving a call with `{}` arguments.
    let text = "<tool_call>\n{\"name\": \"f\", \"\": {\"arg1\": 1}}</tool_call>";
    let run = run_chunks(make_parser(Handler::Autoparser, &RequestOptions::default(), ""), &[text], false);
    assert!(run.message.tool_calls.is_empty(), "{:?}", run.message);
    assert_eq!(run.message.content, text);
}

#[test]
fn text_after_a_functionary_stop_is_reported() {
    use chat_autoparser::analysis::Handler;
    use chat_autoparser::api::RequestOptions;
    use chat_autoparser::testing::make_parser;
    // Found by fuzz_long: text after `<|eot_id|>` was dropped without a diagnostic.
    let mut p = make_parser(Handler::FunctionaryV32, &RequestOptions::default(), "");
    let mut out = Vec::new();
    p.push(">>>all\nHe<|eot_id|>llo", &mut out);
    p.finish(false, &mut out).unwrap();
    assert!(p.diagnostics().iter().any(|d| d.message.contains("after <|eot_id|>")), "{:?}", p.diagnostics());
}

#[test]
fn call_keys_compare_with_escapes_decoded() {
    // Found by fuzz_long: `"a\rguments"` was read as `"arguments"` (the escape's backslash dropped),
    // so the call went through and the mangled key was lost.
    let subjects = case_subjects(&mut Templates::default());
    let s = subjects.iter().find(|s| s.label.starts_with("case 96 (NousResearch-Hermes-2-Pro") && s.label.ends_with(" auto")).expect("subject");
    let run = |text: &str| run_chunks((s.make)(), &[text], false).message;
    let mangled = "<tool_call>\n{\"name\": \"special_function\", \"a\\rguments\": {\"arg1\": 1}}</tool_call>";
    // The object breaks (unrecognised member, no arguments: reported); it does not take the mangled
    // member's value as its arguments. A JSON call goes out only once whole (issue #11 item 11), so
    // all of it stays in content.
    let m = run(mangled);
    assert!(m.tool_calls.is_empty() && m.content == mangled, "{m:?}");
    let escaped = "<tool_call>\n{\"name\": \"special_\\u0066unction\", \"\\u0061rguments\": {\"arg1\": 1}}</tool_call>";
    let m = run(escaped);
    assert_eq!(m.tool_calls.len(), 1, "{m:?}");
    assert_eq!((m.tool_calls[0].function.name.as_str(), m.tool_calls[0].function.arguments.as_str()), ("special_function", "{\"arg1\": 1}"));
}

#[test]
fn argument_name_running_into_the_next_argument_breaks_the_call() {
    // Found by fuzz_long: `name="todos"<p name=" string="false">` took `todos"<p name=` as the
    // argument's name.
    let subjects = case_subjects(&mut Templates::default());
    let s = subjects.iter().find(|s| s.label.starts_with("case 147 (deepseek-ai-DeepSeek-V3.2") && s.label.ends_with(" auto")).expect("subject");
    let text = "Test array</think>\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"todo_list\">\n<｜DSML｜parameter name=\"todos\"<｜DSML｜parameter name=\" string=\"false\">[\"buy milk\"]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let m = run_chunks((s.make)(), &[text], false).message;
    assert!(m.tool_calls.iter().all(|c| !c.function.arguments.contains("DSML")), "{m:?}");
    assert!(m.content.contains("todos\"<｜DSML｜parameter name=\" string=\"false\">[\"buy milk\"]"), "{m:?}");
}
