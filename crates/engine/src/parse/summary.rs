//! A description from a post's body: its first paragraph as plain text, for sites whose posts
//! have none (`[front_matter] description_from_body`).
//!
//! The first paragraph is the first run of text lines that is not a heading, a code block, an
//! HTML or MDX line, a table, a rule or an image alone. Its Markdown syntax is stripped (links
//! keep their text, code its content, emphasis and tags go), its white space collapsed, and it
//! is cut to at most [`MAX_CHARS`] characters at a word, with `…`.

/// The longest description made from a body, in characters, `…` included.
pub const MAX_CHARS: usize = 160;

/// The first paragraph of `body` as plain text, or `None` when the body has none.
pub fn from_body(body: &str) -> Option<String> {
    let mut paragraph: Vec<&str> = Vec::new();
    let mut fence: Option<&str> = None;
    for line in body.lines() {
        let trimmed = line.trim();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        let opens_fence = ["```", "~~~"]
            .into_iter()
            .find(|marker| trimmed.starts_with(marker));
        // Within a paragraph, only a blank line, a fence or a heading ends it (a line opening
        // with inline HTML such as `<kbd>` continues it).
        let ends = trimmed.is_empty() || opens_fence.is_some() || trimmed.starts_with('#');
        if !paragraph.is_empty() && ends {
            break;
        }
        if paragraph.is_empty() && (ends || !is_text(trimmed)) {
            fence = opens_fence;
            continue;
        }
        paragraph.push(trimmed.trim_start_matches('>').trim_start());
    }
    let text = plain(&paragraph.join(" "));
    (!text.is_empty()).then(|| shorten(&text))
}

/// Whether a (trimmed, non-empty) line can belong to a paragraph.
fn is_text(line: &str) -> bool {
    let rule = line.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|c| line.chars().all(|x| x == *c || x == ' '));
    let image_alone = line.starts_with("![") && line.ends_with(')');
    !(line.starts_with('#')
        || line.starts_with('<')
        || line.starts_with('|')
        || line.starts_with("import ")
        || line.starts_with("export ")
        || line.starts_with('{')
        || rule
        || image_alone)
}

/// `text` without its Markdown and HTML syntax, white space collapsed.
fn plain(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            // An image: dropped whole.
            '!' if chars.get(i + 1) == Some(&'[') => {
                i = skip_link(&chars, i + 1).unwrap_or(i + 1);
                continue;
            }
            // A link: its text stays, its target goes.
            '[' => {
                if let Some(close) = find(&chars, i + 1, ']')
                    && let Some(after) = skip_target(&chars, close + 1)
                {
                    out.extend(&chars[i + 1..close]);
                    i = after;
                    continue;
                }
                out.push(c);
            }
            '<' => match find(&chars, i + 1, '>') {
                Some(close)
                    if chars
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_alphabetic() || *n == '/' || *n == '!') =>
                {
                    i = close + 1;
                    continue;
                }
                _ => out.push(c),
            },
            '*' | '`' | '~' => {}
            '_' if !is_word(chars.get(i.wrapping_sub(1))) || !is_word(chars.get(i + 1)) => {}
            '\\' if chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) => {
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_word(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric())
}

fn find(chars: &[char], from: usize, wanted: char) -> Option<usize> {
    (from..chars.len()).find(|&j| chars[j] == wanted)
}

/// The index after `[text](target)` or `[text][ref]` starting at `open` (a `[`).
fn skip_link(chars: &[char], open: usize) -> Option<usize> {
    let close = find(chars, open + 1, ']')?;
    skip_target(chars, close + 1)
}

/// The index after `(target)` or `[ref]` at `at`.
fn skip_target(chars: &[char], at: usize) -> Option<usize> {
    match chars.get(at) {
        Some('(') => find(chars, at + 1, ')').map(|end| end + 1),
        Some('[') => find(chars, at + 1, ']').map(|end| end + 1),
        _ => None,
    }
}

/// `text` if it fits in [`MAX_CHARS`], else cut at the last word that fits with `…`.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_CHARS {
        return text.to_string();
    }
    let limit = text
        .char_indices()
        .nth(MAX_CHARS - 1)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..limit];
    let cut = match text[limit..].starts_with(' ') {
        true => head,
        false => head.rfind(' ').map_or(head, |space| &head[..space]),
    };
    let cut = cut.trim_end_matches(|c: char| c == ',' || c == ';' || c == ':' || c.is_whitespace());
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_paragraph_is_taken_as_plain_text() {
        let body = "\nimport X from './x';\n\n# Title\n\n![hero](/h.png)\n\n```rust\nlet a = 1;\n```\n\nThis is **bold**, _em_, `code`, a [link](https://x.dev) and\n<kbd>Ctrl</kbd> a snake_case word.\n\nSecond paragraph.\n";
        assert_eq!(
            from_body(body).as_deref(),
            Some("This is bold, em, code, a link and Ctrl a snake_case word.")
        );
    }

    #[test]
    fn a_long_paragraph_is_cut_at_a_word_with_an_ellipsis() {
        let body = "word ".repeat(60);
        let description = from_body(&body).unwrap();
        assert!(description.chars().count() <= MAX_CHARS, "{description}");
        assert!(description.ends_with("word…"), "{description}");
        let long_word = "x".repeat(400);
        let description = from_body(&long_word).unwrap();
        assert_eq!(description.chars().count(), MAX_CHARS);
        let exact = "é".repeat(MAX_CHARS);
        assert_eq!(from_body(&exact).unwrap(), exact);
    }

    #[test]
    fn a_body_without_a_paragraph_gives_none() {
        for body in [
            "",
            "\n\n",
            "# Only a heading\n",
            "```\ncode\n```\n",
            "<div>\n</div>\n",
            "---\n",
            "![img](x.png)\n",
        ] {
            assert_eq!(from_body(body), None, "{body:?}");
        }
    }

    #[test]
    fn unbalanced_syntax_never_panics() {
        for body in [
            "[open",
            "![x",
            "<",
            "a < b and c > d",
            "\\",
            "_",
            "[a](b",
            "**",
            "[a][b",
        ] {
            let _ = from_body(body);
        }
        assert_eq!(from_body("a < b").as_deref(), Some("a < b"));
    }
}
