//! Where a declared response template and our analysis disagree: each of `verify_template`'s
//! round-trip outputs is parsed again with the declared template (after the same prompt) and the two
//! messages compared the way the round trip compares (whitespace around text, JSON formatting of
//! arguments and call ids do not count).

use super::{declared_stream_parser, CompiledTemplate};
use crate::api::{Message, RequestOptions};
use crate::session::{fixture_tools, mismatch, VerifyReport};
use serde::Serialize;
use std::rc::Rc;

/// One round-trip output the two parsers read differently.
#[derive(Debug, Clone, Serialize)]
pub struct DeclaredDisagreement {
    /// The verify fixture's name.
    pub name: String,
    /// The model-output text both parsed.
    pub output: String,
    /// Our analysis' message.
    pub ours: Message,
    /// The declared template's message (absent when it failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<Message>,
    /// The first difference, or the declared parser's error.
    pub difference: String,
}

/// The `responseTemplate` part of a verify report for a template with a declared response template.
#[derive(Debug, Clone, Serialize)]
pub struct DeclaredCheck {
    /// Every checked output parsed to the same message.
    pub agree: bool,
    /// How many round-trip outputs were parsed by both.
    pub checked: usize,
    /// The outputs where they differ.
    pub disagreements: Vec<DeclaredDisagreement>,
}

/// Parse every round-trip output of `report` (those that rendered and were not skipped, failed round
/// trips included: both parsers read the same text) with the
/// declared template and list where its message differs from ours.
pub fn check_declared(declared: Rc<CompiledTemplate>, report: &VerifyReport) -> DeclaredCheck {
    let options = RequestOptions { tools: fixture_tools(), parallel_tool_calls: true, ..Default::default() };
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for r in report.results.iter().filter(|r| r.skipped.is_none() && !r.output.is_empty()) {
        checked += 1;
        let parsed = declared_stream_parser(declared.clone(), &r.prompt, &options).and_then(|mut p| {
            p.push(&r.output);
            p.finish()?;
            Ok(p.message().clone())
        });
        let (declared_msg, difference) = match parsed {
            Ok(m) => {
                let diff = mismatch(&r.actual, &m);
                (Some(m), diff)
            }
            Err(e) => (None, Some(format!("the declared template fails: {e}"))),
        };
        if let Some(difference) = difference {
            disagreements.push(DeclaredDisagreement { name: r.name.clone(), output: r.output.clone(), ours: r.actual.clone(), declared: declared_msg, difference });
        }
    }
    DeclaredCheck { agree: disagreements.is_empty(), checked, disagreements }
}
