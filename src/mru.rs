//! A small most-recently-used cache: the shape every per-call cache of the crate shares (rendered
//! prompts, built parsers, read request options, compiled response templates).
//!
//! Callers look things up by the text that determines them (options JSON, a template's JSON), keep a
//! handful of entries, and touch the front one almost always: a `Vec` scanned from the front beats a
//! map at this size, and bounding it keeps a server with ever-changing requests from growing.

/// At most `capacity` entries, most recently used first.
#[derive(Debug)]
pub struct Mru<K, V> {
    entries: Vec<(K, V)>,
    capacity: usize,
}

impl<K, V> Mru<K, V> {
    /// An empty cache (const, for `thread_local!` and statics).
    pub const fn new(capacity: usize) -> Self {
        Mru { entries: Vec::new(), capacity }
    }

    /// The value of the first key `is_key` accepts, moved to the front.
    pub fn find(&mut self, is_key: impl Fn(&K) -> bool) -> Option<&mut V> {
        let i = self.entries.iter().position(|(k, _)| is_key(k))?;
        if i > 0 {
            let entry = self.entries.remove(i);
            self.entries.insert(0, entry);
        }
        self.entries.first_mut().map(|(_, v)| v)
    }

    /// Insert at the front, dropping the least recently used entry past the capacity.
    pub fn insert(&mut self, key: K, value: V) {
        self.entries.insert(0, (key, value));
        self.entries.truncate(self.capacity);
    }

    /// Keep only the entries `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&K) -> bool) {
        self.entries.retain(|(k, _)| keep(k));
    }

    /// How many entries are held.
    #[allow(dead_code)] // used by tests
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is held.
    #[allow(dead_code)] // used by tests
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Mru;

    #[test]
    fn keeps_the_most_recently_used_within_capacity() {
        let mut m = Mru::new(2);
        m.insert("a", 1);
        m.insert("b", 2);
        assert_eq!(m.find(|k| *k == "a").copied(), Some(1)); // a is now the most recent
        m.insert("c", 3); // drops b
        assert_eq!(m.len(), 2);
        assert!(m.find(|k| *k == "b").is_none());
        assert_eq!(m.find(|k| *k == "a").copied(), Some(1));
        m.retain(|k| *k != "a");
        assert_eq!(m.len(), 1);
        assert!(!m.is_empty());
    }
}
