//! Addressed messages: a reply written as a run of messages, each headed by its recipient —
//! `<|start|>assistant to=user<|message|>Hi<|eot|>`, `… to=self<|message|>…<|eom|>`,
//! `… to=get_weather<|message|><call body>` — so the header, not a marker pair, says whether a
//! message is content, reasoning or a call. Read off the renders: after the generation prompt the
//! text reply and the call reply share a recipient prefix (` to=`), then name a recipient (`user`,
//! the tool's own name) and close the header with the same marker (`<|message|>`); the text between
//! two messages ends with the generation prompt's tail (the next message's start, `<|start|>assistant`).
//! Renders here are not recorded (the recorded comparisons are llama.cpp's).

use super::diff::{common_prefix_len, common_suffix_len, trim_ws};
use super::probe::*;
use crate::findings::{is_recipient_char, AddressedMessages, ReasoningAnalysis, ReasoningMode, ToolsAnalysis};
use serde_json::Value;

/// The message structure, when the template writes one, and the one-call reply's body (what follows
/// its header). `t`: the tool analysis (its call closer tells where a call's body ends).
pub fn analyze(pr: &mut Prober, t: &ToolsAnalysis, parallel: bool) -> Option<(AddressedMessages, String)> {
    let with_tools = |messages: Vec<Value>, prompt: bool| {
        let mut p = Params::with_tools(messages);
        p.add_generation_prompt = prompt;
        p
    };
    let prompt = pr.render(&with_tools(vec![user(USER_MSG)], true)).ok()?;
    let bare = pr.render(&with_tools(vec![user(USER_MSG)], false)).ok()?;
    let generation_prompt = prompt.get(common_prefix_len(&prompt, &bare)..)?.to_string();
    let reply = |pr: &mut Prober, m: Value| -> Option<String> {
        let out = pr.render(&with_tools(vec![user(USER_MSG), m], false)).ok()?;
        out.strip_prefix(prompt.as_str()).map(str::to_string)
    };
    let text = reply(pr, assistant_text(ASSISTANT_MSG))?;
    let call = reply(pr, assistant_calls(vec![first_call()]))?;
    // ` to=` + `user` + `<|message|>` vs ` to=` + FUN_FIRST + `<|message|>`.
    let text_head = head_until(&text, ASSISTANT_MSG)?;
    let recipient_prefix = head_until(&call, FUN_FIRST)?;
    let after_prefix = text_head.strip_prefix(recipient_prefix)?;
    let word_len = after_prefix.find(|c: char| !is_recipient_char(c)).unwrap_or(after_prefix.len());
    let (content_recipient, header_end) = after_prefix.split_at(word_len);
    // The header ends in a marker (`<|message|>`, `\n<|content|>`), not in text.
    let marker_like = |s: &str| trim_ws(s).starts_with(['<', '[', '|']) && trim_ws(s).len() > 2;
    let call_head = format!("{recipient_prefix}{FUN_FIRST}{header_end}");
    if content_recipient.len() < 2 || !marker_like(header_end) || !call.starts_with(&call_head) {
        return None;
    }
    let mut ends: Vec<String> = Vec::new();
    let push_end = |ends: &mut Vec<String>, e: &str| {
        let e = trim_ws(e);
        if !e.is_empty() && !ends.iter().any(|x| x == e) {
            ends.push(e.to_string());
        }
    };
    push_end(&mut ends, text.rsplit_once(ASSISTANT_MSG).map_or("", |(_, t)| t));
    // Where a call's body ends: its section / call closer, or where the body is the arguments alone,
    // the end of their JSON object.
    let mut closer = [&t.format.section_end, &t.format.per_call_end, &t.function.close].into_iter().map(|s| trim_ws(s).to_string()).find(|s| !s.is_empty()).unwrap_or_default();
    if closer.is_empty() {
        closer = json_body(&call[call_head.len()..]).unwrap_or_default();
    }
    if !closer.is_empty() {
        push_end(&mut ends, call.rsplit_once(closer.as_str()).map_or("", |(_, t)| t));
    }
    // The next message's start: the text between two messages (reasoning then text, or two calls)
    // ends with what the generation prompt ends with; before it stands the first message's end.
    let gap = |pr: &mut Prober, m: Value, first_end: &str, second_head: &str| -> Option<(String, String)> {
        let r = reply(pr, m)?;
        let from = r.find(first_end)? + first_end.len();
        let to = from + r.get(from..)?.find(second_head)?;
        let gap = &r[from..to];
        let split = gap.len() - common_suffix_len(gap, &generation_prompt);
        let start = trim_ws(&gap[split..]);
        (!start.is_empty()).then(|| (start.to_string(), gap[..split].to_string()))
    };
    let mut message_start = None;
    let mut between = String::new();
    let mut reasoning_recipient = None;
    let reasoned = assistant(ASSISTANT_MSG.into(), Some(THINKING), None);
    if let Some(r) = reply(pr, reasoned.clone()) {
        // ` to=self<|message|>` + THINKING: a recipient of its own.
        let h = head_until(&r, THINKING).and_then(|h| h.strip_prefix(recipient_prefix)).and_then(|h| h.strip_suffix(header_end));
        if let Some(h) = h.filter(|h| *h != content_recipient && h.len() >= 2 && h.chars().all(is_recipient_char)) {
            reasoning_recipient = Some(h.to_string());
            let second = format!("{recipient_prefix}{content_recipient}{header_end}");
            if let Some((start, end)) = gap(pr, reasoned, THINKING, &second) {
                push_end(&mut ends, &end);
                between = trim_ws(&end).to_string();
                message_start = Some(start);
            }
        }
    }
    if parallel && !closer.is_empty() {
        let second = format!("{recipient_prefix}{FUN_SECOND}{header_end}");
        if let Some((start, end)) = gap(pr, assistant_calls(vec![first_call(), second_call()]), &closer, &second) {
            push_end(&mut ends, &end);
            if message_start.is_none() {
                between = trim_ws(&end).to_string();
            }
            message_start.get_or_insert(start);
        }
    }
    let message_start = message_start?;
    if !trim_ws(&generation_prompt).ends_with(&message_start) {
        return None;
    }
    let body = call[call_head.len()..].to_string();
    let m = AddressedMessages {
        message_start,
        recipient_prefix: recipient_prefix.to_string(),
        header_end: header_end.to_string(),
        content_recipient: content_recipient.to_string(),
        reasoning_recipient,
        message_ends: ends,
        between,
    };
    Some((m, body))
}

/// A body that is a JSON object (the call's arguments alone): its text.
fn json_body(body: &str) -> Option<String> {
    let lead = body.len() - body.trim_start().len();
    let mut values = serde_json::Deserializer::from_str(&body[lead..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(Value::Object(_))) => Some(body[lead..lead + values.byte_offset()].to_string()),
        _ => None,
    }
}

fn head_until<'a>(s: &'a str, needle: &str) -> Option<&'a str> {
    s.find(needle).map(|p| &s[..p])
}

/// The tool analysis saw the call's name twice, in the header and in the body: the body's own name
/// markers are read from the body of the one-call render (`body`, what follows the header).
pub fn fix_body_name_markers(body: &str, t: &mut ToolsAnalysis) {
    let open = if t.format.per_call_start.is_empty() { &t.format.section_start } else { &t.format.per_call_start };
    let rest = match trim_ws(open) {
        "" => body,
        o => match body.find(o) {
            Some(p) => &body[p + o.len()..],
            None => return,
        },
    };
    let Some(name_at) = rest.find(FUN_FIRST) else { return };
    let prefix = rest[..name_at].trim_start();
    let after = &rest[name_at + FUN_FIRST.len()..];
    let suffix_end = [trim_ws(&t.arguments.name_prefix), trim_ws(&t.arguments.start)]
        .into_iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| after.find(s))
        .min()
        .unwrap_or_else(|| after.find(ARG_FIRST).unwrap_or(0));
    if prefix.is_empty() {
        return;
    }
    t.function.name_prefix = prefix.to_string();
    t.function.name_suffix = after[..suffix_end].to_string();
}

/// The reasoning markers as the messages write them (` to=self<|message|>` … `<|eom|>`), in place of
/// what the marker comparisons took for a block (they see a message, not a tag pair).
pub fn reasoning_as_message(m: &AddressedMessages, r: &mut ReasoningAnalysis) {
    match &m.reasoning_recipient {
        Some(who) if !m.between.is_empty() => {
            r.mode = ReasoningMode::TagBased;
            r.start = format!("{}{who}{}", m.recipient_prefix, m.header_end);
            r.end = m.between.clone();
        }
        _ => *r = ReasoningAnalysis::default(),
    }
}
