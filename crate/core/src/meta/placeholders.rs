//! A catalog text's argument names: the one rule by which `build.rs` (which includes this file)
//! types each key's text function and by which the catalog test compares the languages.
//!
//! This file uses nothing but `std`: `build.rs` compiles it on its own.

/// The names of the `{name}` (or `{name:one:many}`) placeholders of `t`, in order of first
/// appearance: a name starts with a lowercase ASCII letter and goes on with ASCII letters, digits
/// and `_`; anything else in braces (`{0}`, `{Bad}`, `{1,2}`) is text.
pub fn placeholders(t: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = t;
    while let Some(at) = rest.find('{') {
        let tail = &rest[at + 1..];
        let len = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
        if len > 0
            && (tail[len..].starts_with('}') || tail[len..].starts_with(':'))
            && tail.as_bytes()[0].is_ascii_lowercase()
        {
            let n = &tail[..len];
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
        rest = tail;
    }
    out
}
