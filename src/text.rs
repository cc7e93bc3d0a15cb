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
    const EMPTY: ByteSet = ByteSet { set: [0; 4], single: None };

    /// The set of `bytes` (the response-template engine's; parsers use [`Self::first_bytes_of`]).
    #[cfg(feature = "full")]
    pub fn new(bytes: impl IntoIterator<Item = u8>) -> Self {
        bytes.into_iter().fold(Self::EMPTY, Self::with)
    }

    /// The first bytes of `words` (empty ones have none), at compile time where `words` is constant.
    pub const fn first_bytes_of(words: &[&str]) -> Self {
        let mut set = Self::EMPTY;
        let mut i = 0;
        while i < words.len() {
            if let [b, ..] = words[i].as_bytes() {
                set = set.with(*b);
            }
            i += 1;
        }
        set
    }

    /// `self` and `b`: `single` while the set is that one ASCII byte.
    const fn with(self, b: u8) -> Self {
        let (word, bit) = ((b >> 6) as usize, 1u64 << (b & 63));
        if self.set[word] & bit != 0 {
            return self;
        }
        let was_empty = self.set[0] | self.set[1] | self.set[2] | self.set[3] == 0;
        let mut set = self.set;
        set[word] |= bit;
        ByteSet { set, single: if was_empty && b.is_ascii() { Some(b as char) } else { None } }
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

/// Whether `a` and `b` are the same text, compared eight bytes at a time: the caches keyed by a request's
/// JSON text (kilobytes with many tools) compare it on every call, and `==` on wasm32 is a byte-at-a-time
/// `memcmp` (≈ 1 µs per KB through wasm).
pub fn same_text(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    while let (Some((x, rest_a)), Some((y, rest_b))) = (a.split_first_chunk::<8>(), b.split_first_chunk::<8>()) {
        if u64::from_ne_bytes(*x) != u64::from_ne_bytes(*y) {
            return false;
        }
        (a, b) = (rest_a, rest_b);
    }
    a == b
}

#[cfg(test)]
mod same_text_tests {
    use super::same_text;

    #[test]
    fn compares_every_byte() {
        let base = "{\"tools\":[{\"name\":\"get_weather\"}]} and a tail".to_string();
        assert!(same_text(&base, &base.clone()));
        assert!(same_text("", ""));
        for i in 0..base.len() {
            let mut other = base.clone().into_bytes();
            other[i] ^= 1;
            assert!(!same_text(&base, &String::from_utf8_lossy(&other)), "byte {i}");
        }
        assert!(!same_text(&base, &base[..base.len() - 1]));
    }
}
