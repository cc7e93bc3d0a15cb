//! Command-line interface: `chat-autoparser render FILE.jinja CONTEXT.json`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("render") if args.len() >= 2 => {
            let source = read(&args[1])?;
            let ctx: serde_json::Value = match args.get(2) {
                Some(p) => serde_json::from_str(&read(p)?).map_err(|e| e.to_string())?,
                None => serde_json::json!({"messages": [{"role": "user", "content": "Hello"}], "add_generation_prompt": true}),
            };
            let out = chat_autoparser::render_template(&source, &ctx, Default::default()).map_err(|e| e.to_string())?;
            print!("{out}");
            Ok(())
        }
        Some("version") => {
            println!("{}", chat_autoparser::version());
            Ok(())
        }
        _ => Err("usage: chat-autoparser render FILE.jinja [CONTEXT.json] | version".into()),
    }
}
