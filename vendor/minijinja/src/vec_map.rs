//! PATCH(chat-autoparser) 15: sorted-vector maps and sets in place of `BTreeMap` / `BTreeSet` for the
//! engine's own maps keyed by names from the template source (filters, tests, globals, locals,
//! closures, blocks, instruction lookups, namespaces). Maps sized by the data being rendered (`unique`,
//! merged dicts, `dictsort`) keep the B-tree.
//!
//! The B-tree's node code is generic over key and value types, and its instantiations in the engine
//! came to ≈ 76 KB of the wasm before optimisation (13 KB of the gzipped module). A sorted `Vec` has the
//! same sorted iteration and logarithmic lookups in a fraction of the code. So that a hostile template
//! (4 MB of distinct `set` names in reverse order) cannot make inserts quadratic, new keys go to a
//! second, short sorted vector that is merged into the main one when it outgrows the square root of
//! the main one's length: an insert costs O(√n) amortised, a lookup two binary searches.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;

/// A map kept as two vectors of pairs sorted by key (`main`, and `recent`, which holds at most
/// ≈ √`main.len()` keys absent from `main`).
#[derive(Clone)]
pub struct VecMap<K, V> {
    main: Vec<(K, V)>,
    recent: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { main: Vec::new(), recent: Vec::new() }
    }
}

impl<K: Ord + fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

fn search<K: Borrow<Q>, V, Q: Ord + ?Sized>(entries: &[(K, V)], key: &Q) -> Result<usize, usize> {
    entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
}

impl<K: Ord, V> VecMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        VecMap { main: Vec::new(), recent: Vec::new() }
    }

    fn slot<Q: Ord + ?Sized>(&self, key: &Q) -> Option<(bool, usize)>
    where
        K: Borrow<Q>,
    {
        match search(&self.main, key) {
            Ok(i) => Some((false, i)),
            Err(_) => search(&self.recent, key).ok().map(|i| (true, i)),
        }
    }

    /// The value under `key`, inserted from `make` when there is none (`entry(k).or_insert_with(make)`).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        if let Ok(i) = search(&self.main, &key) {
            return &mut self.main[i].1;
        }
        let i = match search(&self.recent, &key) {
            Ok(i) => i,
            Err(i) => {
                self.recent.insert(i, (key, make()));
                if self.recent.len() > 8 && self.recent.len() * self.recent.len() > self.main.len() {
                    let at = self.merge(i);
                    return &mut self.main[at].1;
                }
                i
            }
        };
        &mut self.recent[i].1
    }

    /// Inserts `value` under `key`, returning the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let mut fresh = Some(value);
        let slot = self.get_or_insert_with(key, || fresh.take().unwrap());
        fresh.map(|value| std::mem::replace(slot, value))
    }

    /// Moves `recent` into `main`, returning where `recent[tracked]` went.
    fn merge(&mut self, tracked: usize) -> usize {
        let mut out = Vec::with_capacity(self.main.len() + self.recent.len());
        let mut a = std::mem::take(&mut self.main).into_iter().peekable();
        let mut b = std::mem::take(&mut self.recent).into_iter().peekable();
        let (mut taken, mut at) = (0, 0);
        loop {
            let from_a = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0 < y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if !from_a {
                if taken == tracked {
                    at = out.len();
                }
                taken += 1;
            }
            out.extend(if from_a { a.next() } else { b.next() });
        }
        self.main = out;
        at
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.get_key_value(key).map(|(_, v)| v)
    }

    pub fn get_key_value<Q: Ord + ?Sized>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
    {
        let (in_recent, i) = self.slot(key)?;
        let (k, v) = if in_recent { &self.recent[i] } else { &self.main[i] };
        Some((k, v))
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let (in_recent, i) = self.slot(key)?;
        Some(if in_recent { &mut self.recent[i].1 } else { &mut self.main[i].1 })
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.slot(key).is_some()
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let (in_recent, i) = self.slot(key)?;
        Some(if in_recent { self.recent.remove(i).1 } else { self.main.remove(i).1 })
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.main.retain_mut(|(k, v)| keep(k, v));
        self.recent.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<K: Ord, V: PartialEq> PartialEq for VecMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<K: Ord, V: Eq> Eq for VecMap<K, V> {}

impl<K, V> VecMap<K, V> {
    pub fn clear(&mut self) {
        self.main.clear();
        self.recent.clear();
    }

    pub fn len(&self) -> usize {
        self.main.len() + self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.main.is_empty() && self.recent.is_empty()
    }

    /// Pairs in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter { a: &self.main, b: &self.recent }
    }

}

impl<K: Ord, V> VecMap<K, V> {
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

/// The pairs of both sorted vectors, merged in key order.
pub struct Iter<'a, K, V> {
    a: &'a [(K, V)],
    b: &'a [(K, V)],
}

impl<'a, K: Ord, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        let from_a = match (self.a.first(), self.b.first()) {
            (Some(x), Some(y)) => x.0.cmp(&y.0) == Ordering::Less,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return None,
        };
        let side = if from_a { &mut self.a } else { &mut self.b };
        let (first, rest) = side.split_first()?;
        *side = rest;
        Some((&first.0, &first.1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = VecMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(mut self) -> Self::IntoIter {
        if !self.recent.is_empty() {
            self.merge(0);
        }
        self.main.into_iter()
    }
}

/// A set: a [`VecMap`] without values.
#[derive(Clone, Default)]
pub struct VecSet<T> {
    map: VecMap<T, ()>,
}

impl<T: Ord + fmt::Debug> fmt::Debug for VecSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T: Ord> VecSet<T> {
    pub const fn new() -> Self {
        VecSet { map: VecMap::new() }
    }

    /// Adds `item`; false when it was there already.
    pub fn insert(&mut self, item: T) -> bool {
        self.map.insert(item, ()).is_none()
    }

    pub fn contains<Q: Ord + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.map.contains_key(item)
    }

    /// Items in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.map.keys()
    }
}

impl<T: Ord> Extend<T> for VecSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.insert(item);
        }
    }
}

impl<T: Ord> FromIterator<T> for VecSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut set = VecSet::new();
        set.extend(iter);
        set
    }
}

impl<T: Ord> IntoIterator for VecSet<T> {
    type Item = T;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(T, ())>, fn((T, ())) -> T>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter().map(|(item, ())| item)
    }
}
