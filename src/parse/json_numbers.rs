//! Numbers a JSON value writes that a double cannot hold (`1e10000`, rule R44): serde_json refuses the
//! whole value for them ("number out of range"), so a structured value or a call's JSON arguments
//! with one would be lost as JSON. They are kept as the strings the model wrote (`"1e10000"`), as
//! other engines do, and the rest of the value is read as JSON.

/// `text` with every number that overflows a double written as a JSON string; `None` when it has
/// none. Only numbers outside strings are looked at (strings are copied as they are, escapes
/// included), so the text is otherwise unchanged, byte for byte.
pub fn quote_overflowing_numbers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    i += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while bytes.get(i).is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
                    i += 1;
                }
                let number = text.get(start..i).unwrap_or("");
                if overflows(number) {
                    out.push_str(text.get(copied..start).unwrap_or(""));
                    out.push('"');
                    out.push_str(number);
                    out.push('"');
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    Some(out)
}

/// Whether `number`, a JSON number, is too large for a double. serde_json's own reading says so
/// ("number out of range"); `str::parse::<f64>` would say the same but costs the parse-only module
/// core's float-parsing tables (≈ 20 KB gzip).
fn overflows(number: &str) -> bool {
    serde_json::from_str::<serde_json::Number>(number).is_err_and(|e| e.to_string().starts_with("number out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflowing_numbers_become_strings() {
        assert_eq!(quote_overflowing_numbers(r#"{"score":1e10000,"n":2,"s":"1e10000"}"#).as_deref(), Some(r#"{"score":"1e10000","n":2,"s":"1e10000"}"#));
        assert_eq!(quote_overflowing_numbers(r#"[-1E999, "é\"2e999"]"#).as_deref(), Some(r#"["-1E999", "é\"2e999"]"#));
        assert_eq!(quote_overflowing_numbers(r#"{"a": 1.5e300}"#), None);
    }
}
