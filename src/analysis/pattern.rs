//! A tiny PEG matcher for the analyzer's marker extraction: literals, `<…>`/`[…]` markers,
//! whitespace runs, "until" scans, lookahead, repetition and named captures.
//!
//! Repetition and `until` are possessive (no backtracking into them), as in PEG. Every position is a
//! char boundary: literals are whole strings and `any` steps one char. Recursion depth is bounded by
//! the pattern's own nesting, which the analyzer writes statically; input length only drives loops.

use std::collections::HashMap;

/// A pattern node.
#[derive(Debug, Clone)]
pub enum P {
    Lit(String),
    /// `<…>` or `[…]`.
    Marker,
    /// Zero or more ASCII whitespace characters.
    Space,
    /// Everything up to (not including) the first of these delimiters, or to the end.
    Until(Vec<String>),
    /// One character.
    Any,
    /// Negative lookahead: succeeds, consuming nothing, when the inner pattern fails.
    Not(Box<P>),
    Seq(Vec<P>),
    /// Ordered choice.
    Choice(Vec<P>),
    Star(Box<P>),
    Opt(Box<P>),
    Tag(&'static str, Box<P>),
    /// The rest of the input.
    Rest,
    /// End of input.
    End,
}

pub fn lit(s: &str) -> P {
    P::Lit(s.to_string())
}
pub fn until(s: &str) -> P {
    P::Until(vec![s.to_string()])
}
pub fn until_one_of(s: &[&str]) -> P {
    P::Until(s.iter().map(|x| x.to_string()).collect())
}
pub fn tag(name: &'static str, p: P) -> P {
    P::Tag(name, Box::new(p))
}
pub fn not(p: P) -> P {
    P::Not(Box::new(p))
}
pub fn star(p: P) -> P {
    P::Star(Box::new(p))
}
pub fn opt(p: P) -> P {
    P::Opt(Box::new(p))
}
pub fn seq(v: Vec<P>) -> P {
    P::Seq(v)
}
pub fn choice(v: Vec<P>) -> P {
    P::Choice(v)
}
/// Any run of characters none of which starts a match of `p` (`(!p .)*`).
pub fn star_not(p: P) -> P {
    star(seq(vec![not(p), P::Any]))
}
/// The last marker of the input and the non-marker text after it, to the end.
pub fn last_marker_to_end() -> P {
    seq(vec![P::Marker, star_not(P::Marker), P::End])
}

/// Captured text by tag name; a later capture of the same name wins.
pub type Tags = HashMap<&'static str, String>;

impl P {
    fn m(&self, s: &str, pos: usize, caps: &mut Vec<(&'static str, usize, usize)>) -> Option<usize> {
        let rest = s.get(pos..)?;
        match self {
            P::Lit(l) => rest.starts_with(l.as_str()).then(|| pos + l.len()),
            P::Marker => {
                let close = match rest.as_bytes().first() {
                    Some(b'<') => '>',
                    Some(b'[') => ']',
                    _ => return None,
                };
                rest.get(1..)?.find(close).map(|i| pos + 1 + i + 1)
            }
            P::Space => Some(pos + (rest.len() - rest.trim_start_matches(crate::text::is_space).len())),
            P::Until(delims) => {
                let end = delims.iter().filter(|d| !d.is_empty()).filter_map(|d| rest.find(d.as_str())).min();
                Some(pos + end.unwrap_or(rest.len()))
            }
            P::Any => rest.chars().next().map(|c| pos + c.len_utf8()),
            P::Not(p) => {
                let n = caps.len();
                let r = p.m(s, pos, caps);
                caps.truncate(n);
                r.is_none().then_some(pos)
            }
            P::Seq(items) => {
                let n = caps.len();
                let mut at = pos;
                for it in items {
                    match it.m(s, at, caps) {
                        Some(next) => at = next,
                        None => {
                            caps.truncate(n);
                            return None;
                        }
                    }
                }
                Some(at)
            }
            P::Choice(items) => items.iter().find_map(|it| it.m(s, pos, caps)),
            P::Star(p) => {
                let mut at = pos;
                while let Some(next) = p.m(s, at, caps) {
                    if next == at {
                        break;
                    }
                    at = next;
                }
                Some(at)
            }
            P::Opt(p) => Some(p.m(s, pos, caps).unwrap_or(pos)),
            P::Tag(name, p) => {
                let end = p.m(s, pos, caps)?;
                caps.push((name, pos, end));
                Some(end)
            }
            P::Rest => Some(s.len()),
            P::End => rest.is_empty().then_some(pos),
        }
    }

    /// Match at the start of `input` (need not consume it all). `None` on failure.
    pub fn parse(&self, input: &str) -> Option<Tags> {
        self.parse_at(input, 0)
    }

    fn parse_at(&self, input: &str, pos: usize) -> Option<Tags> {
        let mut caps = Vec::new();
        self.m(input, pos, &mut caps)?;
        let mut tags = Tags::new();
        for (name, a, b) in caps {
            tags.insert(name, input.get(a..b).unwrap_or_default().to_string());
        }
        Some(tags)
    }

    /// Match at the first position of `input` where the pattern matches.
    pub fn parse_anywhere(&self, input: &str) -> Option<Tags> {
        if input.is_empty() {
            return self.parse(input);
        }
        input.char_indices().find_map(|(i, _)| self.parse_at(input, i))
    }
}

/// Captured tag or "".
pub fn get(tags: &Tags, name: &str) -> String {
    tags.get(name).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_reasoning() {
        let p = seq(vec![
            tag("pre", seq(vec![P::Marker, P::Space])),
            lit("R"),
            tag("post", seq(vec![P::Space, P::Marker, P::Space])),
            P::Rest,
        ]);
        let t = p.parse_anywhere("x<think>\nR\n</think>\nA").unwrap();
        assert_eq!(get(&t, "pre"), "<think>\n");
        assert_eq!(get(&t, "post"), "\n</think>\n");
        assert!(p.parse_anywhere("no markers R here").is_none());
    }

    #[test]
    fn last_marker() {
        let p = seq(vec![star_not(last_marker_to_end()), tag("m", last_marker_to_end())]);
        assert_eq!(get(&p.parse("a<b>c<d>e").unwrap(), "m"), "<d>e");
    }
}
