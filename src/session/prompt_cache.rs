//! Generation prompts already rendered for a template, keyed by the request options that shape them.
//!
//! Rendering the prompt takes two full template renders (≈1 ms in wasm), while a parse of a typical
//! output takes microseconds: callers that build a parser per response with the same options should not
//! pay the renders again. Bounded (most recently used first), so a server with ever-changing
//! conversations holds at most `CAPACITY` prompts per template.

use crate::api::RequestOptions;
use crate::mru::Mru;
use std::sync::Mutex;

const CAPACITY: usize = 16;

/// The options `generation_prompt` reads, as one comparable key: the conversation, the tools, the
/// thinking switch, extra context and the continuation mode (`add_generation_prompt` is not read: the
/// prompt is the difference between the renders without and with it).
fn key(options: &RequestOptions) -> Option<String> {
    serde_json::to_string(&(
        &options.messages,
        &options.tools,
        options.enable_thinking,
        &options.extra_context,
        &options.continue_final_message,
    ))
    .ok()
}

pub(crate) struct PromptCache {
    entries: Mutex<Mru<String, String>>,
}

impl Default for PromptCache {
    fn default() -> Self {
        PromptCache { entries: Mutex::new(Mru::new(CAPACITY)) }
    }
}

impl PromptCache {
    /// The cached prompt for `options`, else `render()`'s, kept on success (errors are not cached).
    pub(crate) fn get_or_render(&self, options: &RequestOptions, render: impl FnOnce() -> crate::Result<String>) -> crate::Result<String> {
        let Some(key) = key(options) else { return render() };
        {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(prompt) = entries.find(|k| *k == key) {
                return Ok(prompt.clone());
            }
        }
        // Rendered without the lock held: a render is long and must not block (or poison) other users.
        let prompt = render()?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.insert(key, prompt.clone());
        Ok(prompt)
    }

    /// How many prompts are held (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn opts(json: &str) -> RequestOptions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn renders_once_per_distinct_prompt_options() {
        let cache = PromptCache::default();
        let renders = Cell::new(0);
        let render = |s: &str| {
            let s = s.to_string();
            let renders = &renders;
            move || {
                renders.set(renders.get() + 1);
                Ok(s)
            }
        };
        let a = opts(r#"{"messages": [{"role": "user", "content": "hi"}]}"#);
        assert_eq!(cache.get_or_render(&a, render("A")).unwrap(), "A");
        assert_eq!(cache.get_or_render(&a, render("not rendered")).unwrap(), "A");
        // Options the prompt does not read share the entry.
        let a_partial = opts(r#"{"messages": [{"role": "user", "content": "hi"}], "isPartial": true, "reasoningFormat": "none"}"#);
        assert_eq!(cache.get_or_render(&a_partial, render("not rendered")).unwrap(), "A");
        assert_eq!(renders.get(), 1);
        // Each option the prompt reads makes its own entry.
        for (json, prompt) in [
            (r#"{"messages": [{"role": "user", "content": "hi!"}]}"#, "B"),
            (r#"{"messages": [{"role": "user", "content": "hi"}], "enableThinking": false}"#, "C"),
            (r#"{"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "f"}}]}"#, "D"),
            (r#"{"messages": [{"role": "user", "content": "hi"}], "extraContext": {"x": 1}}"#, "E"),
            (r#"{"messages": [{"role": "user", "content": "hi"}], "continueFinalMessage": "auto"}"#, "F"),
        ] {
            assert_eq!(cache.get_or_render(&opts(json), render(prompt)).unwrap(), prompt, "{json}");
        }
        assert_eq!(renders.get(), 6);
    }

    #[test]
    fn errors_are_not_cached_and_size_is_bounded() {
        let cache = PromptCache::default();
        let err = || Err(crate::Error::new(crate::ErrorKind::Render, "boom"));
        assert!(cache.get_or_render(&RequestOptions::default(), err).is_err());
        assert_eq!(cache.len(), 0);
        for i in 0..CAPACITY + 5 {
            let o = opts(&format!(r#"{{"messages": [{{"role": "user", "content": "{i}"}}]}}"#));
            cache.get_or_render(&o, || Ok(i.to_string())).unwrap();
        }
        assert_eq!(cache.len(), CAPACITY);
    }
}
