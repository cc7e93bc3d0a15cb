//! Unwrapping a JSON response from a Markdown code fence, while streaming.
//!
//! With a response-format schema, models often answer ```` ```json\n{…}\n``` ````; the message content
//! must be the JSON alone. [`FenceStrip`] drops an opening fence at the very start of the content and a
//! closing fence at the very end. Only those two spots are held back: the opening candidate until it
//! completes or fails, and a trailing `` \n``` `` candidate until more text or the end decides it.

/// Streaming fence remover for content.
#[derive(Debug, Clone)]
pub struct FenceStrip {
    phase: Phase,
    held: String,
    ticks: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Still deciding whether the content opens with a fence (`in_lang`: the info word started).
    Open { in_lang: bool },
    /// Inside an opened fence: watch for the closing one.
    Body,
    /// No opening fence: pass everything through.
    Pass,
}

impl Default for FenceStrip {
    fn default() -> Self {
        FenceStrip { phase: Phase::Open { in_lang: false }, held: String::new(), ticks: 0 }
    }
}

impl FenceStrip {
    /// A fresh stripper.
    pub fn new() -> Self {
        FenceStrip::default()
    }

    /// Filter `text`, returning what can be emitted now.
    pub fn push(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            self.step(c, &mut out);
        }
        out
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.phase {
            Phase::Pass => out.push(c),
            Phase::Open { in_lang } => {
                let ok = match (self.ticks, in_lang) {
                    (0, _) if c.is_whitespace() => true,
                    (t, false) if t < 3 && c == '`' => {
                        self.ticks += 1;
                        true
                    }
                    // Only a JSON fence is unwrapped: another info string (`js on`, `python`) is
                    // text the model wrote, so the fence stays.
                    (3, _) if c == '\n' && is_json_info(&self.held) => {
                        self.held.clear();
                        self.ticks = 0;
                        self.phase = Phase::Body;
                        return;
                    }
                    (3, _) if c.is_alphanumeric() || "_+-.".contains(c) => {
                        self.phase = Phase::Open { in_lang: true };
                        true
                    }
                    (3, _) => c == ' ' || c == '\t' || c == '\r',
                    _ => false,
                };
                if ok {
                    self.held.push(c);
                } else {
                    out.push_str(&self.held);
                    self.held.clear();
                    self.ticks = 0;
                    self.phase = Phase::Pass;
                    out.push(c);
                }
            }
            Phase::Body => {
                let keep = match (self.held.is_empty(), self.ticks) {
                    (true, _) => c == '\n' || c == '`',
                    (false, t) if t < 3 => c == '`',
                    (false, _) => c.is_whitespace(),
                };
                if keep {
                    if c == '`' {
                        self.ticks += 1;
                    }
                    self.held.push(c);
                } else if self.held.is_empty() {
                    out.push(c);
                } else {
                    out.push_str(&self.held);
                    self.held.clear();
                    self.ticks = 0;
                    self.step(c, out);
                }
            }
        }
    }

    /// End of content: a complete closing fence is dropped, anything else held is returned.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        let closing = self.phase == Phase::Body && self.ticks == 3;
        self.ticks = 0;
        if closing {
            String::new()
        } else {
            held
        }
    }
}

/// Whether the held fence opening (whitespace, three backticks, info string) names JSON or nothing.
fn is_json_info(held: &str) -> bool {
    let info = held.trim_start().trim_start_matches('`').trim();
    info.is_empty() || info.eq_ignore_ascii_case("json")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(chunks: &[&str]) -> String {
        let mut f = FenceStrip::new();
        let mut s: String = chunks.iter().map(|c| f.push(c)).collect();
        s.push_str(&f.finish());
        s
    }

    #[test]
    fn unwraps_fenced_json_in_any_chunking() {
        assert_eq!(strip(&["```json\n{\"a\": 1}\n```"]), "{\"a\": 1}");
        assert_eq!(strip(&["``", "`js", "on\n{\"a\"", ": \"``\"}\n`", "``\n"]), "{\"a\": \"``\"}");
    }

    #[test]
    fn leaves_unfenced_text_alone() {
        assert_eq!(strip(&["{\"a\": 1}"]), "{\"a\": 1}");
        assert_eq!(strip(&["``x"]), "``x");
        assert_eq!(strip(&["```js on\n[1]\n```"]), "```js on\n[1]\n```");
        assert_eq!(strip(&["```json\n[1]\n``` trailing"]), "[1]\n``` trailing");
    }
}
