//! Places in a document: byte offsets (as spans hold them) and the
//! protocol's positions (a line, and a column in UTF-16 code units), and
//! the words under them.

use serde_json::{json, Value};

/// The protocol position of byte `offset` of `text`.
pub fn position(text: &str, offset: usize) -> Value {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |k| k + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": character })
}

/// The protocol range of bytes `start..end` of `text`.
pub fn range(text: &str, start: usize, end: usize) -> Value {
    json!({ "start": position(text, start), "end": position(text, end) })
}

/// The byte offset of a protocol position (clamped to the text).
pub fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap_or(0) as usize;
    let character = position["character"].as_u64().unwrap_or(0) as usize;
    let mut at = 0;
    for _ in 0..line {
        match text[at..].find('\n') {
            Some(k) => at += k + 1,
            None => return text.len(),
        }
    }
    let mut units = 0;
    for (k, c) in text[at..].char_indices() {
        if units >= character || c == '\n' {
            return at + k;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Whether `c` may be part of a name.
pub fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The name at byte `at` (or just before it), with its start.
pub fn word_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let at = at.min(text.len());
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(at, |(k, _)| k);
    let end = text[at..]
        .char_indices()
        .find(|&(_, c)| !is_word(c))
        .map_or(text.len(), |(k, _)| at + k);
    let word = &text[start..end];
    let starts_well = word
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    starts_well.then_some((start, word))
}

/// The byte ranges of the names equal to `name` in `text`, outside
/// comments.
pub fn occurrences(text: &str, name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
            continue;
        }
        if text[i..].starts_with("/*") {
            i += text[i..].find("*/").map_or(text.len() - i, |k| k + 2);
            continue;
        }
        let c = bytes[i] as char;
        if is_word(c) {
            let end = text[i..]
                .char_indices()
                .find(|&(_, c)| !is_word(c))
                .map_or(text.len(), |(k, _)| i + k);
            if &text[i..end] == name {
                out.push((i, end));
            }
            i = end;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n// é𝄞 x\nvar x";
        for at in [0, 1, 2, 3, 6, text.len()] {
            if text.is_char_boundary(at) {
                assert_eq!(offset(text, &position(text, at)), at, "{at}");
            }
        }
        let x = text.find(" x").unwrap() + 1;
        assert_eq!(position(text, x), json!({"line": 1, "character": 7}));
    }

    #[test]
    fn words_and_their_occurrences() {
        let text = "var x: 0..K // x\nprocess { a :: x == left.x -> x := 1 }";
        assert_eq!(word_at(text, 4), Some((4, "x")));
        assert_eq!(word_at(text, 5), Some((4, "x")));
        assert_eq!(word_at(text, 7), None);
        // Not the one in the comment.
        assert_eq!(occurrences(text, "x").len(), 4);
    }
}
