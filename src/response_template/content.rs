//! Content parsers (`text` `int` `float` `bool` `json` `xml-inline` `kv-lines`), `transform`, and
//! the schema typing of tool-call arguments (`tools=`), with transformers 5.23's semantics.

use super::pattern::{groups, syntax_config, translate, Groups, GroupsCache};
use crate::{Error, ErrorKind, Result};
use serde_json::{Map, Number, Value};

fn bad(msg: String) -> Error {
    Error::new(ErrorKind::Parse, msg)
}

/// Content parser names transformers knows.
pub const PARSERS: [&str; 7] = ["text", "int", "float", "bool", "json", "xml-inline", "kv-lines"];

/// Parsers whose chunks are part of the final value (`dirty: false`).
pub fn streamable(name: &str) -> bool {
    matches!(name, "text" | "int" | "float" | "bool")
}

fn strip(text: &str, args: &Map<String, Value>) -> String {
    if args.get("strip").and_then(Value::as_bool).unwrap_or(true) {
        text.trim().to_string()
    } else {
        text.to_string()
    }
}

/// Python `int(s)` for the common forms (sign, `_` between digits, surrounding whitespace).
fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let t = if t.contains('_') && !t.starts_with('_') && !t.ends_with('_') && !t.contains("__") { t.replace('_', "") } else { t.to_string() };
    t.strip_prefix('+').unwrap_or(&t).parse::<i64>().ok().filter(|_| !t.is_empty())
}

fn py_float(s: &str) -> Option<f64> {
    let t = s.trim().to_ascii_lowercase();
    match t.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => t.parse::<f64>().ok(),
    }
}

fn number(f: f64) -> Result<Value> {
    Number::from_f64(f).map(Value::Number).ok_or_else(|| bad(format!("{f} is not a JSON number")))
}

/// Run the named content parser.
pub fn parse_content(text: &str, name: &str, args: &Map<String, Value>) -> Result<Value> {
    match name {
        "text" => Ok(Value::String(strip(text, args))),
        "int" => py_int(&strip(text, args)).map(Value::from).ok_or_else(|| bad(format!("int: invalid literal {text:?}"))),
        "float" => py_float(&strip(text, args)).ok_or_else(|| bad(format!("float: could not convert {text:?}"))).and_then(number),
        "bool" => Ok(Value::Bool(matches!(strip(text, args).to_lowercase().as_str(), "true" | "1"))),
        "json" => json(text, args),
        "xml-inline" => xml_inline(text, args),
        "kv-lines" => kv_lines(text, args),
        other => Err(bad(format!("unknown content parser {other:?}"))),
    }
}

const LAX_OPEN: char = '\u{1}';
const LAX_CLOSE: char = '\u{2}';

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `json` with its dialect knobs: `string_delims`, `unquoted_keys`, `allow_non_json`.
fn json(text: &str, args: &Map<String, Value>) -> Result<Value> {
    let delims: Vec<(String, String)> = args
        .get("string_delims")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p.get(0)?.as_str()?.to_string(), p.get(1)?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    if !delims.is_empty() && (text.contains(LAX_OPEN) || text.contains(LAX_CLOSE)) {
        return Err(bad("json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.".into()));
    }
    let mut working = text.to_string();
    let mut captured: Vec<String> = Vec::new();
    for (open, close) in &delims {
        // `open(.*?)close`, left to right, non-overlapping.
        let mut out = String::with_capacity(working.len());
        let mut rest = working.as_str();
        while let Some(a) = rest.find(open.as_str()) {
            let after = &rest[a + open.len()..];
            let Some(b) = after.find(close.as_str()) else { break };
            out.push_str(&rest[..a]);
            captured.push(after[..b].to_string());
            out.push_str(&format!("{LAX_OPEN}{}{LAX_CLOSE}", captured.len() - 1));
            rest = &after[b + close.len()..];
        }
        out.push_str(rest);
        working = out;
    }
    if args.get("unquoted_keys").and_then(Value::as_bool).unwrap_or(false) {
        // `(?<=[{,])(\w+):` → `"\1":`
        let cs: Vec<char> = working.chars().collect();
        let mut out = String::with_capacity(working.len() + 8);
        let mut i = 0;
        while i < cs.len() {
            out.push(cs[i]);
            if cs[i] == '{' || cs[i] == ',' {
                let mut j = i + 1;
                while j < cs.len() && is_word(cs[j]) {
                    j += 1;
                }
                if j > i + 1 && cs.get(j) == Some(&':') {
                    out.push('"');
                    out.extend(&cs[i + 1..j]);
                    out.push_str("\":");
                    i = j + 1;
                    continue;
                }
            }
            i += 1;
        }
        working = out;
    }
    for (i, s) in captured.iter().enumerate() {
        working = working.replace(&format!("{LAX_OPEN}{i}{LAX_CLOSE}"), &serde_json::to_string(s).unwrap_or_default());
    }
    match serde_json::from_str::<Value>(working.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        Ok(v) => Ok(v),
        Err(e) => {
            if args.get("allow_non_json").and_then(Value::as_bool).unwrap_or(false) {
                return Ok(Value::String(strip(text, args)));
            }
            Err(bad(format!("json parser could not parse region as JSON.\nContent: {text:?}\nError: {e}")))
        }
    }
}

fn sub_parse(raw: &str, value_parser: Option<&Value>) -> Result<Value> {
    match value_parser {
        None | Some(Value::Null) => Ok(Value::String(raw.to_string())),
        Some(vp) => {
            let name = vp.get("name").and_then(Value::as_str).unwrap_or("text");
            let empty = Map::new();
            let args = vp.get("args").and_then(Value::as_object).unwrap_or(&empty);
            parse_content(raw, name, args)
        }
    }
}

/// A compiled `tag_pattern` (checked when the template loads).
pub fn compile_tag_pattern(scope: &str, p: &str) -> Result<Groups> {
    let rust = translate(p).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("{scope}: tag_pattern {p:?}: {e}")))?;
    groups(&rust).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("{scope}: invalid tag_pattern {p:?}: {e}")))
}

thread_local! {
    /// Compiled tag patterns by source (a template's few patterns are compiled once per thread).
    /// With a search cache each (made once: for a Unicode pattern it is larger than a call's text).
    static TAG_PATTERNS: std::cell::RefCell<crate::mru::Mru<String, std::rc::Rc<TagRegex>>> = const { std::cell::RefCell::new(crate::mru::Mru::new(64)) };
}

/// A tag pattern, searched as regex-automata's meta engine would: the lazy DFAs find each match, the
/// backtracker reads the groups of that match only. The PikeVM alone, searching unanchored, started a
/// thread at every byte and copied every thread's groups: 0.5 µs per byte of a call, most of a
/// declared-template parse.
struct TagRegex {
    groups: Groups,
    /// `None` when the lazy DFAs cannot be built for the pattern (the PikeVM searches alone).
    finder: Option<regex_automata::hybrid::regex::Regex>,
    caches: std::cell::RefCell<TagCaches>,
}

struct TagCaches {
    groups: GroupsCache,
    finder: Option<regex_automata::hybrid::regex::Cache>,
}

impl TagRegex {
    fn new(pattern: &str) -> Result<TagRegex> {
        let groups = compile_tag_pattern("xml-inline", pattern)?;
        let finder = translate(pattern).ok().and_then(|rust| regex_automata::hybrid::regex::Regex::builder().syntax(syntax_config()).build(&rust).ok());
        let caches = TagCaches { groups: groups.create_cache(), finder: finder.as_ref().map(|f| f.create_cache()) };
        Ok(TagRegex { groups, finder, caches: std::cell::RefCell::new(caches) })
    }

    /// Each match's groups in `text`, left to right (as `re.finditer`).
    fn captures_all(&self, text: &str) -> Vec<regex_automata::util::captures::Captures> {
        use regex_automata::util::iter::Searcher;
        use regex_automata::{Anchored, Input};
        // A nested use (a value parser that is itself xml-inline with this pattern) gets fresh caches.
        let mut kept = self.caches.try_borrow_mut();
        let mut own;
        let caches = match kept.as_deref_mut() {
            Ok(c) => c,
            Err(_) => {
                own = TagCaches { groups: self.groups.create_cache(), finder: self.finder.as_ref().map(|f| f.create_cache()) };
                &mut own
            }
        };
        if let (Some(finder), Some(fcache)) = (&self.finder, caches.finder.as_mut()) {
            let spans: std::result::Result<Vec<_>, _> = Searcher::new(Input::new(text)).into_matches_iter(|input| finder.try_search(fcache, input)).collect();
            if let Ok(spans) = spans {
                let mut out = Vec::with_capacity(spans.len());
                for m in spans {
                    let mut caps = self.groups.create_captures();
                    self.groups.search(&mut caches.groups, &Input::new(text).span(m.range()).anchored(Anchored::Yes), &mut caps);
                    out.push(caps);
                }
                return out;
            }
            // The lazy DFAs gave up (a byte a Unicode word boundary cannot decide): the PikeVM alone.
        }
        self.groups.captures_all(&mut caches.groups, text)
    }
}

fn tag_regex(pattern: &str) -> Result<std::rc::Rc<TagRegex>> {
    if let Some(re) = TAG_PATTERNS.with(|m| m.try_borrow_mut().ok()?.find(|k| k == pattern).cloned()) {
        return Ok(re);
    }
    let re = std::rc::Rc::new(TagRegex::new(pattern)?);
    TAG_PATTERNS.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.insert(pattern.to_string(), re.clone());
        }
    });
    Ok(re)
}

fn xml_inline(text: &str, args: &Map<String, Value>) -> Result<Value> {
    let Some(pattern) = args.get("tag_pattern").and_then(Value::as_str) else {
        return Err(bad("xml-inline: 'tag_pattern' content_arg is required".into()));
    };
    let re = tag_regex(pattern)?;
    let merge = args.get("merge_duplicates").and_then(Value::as_bool).unwrap_or(false);
    let value_parser = args.get("value_parser");
    let mut out = Map::new();
    for caps in re.captures_all(text) {
        let Some(key) = caps.get_group_by_name("key") else {
            return Err(bad(format!("xml-inline: tag_pattern must have a named group 'key'. Pattern: {pattern}")));
        };
        let key = text[key.range()].to_string();
        let raw = caps.get_group_by_name("value").map_or("", |s| &text[s.range()]);
        let value = sub_parse(raw, value_parser)?;
        match out.get_mut(&key) {
            Some(existing) if merge => {
                if let Value::Array(a) = existing {
                    a.push(value);
                } else {
                    let first = existing.take();
                    *existing = Value::Array(vec![first, value]);
                }
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    Ok(Value::Object(out))
}

fn kv_lines(text: &str, args: &Map<String, Value>) -> Result<Value> {
    let line_sep = args.get("line_sep").and_then(Value::as_str).unwrap_or("\n");
    let kv_sep = args.get("kv_sep").and_then(Value::as_str).unwrap_or(":");
    let value_parser = args.get("value_parser");
    let mut out = Map::new();
    let lines: Vec<&str> = if line_sep.is_empty() { vec![text] } else { text.split(line_sep).collect() };
    for line in lines {
        let line = strip(line, args);
        if line.is_empty() || kv_sep.is_empty() || !line.contains(kv_sep) {
            continue;
        }
        let (k, v) = line.split_once(kv_sep).unwrap_or((&line, ""));
        out.insert(strip(k, args), sub_parse(&strip(v, args), value_parser)?);
    }
    Ok(Value::Object(out))
}

/// The placeholder of a whole-string transform value (`{name}` / `{a.b}`), if it is one.
fn placeholder(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let ok = !inner.is_empty() && inner.split('.').all(|part| !part.is_empty() && part.chars().all(is_word));
    ok.then_some(inner)
}

/// Whether `s` contains a `{name}` placeholder anywhere.
fn has_placeholder(s: &str) -> bool {
    s.char_indices().any(|(i, c)| c == '{' && s[i..].find('}').is_some_and(|j| placeholder(&s[i..i + j + 1]).is_some()))
}

/// Reject transform strings that mix a placeholder with text (checked when the template loads).
pub fn validate_transform(scope: &str, t: &Value) -> Result<()> {
    match t {
        Value::Object(m) => m.values().try_for_each(|v| validate_transform(scope, v)),
        Value::Array(a) => a.iter().try_for_each(|v| validate_transform(scope, v)),
        Value::String(s) if has_placeholder(s) && placeholder(s).is_none() => Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{scope}: transform string {s:?} mixes a {{placeholder}} with literal text; string interpolation is not supported"),
        )),
        _ => Ok(()),
    }
}

/// Fill a transform template from `scope`.
pub fn apply_transform(t: &Value, scope: &Map<String, Value>) -> Result<Value> {
    match t {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(k.clone(), apply_transform(v, scope)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(a) => a.iter().map(|v| apply_transform(v, scope)).collect::<Result<Vec<_>>>().map(Value::Array),
        Value::String(s) => {
            let Some(path) = placeholder(s) else { return Ok(t.clone()) };
            let mut parts = path.split('.');
            let root = parts.next().unwrap_or("");
            let mut value = scope.get(root).ok_or_else(|| {
                let mut names: Vec<&String> = scope.keys().collect();
                names.sort();
                bad(format!("transform placeholder '{{{path}}}' is not defined. Available: {names:?}"))
            })?;
            for key in parts {
                let Value::Object(m) = value else {
                    let kind = match value { Value::String(_) => "str", Value::Array(_) => "list", Value::Number(_) => "number", Value::Bool(_) => "bool", _ => "NoneType" };
                    return Err(bad(format!("transform placeholder '{{{path}}}' cannot index into {kind} at '{key}'")));
                };
                value = m.get(key).ok_or_else(|| bad(format!("transform placeholder '{{{path}}}' is missing key '{key}'")))?;
            }
            Ok(value.clone())
        }
        other => Ok(other.clone()),
    }
}

/// JSON-schema types of a parameter (`type`, type lists, `anyOf`/`oneOf`, `nullable`).
pub fn schema_types(schema: &Value) -> Vec<String> {
    let Some(obj) = schema.as_object() else { return Vec::new() };
    let mut types = Vec::new();
    match obj.get("type") {
        Some(Value::String(s)) => types.push(s.clone()),
        Some(Value::Array(a)) => types.extend(a.iter().filter_map(|t| t.as_str().map(str::to_string))),
        _ => {}
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(choices)) = obj.get(union) {
            for c in choices {
                types.extend(schema_types(c));
            }
        }
    }
    if obj.get("nullable").and_then(Value::as_bool).unwrap_or(false) && !types.iter().any(|t| t == "null") {
        types.push("null".into());
    }
    types
}

/// Cast an argument string by its schema types; the first type that fits wins, else the text.
pub fn coerce(raw: &str, types: &[String]) -> Value {
    for t in types {
        match t.as_str() {
            "integer" => {
                if let Some(i) = py_int(raw) {
                    return Value::from(i);
                }
                if let Some(f) = py_float(raw).filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15) {
                    return Value::from(f as i64);
                }
            }
            "number" => {
                if let Some(f) = py_float(raw).filter(|f| f.is_finite()) {
                    if f.fract() == 0.0 && !raw.contains('.') && f.abs() < 9.0e15 {
                        return Value::from(f as i64);
                    }
                    if let Ok(v) = number(f) {
                        return v;
                    }
                }
            }
            "boolean" => match raw.trim().to_lowercase().as_str() {
                "true" | "1" => return Value::Bool(true),
                "false" | "0" => return Value::Bool(false),
                _ => {}
            },
            "null" if matches!(raw.trim(), "null" | "None") => return Value::Null,
            "object" | "array" => {
                if let Ok(v) = serde_json::from_str::<Value>(raw.trim()) {
                    if (t == "object" && v.is_object()) || (t == "array" && v.is_array()) {
                        return v;
                    }
                }
            }
            _ => {}
        }
    }
    Value::String(raw.to_string())
}

/// Type the string arguments of tool calls in `value` (one call or a list) by the tools' schemas.
pub fn coerce_tool_calls(value: &mut Value, params: &std::collections::HashMap<String, Map<String, Value>>) {
    if let Value::Array(items) = value {
        items.iter_mut().for_each(|v| coerce_tool_calls(v, params));
        return;
    }
    let Some(function) = value.get_mut("function").and_then(Value::as_object_mut) else { return };
    let Some(name) = function.get("name").and_then(Value::as_str).map(str::to_string) else { return };
    let Some(props) = params.get(&name).filter(|p| !p.is_empty()) else { return };
    let Some(Value::Object(arguments)) = function.get_mut("arguments") else { return };
    for (key, arg) in arguments.iter_mut() {
        let types = props.get(key).map(schema_types).unwrap_or_default();
        if types.is_empty() {
            continue;
        }
        match arg {
            Value::String(s) => *arg = coerce(s, &types),
            Value::Array(items) if !types.iter().any(|t| t == "array") => {
                for item in items.iter_mut() {
                    if let Value::String(s) = item {
                        *item = coerce(s, &types);
                    }
                }
            }
            _ => {}
        }
    }
}
