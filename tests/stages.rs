//! The crate's stages import only the stages below them: template → analysis → parse / gbnf →
//! formats → session → wasm. Every `crate::…` path in `src/` is checked against that order (a
//! stage may use its own folder and any lower stage, never a higher one or a sibling).

use std::path::Path;

/// Top-level modules of `src/` and their rank. Leaves (the error type, text helpers, then the wire
/// types) come first; `lib` (the crate root) is above everything.
const STAGES: &[(&str, u8)] = &[
    ("error", 0),
    ("text", 0),
    ("rules", 0),
    ("mru", 0),
    ("api", 1),
    ("findings", 1),
    ("template", 2),
    ("analysis", 3),
    ("parse", 4),
    ("gbnf", 4),
    ("formats", 5),
    ("session", 6),
    ("response_template", 7),
    ("wasm", 8),
    ("lib", 9),
];

/// Names `lib.rs` re-exports at the crate root, and the module each comes from.
const ROOT_NAMES: &[(&str, &str)] = &[
    ("Error", "error"),
    ("ErrorKind", "error"),
    ("Result", "error"),
    ("render_template", "template"),
    ("Caps", "findings"),
    ("CompiledParser", "session"),
    ("GenerationPrompts", "findings"),
    ("RenderOptions", "template"),
    ("Template", "template"),
    ("build_grammar", "formats"),
    ("ChatTemplate", "session"),
    ("StreamParser", "session"),
    ("parse_output", "session"),
    ("generation_prompt", "session"),
    ("verify_template", "session"),
    ("VerifyReport", "session"),
    ("VerifyResult", "session"),
    ("ParserSpec", "findings"),
    ("PARSER_SPEC_VERSION", "findings"),
    ("version", "lib"),
    ("testing", "lib"),
];

fn rank(module: &str) -> Option<u8> {
    STAGES.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

/// The top-level module a path after `crate::` names (`analysis::Analysis` → `analysis`;
/// `Error` → `error` through the root re-exports).
fn target_modules(after: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let names: Vec<String> = match after.strip_prefix('{') {
        // `crate::{Error, ErrorKind}`: each name of the group (nested groups are not used at the root).
        Some(group) => group.split('}').next().unwrap_or("").split(',').map(|n| ident(n.trim())).collect(),
        None => vec![ident(after)],
    };
    names
        .into_iter()
        .filter(|n| !n.is_empty())
        .map(|n| ROOT_NAMES.iter().find(|(r, _)| *r == n).map_or(n.clone(), |(_, m)| m.to_string()))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file of `src/`: its path under `src/`, its top-level module (`formats`, `lib`) and its text.
fn sources() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(&src).expect("under src");
            let top = rel.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("").trim_end_matches(".rs").to_string();
            (rel.display().to_string(), top, std::fs::read_to_string(&file).expect("readable"))
        })
        .collect()
}

#[test]
fn no_stage_imports_a_stage_above_it() {
    let mut violations = Vec::new();
    let mut checked = 0;
    for (rel, top, text) in sources() {
        if top == "bin" {
            continue; // the CLI is its own crate and uses the public API only
        }
        let own = rank(&top).unwrap_or_else(|| panic!("{rel}: module `{top}` has no stage in STAGES"));
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                // `chat_autoparser::crate::…` does not occur; skip identifiers ending in `crate` (`ext_crate::`).
                if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                for target in target_modules(&code[i + "crate::".len()..]) {
                    checked += 1;
                    if target == top {
                        continue;
                    }
                    let Some(r) = rank(&target) else {
                        violations.push(format!("{rel}:{}: `crate::{target}` is not a known stage", n + 1));
                        continue;
                    };
                    if r >= own {
                        violations.push(format!("{rel}:{}: stage `{top}` uses `{target}` (same or higher stage)", n + 1));
                    }
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} crate paths found: is the scan broken?");
    assert!(violations.is_empty(), "upward imports:\n{}", violations.join("\n"));
}

#[test]
fn the_scan_sees_root_reexports_and_groups() {
    assert_eq!(target_modules("{Error, ErrorKind, Result};"), ["error", "error", "error"]);
    assert_eq!(target_modules("ChatTemplate::new(x)"), ["session"]);
    assert_eq!(target_modules("analysis::Analysis;"), ["analysis"]);
}

/// Formats own their knowledge (issue #24): which output format a template uses is named only where
/// it is decided (`analysis/`) and where each format is implemented (`formats/`, whose `format_of` is
/// the one table). Everything else asks the `Format` seam, so adding a format is one file and one arm.
#[test]
fn only_analysis_and_formats_name_a_format() {
    let mut named = Vec::new();
    for (rel, top, text) in sources() {
        if top == "analysis" || top == "formats" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if line.contains("Handler::") {
                named.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(named.is_empty(), "a format named outside analysis/ and formats/ (ask `formats::format_of(handler)` instead):\n{}", named.join("\n"));
}
