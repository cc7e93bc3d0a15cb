//! The analysis expressed as a transformers `response_template`.
//!
//! Reasoning, content and tool calls become fields; markers become literal delimiters (trimmed: the
//! `text` parser strips, and whitespace between markers is matched with `\s*` in patterns); a
//! function name in a call header becomes a named group of `open_pattern` used by `transform`.
//! What the spec cannot say is reported per feature as a [`Loss`], with the closest template still
//! produced. Patterns stay inside the subset our own interpreter runs (no look-around).

use super::spec::{Field, Literals, ResponseTemplate};
use crate::analysis::{fallback_formats, fallback_grammar_applies, Analysis, CallIdPosition, ContentMode, ReasoningMode, ToolFormat};
use crate::formats::format_of;
use crate::formats::regions::{Open, Part, Region, RegionLoss, ReplyRegions, UNTERMINATED_CALLS};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Something our parser does that the derived template cannot express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// Which feature, e.g. `tools.call_id`.
    pub feature: String,
    /// `partial`: the template parses the canonical form but loses this detail or leniency;
    /// `unsupported`: outputs using this feature do not parse as our parser parses them.
    pub severity: &'static str,
    /// What is lost and what the template does instead.
    pub detail: String,
}

/// Options of [`derive_response_template_with`].
#[derive(Debug, Clone)]
pub struct DeriveOptions {
    /// Name of the reasoning field (`thinking`, as transformers' chat templates read it).
    pub reasoning_field: String,
    /// The `start_anchor` to use instead of the analysis' assistant-turn marker (see
    /// [`super::response_template_for`], which checks the marker against a rendered prompt).
    pub start_anchor: Option<String>,
    /// The generation prompt may close reasoning it never opened (`<assistant>\n</think>`, thinking
    /// off): the anchor takes that closer along (a `start_anchor_pattern`), as our parser's prefill does.
    pub prompt_closes_reasoning: bool,
}

impl Default for DeriveOptions {
    fn default() -> Self {
        DeriveOptions { reasoning_field: "thinking".into(), start_anchor: None, prompt_closes_reasoning: false }
    }
}

/// The analysis as a `response_template` (JSON) and what it cannot express.
pub fn derive_response_template(analysis: &Analysis) -> (Value, Vec<Loss>) {
    derive_response_template_with(analysis, &DeriveOptions::default())
}

/// [`derive_response_template`] with options.
pub fn derive_response_template_with(analysis: &Analysis, options: &DeriveOptions) -> (Value, Vec<Loss>) {
    let (t, losses) = derive_spec(analysis, options);
    (t.to_value(), losses)
}

/// The derived template as spec types.
pub fn derive_spec(analysis: &Analysis, options: &DeriveOptions) -> (ResponseTemplate, Vec<Loss>) {
    // No tool format: the tools are those of the parser's fallback where it has a grammar (its first
    // format, the template's named markers or the first convention).
    let with_fallback;
    let fallback = (analysis.tools.format.mode == ToolFormat::None && fallback_grammar_applies(analysis))
        .then(|| fallback_formats(analysis).into_iter().next())
        .flatten();
    let fallback_rule = fallback.as_ref().map(|f| f.rule.clone());
    let analysis = match fallback {
        Some(f) => {
            with_fallback = Analysis { tools: f.tools, ..analysis.clone() };
            &with_fallback
        }
        None => analysis,
    };
    // The format's own regions, where the analysis' markers do not describe its reply.
    let regions = format_of(analysis.handler).reply_regions();
    let anchor = match (&options.start_anchor, regions.and_then(|r| r.anchor)) {
        (Some(a), _) => a.trim().to_string(),
        (None, Some(a)) => a.to_string(),
        (None, None) => trim(&analysis.assistant_start).to_string(),
    };
    let mut d = Deriver { a: analysis, losses: Vec::new(), fields: Vec::new(), rf: options.reasoning_field.clone(), anchor: anchor.clone() };
    match regions {
        Some(r) => d.regions(r),
        None => {
            d.reasoning();
            d.tools();
            d.content();
            d.turn_end();
        }
    }
    d.common_losses();
    if let Some(rule) = fallback_rule {
        let detail = format!("the template renders no tool format: the tool calls are the parser fallback's first format ({rule}); its other conventions, read side by side, are not expressed");
        d.loss("tools.fallback", "partial", &detail);
    } else if regions.is_none() && analysis.tools.format.mode == ToolFormat::None {
        // With tools in the request our parser still reads calls by the fallback's conventions (rule
        // R13); the template names no call syntax, so no field can say which one the model uses.
        d.loss("tools.fallback", "unsupported", "the template renders no tool format and names no call markers: with tools in the request the parser reads calls written in any of the fallback's conventions (rule R13), which no field expresses");
    }
    let start_anchor = if anchor.is_empty() {
        d.loss("start_anchor", "partial", "no assistant-turn marker: the anchor is a line break, so pass only the generation prompt as `prefix`");
        Literals::One("\n".into())
    } else {
        Literals::One(anchor)
    };
    let mut defaults = Map::new();
    defaults.insert("role".into(), "assistant".into());
    let end = trim(&analysis.reasoning.end);
    let (start_anchor, start_anchor_pattern) = match start_anchor {
        Literals::One(a) if options.prompt_closes_reasoning && !end.is_empty() && a != "\n" => (None, Some(format!("{}(?:\\s*{})?", escape(&a), escape(end)))),
        literal => (Some(literal), None),
    };
    let t = ResponseTemplate { version: None, defaults, fields: d.fields, start_anchor, start_anchor_pattern };
    (t, d.losses)
}

struct Deriver<'a> {
    a: &'a Analysis,
    losses: Vec<Loss>,
    fields: Vec<(String, Field)>,
    rf: String,
    anchor: String,
}

fn trim(s: &str) -> &str {
    s.trim()
}

/// Escape a literal for a Python `regex` / Rust `regex` pattern (both accept these escapes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        match c {
            '\\' | '.' | '^' | '$' | '*' | '+' | '?' | '{' | '}' | '[' | ']' | '|' | '(' | ')' | '#' | '&' | '~' | '-' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out
}

/// A sequence of markers as a pattern: trimmed literals joined by `\s*` (whitespace between
/// markers varies between templates and models).
fn seq(parts: &[&str]) -> String {
    parts.iter().map(|p| trim(p)).filter(|p| !p.is_empty()).map(escape).collect::<Vec<_>>().join("\\s*")
}

/// A marker whose whitespace runs are optional (models drop or keep the template's line breaks)
/// but otherwise exact, so text next to the marker keeps its own whitespace.
fn flex(marker: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in marker.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            out.push_str(&format!("(?:{})?", escape(&run)));
            run.clear();
        }
        out.push_str(&escape(&c.to_string()));
    }
    if !run.is_empty() {
        out.push_str(&format!("(?:{})?", escape(&run)));
    }
    out
}

/// What follows a function name in a call header: [`flex`], and when it is a marker (not a word
/// or punctuation such as `"` that belongs to the name's quoting), any whitespace before it, which
/// our parser skips there (`functions.f:0\n<|tool_call_argument_begin|>`).
fn marker_after_name(suffix: &str) -> String {
    let marker = suffix.trim_start();
    if marker.starts_with('<') || marker.starts_with('[') {
        format!("\\s*{}", flex(marker))
    } else {
        flex(suffix)
    }
}

const NAME: &str = "(?P<name>[\\w.\\-]+)";

fn text_field(open: &str, close: &str) -> Field {
    let mut f = Field::default();
    if !open.is_empty() {
        f.open = Some(Literals::One(open.into()));
    }
    if !close.is_empty() {
        f.close = Some(Literals::One(close.into()));
    }
    f
}

fn call_transform(name: Value, arguments: Value, id: Option<Value>) -> Value {
    let mut call = Map::new();
    if let Some(id) = id {
        call.insert("id".into(), id);
    }
    call.insert("type".into(), "function".into());
    call.insert("function".into(), json!({ "name": name, "arguments": arguments }));
    Value::Object(call)
}

impl Deriver<'_> {
    fn loss(&mut self, feature: &str, severity: &'static str, detail: &str) {
        self.losses.push(Loss { feature: feature.into(), severity, detail: detail.into() });
    }

    fn push(&mut self, name: &str, f: Field) {
        self.fields.push((name.to_string(), f));
    }

    /// The reasoning field: every block of the message, joined as our parser joins them.
    fn push_reasoning(&mut self, mut f: Field) {
        f.repeats = Some(true);
        f.join = Some(String::new());
        self.push(&self.rf.clone(), f);
        self.loss("reasoning.piece_whitespace", "partial", "several reasoning blocks are joined after each is stripped (the text parser's default), so the whitespace between them is lost");
    }

    fn reasoning(&mut self) {
        let r = &self.a.reasoning;
        let (start, end) = (trim(&r.start).to_string(), trim(&r.end).to_string());
        match r.mode {
            ReasoningMode::None => {}
            _ if end.is_empty() => {}
            _ if start.is_empty() => {
                // Reasoning from the start of the message up to its end marker.
                let mut f = text_field("", &end);
                f.open_pattern = Some("^".into());
                self.push_reasoning(f);
                self.loss(
                    "reasoning.delimiter",
                    "partial",
                    "reasoning has no start marker: the template opens it at the start of the message (`open_pattern: \"^\"`), so an answer without the end marker is all reasoning, where our parser keeps it as content",
                );
            }
            _ if !start.is_empty() && self.anchor.ends_with(&start) => {
                // The anchor itself opens reasoning: it starts with the message.
                let mut f = text_field("", &end);
                f.open_pattern = Some("^".into());
                self.push_reasoning(f);
            }
            _ => {
                self.push_reasoning(text_field(&start, &end));
                if r.mode == ReasoningMode::ForcedOpen || r.mode == ReasoningMode::ForcedClosed {
                    self.loss(
                        "reasoning.prefill",
                        "partial",
                        "the generation prompt opens (or closes) reasoning: pass the rendered prompt as `prefix` so the parser starts inside it",
                    );
                }
            }
        }
    }

    fn content(&mut self) {
        let c = &self.a.content;
        let (start, end) = (trim(&c.start).to_string(), trim(&c.end).to_string());
        let wrapped = c.mode != ContentMode::Plain && !start.is_empty() && !end.is_empty();
        // Content is the implicit field: every piece outside other regions, joined.
        let mut f = Field { repeats: Some(true), join: Some(String::new()), ..Field::default() };
        if wrapped {
            f.close = Some(Literals::One(end));
            self.push("content", f);
            // The wrapper's opener is swallowed by an always-empty region (dropped from the output).
            let opener = Field { open: Some(Literals::One(start)), close_pattern: Some(String::new()), ..Field::default() };
            self.push("content_start", opener);
            if c.mode == ContentMode::WrappedWithReasoning {
                self.loss("content.wrapped", "partial", "content is wrapped only when reasoning is present; the template accepts both forms");
            }
        } else {
            self.push("content", f);
        }
    }

    /// End-of-turn tokens a model may write in content (`<|im_end|>`, `<|END_OF_TURN_TOKEN|>`): our
    /// parser drops them (rule R7), so an always-empty region swallows them (none that is part of
    /// another marker, as the parser's own list).
    fn turn_end(&mut self) {
        let a = self.a;
        let (t, f, args) = (&a.tools.format, &a.tools.function, &a.tools.arguments);
        let taken = [
            &a.reasoning.start, &a.reasoning.end, &a.content.start, &a.content.end, &t.section_start, &t.section_end,
            &t.per_call_start, &t.per_call_end, &f.name_prefix, &f.name_suffix, &f.close, &args.start, &args.end,
        ];
        let ends: Vec<String> = a.turn_end.iter().filter(|m| !m.is_empty() && !taken.iter().any(|t| t.contains(m.as_str()))).cloned().collect();
        let open = match ends.len() {
            0 => return,
            1 => Literals::One(ends[0].clone()),
            _ => Literals::Many(ends),
        };
        self.push("end_of_turn", Field { open: Some(open), close_pattern: Some(String::new()), ..Field::default() });
    }

    /// Open pattern of a call: optional section start, per-call start, name header.
    fn call_open(&mut self, with_name: bool) -> String {
        let a = self.a;
        let (f, func, id) = (&a.tools.format, &a.tools.function, &a.tools.call_id);
        let mut p = String::new();
        let per_call = seq(&[&f.per_call_start]);
        if !trim(&f.section_start).is_empty() && trim(&f.section_start) != trim(&f.per_call_start) {
            if per_call.is_empty() && (!with_name || trim(&func.name_prefix).is_empty()) {
                // The section marker is the only opener.
                p.push_str(&format!("{}\\s*", escape(trim(&f.section_start))));
            } else {
                p.push_str(&format!("(?:{}\\s*)?", escape(trim(&f.section_start))));
            }
        }
        if !per_call.is_empty() {
            p.push_str(&per_call);
            p.push_str("\\s*");
        }
        // The analysis may report one marker in two roles (Solar Open: the per-call start is also the
        // id's prefix, the id's suffix also the name's prefix): it is written once.
        let mut name_prefix = trim_start(&func.name_prefix);
        if id.pos == CallIdPosition::PreFuncName && !id.prefix.is_empty() {
            let id_prefix = if trim(&id.prefix) == trim(&f.per_call_start) { "" } else { trim(&id.prefix) };
            p.push_str(&format!("{}(?P<id>.+?){}\\s*", escape(id_prefix), escape(trim(&id.suffix))));
            if !trim(&id.suffix).is_empty() && trim(name_prefix) == trim(&id.suffix) {
                name_prefix = "";
            }
        }
        if with_name {
            p.push_str(&escape(name_prefix));
            p.push_str(NAME);
            let suffix = match id.header_counter_at {
                Some(at) => {
                    let head = func.name_suffix.get(..at).unwrap_or("");
                    let rest = func.name_suffix.get(at + 1..).unwrap_or("");
                    format!("{}\\d+{}", escape(head), marker_after_name(rest))
                }
                None => marker_after_name(&func.name_suffix),
            };
            p.push_str(&suffix);
        }
        if id.pos == CallIdPosition::BetweenFuncAndArgs && !id.prefix.is_empty() {
            p.push_str(&format!("\\s*{}(?P<id>.+?){}", escape(trim(&id.prefix)), escape(trim(&id.suffix))));
        }
        p
    }

    /// Close pattern of a call: the first closing marker, then the later ones optionally.
    fn call_close(&self, first_markers: &[&str]) -> Option<String> {
        let f = &self.a.tools.format;
        let mut ends: Vec<&str> = first_markers.iter().map(|m| trim(m)).filter(|m| !m.is_empty()).collect();
        ends.dedup();
        let section_end = trim(&f.section_end);
        if ends.is_empty() {
            return (!section_end.is_empty()).then(|| escape(section_end));
        }
        let mut p = escape(ends[0]);
        for e in &ends[1..] {
            p.push_str(&format!("(?:\\s*{})?", escape(e)));
        }
        if !section_end.is_empty() && !ends.contains(&section_end) {
            p.push_str(&format!("(?:\\s*{})?", escape(section_end)));
        }
        Some(p)
    }

    fn id_capture(&mut self) -> Option<Value> {
        let id = &self.a.tools.call_id;
        match id.pos {
            CallIdPosition::PreFuncName | CallIdPosition::BetweenFuncAndArgs if !id.prefix.is_empty() => Some("{id}".into()),
            CallIdPosition::PostArgs => {
                self.loss("tools.call_id", "partial", "the call id follows the arguments: transformers only reads named groups of `open_pattern`, so the id is dropped");
                None
            }
            CallIdPosition::InNamePlace => {
                self.loss("tools.id_in_name_place", "unsupported", "the template writes the call's id where a name goes (`functions.f:0`): the name group takes the whole head, where the parser takes it for the id and the declared tool it names for the name (rule R48), which no field expresses");
                None
            }
            _ => {
                if id.header_counter_at.is_some() {
                    self.loss("tools.call_id", "partial", "the call id is the numbered header (`functions.f:0`): a transform cannot build it from parts, so the id is dropped");
                }
                None
            }
        }
    }

    fn tools(&mut self) {
        let a = self.a;
        let t = &a.tools;
        match t.format.mode {
            ToolFormat::None => {}
            ToolFormat::TagWithJson | ToolFormat::TagWithTagged
                if [&t.format.section_start, &t.format.per_call_start, &t.function.name_prefix].iter().all(|m| trim(m).is_empty()) =>
            {
                self.loss("tools.no_marker", "unsupported", "no marker opens a call (only the function name): a region needs an opening delimiter, so calls stay in content");
            }
            ToolFormat::JsonNative => self.json_native(),
            ToolFormat::TagWithJson => {
                let mut f = Field { content: Some("json".into()), ..self.call_field() };
                if f.close_pattern.is_none() {
                    self.unterminated();
                }
                if !trim(&t.arguments.start).is_empty() {
                    self.loss("tools.arguments_wrapper", "unsupported", "the JSON arguments sit inside their own markers, which the json parser does not skip");
                    f.content_args = Some(Map::new());
                }
                self.push("tool_calls", f);
            }
            ToolFormat::TagWithTagged => self.tagged(),
        }
    }

    /// One region per call, opened by the call's markers and named by their `name` group.
    fn call_field(&mut self) -> Field {
        let t = &self.a.tools;
        let open = self.call_open(true);
        let close = self.call_close(&[&t.function.close, &t.format.per_call_end]);
        let id = self.id_capture();
        Field {
            open_pattern: Some(open),
            close_pattern: close,
            repeats: Some(true),
            transform: Some(call_transform("{name}".into(), "{content}".into(), id)),
            ..Field::default()
        }
    }

    fn tagged(&mut self) {
        let args = &self.a.tools.arguments;
        let mut f = self.call_field();
        if args.literal_values {
            let (s, e, ns, sep) = (trim(&args.start), trim(&args.end), trim(&args.name_suffix), trim(&args.separator));
            if s == "{" && e == "}" && ns == ":" && sep == "," {
                // `{key:<|"|>text<|"|>,n:1}`: JSON with bare keys and custom string delimiters.
                let mut ca = Map::new();
                ca.insert("unquoted_keys".into(), true.into());
                let d = &args.string_delimiter;
                if !d.is_empty() && d != "\"" {
                    ca.insert("string_delims".into(), json!([[d, d]]));
                }
                f.content = Some("json".into());
                f.content_args = Some(ca);
                self.loss("tools.bare_keys", "partial", "transformers quotes a bare key only right after `{` or `,`: arguments with a line break or space before a key fail the json parser");
            } else {
                self.loss(
                    "tools.literal_arguments",
                    "unsupported",
                    "call arguments are literals (`f(a='x', n=1)`); no content parser reads them, so the arguments are kept as text",
                );
            }
        } else {
            let mut p = String::new();
            p.push_str(&escape(trim_start(&args.name_prefix)));
            p.push_str("(?P<key>.+?)");
            p.push_str(&flex(&args.name_suffix));
            if !args.typed_value_prefix.is_empty() && args.typed_value_prefix != args.value_prefix {
                // `" string="true">` / `" string="false">`: either prefix; the tool schema types the value.
                p.push_str(&format!("(?:{}|{})", flex(&args.value_prefix), flex(&args.typed_value_prefix)));
            } else {
                p.push_str(&flex(&args.value_prefix));
            }
            p.push_str("(?P<value>.*?)");
            p.push_str(&flex(&args.value_suffix));
            let mut ca = Map::new();
            ca.insert("tag_pattern".into(), p.into());
            f.content = Some("xml-inline".into());
            f.content_args = Some(ca);
            self.loss(
                "tools.argument_types",
                "partial",
                "tagged argument values are text; pass the request's `tools` to `parse_response` so they are typed by the tool's JSON schema, as our parser types them",
            );
            if !args.typed_value_prefix.is_empty() {
                self.loss("tools.typed_value_prefix", "partial", "the value prefix tells a JSON value from a string; the template accepts both prefixes and leaves typing to the tool schema (`tools=`)");
            }
            if !args.raw_value_start.is_empty() {
                self.loss("tools.raw_values", "partial", "CDATA-wrapped values keep their wrapper");
            }
        }
        self.push("tool_calls", f);
    }

    fn json_native(&mut self) {
        let a = self.a;
        let fmt = &a.tools.format;
        if fmt.fun_name_is_key {
            self.loss("tools.name_as_key", "unsupported", "the function name is the JSON key (`{\"f\": {…}}`); a transform cannot read a key, so calls are not recognised");
            return;
        }
        if fmt.uses_python_dicts {
            self.loss("tools.python_dicts", "unsupported", "calls are Python dict literals; the json parser rejects single quotes");
        }
        let path = |field: &str, default: &str, each: bool| -> String {
            let f = if field.is_empty() { default } else { field };
            if each { format!("{{{f}}}") } else { format!("{{content.{f}}}") }
        };
        let each = fmt.tools_array_wrapped;
        let mut name_field = fmt.name_field.clone();
        let mut args_field = fmt.args_field.clone();
        if !fmt.function_field.is_empty() && fmt.openai_wrapper_trigger && !name_field.contains('.') {
            name_field = format!("{}.{}", fmt.function_field, name_field);
            args_field = format!("{}.{}", fmt.function_field, args_field);
        }
        let id = (!fmt.id_field.is_empty()).then(|| Value::String(path(&fmt.id_field, "id", each)));
        let transform = call_transform(path(&name_field, "name", each).into(), path(&args_field, "arguments", each).into(), id);
        let (open, close) = {
            let opener = if !trim(&fmt.per_call_start).is_empty() { &fmt.per_call_start } else { &fmt.section_start };
            let closer_list: Vec<&str> = if !trim(&fmt.per_call_start).is_empty() { vec![&fmt.per_call_end] } else { vec![] };
            if trim(opener).is_empty() {
                (None, None)
            } else {
                let open = self.call_open(false);
                let close = if trim(&fmt.per_call_start).is_empty() {
                    (!trim(&fmt.section_end).is_empty()).then(|| escape(trim(&fmt.section_end)))
                } else {
                    self.call_close(&closer_list)
                };
                (Some(open), close)
            }
        };
        let Some(open) = open else {
            self.loss(
                "tools.bare_json",
                "unsupported",
                "calls are bare JSON with no marker; a region needs an opening delimiter that is not part of its body, so calls stay in content",
            );
            return;
        };
        if close.is_none() && !each {
            self.unterminated();
        }
        if close.is_none() && each {
            self.loss("tools.unterminated_array", "partial", "the call array has no closing marker: the region runs to the end of the output, so text after the array fails the json parser");
        }
        let mut f = Field { open_pattern: Some(open), close_pattern: close, content: Some("json".into()), transform: Some(transform), ..Field::default() };
        if each {
            f.transform_each = Some(true);
            self.loss("tools.array", "partial", "calls are one JSON array: a second array in the same output replaces the first");
        } else {
            f.repeats = Some(true);
        }
        self.push("tool_calls", f);
    }

    /// A format's own regions ([`ReplyRegions`]), in its field order, then its losses.
    fn regions(&mut self, r: &ReplyRegions) {
        for region in r.regions {
            self.region(region);
        }
        for l in r.losses {
            self.loss_of(l);
        }
    }

    fn region(&mut self, r: &Region) {
        let mut f = Field::default();
        match r.open {
            Open::Outside => {}
            Open::Literal(open) => f.open = Some(Literals::One(open.into())),
            Open::Pattern(open) => f.open_pattern = Some(open.into()),
        }
        f.close = match r.close {
            [] => None,
            [one] => Some(Literals::One(one.to_string())),
            many => Some(Literals::Many(many.iter().map(|m| m.to_string()).collect())),
        };
        match r.part {
            Part::Reasoning if r.joined => self.push_reasoning(f),
            Part::Reasoning => self.push(&self.rf.clone(), f),
            Part::Content => {
                if r.joined {
                    f.repeats = Some(true);
                    f.join = Some(String::new());
                }
                self.push("content", f);
            }
            Part::ToolCall => {
                f.repeats = Some(true);
                f.content = Some("json".into());
                f.transform = Some(call_transform("{name}".into(), "{content}".into(), None));
                self.push("tool_calls", f);
            }
        }
    }

    fn loss_of(&mut self, l: &RegionLoss) {
        self.loss(l.feature, l.severity, l.detail);
    }

    fn unterminated(&mut self) {
        self.loss_of(&UNTERMINATED_CALLS);
    }

    fn common_losses(&mut self) {
        let content_pieces = self.fields.iter().any(|(n, f)| n == "content" && f.join.is_some());
        if content_pieces && self.fields.iter().any(|(n, f)| n != "content" && f.open_pattern.as_deref() != Some("^") && (f.open.is_some() || f.open_pattern.is_some())) {
            self.loss(
                "content.piece_whitespace",
                "partial",
                "content around another region (reasoning, a tool call) is read piece by piece and each piece is stripped (the text parser's default), so the whitespace where two pieces meet is lost; `strip: false` would keep it, and the whitespace around the whole answer too",
            );
        }
        if self.a.tools.format.mode != ToolFormat::None || self.a.reasoning.mode != ReasoningMode::None {
            self.loss(
                "leniency",
                "partial",
                "our parser's leniency has no spec equivalent: a reasoning opener the model leaves out or repeats, a stray reasoning end marker, calls inside unclosed reasoning, calls to undeclared tools or malformed calls kept as content, a call without its arguments",
            );
        }
    }
}

fn trim_start(s: &str) -> &str {
    s.trim_start()
}
