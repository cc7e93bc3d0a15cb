//! Text helpers every stage shares.

/// ASCII whitespace as C's `isspace` sees it (what llama.cpp trims).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// A set of bytes (the first bytes of the markers or delimiters a scanner looks for), to skip text
/// none of them can start in: about a byte compare per byte, `memchr` when the set is one ASCII byte
/// (as for `<|…|>` markers).
#[derive(Debug, Clone)]
pub struct ByteSet {
    set: [u64; 4],
    /// The only byte, when the set is one ASCII byte.
    single: Option<char>,
}

impl ByteSet {
    /// The set of `bytes` (the response-template engine's; parsers use [`Self::first_bytes_of`]).
    #[cfg(feature = "full")]
    pub fn new(bytes: impl IntoIterator<Item = u8>) -> Self {
        let mut set = [0u64; 4];
        let (mut distinct, mut last) = (0, 0u8);
        for b in bytes {
            let w = &mut set[usize::from(b >> 6)];
            if *w >> (b & 63) & 1 == 0 {
                distinct += 1;
                last = b;
            }
            *w |= 1 << (b & 63);
        }
        let single = (distinct == 1 && last.is_ascii()).then(|| char::from(last));
        ByteSet { set, single }
    }

    /// The first bytes of `words` (empty ones have none), at compile time where `words` is constant.
    pub const fn first_bytes_of(words: &[&str]) -> Self {
        let mut set = [0u64; 4];
        let (mut distinct, mut last) = (0, 0u8);
        let mut i = 0;
        while i < words.len() {
            if let [b, ..] = words[i].as_bytes() {
                let b = *b;
                if set[(b >> 6) as usize] >> (b & 63) & 1 == 0 {
                    distinct += 1;
                    last = b;
                }
                set[(b >> 6) as usize] |= 1 << (b & 63);
            }
            i += 1;
        }
        let single = if distinct == 1 && last.is_ascii() { Some(last as char) } else { None };
        ByteSet { set, single }
    }

    /// Whether `b` is in the set.
    pub fn has(&self, b: u8) -> bool {
        self.set[usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    /// The first offset at or after `from` whose byte is in the set (`from` on a char boundary for
    /// the `memchr` path; `get` guards it anyway).
    #[inline(never)] // a loop of its own: inlined into a scanner, its state lived on the stack (3× slower)
    pub fn next_in(&self, text: &str, from: usize) -> Option<usize> {
        if let (Some(c), Some(rest)) = (self.single, text.get(from..)) {
            return rest.find(c).map(|p| from + p);
        }
        let rest = text.as_bytes().get(from..)?;
        rest.iter().position(|&b| self.has(b)).map(|p| from + p)
    }
}
