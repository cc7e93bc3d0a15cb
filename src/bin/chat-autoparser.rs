//! Command-line interface.
//!
//! ```text
//! chat-autoparser analyze FILE.jinja [--json]        modes, markers and diff splits
//! chat-autoparser grammar FILE.jinja --tools T.json [--options O.json] [--json]
//!                                                    GBNF, lazy triggers, preserved tokens
//! chat-autoparser parse FILE.jinja OUTPUT.txt [--tools T.json] [--options O.json] [--stream N] [--stream-arguments]
//!                                                    parse model output (or stream it in N-byte chunks)
//! chat-autoparser render FILE.jinja [CONTEXT.json]   render once (default: one user message)
//! chat-autoparser response-template FILE.jinja [--json]
//!                                                    the analysis as a transformers response_template
//! chat-autoparser version
//! chat-autoparser help [COMMAND]                     this help (also --help / -h, anywhere)
//! ```

use chat_autoparser::analysis::Analysis;
use chat_autoparser::{ChatTemplate, RenderOptions};
use std::process::ExitCode;

// Output goes through these instead of std's `println!`/`print!`, which panic when stdout is a closed pipe
// (`chat-autoparser analyze T --json | head`): a reader that stops reading ends the tool quietly.
macro_rules! println {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}
macro_rules! print {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

const USAGE: &str = "usage:
  chat-autoparser analyze FILE.jinja [--json]
  chat-autoparser compile FILE.jinja [--options OPTIONS.json]
  chat-autoparser grammar FILE.jinja --tools TOOLS.json [--options OPTIONS.json] [--json]
  chat-autoparser parse FILE.jinja OUTPUT.txt [--tools TOOLS.json] [--options OPTIONS.json] [--stream N] [--stream-arguments]
  chat-autoparser render FILE.jinja [CONTEXT.json]
  chat-autoparser response-template FILE.jinja [--json]
  chat-autoparser version
  chat-autoparser help [COMMAND]   (or --help / -h)";

/// Per-command help: what `chat-autoparser help COMMAND` and `COMMAND --help` print.
fn command_help(cmd: &str) -> Option<&'static str> {
    Some(match cmd {
        "analyze" => "usage: chat-autoparser analyze FILE.jinja [--json]
  How the template's model writes reasoning, content and tool calls: modes, markers and every diff split.
  --json   the whole analysis as JSON",
        "compile" => "usage: chat-autoparser compile FILE.jinja [--options OPTIONS.json]
  The template's parser as a portable parser spec (JSON, on stdout), for chat-autoparser/parser:
  parse its model output in a browser without the template engine (ship the spec, not the template).
  --options O.json   {\"extraContext\": {...}}: template variables for the generation-prompt renders",
        "grammar" => "usage: chat-autoparser grammar FILE.jinja --tools TOOLS.json [--options OPTIONS.json] [--json]
  The GBNF grammar, lazy triggers and preserved tokens for constrained tool calling.
  --tools T.json     an array of tools, or {\"tools\": [...]}
  --options O.json   request options (camelCase, as the JS API)
  --json             the result as JSON",
        "parse" => "usage: chat-autoparser parse FILE.jinja OUTPUT.txt [--tools TOOLS.json] [--options OPTIONS.json] [--stream N] [--stream-arguments]
  Parse model output into an OpenAI-style message (diagnostics go to stderr).
  --tools T.json     an array of tools, or {\"tools\": [...]}
  --options O.json   request options (camelCase, as the JS API)
  --stream N         push the output in N-byte chunks and print each delta as a JSON line
  --stream-arguments stream JSON tool-call arguments as written (streamArguments: true); by default a
                     JSON call goes out whole once its arguments are valid JSON",
        "render" => "usage: chat-autoparser render FILE.jinja [CONTEXT.json]
  Render the template once (default context: one user message and the generation prompt).",
        "response-template" => "usage: chat-autoparser response-template FILE.jinja [--json]
  The analysis as a Hugging Face transformers response_template, with what the spec cannot express.
  --json   the template and its losses as JSON",
        "version" => "usage: chat-autoparser version
  Print the version.",
        "help" => USAGE,
        _ => return None,
    })
}

/// `--help` / `-h` anywhere, or `help [COMMAND]`: the help text to print, if help was asked for.
fn help_request(args: &[String]) -> Option<&'static str> {
    let asked = args.iter().any(|a| a == "--help" || a == "-h");
    let first = args.first().map(String::as_str);
    if first == Some("help") {
        return Some(args.get(1).and_then(|c| command_help(c)).unwrap_or(USAGE));
    }
    if asked {
        return Some(first.and_then(command_help).unwrap_or(USAGE));
    }
    None
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(text) = help_request(&args) {
        println!("{text}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn template(path: &str) -> Result<ChatTemplate, String> {
    ChatTemplate::new(&read(path)?, RenderOptions::default()).map_err(|e| format!("{path}: {e}"))
}

fn flag(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

/// The value after `--name`, if given.
fn value<'a>(args: &'a [String], name: &str) -> Option<&'a String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1))
}

/// Request options from `--options O.json`, with `--tools T.json` (an array, or `{"tools": [...]}`).
fn request_options(args: &[String]) -> Result<chat_autoparser::api::RequestOptions, String> {
    let mut opts: chat_autoparser::api::RequestOptions = match value(args, "--options") {
        Some(p) => serde_json::from_str(&read(p)?).map_err(|e| format!("{p}: {e}"))?,
        None => Default::default(),
    };
    if let Some(p) = value(args, "--tools") {
        let v: serde_json::Value = serde_json::from_str(&read(p)?).map_err(|e| format!("{p}: {e}"))?;
        let tools = v.get("tools").cloned().unwrap_or(v);
        opts.tools = serde_json::from_value(tools).map_err(|e| format!("{p}: expected an array of tools: {e}"))?;
    }
    Ok(opts)
}

fn run(args: &[String]) -> Result<(), String> {
    let mut positional: Vec<&String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--tools" || args[i] == "--options" || args[i] == "--stream" {
            i += 2;
            continue;
        }
        if !args[i].starts_with("--") {
            positional.push(&args[i]);
        }
        i += 1;
    }
    match positional.first().map(|s| s.as_str()) {
        Some("analyze") if positional.len() >= 2 => {
            let t = template(positional[1])?;
            let a = t.analysis().map_err(|e| e.to_string())?;
            // The round trip is part of the answer: an analysis can look complete and still be wrong.
            let verified = chat_autoparser::verify_template(&t).verified;
            if flag(args, "--json") {
                let mut v = serde_json::to_value(a).map_err(|e| e.to_string())?;
                v["verified"] = serde_json::to_value(verified).map_err(|e| e.to_string())?;
                println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
            } else {
                print_analysis(a);
                println!("verified:  {} ({})", verified.ok, verified.summary());
            }
            Ok(())
        }
        Some("grammar") if positional.len() >= 2 => {
            let t = template(positional[1])?;
            let g = t.grammar(&request_options(args)?).map_err(|e| e.to_string())?;
            if flag(args, "--json") {
                println!("{}", serde_json::to_string_pretty(&g).map_err(|e| e.to_string())?);
            } else {
                println!("# lazy: {}", g.lazy);
                for tr in &g.triggers {
                    println!("# trigger ({}): {}", serde_json::to_string(&tr.kind).unwrap_or_default().trim_matches('"'), vis(&tr.value));
                }
                println!("# preserved tokens: {}", g.preserved_tokens.iter().map(|t| vis(t)).collect::<Vec<_>>().join("  "));
                println!("{}", g.gbnf);
            }
            Ok(())
        }
        Some("parse") if positional.len() >= 3 => {
            let t = template(positional[1])?;
            let output = read(positional[2])?;
            let mut opts = request_options(args)?;
            opts.stream_arguments |= flag(args, "--stream-arguments");
            let mut parser = t.stream_parser(&opts).map_err(|e| e.to_string())?;
            let chunk = match value(args, "--stream") {
                Some(n) => n.parse::<usize>().map_err(|_| format!("--stream takes a chunk size in bytes, not {n:?}"))?.max(1),
                None => usize::MAX,
            };
            let streaming = chunk != usize::MAX;
            let mut rest = output.as_str();
            while !rest.is_empty() {
                let mut end = chunk.min(rest.len());
                while !rest.is_char_boundary(end) {
                    end += 1;
                }
                for d in parser.push(&rest[..end]) {
                    if streaming {
                        println!("{}", serde_json::to_string(&d).map_err(|e| e.to_string())?);
                    }
                }
                rest = &rest[end..];
            }
            let finished = parser.finish();
            for d in finished.as_deref().unwrap_or(&[]) {
                if streaming {
                    println!("{}", serde_json::to_string(d).map_err(|e| e.to_string())?);
                }
            }
            for d in parser.diagnostics() {
                match &d.rule {
                    Some(rule) => eprintln!("diagnostic at byte {} [{rule}]: {}", d.offset, d.message),
                    None => eprintln!("diagnostic at byte {}: {}", d.offset, d.message),
                }
            }
            println!("{}", serde_json::to_string_pretty(parser.message()).map_err(|e| e.to_string())?);
            finished.map(|_| ()).map_err(|e| e.to_string())
        }
        Some("compile") if positional.len() >= 2 => {
            #[derive(serde::Deserialize, Default)]
            #[serde(default, deny_unknown_fields, rename_all = "camelCase")]
            struct CompileOptions {
                extra_context: serde_json::Map<String, serde_json::Value>,
            }
            let t = template(positional[1])?;
            let opts: CompileOptions = match value(args, "--options") {
                Some(p) => serde_json::from_str(&read(p)?).map_err(|e| format!("{p}: {e}"))?,
                None => CompileOptions::default(),
            };
            println!("{}", t.compile_parser(&opts.extra_context).map_err(|e| e.to_string())?.to_json());
            Ok(())
        }
        Some("render") if positional.len() >= 2 => {
            let t = template(positional[1])?;
            let ctx: serde_json::Value = match positional.get(2) {
                Some(p) => serde_json::from_str(&read(p)?).map_err(|e| format!("{p}: {e}"))?,
                None => serde_json::json!({"messages": [{"role": "user", "content": "Hello"}], "add_generation_prompt": true}),
            };
            print!("{}", t.render(&ctx).map_err(|e| e.to_string())?);
            Ok(())
        }
        Some("response-template") if positional.len() >= 2 => {
            let t = template(positional[1])?;
            let d = chat_autoparser::response_template::response_template(&t, &Default::default()).map_err(|e| e.to_string())?;
            if flag(args, "--json") {
                println!("{}", serde_json::to_string_pretty(&d).map_err(|e| e.to_string())?);
            } else {
                // The template on stdout (ready for tokenizer_config.json); what it loses on stderr.
                println!("{}", serde_json::to_string_pretty(&d.response_template).map_err(|e| e.to_string())?);
                for l in &d.losses {
                    eprintln!("# {} ({}): {}", l.feature, l.severity, l.detail);
                }
            }
            Ok(())
        }
        Some("version") => {
            println!("{}", chat_autoparser::version());
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}

/// Show a string with its whitespace visible.
fn vis(s: &str) -> String {
    if s.is_empty() {
        return "∅".into();
    }
    s.replace('\n', "↵").replace('\t', "⇥")
}

fn print_analysis(a: &Analysis) {
    let j = |v: &dyn erased::Ser| v.json();
    println!("handler:   {}", j(&a.handler));
    println!("caps:      {}", j(&a.caps));
    println!("roles:     user_start={}  assistant_start={}", vis(&a.user_start), vis(&a.assistant_start));
    println!("reasoning: {}  start={}  end={}", j(&a.reasoning.mode), vis(&a.reasoning.start), vis(&a.reasoning.end));
    println!(
        "content:   {}  start={}  end={}  requires_nonnull_content={}",
        j(&a.content.mode),
        vis(&a.content.start),
        vis(&a.content.end),
        a.content.requires_nonnull_content
    );
    if let Some(m) = &a.messages {
        let reasoning = m.reasoning_recipient.as_deref().map(|r| format!("  reasoning_recipient={r}")).unwrap_or_default();
        println!(
            "messages:  start={}  recipient_prefix={}  header_end={}  content_recipient={}{reasoning}  ends={}",
            vis(&m.message_start),
            vis(&m.recipient_prefix),
            vis(&m.header_end),
            m.content_recipient,
            m.message_ends.join(" ")
        );
    }
    let f = &a.tools.format;
    let wire = if a.tools.requires_wire_shape { "  requires_wire_shape=true (calls sent as content null, arguments a JSON string)" } else { "" };
    println!("tools:     {}{wire}", j(&f.mode));
    let rows: [(&str, &str); 16] = [
        ("section_start", &f.section_start),
        ("section_end", &f.section_end),
        ("per_call_start", &f.per_call_start),
        ("per_call_end", &f.per_call_end),
        ("function.name_prefix", &a.tools.function.name_prefix),
        ("function.name_suffix", &a.tools.function.name_suffix),
        ("function.close", &a.tools.function.close),
        ("arguments.start", &a.tools.arguments.start),
        ("arguments.end", &a.tools.arguments.end),
        ("arguments.name_prefix", &a.tools.arguments.name_prefix),
        ("arguments.name_suffix", &a.tools.arguments.name_suffix),
        ("arguments.value_prefix", &a.tools.arguments.value_prefix),
        ("arguments.value_suffix", &a.tools.arguments.value_suffix),
        ("arguments.separator", &a.tools.arguments.separator),
        ("call_id.prefix", &a.tools.call_id.prefix),
        ("call_id.suffix", &a.tools.call_id.suffix),
    ];
    for (k, v) in rows {
        if !v.is_empty() {
            println!("  {k:<24}{}", vis(v));
        }
    }
    if f.mode == chat_autoparser::analysis::ToolFormat::JsonNative {
        println!(
            "  json fields: function={} name={} args={} id={} gen_id={} name_is_key={} array_wrapped={}",
            f.function_field, f.name_field, f.args_field, f.id_field, f.gen_id_field, f.fun_name_is_key, f.tools_array_wrapped
        );
    }
    println!("  call_id.pos             {}", j(&a.tools.call_id.pos));
    println!("preserved: {}", a.preserved_tokens.iter().map(|t| vis(t)).collect::<Vec<_>>().join("  "));
    if !a.workarounds.is_empty() {
        println!("workarounds: {}", a.workarounds.join(", "));
    }
    for d in &a.diagnostics {
        println!("diagnostic: {d}");
    }
    println!("complete:  {}", a.analysis_complete);
    println!("\ndiff splits ({}):", a.diffs.len());
    for d in &a.diffs {
        println!("  [{}] {}{}", d.step, d.changed, if d.ok { "" } else { "  (render failed)" });
        println!("      prefix …{}", vis(tail(&d.prefix, 60)));
        println!("      left   {}", vis(&d.left));
        println!("      right  {}", vis(&d.right));
        println!("      suffix {}…", vis(head(&d.suffix, 60)));
    }
}

fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

fn head(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

mod erased {
    /// Serialize any value to compact JSON text for display (enums print as their wire names).
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default().trim_matches('"').to_string()
        }
    }
}
