//! Rule R5, shared by the analysis-driven engine and the dedicated formats: thinking is on, the
//! prompt did not open reasoning, and the output starts with reasoning and its end marker (the
//! model, or the prompt, left the opener out). The text up to the end marker is reasoning, unless a
//! tool call or the opener itself comes first (then it was content all along, as it is when the
//! output ends without an end marker).

/// What the start of the output is, so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Reasoning up to the end marker.
    Reasoning,
    /// Content: a call or an opener came first, or the output ended without an end marker.
    Content,
    /// Neither an end marker nor a stop seen yet: wait for more output.
    Undecided,
}

/// `end_at`: where the first reasoning end marker starts, if seen; `stop_at`: where the first tool
/// call or reasoning opener starts, if seen; `at_end`: no more output.
pub fn read(end_at: Option<usize>, stop_at: Option<usize>, at_end: bool) -> Reading {
    match end_at {
        Some(e) if stop_at.is_none_or(|s| s >= e) => Reading::Reasoning,
        _ if stop_at.is_some() || at_end => Reading::Content,
        _ => Reading::Undecided,
    }
}

/// The diagnostic of an accepted R5 departure.
pub fn diagnostic(opener: &str) -> String {
    format!("reasoning without its start marker {opener:?}, up to its end marker (rule R5)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_marker_first_is_reasoning_else_content_or_wait() {
        assert_eq!(read(Some(5), None, false), Reading::Reasoning);
        assert_eq!(read(Some(5), Some(9), false), Reading::Reasoning);
        assert_eq!(read(Some(5), Some(2), false), Reading::Content);
        assert_eq!(read(None, Some(2), false), Reading::Content);
        assert_eq!(read(None, None, true), Reading::Content);
        assert_eq!(read(None, None, false), Reading::Undecided);
    }
}
