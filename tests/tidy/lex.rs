//! Just enough of a Rust lexer for the tidy rules: blank out comments and literals (keeping line
//! numbers), cut the rest into tokens, and read every path (`a::b::c`, with `use` trees such as
//! `std::{fs, io::Read}` expanded) with the line it is on.
//!
//! It reads text, not syntax trees: a macro can hide a path from it, and a path in a string is
//! not one. That is the price of a check with no dependencies that runs in milliseconds.

/// `text` with every comment and every string, byte-string and char literal replaced by spaces;
/// newlines are kept, so line numbers still hold.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"..", r#".."#, br#".."#: ends at a quote followed by as many hashes.
            let open = chars[i..].iter().position(|&c| c == '"').unwrap() + i;
            for &c in &chars[i..=open] {
                blank(&mut out, c);
            }
            i = open + 1;
            while i < chars.len() {
                let closes =
                    chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#'));
                blank(&mut out, chars[i]);
                i += 1;
                if closes {
                    for _ in 0..hashes {
                        out.push(' ');
                    }
                    i += hashes;
                    break;
                }
            }
        } else if c == '"' || (c == '\'' && is_char_literal(&chars, i)) {
            // A string or char literal: blank up to the same quote, skipping escapes.
            blank(&mut out, c);
            i += 1;
            while i < chars.len() {
                let inner = chars[i];
                blank(&mut out, inner);
                i += 1;
                if inner == '\\' && i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                } else if inner == c {
                    break;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw (byte) string starting at `i`, if one starts there.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && is_ident_char(chars[i - 1]) {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// A quote starts a char literal (`'a'`, `'\n'`), not a lifetime (`'a`).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// One token of code: an identifier (or number), `::`, or one punctuation character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    /// 1-based.
    pub line: usize,
}

/// The tokens of code from which [`code_only`] removed comments and literals.
pub fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (index, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let text = if c.is_whitespace() {
                i += 1;
                continue;
            } else if is_ident_char(c) {
                let len = chars[i..].iter().take_while(|&&c| is_ident_char(c)).count();
                chars[i..i + len].iter().collect()
            } else if c == ':' && chars.get(i + 1) == Some(&':') {
                "::".to_string()
            } else {
                c.to_string()
            };
            i += text.chars().count();
            out.push(Token {
                text,
                line: index + 1,
            });
        }
    }
    out
}

/// A path as written (`crate::render::groups`, `super::Output`, `std::fs`) and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRef {
    pub segments: Vec<String>,
    pub line: usize,
}

/// Every path of two or more segments in `tokens`, with `use` trees expanded
/// (`use std::{fs, io::Read}` gives `std::fs` and `std::io::Read`). A path after `$` (macro
/// `$crate`) is skipped.
pub fn paths(tokens: &[Token]) -> Vec<PathRef> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts = is_ident(&tokens[i].text)
            && tokens.get(i + 1).is_some_and(|t| t.text == "::")
            && (i == 0 || (tokens[i - 1].text != "::" && tokens[i - 1].text != "$"));
        if starts {
            i = read_tree(tokens, i, &[], &mut out);
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Reads `a::b::{c, d::e}` from `i` with `prefix` before it; returns the index after it.
fn read_tree(tokens: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<PathRef>) -> usize {
    let mut segments = prefix.to_vec();
    let mut line = tokens[i].line;
    while let Some(token) = tokens.get(i) {
        if is_ident(&token.text) {
            segments.push(token.text.clone());
            line = token.line;
            i += 1;
        } else if token.text == "{" {
            i += 1;
            while i < tokens.len() && tokens[i].text != "}" {
                if tokens[i].text == "," {
                    i += 1;
                } else if is_ident(&tokens[i].text) && tokens[i].text != "self" {
                    i = read_tree(tokens, i, &segments, out);
                } else {
                    // `self` (the prefix itself), `*`, or `as` renames.
                    if tokens[i].text == "self" && segments.len() > 1 {
                        out.push(PathRef {
                            segments: segments.clone(),
                            line: tokens[i].line,
                        });
                    }
                    i += 1;
                }
            }
            return i + 1;
        } else {
            break;
        }
        if tokens.get(i).is_some_and(|t| t.text == "::") {
            i += 1;
        } else {
            break;
        }
    }
    if tokens.get(i).is_some_and(|t| t.text == "as") {
        i += 2;
    }
    if segments.len() > 1 {
        out.push(PathRef { segments, line });
    }
    i
}
