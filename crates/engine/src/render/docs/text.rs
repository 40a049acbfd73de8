//! Escaping and small text helpers for the Markdown, HTML and plain-text documents.

use crate::model::Lang;
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Plain text as inline Markdown that renders as the same text: every character CommonMark
/// could read as markup (emphasis, code, links, raw HTML, table cells) is backslash-escaped,
/// and each run of whitespace (line breaks included) becomes one space.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
            continue;
        }
        in_space = false;
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` on one line: runs of whitespace (line breaks included) become one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of `text` on one line, cut at a word when it is too long and
/// ended with `…`.
pub fn clip(text: &str, max: usize) -> String {
    let text = one_line(text);
    if text.chars().count() <= max {
        return text;
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match kept.rfind(' ') {
        Some(space) if space > 0 => &kept[..space],
        _ => kept.as_str(),
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.', ' ']))
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`, the digest format of the Agent Skills
/// discovery draft (and of the AI Catalog).
pub fn sha256_digest(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest.iter() {
        write!(out, "{byte:02x}").expect("writing to a String cannot fail");
    }
    out
}

/// The site's one-line summary: its configured description, or a plain sentence when that is
/// empty (llms.txt requires a non-empty summary).
pub fn site_summary(config: &crate::config::SiteConfig) -> String {
    let description = one_line(&config.description);
    if description.is_empty() {
        format!(
            "The public, read-only content API of {}.",
            one_line(&config.name)
        )
    } else {
        description
    }
}

/// A language's name in English, as the documents show it (CLDR's, `languages`).
pub fn language_name(lang: Lang) -> &'static str {
    crate::languages::english_name(lang)
}

/// A Markdown body as it is published: CRLF line ends made LF, leading blank lines dropped,
/// exactly one final line end (nothing for an empty body).
pub fn normalized_body(body: &str) -> String {
    let unix;
    let body = if body.contains('\r') {
        unix = body.replace("\r\n", "\n");
        &unix
    } else {
        body
    };
    let body = body.trim_start_matches('\n').trim_end();
    if body.is_empty() {
        String::new()
    } else {
        format!("{body}\n")
    }
}

/// An MDX body without its ESM blocks: as in MDX (the `mdxjs-esm` syntax), a block that starts
/// with `import ` or `export ` at the start of a line, outside code fences, runs to the next
/// blank line. They are JavaScript for the site's build, not Markdown for a reader. JSX
/// elements stay: they read as HTML.
pub fn strip_mdx_esm(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut fence: Option<String> = None;
    let mut skipping = false;
    let mut block_start = true;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_end();
        let blank = trimmed.trim().is_empty();
        if skipping {
            skipping = !blank;
            block_start = blank;
            continue;
        }
        if let Some(open) = &fence {
            if trimmed.trim_start().starts_with(open.as_str()) {
                fence = None;
            }
        } else if let Some(open) = fence_opening(trimmed) {
            fence = Some(open);
        } else if block_start && (line.starts_with("import ") || line.starts_with("export ")) {
            skipping = true;
            continue;
        }
        block_start = blank;
        out.push_str(line);
    }
    out
}

/// The backtick or tilde run that opens a code fence on this line, if it opens one.
fn fence_opening(line: &str) -> Option<String> {
    let line = line.trim_start();
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = line.chars().take_while(|c| *c == marker).count();
    (run >= 3).then(|| marker.to_string().repeat(run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_what_commonmark_would_read_as_markup() {
        assert_eq!(
            markdown("a_b *c* [d](e) <f> `g` h|i \\"),
            "a\\_b \\*c\\* \\[d\\](e) \\<f\\> \\`g\\` h\\|i \\\\"
        );
        assert_eq!(markdown("two\n  lines"), "two lines");
        assert_eq!(markdown(" kept "), " kept ");
    }

    #[test]
    fn clip_cuts_at_a_word() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("one two three four", 12), "one two…");
        assert!(clip(&"x".repeat(300), 100).chars().count() <= 100);
    }

    #[test]
    fn the_digest_is_sha256_in_lowercase_hex() {
        // The worked example of the Agent Skills discovery draft: "# Hello\n".
        assert_eq!(
            sha256_digest(b"# Hello\n"),
            "sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be"
        );
    }

    #[test]
    fn mdx_esm_blocks_are_dropped_but_code_is_kept() {
        let body = "import A from './a';\nimport {\n  B,\n} from 'b';\n\nText\nimport in prose\n\n```js\nimport x from 'y';\n```\n\nexport const meta = { a: 1 };\n\n<A>kept</A>\n";
        assert_eq!(
            strip_mdx_esm(body),
            "Text\nimport in prose\n\n```js\nimport x from 'y';\n```\n\n<A>kept</A>\n"
        );
    }

    #[test]
    fn an_empty_description_still_gives_a_summary() {
        let mut config = crate::config::SiteConfig::defaults(camino::Utf8Path::new("."));
        config.description = " \n".into();
        config.name = "Notes".into();
        assert_eq!(
            site_summary(&config),
            "The public, read-only content API of Notes."
        );
    }

    #[test]
    fn bodies_are_normalized() {
        assert_eq!(
            normalized_body("\r\n\r\nHi\r\nthere\r\n\r\n"),
            "Hi\nthere\n"
        );
        assert_eq!(normalized_body("\n  \n"), "");
    }
}
