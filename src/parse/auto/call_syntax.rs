//! The other call syntax a model may write inside a template's tool-call markers (issue #13):
//! - rule R20, pythonic calls (`get_weather(city="Paris")`, one or a `[…]` list of them) where the
//!   template writes JSON call objects: read with [`pythonic_variant`], the template's JSON layout
//!   around it (markers, `[ … ]`, `,`) staying as it is;
//! - rule R21, a call list's brackets left out or added where nothing else marks them: a pythonic
//!   section opener with its `[` (`<|tool_call_start|>[`) written without it
//!   (`<|tool_call_start|>get_weather(…)<|tool_call_end|>`, [`bracketless_dialect`]), and a bare
//!   array of calls (`[{"name": …}, …]`, [`bare_array_spellings`]) where the template writes bare
//!   call objects with no marker at all.
//!
//! Everything is derived from the analysed tool format and the request's tools, never from names.
//! Configuration half: the variant configurations, built with the parser's configuration. Run-time
//! half (the `impl AutoParser` below): a call written in the other syntax is read with the pythonic
//! variant of the configuration for the call itself, the JSON states reading what is around it; the
//! reverse, a JSON object where pythonic calls are due, is rule R18 (`json_departures.rs`).

use crate::parse::config::{ParserConfig, ToolConfig};
use crate::parse::marker::{Expect, Marker};
use super::tool::{match_name, NameMatch, ToolStep};
use super::{AutoParser, State, Step};
use crate::text::is_space;
use std::rc::Rc;
use crate::findings::{CallIdPosition, ToolFormat};

/// The configuration that reads one pythonic call (`name(a=1, b="x")`) in place of a JSON call
/// object of `cfg`'s layout: only the call itself (name, `(`, literal arguments, `)`), no markers
/// around it — the JSON states read those. `None` unless `cfg` writes JSON call objects.
pub fn pythonic_variant(cfg: &ParserConfig) -> Option<ParserConfig> {
    let t = cfg.tools.as_ref().filter(|t| t.format == ToolFormat::JsonNative && !t.literal)?;
    let m = Marker::new;
    let v = ToolConfig {
        format: ToolFormat::TagWithTagged,
        section_start: Marker::default(),
        section_end: Marker::default(),
        per_call_start: Marker::default(),
        per_call_end: Marker::default(),
        name_prefix: Marker::default(),
        name_suffix: Marker::default(),
        close: Marker::default(),
        args_start: m("("),
        args_end: m(")"),
        arg_name_prefix: Marker::default(),
        arg_name_suffix: m("="),
        value_prefix: Marker::default(),
        typed_value_prefix: Marker::default(),
        raw_value: (String::new(), String::new()),
        value_suffix: Marker::default(),
        arg_separator: m(","),
        literal: true,
        string_delim: "\"".into(),
        id_pos: CallIdPosition::None,
        id_prefix: Marker::default(),
        id_suffix: Marker::default(),
        trigger: Marker::default(),
        trigger_is_body: false,
        call_trigger: Marker::default(),
        counter_head: None,
        undeclared: false,
        ..t.clone()
    };
    Some(ParserConfig { tools: Some(v), ..cfg.clone() })
}

/// `marker` with `core` for its core, its surrounding whitespace kept.
fn with_core(marker: &Marker, core: &str) -> Marker {
    Marker::new(&format!("{}{core}{}", marker.lead, marker.trail))
}

/// For a pythonic call section whose markers hold the list's brackets (`<|tool_call_start|>[` …
/// `]<|tool_call_end|>`): the same section without them, entered by the opener written without
/// its `[`. `None` for any other layout.
pub fn bracketless_dialect(cfg: &ParserConfig) -> Option<ParserConfig> {
    let t = cfg.tools.as_ref().filter(|t| t.literal && t.format == ToolFormat::TagWithTagged)?;
    let open = t.section_start.core.strip_suffix('[').map(|s| s.trim_end_matches(crate::text::is_space)).filter(|s| !s.is_empty())?;
    let close = t.section_end.core.strip_prefix(']').map(|s| s.trim_start_matches(crate::text::is_space)).filter(|s| !s.is_empty())?;
    let mut d = t.clone();
    d.undeclared = false;
    d.section_start = with_core(&t.section_start, open);
    d.section_end = with_core(&t.section_end, close);
    d.trigger = Marker::new(open);
    Some(ParserConfig { tools: Some(d), dialect_note: Some("a pythonic call section without the `[ … ]` the template writes in its markers (rule R21)"), ..cfg.clone() })
}

/// Blanks a model writes between a section marker's token and the list bracket the marker holds.
const BLANKS: [&str; 5] = [" ", "\n", "\n\n", "  ", "\t"];

/// For a pythonic call section whose markers hold the list's brackets (`<|tool_call_start|>[` …
/// `]<|tool_call_end|>`): the markers with blanks between token and bracket
/// (`<|tool_call_start|> [`, `]\n<|tool_call_end|>`), another spelling of them (rule R9) that
/// [`bracket_departures`] adds to the section markers. Empty for any other layout.
pub fn spaced_bracket_spellings(t: &ToolConfig) -> (Vec<String>, Vec<String>) {
    if !(t.literal && t.format == ToolFormat::TagWithTagged) {
        return (Vec::new(), Vec::new());
    }
    let open = t.section_start.core.strip_suffix('[').filter(|s| !s.is_empty() && !s.ends_with(crate::text::is_space));
    let close = t.section_end.core.strip_prefix(']').filter(|s| !s.is_empty() && !s.starts_with(crate::text::is_space));
    let opens = open.map(|o| BLANKS.iter().map(|b| format!("{o}{b}[")).collect()).unwrap_or_default();
    let closes = close.map(|c| BLANKS.iter().map(|b| format!("]{b}{c}")).collect()).unwrap_or_default();
    (opens, closes)
}

/// The section markers of `cfg` (and its trigger, when that is the section opener) learn their
/// spellings with blanks between token and bracket ([`spaced_bracket_spellings`], rule R9).
pub fn spaced_brackets(cfg: &mut ParserConfig) {
    let Some(t) = cfg.tools.as_mut() else { return };
    let (opens, closes) = spaced_bracket_spellings(t);
    if !opens.is_empty() && t.trigger.core == t.section_start.core {
        t.trigger.alts.extend(opens.iter().cloned());
    }
    t.section_start.alts.extend(opens);
    t.section_end.alts.extend(closes);
}

/// Whether `matched` is `m`'s core with blanks inside it (not another respelling).
pub fn blanks_inside(m: &Marker, matched: &str) -> bool {
    let matched = matched.trim_matches(crate::text::is_space);
    matched != m.core && matched.chars().filter(|c| !crate::text::is_space(*c)).eq(m.core.chars().filter(|c| !crate::text::is_space(*c)))
}

/// The bracket departures of `cfg` (rule R21): its trigger learns their spellings; returns the
/// dialect that reads a section written without its brackets, if the layout has one. The section's
/// markers also learn their spellings with blanks inside ([`spaced_bracket_spellings`], rule R9).
pub fn bracket_departures(cfg: &mut ParserConfig) -> Option<ParserConfig> {
    let dialect = bracketless_dialect(cfg);
    spaced_brackets(cfg);
    let t = cfg.tools.as_mut()?;
    let spellings = bare_array_spellings(t);
    t.trigger.alts.extend(spellings);
    if let Some(d) = dialect.as_ref().and_then(|d| d.tools.as_ref()) {
        t.trigger.alts.push(d.trigger.core.clone());
    }
    dialect
}

/// For bare JSON call objects with no marker at all (the trigger is the object's own `{`): the
/// spellings of a bare array of them that also start calls (`[{`, `[\n  {`, …), and of a bare
/// pythonic list of a declared tool (`[get_weather(`).
pub fn bare_array_spellings(t: &ToolConfig) -> Vec<String> {
    if !(t.trigger_is_body && t.format == ToolFormat::JsonNative && !t.json.array_wrapped && t.trigger.core == "{") {
        return Vec::new();
    }
    let mut out: Vec<String> = ["[{", "[ {", "[\n{", "[\n  {", "[\n    {", "[\n\t{"].map(String::from).to_vec();
    out.extend(t.tools.iter().filter(|d| !d.name.is_empty()).map(|d| format!("[{}(", d.name)));
    out
}

impl AutoParser {
    /// Where a JSON call object is due (`JsonOpen`, or `JsonObj` before its first byte): a pythonic
    /// call of a declared tool (`get_weather(`) is read as the call instead. `None` lets the JSON
    /// step run (it fails on anything but an object, as before).
    pub(super) fn pythonic_in_json(&mut self, text: &str, abs: usize, eof: bool) -> Option<Step> {
        if self.call.body_checked {
            return None;
        }
        let variant = self.cfg.pythonic.clone()?;
        let rest = text.trim_start_matches(is_space);
        let first = rest.chars().next();
        if first.is_none() {
            return (!eof).then_some(Step::Wait);
        }
        if first == Some('[') {
            // The array's opener (JSON states read it): the call comes after it.
            return None;
        }
        if !first.is_some_and(|c| c.is_alphabetic() || c == '_') {
            self.call.body_checked = true;
            return None;
        }
        let t = variant.tools.as_ref()?;
        match match_name(rest, t, eof) {
            NameMatch::NeedMore => return Some(Step::Wait),
            // The variant reads declared names only (`undeclared` off): the other syntax is a guess.
            NameMatch::No | NameMatch::Undeclared(_) => {
                self.call.body_checked = true;
                return None;
            }
            NameMatch::Found(..) => {}
        }
        // The name is followed by `(`: the arguments' opening, as `match_name` checked.
        debug_assert!(matches!(t.args_start.expect("(", true), Expect::Matched(_)));
        self.call.body_checked = true;
        let skip = text.len() - rest.len();
        // Marker-less (R28), the template's own calls need not be JSON: the departure is the syntax.
        let message = if self.cfg.bare_note.is_some() { "a pythonic tool call where a JSON call object is read (rule R20)" } else { "a pythonic tool call where the template writes JSON call objects (rule R20)" };
        self.diag(abs + skip, message);
        self.call.swapped_from = Some(Rc::clone(&self.cfg));
        self.cfg = variant;
        self.state = State::Tool(ToolStep::Name);
        Some(Step::Adv(skip))
    }

    /// A call read in the other syntax ended: the template's layout continues after it (`,`, `]`,
    /// the closing markers). `None` when the call was read in the template's own syntax.
    pub(super) fn end_swapped_call(&mut self) -> Option<Step> {
        let prev = self.call.swapped_from.take()?;
        self.cfg = prev;
        self.state = State::Tool(ToolStep::JsonAfter);
        Some(Step::Adv(0))
    }
}
