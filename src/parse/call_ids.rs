//! Tool-call ids: every call the [`StreamParser`](super::StreamParser) reports has a non-empty `id`.
//!
//! The model's own id is kept where it wrote one. Otherwise the call's first delta gets a generated
//! id, so clients can match results to calls (two parallel calls never share one) and can use it as
//! soon as the call starts. The generated id is a pure function of what came before the call's first
//! delta, so the same request and output give the same ids, streamed in any chunking or parsed whole:
//!
//! `id` = 9 characters `[0-9A-Za-z]`, the base-62 digits of a 64-bit hash of: the request's
//! `messages` (as JSON; the same output in another turn gets other ids), then the text of every delta
//! before this call (reasoning — except under `deepseek-legacy`, whose content already holds it —,
//! content, earlier calls' ids, names and arguments, in output order,
//! without separators so delta boundaries do not matter), then this call's index and name. The hash
//! reads the byte stream in fixed 8-byte words (multiply-xor, finished with the splitmix64 mixer),
//! so it costs well under a nanosecond per byte on the parsing hot path and does not depend on how
//! the text was split into deltas.
//!
//! Nine alphanumeric characters because that is the one shape every template accepts when the
//! conversation is rendered back: Mistral templates raise unless a tool-call id is exactly nine
//! alphanumerics; others take any string.
//!
//! A model that writes its id *after* the call's name (e.g. `{"name": …, "arguments": …, "id": …}`)
//! gets the generated id on the first delta and its own id on a later delta of the call, which
//! replaces it (`Message::apply` and openai-node's stream accumulator both take the last `id`).

use crate::api::Delta;
use serde_json::Value;

const SEED: u64 = 0xcbf2_9ce4_8422_2325;
/// An odd 64-bit constant (the golden ratio's), the word multiplier.
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Length of a generated id.
pub const GENERATED_ID_LEN: usize = 9;

/// Running state of the id rule over one parser's deltas (O(total delta text)).
#[derive(Debug, Clone)]
pub struct CallIds {
    hash: u64,
    /// Bytes of the current, incomplete 8-byte word.
    pending: [u8; 8],
    pending_len: usize,
    /// Calls that already had their first delta.
    started: usize,
}

impl CallIds {
    /// The rule for a request whose conversation is `messages`.
    pub fn new(messages: &[Value]) -> CallIds {
        let mut ids = CallIds { hash: SEED, pending: [0; 8], pending_len: 0, started: 0 };
        if !messages.is_empty() {
            // Serialized straight into the hash: no allocation of the JSON text.
            let _ = serde_json::to_writer(&mut ids, messages);
        }
        ids
    }

    fn word(&mut self, w: u64) {
        self.hash = (self.hash ^ w).wrapping_mul(MUL).rotate_left(29);
    }

    fn feed(&mut self, bytes: &[u8]) {
        // Byte by byte into the pending word while one is begun or less than a word is left (a streamed delta
        // is a few bytes: `copy_from_slice` called memcpy for them in the size-optimised wasm build).
        let mut rest = bytes;
        while self.pending_len > 0 || rest.len() < 8 {
            let Some((&b, after)) = rest.split_first() else { return };
            rest = after;
            self.push_byte(b);
        }
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            // A pattern, not `copy_from_slice`: the size-optimised wasm build called memcpy for every word.
            if let &[a, b, c, d, e, f, g, h] = w {
                self.word(u64::from_le_bytes([a, b, c, d, e, f, g, h]));
            }
        }
        for &b in words.remainder() {
            self.push_byte(b);
        }
    }

    fn push_byte(&mut self, b: u8) {
        if let Some(slot) = self.pending.get_mut(self.pending_len) {
            *slot = b;
        }
        self.pending_len += 1;
        if self.pending_len == 8 {
            self.word(u64::from_le_bytes(self.pending));
            self.pending_len = 0;
        }
    }

    /// Give the first delta of a new call an id if it has none, then account for the delta's text.
    pub fn stamp(&mut self, delta: &mut Delta) {
        match delta {
            Delta::Content(s) | Delta::Reasoning(s) => self.feed(s.as_bytes()),
            Delta::ToolCall { index, id, name, arguments } => {
                if *index >= self.started {
                    self.started = *index + 1;
                    if id.as_deref().is_none_or(str::is_empty) {
                        *id = Some(self.generate(*index, name.as_deref().unwrap_or("")));
                    }
                }
                for s in [&*id, &*name, &*arguments].into_iter().flatten() {
                    self.feed(s.as_bytes());
                }
            }
        }
    }

    fn generate(&self, index: usize, name: &str) -> String {
        let mut h = self.clone();
        // Close the text so far (its length mod 8 marks where it ended), then the call.
        let mut tail = [0u8; 8];
        tail[..h.pending_len].copy_from_slice(&h.pending[..h.pending_len]);
        h.word(u64::from_le_bytes(tail) ^ ((h.pending_len as u64) << 56));
        h.pending_len = 0;
        h.word(index as u64);
        h.feed(name.as_bytes());
        let mut tail = [0u8; 8];
        tail[..h.pending_len].copy_from_slice(&h.pending[..h.pending_len]);
        h.word(u64::from_le_bytes(tail));
        let mut x = mix(h.hash);
        let mut id = String::with_capacity(GENERATED_ID_LEN);
        for _ in 0..GENERATED_ID_LEN {
            id.push(char::from(ALPHABET[(x % 62) as usize]));
            x /= 62;
        }
        id
    }
}

impl std::io::Write for CallIds {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.feed(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// splitmix64's finalizer: every input bit reaches every output bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(index: usize, id: Option<&str>, name: Option<&str>, args: Option<&str>) -> Delta {
        Delta::ToolCall { index, id: id.map(Into::into), name: name.map(Into::into), arguments: args.map(Into::into) }
    }

    fn ids_of(deltas: &[Delta], messages: &[Value]) -> Vec<String> {
        let mut rule = CallIds::new(messages);
        let mut out = Vec::new();
        for d in deltas {
            let mut d = d.clone();
            rule.stamp(&mut d);
            if let Delta::ToolCall { id: Some(id), .. } = d {
                out.push(id);
            }
        }
        out
    }

    #[test]
    fn generated_ids_are_alphanumeric_distinct_and_independent_of_delta_boundaries() {
        let a = [Delta::Content("Hello".into()), call(0, None, Some("f"), Some("{}")), call(1, None, Some("f"), Some("{}"))];
        let b = [Delta::Content("Hel".into()), Delta::Content("lo".into()), call(0, None, Some("f"), None), call(0, None, None, Some("{}")), call(1, None, Some("f"), Some("{}"))];
        let ids = ids_of(&a, &[]);
        assert_eq!(ids, ids_of(&b, &[]));
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        assert!(ids.iter().all(|id| id.len() == GENERATED_ID_LEN && id.bytes().all(|c| c.is_ascii_alphanumeric())), "{ids:?}");
        // Another conversation, same output: other ids.
        let other = ids_of(&a, &[serde_json::json!({"role": "user", "content": "hi"})]);
        assert_ne!(ids, other);
    }

    #[test]
    fn the_models_id_is_kept() {
        assert_eq!(ids_of(&[call(0, Some("call_7"), Some("f"), None)], &[]), ["call_7"]);
        // Written after the name: generated first, the model's later.
        let ids = ids_of(&[call(0, None, Some("f"), Some("{}")), call(0, Some("123456789"), None, None)], &[]);
        assert_eq!(ids[1], "123456789");
        assert_eq!(ids[0].len(), GENERATED_ID_LEN);
    }
}
