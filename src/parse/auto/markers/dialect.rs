//! Tool-call dialects (rule R9): a model that writes a template's tool-call tokens in another
//! spelling (`<|tool▁calls▁begin|>` for `<｜tool▁calls▁begin｜>`) writes all of them that way. Each
//! respelling of `parse::auto::markers::spelling` that changes the call trigger gives a dialect: the configuration
//! with every token-like tool marker respelled alike. The parser switches to the dialect whose trigger
//! the output wrote, for that call section, and back to the template's spelling after it. The markers
//! written without their special-token part (rule R33: `<invoke name="` for `<｜DSML｜invoke name="`)
//! are one more such dialect.

use crate::parse::config::{ParserConfig, ToolConfig};
use crate::parse::marker::Marker;
use super::spelling::{respell, without_special_part, RESPELLINGS};

/// One way a model writes all of a template's tool markers alike.
#[derive(Clone, Copy)]
enum Spelling {
    /// A respelling of the token-like markers (R9).
    Respelled(fn(&str) -> String),
    /// Every marker without its special-token part (R33).
    SpecialPartDropped,
}

impl Spelling {
    fn apply(self, core: &str) -> String {
        match self {
            Spelling::Respelled(f) => respell(core, f),
            Spelling::SpecialPartDropped => without_special_part(core),
        }
    }
}

fn respell_marker(m: &Marker, f: Spelling) -> Marker {
    if m.is_empty() {
        return m.clone();
    }
    Marker::new(&format!("{}{}{}", m.lead, f.apply(&m.core), m.trail))
}

fn respell_tools(t: &ToolConfig, f: Spelling) -> ToolConfig {
    let mut d = t.clone();
    for m in [
        &mut d.section_start, &mut d.section_end, &mut d.per_call_start, &mut d.per_call_end, &mut d.name_prefix, &mut d.name_suffix,
        &mut d.close, &mut d.args_start, &mut d.args_end, &mut d.arg_name_prefix, &mut d.arg_name_suffix, &mut d.value_prefix,
        &mut d.typed_value_prefix, &mut d.value_suffix, &mut d.arg_separator, &mut d.id_prefix, &mut d.id_suffix, &mut d.trigger,
        &mut d.call_trigger,
    ] {
        *m = respell_marker(m, f);
    }
    for s in [&mut d.raw_value.0, &mut d.raw_value.1, &mut d.string_delim] {
        *s = f.apply(s);
    }
    d.counter_head = d.counter_head.as_deref().map(|h| f.apply(h));
    d
}

/// The dialects of `cfg`'s tool calls; `cfg`'s triggers learn the dialects' spellings of them.
pub fn tool_dialects(cfg: &mut ParserConfig) -> Vec<ParserConfig> {
    let Some(t) = cfg.tools.as_ref().filter(|t| !t.trigger_is_body) else { return Vec::new() };
    let mut dialects: Vec<ParserConfig> = Vec::new();
    for f in RESPELLINGS.map(Spelling::Respelled).into_iter().chain([Spelling::SpecialPartDropped]) {
        let d = respell_tools(t, f);
        let new_trigger = d.trigger.core != t.trigger.core || d.call_trigger.core != t.call_trigger.core;
        let seen = dialects.iter().any(|o| o.tools.as_ref().is_some_and(|o| o.trigger.core == d.trigger.core && o.call_trigger.core == d.call_trigger.core));
        if new_trigger && !seen {
            let mut dc = cfg.clone();
            dc.unwritten_closer = respell_marker(&cfg.unwritten_closer, f);
            dc.tools = Some(d);
            dialects.push(dc);
        }
    }
    let spellings = |pick: fn(&ToolConfig) -> &Marker| -> Vec<String> {
        dialects.iter().filter_map(|d| d.tools.as_ref()).map(|t| pick(t).core.clone()).collect()
    };
    let (triggers, call_triggers) = (spellings(|t| &t.trigger), spellings(|t| &t.call_trigger));
    if let Some(t) = cfg.tools.as_mut() {
        t.trigger = t.trigger.clone().with_alts(triggers);
        t.call_trigger = t.call_trigger.clone().with_alts(call_triggers);
    }
    // A call in another of the template's tags (R29): entered by `wrapper_trigger`, not the trigger.
    dialects.extend(super::super::tag_wrapped_call::wrapper_dialects(cfg));
    dialects
}

/// The dialect whose trigger (or per-call trigger) is spelled `spelled`.
pub fn dialect_of<'d>(dialects: &'d [std::rc::Rc<ParserConfig>], spelled: &str) -> Option<&'d std::rc::Rc<ParserConfig>> {
    dialects.iter().find(|d| d.tools.as_ref().is_some_and(|t| t.trigger.core == spelled || t.call_trigger.core == spelled))
}
