//! Parsers already built and prefilled, keyed by template and request options.
//!
//! Building a parser reads the analysis and the request's tools into a configuration (markers and their
//! other spellings, tool dialects, call layouts) and feeds it the generation prompt: tens to hundreds
//! of microseconds, growing with the number of tools, while the parse of a short reply takes a few.
//! A caller that parses each response of one request shape (the same template and options) gets a copy
//! of the parser built the first time ([`StreamParser::fork`]), so set-up no longer depends on the tools.
//!
//! A new conversation changes the generation prompt but not what the parser is built from: each format
//! that can ([`Format::unprimed`]) keeps its parser before it read any prompt, keyed by the options without
//! the conversation, and a parser for a new prompt is a copy of it that reads the prompt
//! ([`Format::prime`]), so a chat frontend that parses each reply with the conversation so far does not
//! build the parser per reply either.
//!
//! Parsers share their configuration through `Rc`, so the cache is per thread (a `ChatTemplate` stays
//! `Send + Sync`); bounded, most recently used first, so a server with ever-changing requests holds at
//! most `CAPACITY` parsers per thread.

use super::StreamParser;
use crate::api::RequestOptions;
use crate::findings::Analysis;
use crate::formats::{format_of, Format};
use crate::parse::OutputParser;
use crate::mru::Mru;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

const CAPACITY: usize = 16;

thread_local! {
    static PARSERS: RefCell<Mru<(u64, String), StreamParser>> = const { RefCell::new(Mru::new(CAPACITY)) };
    static UNPRIMED: RefCell<Mru<(u64, RequestOptions), Box<dyn OutputParser>>> = const { RefCell::new(Mru::new(CAPACITY)) };
}

/// A process-unique id for each template, so that a template built where a dropped one was never
/// finds that one's parsers.
pub(crate) fn new_template_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Every option: each may shape the parser (tools, thinking, reasoning format, the prompt override…).
pub(crate) fn key(options: &RequestOptions) -> Option<String> {
    serde_json::to_string(options).ok()
}

/// A fresh parser of template `id` for the options `key` stands for: a copy of the cached one, else
/// `build()`'s (kept when it can be copied; errors are not cached). `key` must determine the options:
/// [`key`]'s serialization, or the JSON text the options were read from (the two never name different
/// options with the same text: a full serialization reads back as the options it was made from).
pub(crate) fn get_or_build(id: u64, key: &str, build: impl FnOnce() -> crate::Result<StreamParser>) -> crate::Result<StreamParser> {
    let hit = PARSERS.with(|cell| {
        let mut entries = cell.try_borrow_mut().ok()?;
        entries.find(|(t, k)| *t == id && crate::text::same_text(k, key))?.fork()
    });
    if let Some(p) = hit {
        return Ok(p);
    }
    let parser = build()?;
    if let Some(proto) = parser.fork() {
        PARSERS.with(|cell| {
            if let Ok(mut entries) = cell.try_borrow_mut() {
                entries.insert((id, key.to_string()), proto);
            }
        });
    }
    Ok(parser)
}

/// [`get_or_build`] keyed by the serialization of `options` ([`key`]); built afresh (not cached) when
/// they do not serialize.
pub(crate) fn get_or_build_for(id: u64, options: &RequestOptions, build: impl FnOnce() -> crate::Result<StreamParser>) -> crate::Result<StreamParser> {
    match key(options) {
        Some(key) => get_or_build(id, &key, build),
        None => build(),
    }
}

/// A new parser of template `id` (its analysis `a`) for a prompt ending with `generation_prompt`: as
/// [`StreamParser::new`], with the format's parser before the prompt copied from the cache of unprimed
/// parsers (keyed by the options without the conversation, which only the prompt reads).
pub(crate) fn build(id: u64, a: &Analysis, generation_prompt: &str, options: &RequestOptions) -> crate::Result<StreamParser> {
    let format = format_of(a.handler);
    StreamParser::over(options, |o| {
        let Some(unprimed) = unprimed(id, a, format, o) else { return Ok(format.parser(a, o, generation_prompt)) };
        Ok(format.prime(unprimed, a, o, generation_prompt))
    })
}

/// A copy of the cached unprimed parser for these options, else the format's new one (kept when it can
/// be copied); `None` when the format builds its parsers whole.
fn unprimed(id: u64, a: &Analysis, format: &dyn Format, options: &RequestOptions) -> Option<Box<dyn OutputParser>> {
    // Compared as values, not as serialized text: the JS binding never serializes options, and the code
    // to do it would cost the wasm ≈ 3 KB.
    let shape = without_conversation(options);
    let hit = UNPRIMED.with(|cell| {
        let mut entries = cell.try_borrow_mut().ok()?;
        entries.find(|(t, o)| *t == id && *o == shape)?.fork()
    });
    if hit.is_some() {
        return hit;
    }
    let parser = format.unprimed(a, options)?;
    if let Some(proto) = parser.fork() {
        UNPRIMED.with(|cell| {
            if let Ok(mut entries) = cell.try_borrow_mut() {
                entries.insert((id, shape), proto);
            }
        });
    }
    Some(parser)
}

/// `options` without the conversation. Every other field is named, so that a new option cannot be
/// left out of the comparison by accident.
fn without_conversation(options: &RequestOptions) -> RequestOptions {
    let RequestOptions {
        tools,
        messages: _,
        add_generation_prompt,
        continue_final_message,
        enable_thinking,
        generation_prompt,
        strict,
        reasoning_format,
        parallel_tool_calls,
        tool_choice,
        json_schema,
        is_partial,
        stream_arguments,
        extra_context,
        reasoning_field,
    } = options;
    RequestOptions {
        tools: tools.clone(),
        messages: Vec::new(),
        add_generation_prompt: *add_generation_prompt,
        continue_final_message: continue_final_message.clone(),
        enable_thinking: *enable_thinking,
        generation_prompt: generation_prompt.clone(),
        strict: *strict,
        reasoning_format: *reasoning_format,
        parallel_tool_calls: *parallel_tool_calls,
        tool_choice: tool_choice.clone(),
        json_schema: json_schema.clone(),
        is_partial: *is_partial,
        stream_arguments: *stream_arguments,
        extra_context: extra_context.clone(),
        reasoning_field: reasoning_field.clone(),
    }
}

/// Drop this thread's parsers of template `id` (it is being dropped).
pub(crate) fn forget(id: u64) {
    let _ = PARSERS.try_with(|cell| {
        if let Ok(mut entries) = cell.try_borrow_mut() {
            entries.retain(|(t, _)| *t != id);
        }
    });
    let _ = UNPRIMED.try_with(|cell| {
        if let Ok(mut entries) = cell.try_borrow_mut() {
            entries.retain(|(t, _)| *t != id);
        }
    });
}
