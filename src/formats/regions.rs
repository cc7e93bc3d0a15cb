//! A format's reply as regions of text, in the terms of Hugging Face's `response_template`: the
//! formats the analysis cannot describe say here how their reply is delimited, and
//! `response_template/derive.rs` writes that as a template without asking which format it has.
//! (The derivation sits above this stage: formats give data, never spec types.)

/// A reply's regions and what they cannot express.
#[derive(Debug)]
pub struct ReplyRegions {
    /// The marker the reply follows, where it is not the analysis' assistant-turn marker.
    pub anchor: Option<&'static str>,
    /// The regions, in the template's field order.
    pub regions: &'static [Region],
    /// What the template cannot express, after the losses of the regions themselves.
    pub losses: &'static [RegionLoss],
}

/// Which part of a message a region holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Reasoning (the derivation's reasoning field).
    Reasoning,
    /// The answer.
    Content,
    /// One tool call, its JSON arguments as the body; its opener names the function in a `name` group.
    ToolCall,
}

/// How a region opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Not at all: the text outside every other region.
    Outside,
    /// A literal marker.
    Literal(&'static str),
    /// A pattern (the spec's regex subset).
    Pattern(&'static str),
}

impl ReplyRegions {
    /// No region: a reply the spec cannot express, and what that loses.
    pub const fn unsupported(losses: &'static [RegionLoss]) -> Self {
        ReplyRegions { anchor: None, regions: &[], losses }
    }
}

impl RegionLoss {
    /// A feature the spec cannot express at all.
    pub const fn unsupported(feature: &'static str, detail: &'static str) -> Self {
        RegionLoss { feature, severity: "unsupported", detail }
    }
}

/// One region of a reply.
#[derive(Debug)]
pub struct Region {
    /// What it holds.
    pub part: Part,
    /// Its opener.
    pub open: Open,
    /// Its closing markers (the first that occurs); none: it runs to the next region.
    pub close: &'static [&'static str],
    /// Every occurrence, joined (reasoning, content); otherwise the last. Tool calls always repeat.
    pub joined: bool,
}

/// What a template cannot express: `feature`, `partial` or `unsupported`, and what is lost.
#[derive(Debug)]
pub struct RegionLoss {
    pub feature: &'static str,
    pub severity: &'static str,
    pub detail: &'static str,
}

/// Calls without a closing marker (the auto format's derivation reports it too).
pub const UNTERMINATED_CALLS: RegionLoss = RegionLoss {
    feature: "tools.parallel_unterminated",
    severity: "unsupported",
    detail: "calls have no closing marker: a call runs to the next region or the end of the output, so a second call in the same turn breaks the first one's JSON (single calls parse)",
};
