//! The few most recently used values of something read from JS text (request options, parser specs),
//! keyed by that exact text, most recent first: reading it again per call would cost more than a short parse.

use crate::mru::Mru;
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// Up to `capacity` values by their text.
pub struct Recent<T> {
    entries: RefCell<Mru<String, T>>,
}

impl<T: Clone> Recent<T> {
    pub const fn new(capacity: usize) -> Self {
        Recent { entries: RefCell::new(Mru::new(capacity)) }
    }

    /// The value for `text`: the kept one, else `read()`'s (kept; errors are not).
    pub fn get_or_read(&self, text: &str, read: impl FnOnce() -> Result<T, JsValue>) -> Result<T, JsValue> {
        let hit = self.entries.try_borrow_mut().ok().and_then(|mut e| e.find(|k| crate::text::same_text(k, text)).cloned());
        if let Some(value) = hit {
            return Ok(value);
        }
        let value = read()?;
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            entries.insert(text.to_string(), value.clone());
        }
        Ok(value)
    }

    /// The value kept for `text`, if any.
    pub fn get(&self, text: &str) -> Option<T> {
        self.entries.try_borrow_mut().ok()?.find(|k| crate::text::same_text(k, text)).cloned()
    }

    /// Keep `value` for `text` (nothing when the store is in use: a later `get` misses).
    pub fn insert(&self, text: &str, value: T) {
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            entries.retain(|k| !crate::text::same_text(k, text));
            entries.insert(text.to_string(), value);
        }
    }

    /// Forget every value (after a trap: one may be mid-update). The full package keeps its templates in
    /// `registry` instead.
    #[cfg(not(feature = "full"))]
    pub fn clear(&self) {
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            entries.retain(|_| false);
        }
    }
}
