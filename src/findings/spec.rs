//! The parser spec: everything a parse needs from a template, as portable, versioned JSON — the parts of
//! its analysis the parsers read (markers, layout, mined source tokens, the format), and the generation
//! prompt's tail for each thinking mode the template has. Built by `ChatTemplate::compile_parser` (the full
//! build); read by `StreamParser::from_spec`, which needs no template engine (`chat-autoparser/parser`).

use super::Analysis;
use crate::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};

/// The spec format this build writes and reads. Raise it whenever what the parsers read changes (a
/// field of [`Analysis`] they use, its meaning, or how a prompt tail is chosen): a spec of another
/// version is refused, never read differently.
pub const PARSER_SPEC_VERSION: u32 = 4;

/// A compiled parser: see the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParserSpec {
    /// [`PARSER_SPEC_VERSION`] of the build that wrote it.
    pub spec_version: u32,
    /// The package version that wrote it (informative: only `spec_version` decides).
    pub written_by: String,
    /// The output format (the analysis' `handler`), for readers; the analysis holds it too.
    pub format: super::Handler,
    /// The generation prompt's tail, per thinking mode.
    pub generation_prompts: GenerationPrompts,
    /// The template's analysis without its record of comparisons (`diffs`), which no parser reads.
    pub analysis: Analysis,
}

/// What the template appends for the assistant's turn (one user message, no tools), per
/// `enableThinking`: not given, `true`, `false`. The last two are left out when equal to the first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerationPrompts {
    pub default: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_thinking: Option<String>,
}

impl GenerationPrompts {
    /// The tail for `enable_thinking` (`None`: the template's default).
    pub fn for_thinking(&self, enable_thinking: Option<bool>) -> &str {
        let mode = match enable_thinking {
            None => None,
            Some(true) => self.thinking.as_deref(),
            Some(false) => self.no_thinking.as_deref(),
        };
        mode.unwrap_or(&self.default)
    }
}

impl ParserSpec {
    /// Read a spec from its JSON text. A spec of another [`PARSER_SPEC_VERSION`] is an
    /// [`ErrorKind::SpecVersion`] error naming both versions (checked before the rest is read, so any
    /// older shape gets that error, not a field error); anything else malformed is `InvalidInput`.
    pub fn from_json(text: &str) -> Result<ParserSpec> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Versioned {
            spec_version: Option<u32>,
            written_by: Option<String>,
        }
        let v: Versioned = serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("spec: not a parser spec ({e})")))?;
        match v.spec_version {
            Some(PARSER_SPEC_VERSION) => {}
            Some(other) => {
                let by = v.written_by.map(|w| format!(" (written by chat-autoparser {w})")).unwrap_or_default();
                return Err(Error::new(
                    ErrorKind::SpecVersion,
                    format!("spec: parser spec version {other}{by}; this build (chat-autoparser {}) reads version {PARSER_SPEC_VERSION}: compile the template again with this version", env!("CARGO_PKG_VERSION")),
                ));
            }
            None => return Err(Error::new(ErrorKind::InvalidInput, "spec: not a parser spec (no `specVersion`: make one with compileParser)")),
        }
        serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("spec: {e}")))
    }

    /// The spec as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
