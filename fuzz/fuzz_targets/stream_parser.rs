//! Every output parser on arbitrary text: no panic, and a chunked parse (chunk sizes from the first
//! byte) equals the whole-text parse.
#![no_main]
use chat_autoparser::analysis::Handler;
use chat_autoparser::api::{Message, RequestOptions};
use chat_autoparser::testing::make_parser;
use libfuzzer_sys::fuzz_target;

fn parse(handler: Handler, chunks: &[&str]) -> (Message, Option<String>) {
    let mut p = make_parser(handler, &RequestOptions::default(), "");
    let mut out = Vec::new();
    for c in chunks {
        p.push(c, &mut out);
    }
    let err = p.finish(false, &mut out).err().map(|e| e.to_string());
    (Message::from_deltas(&out), err)
}

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let size = 1 + (k as usize % 16);
    let mut chunks = Vec::new();
    let mut start = 0;
    for (i, _) in text.char_indices() {
        if i - start >= size {
            chunks.push(&text[start..i]);
            start = i;
        }
    }
    chunks.push(&text[start..]);
    for handler in [Handler::Autoparser, Handler::GptOss, Handler::FunctionaryV32, Handler::Ministral3] {
        assert_eq!(parse(handler, &[text]), parse(handler, &chunks), "{handler:?}");
    }
});
