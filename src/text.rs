//! Text helpers every stage shares.

/// ASCII whitespace as C's `isspace` sees it (what llama.cpp trims).
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// A set of bytes (the first bytes of the markers or delimiters a scanner looks for), to skip text
/// none of them can start in: `memchr` when the set is one ASCII byte (as for `<|…|>` markers), eight
/// bytes a step when it has up to [`WORD_SET`] bytes (`<` and the `{`, `[`, `` ` `` of marker-less
/// calls: a byte compare per byte made those 3x slower than `memchr` and the 30 KB parse twice as
/// slow), else about a byte compare per byte.
#[derive(Debug, Clone)]
pub struct ByteSet {
    set: [u64; 4],
    /// The only byte, when the set is one ASCII byte.
    single: Option<char>,
    /// The set's bytes while it has at most [`WORD_SET`] of them (the first `count`).
    few: [u8; WORD_SET],
    /// How many bytes the set has ([`WORD_SET`] + 1 for more).
    count: u8,
}

/// The largest set [`ByteSet::next_in`] searches a word (eight bytes) at a time.
const WORD_SET: usize = 4;

impl ByteSet {
    const EMPTY: ByteSet = ByteSet { set: [0; 4], single: None, few: [0; WORD_SET], count: 0 };

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
        let mut few = self.few;
        if (self.count as usize) < WORD_SET {
            few[self.count as usize] = b;
        }
        let count = if (self.count as usize) < WORD_SET { self.count + 1 } else { WORD_SET as u8 + 1 };
        ByteSet { set, single: if was_empty && b.is_ascii() { Some(b as char) } else { None }, few, count }
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
        if (2..=WORD_SET).contains(&usize::from(self.count)) {
            return self.next_by_words(rest).map(|p| from + p);
        }
        rest.iter().position(|&b| self.has(b)).map(|p| from + p)
    }

    /// [`Self::next_in`] for a set of 2 to [`WORD_SET`] bytes: eight bytes a step, each of the set's
    /// bytes found in a word by the zero-byte test (`(x - 0x01…) & !x & 0x80…`, where `x` is the word
    /// xor that byte repeated). The test may flag a byte above a real match, never below one, so the
    /// lowest flagged byte of a word is its first match.
    fn next_by_words(&self, hay: &[u8]) -> Option<usize> {
        const LO: u64 = 0x0101_0101_0101_0101;
        const HI: u64 = LO << 7;
        // The set's bytes repeated over a word; a set of fewer bytes repeats its first (a repeated
        // test finds nothing new).
        let nth = |i: usize| u64::from(*self.few.get(if i < usize::from(self.count) { i } else { 0 }).unwrap_or(&0)) * LO;
        let reps = [nth(0), nth(1), nth(2), nth(3)];
        // A plain loop over `split_first_chunk` (no iterator adapters or closures per word): at opt-level
        // "z" in wasm those stay calls and stack traffic in the loop (as same_text's first version did).
        let [r0, r1, r2, r3] = reps;
        let (mut rest, mut at) = (hay, 0);
        while let Some((word, tail)) = rest.split_first_chunk::<8>() {
            let word = u64::from_le_bytes(*word);
            let (x0, x1, x2, x3) = (word ^ r0, word ^ r1, word ^ r2, word ^ r3);
            let hit = (x0.wrapping_sub(LO) & !x0 | x1.wrapping_sub(LO) & !x1 | x2.wrapping_sub(LO) & !x2 | x3.wrapping_sub(LO) & !x3) & HI;
            if hit != 0 {
                return Some(at + (hit.trailing_zeros() / 8) as usize);
            }
            rest = tail;
            at += 8;
        }
        hay.get(at..)?.iter().position(|&b| self.has(b)).map(|p| at + p)
    }
}

#[cfg(test)]
mod tests {
    use super::ByteSet;

    /// The word-at-a-time search finds what a byte compare per byte finds, at every start, for sets of
    /// one to six bytes (non-ASCII ones included) and matches anywhere in a word or its tail.
    #[test]
    fn next_in_matches_a_byte_loop() {
        let texts = ["", "a", "plain text without any of them at all, long enough for words", "x{", "{", "abc\u{1}def[ghij`klmnopq<rstu", "\u{80}\u{1}\u{ff}é«b»{{[[``<<", "0123456{89abcdef01234567[9", "é{é[é`é<é«"];
        let sets: [&[&str]; 6] = [&["<"], &["<", "{"], &["<", "{", "[", "`"], &["{", "[", "`"], &["«", "{"], &["<", "{", "[", "`", "«", "\u{1}"]];
        for words in sets {
            let set = ByteSet::first_bytes_of(words);
            for text in texts {
                for from in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    let want = text.as_bytes().get(from..).and_then(|r| r.iter().position(|&b| set.has(b))).map(|p| from + p);
                    assert_eq!(set.next_in(text, from), want, "{words:?} in {text:?} from {from}");
                }
            }
        }
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
