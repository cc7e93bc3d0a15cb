//! Parsing with a declared `response_template`: transformers' region machine (one implicit
//! "leftover" field, explicit fields opened and closed by delimiters, the prompt `prefix` cut after
//! its last `start_anchor`), streamed with partial-match holdback ([`super::pattern`]).

use super::content::{apply_transform, coerce_tool_calls, compile_tag_pattern, parse_content, streamable, validate_transform, PARSERS};
use super::pattern::{Pattern, Scan, Scanner};
use super::regions::RegionEvent;
use super::spec::{Field, Literals, ResponseTemplate};
use crate::{Error, ErrorKind, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::rc::Rc;

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

#[derive(Debug)]
struct CompiledField {
    name: String,
    open: Option<Pattern>,
    close: Option<Pattern>,
    content: String,
    args: Map<String, Value>,
    repeats: bool,
    join: Option<String>,
    optional: bool,
    transform: Option<Value>,
    transform_each: bool,
}

/// A validated, compiled response template (build once, parse many outputs).
#[derive(Debug)]
pub struct CompiledTemplate {
    defaults: Map<String, Value>,
    fields: Vec<CompiledField>,
    implicit: Option<usize>,
    anchor: Pattern,
    /// The template as given.
    pub spec: ResponseTemplate,
}

fn delimiter(scope: &str, lits: &Option<Literals>, pattern: &Option<String>, lit_key: &str, pat_key: &str) -> Result<Option<Pattern>> {
    match (lits, pattern) {
        (Some(_), Some(_)) => Err(invalid(format!("{scope}: cannot specify both '{lit_key}' and '{pat_key}'"))),
        (Some(l), None) => Pattern::literals(scope, &l.list()).map(Some),
        (None, Some(p)) => Pattern::regex(scope, p).map(Some),
        (None, None) => Ok(None),
    }
}

fn compile_field(name: &str, f: &Field) -> Result<CompiledField> {
    let scope = format!("response_template field '{name}'");
    let content = f.content.clone().unwrap_or_else(|| "text".into());
    if !PARSERS.contains(&content.as_str()) {
        return Err(invalid(format!("{scope}: unknown content parser '{content}'. Available: {PARSERS:?}")));
    }
    let open = delimiter(&scope, &f.open, &f.open_pattern, "open", "open_pattern")?;
    let close = delimiter(&scope, &f.close, &f.close_pattern, "close", "close_pattern")?;
    let repeats = f.repeats.unwrap_or(false);
    if f.join.is_some() && !repeats {
        return Err(invalid(format!("{scope}: 'join' requires 'repeats': true")));
    }
    let transform_each = f.transform_each.unwrap_or(false);
    if transform_each && f.transform.is_none() {
        return Err(invalid(format!("{scope}: transform_each is set but no transform was provided")));
    }
    match &f.transform {
        Some(t) => validate_transform(&scope, t)?,
        None => {
            let names: Vec<&String> = open.iter().chain(close.iter()).flat_map(|p| p.names.iter()).collect();
            if !names.is_empty() {
                return Err(invalid(format!("{scope}: open_pattern/close_pattern declares named group(s) {names:?}, but the field has no 'transform'")));
            }
        }
    }
    let args = f.content_args.clone().unwrap_or_default();
    if content == "xml-inline" {
        let tp = args.get("tag_pattern").and_then(Value::as_str).ok_or_else(|| invalid(format!("{scope}: xml-inline: 'tag_pattern' content_arg is required")))?;
        compile_tag_pattern(&scope, tp)?;
    }
    Ok(CompiledField { name: name.to_string(), open, close, content, args, repeats, join: f.join.clone(), optional: f.optional.unwrap_or(true), transform: f.transform.clone(), transform_each })
}

impl CompiledTemplate {
    /// Validate and compile (the checks transformers makes when loading, with our regex subset).
    pub fn new(spec: &ResponseTemplate) -> Result<CompiledTemplate> {
        if spec.fields.is_empty() {
            return Err(invalid("response_template.fields must be a non-empty dict".into()));
        }
        let fields = spec.fields.iter().map(|(n, f)| compile_field(n, f)).collect::<Result<Vec<_>>>()?;
        let implicit: Vec<usize> = fields.iter().enumerate().filter(|(_, f)| f.open.is_none()).map(|(i, _)| i).collect();
        if implicit.len() > 1 {
            let names: Vec<&str> = implicit.iter().map(|&i| fields[i].name.as_str()).collect();
            return Err(invalid(format!("at most one field may omit 'open'/'open_pattern'. Found: {}", names.join(", "))));
        }
        let anchor = delimiter("response_template", &spec.start_anchor, &spec.start_anchor_pattern, "start_anchor", "start_anchor_pattern")?
            .ok_or_else(|| invalid("response_template must define 'start_anchor' or 'start_anchor_pattern'.".into()))?;
        Ok(CompiledTemplate { defaults: spec.defaults.clone(), fields, implicit: implicit.first().copied(), anchor, spec: spec.clone() })
    }

    /// From the JSON object.
    pub fn from_value(v: &Value) -> Result<CompiledTemplate> {
        Self::new(&ResponseTemplate::from_value(v)?)
    }

    /// Whether chunks of `field` are final text (`dirty: false`).
    fn clean(&self, field: usize) -> bool {
        streamable(&self.fields[field].content)
    }
}

/// Tool name → schema `properties`, for typing arguments (`tools=`).
pub fn tool_params(tools: &[Value]) -> HashMap<String, Map<String, Value>> {
    let mut out = HashMap::new();
    for t in tools {
        let f = t.get("function").unwrap_or(t);
        if let Some(name) = f.get("name").and_then(Value::as_str) {
            let props = f.get("parameters").and_then(|p| p.get("properties")).and_then(Value::as_object).cloned().unwrap_or_default();
            out.insert(name.to_string(), props);
        }
    }
    out
}

/// The streaming parser of one response (transformers' `ResponseParser`).
#[derive(Debug)]
pub struct ResponseParser {
    t: Rc<CompiledTemplate>,
    params: HashMap<String, Map<String, Value>>,
    buffer: String,
    pos: usize,
    output: Map<String, Value>,
    current: Option<usize>,
    captures: Vec<(String, String)>,
    body: String,
    opened: bool,
    finalized: bool,
    /// Per field: scanners of its open and close delimiters.
    scanners: Vec<(Scanner, Scanner)>,
    /// Events produced while reading the prefix.
    pub initial_events: Vec<RegionEvent>,
    /// Lenient mode: a region whose body does not parse closes with its raw text as value (and
    /// the error in `errors`) instead of failing the parse.
    lenient: bool,
    /// (buffer offset, message) of each region that did not parse, in lenient mode.
    pub errors: Vec<(usize, String)>,
    /// Length of the prefix part of the buffer (offsets in the output are `buffer offset - this`).
    prefix_len: usize,
}

impl Drop for ResponseParser {
    /// The scanners' automata caches go back to their patterns, for the next reply's parser.
    fn drop(&mut self) {
        for (f, (open, close)) in self.t.fields.iter().zip(self.scanners.iter_mut()) {
            if let Some(p) = &f.open {
                p.recycle(open);
            }
            if let Some(p) = &f.close {
                p.recycle(close);
            }
        }
    }
}

impl ResponseParser {
    /// A parser positioned after `prefix` (the rendered prompt; `""` to opt out), typing tool-call
    /// arguments by `tools`' schemas. Fails only if the prefix itself cannot be parsed.
    pub fn new(t: Rc<CompiledTemplate>, prefix: &str, tools: &[Value]) -> Result<ResponseParser> {
        Self::with_mode(t, prefix, tools, false)
    }

    /// [`Self::new`] in lenient mode (see `errors`): model output never makes it fail.
    pub fn lenient(t: Rc<CompiledTemplate>, prefix: &str, tools: &[Value]) -> Result<ResponseParser> {
        Self::with_mode(t, prefix, tools, true)
    }

    fn with_mode(t: Rc<CompiledTemplate>, prefix: &str, tools: &[Value], lenient: bool) -> Result<ResponseParser> {
        let n = t.fields.len();
        let mut p = ResponseParser {
            params: tool_params(tools),
            output: t.defaults.clone(),
            current: t.implicit,
            t,
            buffer: String::new(),
            pos: 0,
            captures: Vec::new(),
            body: String::new(),
            opened: false,
            finalized: false,
            scanners: vec![(Scanner::default(), Scanner::default()); n],
            initial_events: Vec::new(),
            lenient,
            errors: Vec::new(),
            prefix_len: 0,
        };
        // Only the prompt after its last anchor belongs to this message (all of it if none).
        let cut = p.t.anchor.last_match_end(prefix).unwrap_or(0);
        let rest = &prefix[cut..];
        if !rest.is_empty() {
            p.buffer.push_str(rest);
            p.prefix_len = rest.len();
            let mut ev = Vec::new();
            p.process(&mut ev, false)?;
            p.initial_events = ev;
        }
        Ok(p)
    }

    /// Byte offset in the model output (after the prefix) of a buffer offset.
    pub fn output_offset(&self, buffer_offset: usize) -> usize {
        buffer_offset.saturating_sub(self.prefix_len)
    }

    /// Feed more output; returns the events it completed.
    pub fn feed(&mut self, text: &str) -> Result<Vec<RegionEvent>> {
        if self.finalized {
            return Err(Error::new(ErrorKind::InvalidInput, "ResponseParser already finalized"));
        }
        self.buffer.push_str(text);
        let mut ev = Vec::new();
        self.process(&mut ev, false)?;
        Ok(ev)
    }

    /// End of output: the message and the last events.
    pub fn finalize(&mut self) -> Result<(Value, Vec<RegionEvent>)> {
        if self.finalized {
            return Err(Error::new(ErrorKind::InvalidInput, "ResponseParser already finalized"));
        }
        let mut ev = Vec::new();
        self.process(&mut ev, true)?;
        self.finalized = true;
        let missing: Vec<&str> = self.t.fields.iter().filter(|f| !f.optional && !self.output.contains_key(&f.name)).map(|f| f.name.as_str()).collect();
        if !missing.is_empty() && self.lenient {
            self.errors.push((self.pos, format!("required response_template fields missing: {missing:?}")));
        } else if !missing.is_empty() {
            return Err(Error::new(ErrorKind::Parse, format!("Required response_template fields missing from parsed output: {missing:?}")));
        }
        let defaults = &self.t.defaults;
        let empty = |v: &Value| match v {
            Value::Null => true,
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
        let out: Map<String, Value> = std::mem::take(&mut self.output).into_iter().filter(|(k, v)| defaults.contains_key(k) || !empty(v)).collect();
        Ok((Value::Object(out), ev))
    }

    /// The delimiters to watch now: the open explicit region's close, or every open plus the
    /// implicit region's close.
    fn watchlist(&self) -> Vec<(bool, usize)> {
        if let Some(c) = self.current.filter(|&c| Some(c) != self.t.implicit) {
            return if self.t.fields[c].close.is_some() { vec![(false, c)] } else { Vec::new() };
        }
        let mut w: Vec<(bool, usize)> = self.t.fields.iter().enumerate().filter(|(_, f)| f.open.is_some()).map(|(i, _)| (true, i)).collect();
        if let Some(i) = self.t.implicit.filter(|&i| self.t.fields[i].close.is_some()) {
            w.push((false, i));
        }
        w
    }

    fn process(&mut self, ev: &mut Vec<RegionEvent>, eos: bool) -> Result<()> {
        loop {
            let len = self.buffer.len();
            let mut hold = len;
            // (start, -len, open first, name) orders candidates as transformers does.
            let mut best: Option<((usize, isize, u8, String), bool, usize, usize, Vec<(String, String)>)> = None;
            for (is_open, idx) in self.watchlist() {
                let f = &self.t.fields[idx];
                let (pat, sc) = if is_open { (f.open.as_ref(), &mut self.scanners[idx].0) } else { (f.close.as_ref(), &mut self.scanners[idx].1) };
                let Some(pat) = pat else { continue };
                match pat.scan(sc, &self.buffer, self.pos, eos) {
                    Scan::None => {}
                    Scan::Pending(p) => hold = hold.min(p),
                    Scan::Match(s, e, g) => {
                        if !eos && s == e && e == len {
                            // A zero-width match at the edge is real only at the end of output.
                            hold = hold.min(s);
                            continue;
                        }
                        let key = (s, -((e - s) as isize), u8::from(!is_open), f.name.clone());
                        if best.as_ref().is_none_or(|b| key < b.0) {
                            best = Some((key, is_open, idx, e, g));
                        }
                    }
                }
            }
            if let Some((key, is_open, idx, end, groups)) = best.filter(|b| b.0 .0 < hold) {
                let start = key.0;
                if start > self.pos {
                    let text = self.buffer[self.pos..start].to_string();
                    self.accumulate(ev, &text);
                }
                self.pos = end;
                if is_open {
                    self.close_current(ev)?;
                    self.current = Some(idx);
                    self.captures = groups;
                    self.body.clear();
                    self.opened = true;
                    ev.push(RegionEvent::RegionOpen { field: self.t.fields[idx].name.clone() });
                } else {
                    let had = self.opened;
                    self.close_current(ev)?;
                    if !had && start == end {
                        break;
                    }
                }
                continue;
            }
            if eos {
                if self.pos < len {
                    let text = self.buffer[self.pos..].to_string();
                    self.accumulate(ev, &text);
                    self.pos = len;
                }
                self.close_current(ev)?;
                break;
            }
            if hold > self.pos {
                let text = self.buffer[self.pos..hold].to_string();
                self.accumulate(ev, &text);
                self.pos = hold;
            }
            break;
        }
        Ok(())
    }

    fn accumulate(&mut self, ev: &mut Vec<RegionEvent>, text: &str) {
        let Some(c) = self.current else { return };
        if text.is_empty() {
            return;
        }
        let name = self.t.fields[c].name.clone();
        if !self.opened {
            ev.push(RegionEvent::RegionOpen { field: name.clone() });
            self.opened = true;
        }
        self.body.push_str(text);
        ev.push(RegionEvent::RegionChunk { field: name, text: text.to_string(), dirty: !self.t.clean(c) });
    }

    fn close_current(&mut self, ev: &mut Vec<RegionEvent>) -> Result<()> {
        let Some(c) = self.current.filter(|_| self.opened) else {
            self.reset();
            return Ok(());
        };
        let t = Rc::clone(&self.t);
        let f = &t.fields[c];
        let value = match self.field_value(f) {
            Ok(v) => v,
            Err(e) if self.lenient => {
                self.errors.push((self.pos, e.to_string()));
                ev.push(RegionEvent::RegionClose { field: f.name.clone(), value: Value::String(std::mem::take(&mut self.body)) });
                self.reset();
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if let Some(join) = &f.join {
            let Value::String(s) = &value else {
                return Err(Error::new(ErrorKind::Parse, format!("Field '{}': 'join' requires each match to parse to a string", f.name)));
            };
            let joined = match self.output.get(&f.name) {
                Some(Value::String(prev)) => format!("{prev}{join}{s}"),
                _ => s.clone(),
            };
            self.output.insert(f.name.clone(), Value::String(joined));
        } else if f.repeats {
            match self.output.get_mut(&f.name) {
                Some(Value::Array(a)) => a.push(value.clone()),
                _ => {
                    self.output.insert(f.name.clone(), Value::Array(vec![value.clone()]));
                }
            }
        } else {
            self.output.insert(f.name.clone(), value.clone());
        }
        ev.push(RegionEvent::RegionClose { field: f.name.clone(), value });
        self.reset();
        Ok(())
    }

    /// The parsed (and transformed, and typed) value of the current region's body.
    fn field_value(&self, f: &CompiledField) -> Result<Value> {
        let mut value = parse_content(&self.body, &f.content, &f.args)?;
        if let Some(tr) = &f.transform {
            let captures: Map<String, Value> = self.captures.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
            value = if f.transform_each {
                let Value::Array(items) = value else {
                    return Err(Error::new(ErrorKind::Parse, format!("Field '{}': transform_each requires the parsed content to be a list", f.name)));
                };
                let mut out = Vec::new();
                for item in items {
                    let Value::Object(m) = item else {
                        return Err(Error::new(ErrorKind::Parse, format!("Field '{}': transform_each requires each list element to be a dict", f.name)));
                    };
                    let mut scope = captures.clone();
                    scope.extend(m);
                    out.push(apply_transform(tr, &scope)?);
                }
                Value::Array(out)
            } else {
                let mut scope = captures;
                scope.insert("content".into(), value);
                apply_transform(tr, &scope)?
            };
        }
        if !self.params.is_empty() {
            coerce_tool_calls(&mut value, &self.params);
        }
        if f.join.is_some() && !value.is_string() {
            return Err(Error::new(ErrorKind::Parse, format!("Field '{}': 'join' requires each match to parse to a string", f.name)));
        }
        Ok(value)
    }

    fn reset(&mut self) {
        self.current = self.t.implicit;
        self.captures.clear();
        self.body.clear();
        self.opened = false;
    }
}

/// Parse a whole response (transformers' `parse_response`): the message dict.
pub fn parse_response(text: &str, template: &Value, prefix: &str, tools: &[Value]) -> Result<Value> {
    let t = match serde_json::to_string(template) {
        Ok(key) => compiled_by_key(&key, || CompiledTemplate::from_value(template).map(Rc::new))?,
        Err(_) => Rc::new(CompiledTemplate::from_value(template)?),
    };
    parse_response_with(t, text, prefix, tools)
}

/// [`parse_response`] with a compiled template ([`compiled_by_key`]).
pub fn parse_response_with(t: Rc<CompiledTemplate>, text: &str, prefix: &str, tools: &[Value]) -> Result<Value> {
    let mut p = ResponseParser::new(t, prefix, tools)?;
    p.feed(text)?;
    Ok(p.finalize()?.0)
}

thread_local! {
    /// Templates compiled for [`parse_response`], by their JSON text: compiling the delimiters' automata
    /// costs far more than parsing a reply (0.3–1.3 ms natively), and a caller parses every reply of a
    /// model with the same template, as transformers' regex cache does.
    static COMPILED: std::cell::RefCell<crate::mru::Mru<String, Rc<CompiledTemplate>>> = const { std::cell::RefCell::new(crate::mru::Mru::new(8)) };
}

/// The template `key` (its JSON text) stands for: compiled before on this thread, else `build()`'s
/// (kept; errors are not).
pub fn compiled_by_key<E>(key: &str, build: impl FnOnce() -> std::result::Result<Rc<CompiledTemplate>, E>) -> std::result::Result<Rc<CompiledTemplate>, E> {
    if let Some(t) = COMPILED.with(|c| c.try_borrow_mut().ok()?.find(|k| k == key).cloned()) {
        return Ok(t);
    }
    let t = build()?;
    COMPILED.with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c.insert(key.to_string(), t.clone());
        }
    });
    Ok(t)
}
