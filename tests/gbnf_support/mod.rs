//! Shared by the grammar tests: cases as requests, acceptance, and the corruptions a correct
//! tool-call grammar must reject.
#![allow(dead_code)]

use chat_autoparser::gbnf::ParsedGrammar;
use serde_json::{json, Value};

pub fn accepts(g: &ParsedGrammar, text: &str) -> bool {
    g.check(text).map(|r| r.accepted).unwrap_or(false)
}

/// Where the checker stopped, as `prefix | rest` for failure listings.
pub fn rejection(g: &ParsedGrammar, text: &str) -> String {
    let at = g.check(text).ok().and_then(|r| r.error_at).unwrap_or(0);
    format!("rejected at {at}: {:?} | {:?}", text.get(..at).unwrap_or(""), text.get(at..).unwrap_or(""))
}

#[derive(Default, Debug, Clone, Copy)]
pub struct Tally {
    pub tried: usize,
    pub ok: usize,
}

impl Tally {
    pub fn add(&mut self, ok: bool) {
        self.tried += 1;
        self.ok += ok as usize;
    }
}

/// Corruptions of an accepted text that a correct grammar must reject: (kind, text).
pub fn corruptions(case: &Value, text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let tools = case["tools"].as_array().cloned().unwrap_or_default();
    let called: Vec<String> = case["expected"]["tool_calls"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str().map(String::from)).collect();
    if let Some(name) = called.first() {
        if text.contains(name.as_str()) {
            out.push(("unknown tool name", text.replacen(name.as_str(), "unknown_tool_xyz", 1)));
        }
        let params = tools.iter().map(|t| &t["function"]).find(|f| f["name"] == json!(name)).map(|f| f["parameters"].clone()).unwrap_or(Value::Null);
        if let Some(req) = params["required"].as_array().and_then(|r| r.first()).and_then(Value::as_str) {
            // Renaming every whole-word occurrence of the key removes the required argument,
            // whatever the format spells around it (`"k":`, `=k>`, `k=`, `{k:`).
            let renamed = rename_word(text, req, "zz_missing");
            if renamed != text {
                out.push(("missing required argument", renamed));
            }
        }
        if let Some(props) = params["properties"].as_object() {
            for p in props.values() {
                if let Some(vals) = p["enum"].as_array() {
                    for v in vals.iter().filter_map(Value::as_str) {
                        if text.contains(&format!("\"{v}\"")) {
                            out.push(("value outside enum", text.replacen(&format!("\"{v}\""), "\"not_in_enum\"", 1)));
                        }
                    }
                }
            }
        }
        if let Some(pos) = text.rfind('}') {
            let mut broken = text.to_string();
            broken.replace_range(pos..pos + 1, "");
            if !broken.ends_with('}') {
                out.push(("broken JSON", broken));
            }
        }
    }
    out
}

/// `text` with every occurrence of `word` not inside a longer identifier replaced.
fn rename_word(text: &str, word: &str, to: &str) -> String {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let (before, after) = (rest.get(..i).unwrap_or(""), rest.get(i + word.len()..).unwrap_or(""));
        let whole = !ident(before.chars().last()) && !ident(after.chars().next());
        out.push_str(before);
        out.push_str(if whole { to } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}
