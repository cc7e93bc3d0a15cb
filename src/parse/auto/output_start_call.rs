//! Where the content starts (after any reasoning): one pythonic call of a declared tool without its
//! `[…]` list and without the template's markers, alone on its line, after one special-token-shaped
//! word the template does not write as a marker (`<|python_tag|>get_weather(city="Paris")`). The
//! word is what tells it from prose or code that starts the same way: without it the text stays
//! content (a `[…]` list alone on its line is read anywhere, rule R28). It is the composition of three dimensions the engine already
//! has: the place (no markers, rule R28, here the content's start), the syntax (a pythonic call,
//! rule R20) and a token before the call (rule R11).
//!
//! A call without a list has no trigger a marker search could find, and looking for every tool's
//! name in all content cost 4-7x; so it is checked once, where the content starts, and nowhere
//! else. Until that place is decided (its first non-blank letters, at most a word and a name) the
//! content is stepped; after it, nothing of this runs again. The configuration that reads the call
//! is built only once the first word names a declared tool followed by `(`. The check is the one
//! marker-less candidates get (`bare_json_call::Ahead`): read as a call only when all of it is one,
//! else the content step reads the text as if there had been no check.

use super::bare_json_call::{Ahead, Verdict};
use super::tool::ToolStep;
use super::{AutoParser, State, Step};
use crate::api::Delta;
use super::bare_json_call::{bare_variant, BareCallPlace};
use crate::parse::config::FallbackConfig;
use crate::parse::config::ParserConfig;
use crate::parse::pythonic_check::starts_call;
use crate::text::is_space;
use std::rc::Rc;

/// The configuration of a pythonic call without its list where the content starts
/// (`BareCallPlace::OutputStart`): built only once the content's first word names a declared tool.
/// None without tools.
pub fn start_call_config(base: &ParserConfig) -> Option<FallbackConfig> {
    bare_variant(base, "", "", false, BareCallPlace::OutputStart)
}

/// Whether `base` looks for a call where the content starts: its request has tools and its template
/// a tool format.
pub(super) fn start_calls_apply(base: &ParserConfig) -> bool {
    base.tools.as_ref().is_some_and(|t| !t.tools.is_empty())
}

/// The length of a special-token-shaped word at the start of `rest` (`<|python_tag|>`), 0 when there
/// is none; `None` while `rest` may still grow into one.
fn token_word(rest: &str, eof: bool) -> Option<usize> {
    const LONGEST: usize = 40;
    let Some(body) = rest.strip_prefix("<|") else {
        return if !eof && "<|".starts_with(rest) { None } else { Some(0) };
    };
    let word = body.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    match body.get(word..) {
        Some(after) if after.starts_with("|>") && word > 0 && word <= LONGEST => Some(2 + word + 2),
        Some(after) if !eof && word <= LONGEST && "|>".starts_with(after) => None,
        _ => Some(0),
    }
}

/// Whether `rest` starts with a declared tool's name followed by `(`; `None` while it may still.
fn names_a_tool(base: &ParserConfig, rest: &str, eof: bool) -> Option<bool> {
    let word = rest.find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))).unwrap_or(rest.len());
    let (w, after) = rest.split_at(word);
    let mut open = false;
    for name in base.tools.iter().flat_map(|t| &t.tools).map(|d| d.name.as_str()) {
        if name == w && after.starts_with('(') {
            return Some(true);
        }
        open |= after.is_empty() && name.starts_with(w);
    }
    if open && !eof {
        None
    } else {
        Some(false)
    }
}

/// Whether `word` is one of the markers the configuration reads in content (a token the template
/// writes means what the template means by it, never a call's prefix here).
fn is_template_marker(base: &ParserConfig, word: &str) -> bool {
    let tools = base.tools.iter().flat_map(|t| [&t.trigger, &t.call_trigger, &t.wrapper_trigger, &t.section_start, &t.per_call_start]);
    let text = base.reasoning.iter().chain(base.content_wrap.iter()).flat_map(|(s, e)| [s, e]);
    tools.chain(text).chain(base.dropped_in_content()).any(|m| m.core.trim() == word)
}

impl AutoParser {
    /// The check where the content starts; `None` lets the content step run as if there were none
    /// (nothing consumed).
    pub(super) fn output_start_call(&mut self, text: &str, abs: usize, eof: bool, out: &mut Vec<Delta>) -> Option<Step> {
        if self.start_checked {
            return None;
        }
        let rest = text.trim_start_matches(is_space);
        if rest.is_empty() {
            // Blanks first: what follows them decides (held, so that every chunking decides alike).
            return (!eof).then_some(Step::Wait);
        }
        let Some(token) = token_word(rest, eof) else { return Some(Step::Wait) };
        let base = Rc::clone(&self.base);
        let known = token > 0 && is_template_marker(&base, rest.get(..token).unwrap_or(""));
        let call = rest.get(token..).unwrap_or("");
        match call.chars().next() {
            None if !eof => return Some(Step::Wait),
            // Without the token a list-less call is not told from prose or code that starts the same
            // way (llama-stack and vLLM's pythonic readers refuse it too): the token is what marks it.
            Some(c) if starts_call(c) && token > 0 && !known => {}
            _ => return self.start_decided(),
        }
        // Most content starts with a word no tool's name is: decided at its first letters, before
        // anything is built.
        match names_a_tool(&base, call, eof) {
            None => return Some(Step::Wait),
            Some(false) => return self.start_decided(),
            Some(true) => {}
        }
        let lead = text.len() - rest.len();
        if lead > 0 {
            // The candidate is checked from the start of a step's text.
            self.emit_content(text.get(..lead).unwrap_or(""), out);
            return Some(Step::Adv(lead));
        }
        let Some(f) = start_call_config(&base) else { return self.start_decided() };
        let t = f.cfg.tools.as_ref()?;
        let mut ahead = match self.ahead.take() {
            Some(a) if a.at() == abs => a,
            _ => Ahead::new(abs, token),
        };
        match ahead.check(text, t, BareCallPlace::OutputStart, f.cfg.pythonic.is_some(), eof) {
            Verdict::NeedMore => {
                self.ahead = Some(ahead);
                Some(Step::Wait)
            }
            Verdict::Call => {
                self.start_checked = true;
                let word = text.get(..token).unwrap_or("");
                if token > 0 {
                    self.diag(abs, format!("token {word:?} before a tool call read as part of the call (rule R11)"));
                }
                self.cfg = Rc::clone(&f.cfg);
                self.begin_call(abs, word);
                self.in_array = false;
                self.section_open = false;
                self.state = State::Tool(ToolStep::JsonOpen);
                Some(Step::Adv(token))
            }
            Verdict::Not(..) => self.start_decided(),
        }
    }

    /// The content's start holds no such call: the content step reads it as ever.
    fn start_decided(&mut self) -> Option<Step> {
        self.start_checked = true;
        None
    }
}
