//! The tool-call fallback (rule R13): a request with tools whose template has no tool format reads
//! calls in the formats `analysis::fallback_formats` names (markers the template source names, then
//! the common conventions), side by side, and their pythonic section without its `[ … ]` (R21).
//! Configuration half: [`fallback_configs`]. Run-time half: the content step's search for their
//! triggers and code fences (`AutoParser::fallback_in_content`) and what content holds back for them.

use crate::api::RequestOptions;
use crate::findings::{fallback_formats, Analysis, ToolFormat};
use crate::parse::auto::call_syntax;
use crate::parse::config::{FallbackConfig, ParserConfig};
use crate::api::ToolChoice;
use super::{floor_boundary, AutoParser, Scope, Step, FENCE};
use crate::api::Delta;
use crate::parse::marker::{Expect, Marker};
use std::rc::Rc;

/// The fallback for a request with tools whose template has no tool format (rule R13): the
/// formats of `analysis::fallback_formats` (markers the template source names, then the common
/// conventions), each as a configuration that differs from the base one only in its tools. Empty
/// when the template has a tool format, the request has no tools, or a response schema applies.
pub fn fallback_configs(analysis: &Analysis, options: &RequestOptions) -> Vec<FallbackConfig> {
    let has_schema = options.json_schema.as_ref().is_some_and(|s| s.as_object().is_some_and(|o| !o.is_empty()));
    if options.tools.is_empty() || options.tool_choice == ToolChoice::None || has_schema {
        return Vec::new();
    }
    if analysis.tools.format.mode != ToolFormat::None {
        return Vec::new();
    }
    let mut out: Vec<FallbackConfig> = fallback_formats(analysis)
        .into_iter()
        .map(|f| {
            // Only what `ParserConfig::new` reads: the text side as analysed, the fallback's tools.
            let a = Analysis {
                reasoning: analysis.reasoning.clone(),
                content: analysis.content.clone(),
                turn_end: analysis.turn_end.clone(),
                tools: f.tools,
                ..Analysis::default()
            };
            let mut cfg = ParserConfig::new(&a, options);
            cfg.fallback_rule = Some(f.rule);
            // The fallback guesses the layout: only a declared name makes its text a call.
            if let Some(t) = cfg.tools.as_mut() {
                t.undeclared = false;
            }
            // Its pythonic variant (rule R20) names the fallback's convention too.
            cfg.pythonic = call_syntax::pythonic_variant(&cfg).map(Rc::new);
            call_syntax::spaced_brackets(&mut cfg);
            FallbackConfig { cfg: Rc::new(cfg), line_start: f.line_start, bare: None }
        })
        .collect();
    // A pythonic section written without the `[ … ]` in its markers (rule R21), after the formats
    // themselves so that one of them wins a trigger they share.
    let bracketless: Vec<FallbackConfig> = out
        .iter()
        .filter_map(|f| {
            let mut d = call_syntax::bracketless_dialect(&f.cfg)?;
            let rule = d.fallback_rule.take().unwrap_or_default();
            d.fallback_rule = Some(format!("{rule}, without the `[ … ]` of its markers (rule R21)"));
            d.dialect_note = None;
            Some(FallbackConfig { cfg: Rc::new(d), line_start: f.line_start, bare: None })
        })
        .collect();
    out.extend(bracketless);
    out
}

impl AutoParser {
    /// The fallback's triggers and code fences in content (rule R13), when one of them is the first
    /// marker of `scope` (`others`: the content step's own markers, which win when earlier). The
    /// earliest trigger wins, the longest on a tie; a trigger that may still grow into a longer one
    /// waits. A fence at the start of a line opens or closes a code block, in which no call is read;
    /// a line-start trigger elsewhere is text. A call found switches `cfg` to its format.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fallback_in_content(&mut self, text: &str, scope: Scope<'_>, abs: usize, eof: bool, others: &[&Marker], fence: &Marker, out: &mut Vec<Delta>) -> Option<Step> {
        let fallback = Rc::clone(&self.fallback);
        if fallback.is_empty() {
            return None;
        }
        let mut best: Option<(usize, usize, Option<&FallbackConfig>)> = scope.find(fence).map(|(s, e)| (s, e, None));
        if !self.in_code {
            for f in fallback.iter() {
                let Some((s, e)) = f.cfg.tools.as_ref().and_then(|t| scope.find(&t.trigger)) else { continue };
                if best.is_none_or(|(bs, be, _)| s < bs || s == bs && e - s > be - bs) {
                    best = Some((s, e, Some(f)));
                }
            }
        }
        let (s, e, found) = best?;
        // A marker-less candidate (rules R28, R34) yields to a marker of the template at its place.
        let bare = found.and_then(|f| f.bare.map(|p| (f, p)));
        if others.iter().filter_map(|m| scope.find(m)).any(|(o, _)| o < s || bare.is_some() && o == s) {
            return None;
        }
        // A marker of the template that the text ends inside of, begun at or before the trigger
        // (`Action:\n``` ` of `Action:\n```json`), decides first once whole.
        let held = if eof { 0 } else { others.iter().map(|m| m.holdback(text)).max().unwrap_or(0) };
        if held > 0 && text.len() - held <= s {
            let p = floor_boundary(text, text.len() - held);
            self.emit_content(text.get(..p).unwrap_or(""), out);
            return Some(if p == 0 { Step::Wait } else { Step::Adv(p) });
        }
        let rest = text.get(s..).unwrap_or("");
        let longer = fallback.iter().filter_map(|f| f.cfg.tools.as_ref()).any(|t| t.trigger.spellings().any(|c| c.len() > rest.len() && c.starts_with(rest)));
        if longer && !eof && !self.in_code {
            self.emit_content(text.get(..s).unwrap_or(""), out);
            return Some(if s == 0 { Step::Wait } else { Step::Adv(s) });
        }
        if let Some((f, place)) = bare {
            if others.iter().any(|m| m.expect(rest, eof) == Expect::NeedMore) {
                // A marker of the template may still start there (`[` of `[TOOL_CALLS]`).
                self.emit_content(text.get(..s).unwrap_or(""), out);
                return Some(if s == 0 { Step::Wait } else { Step::Adv(s) });
            }
            return Some(self.bare_candidate(f, place, text, (s, e), abs, eof, out));
        }
        let at_line_start = self.line_start_after(text.get(..s).unwrap_or(""));
        match found {
            Some(f) if !f.line_start || at_line_start => {
                let body = f.cfg.tools.as_ref().is_some_and(|t| t.trigger_is_body);
                self.cfg = Rc::clone(&f.cfg);
                Some(self.enter_call(text, abs, (s, e), body, true, out))
            }
            _ => {
                if found.is_none() && at_line_start {
                    self.in_code = !self.in_code;
                }
                self.emit_content(text.get(..e).unwrap_or(""), out);
                Some(Step::Adv(e))
            }
        }
    }

    /// Trailing bytes of content that may still become one of the fallback's triggers or a fence.
    pub(super) fn fallback_holdback(&self, text: &str) -> usize {
        if self.fallback.is_empty() {
            return 0;
        }
        let triggers = self.fallback.iter().filter_map(|f| f.cfg.tools.as_ref()).map(|t| t.trigger.holdback(text)).max().unwrap_or(0);
        triggers.max(crate::parse::scan::held_back_len(text, &[FENCE]))
    }
}
