//! Differential template analysis.

pub mod diff;
pub mod types;

pub use diff::{after_common_suffix, calculate_diff_split, segmentize_markers, until_common_prefix, DiffSplit, Segment, SegmentKind};
pub use types::*;
