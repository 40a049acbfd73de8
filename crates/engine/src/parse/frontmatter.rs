//! Splitting a content file into its front matter (YAML between `---` lines, or TOML between
//! `+++` lines) and its body.

use crate::diag::{Diagnostic, Location};

/// The language of a front matter, told by its fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Between `---` lines.
    Yaml,
    /// Between `+++` lines (Hugo, Zola).
    Toml,
}

impl Format {
    /// The line that opens and closes this front matter.
    pub fn fence(self) -> &'static str {
        match self {
            Format::Yaml => "---",
            Format::Toml => "+++",
        }
    }
}

/// Where the front matter and the body are in the file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Byte range of the front matter between the two fence lines.
    pub yaml: std::ops::Range<usize>,
    /// YAML or TOML.
    pub format: Format,
    /// Byte offset where the body starts (after the closing `---` line).
    pub body_start: usize,
}

/// Finds the front matter: a first line `---` (after an optional UTF-8 BOM and any blank or
/// whitespace-only lines, as Hugo, Jekyll and Astro allow), then everything up to the next line
/// that is exactly `---`. Later `---` lines belong to the body. A first line `+++` opens TOML
/// front matter instead, closed by the next line `+++`.
pub fn split(path: &str, text: &str) -> Result<Split, Diagnostic> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lines = LineIter { text, pos: start };
    let mut first = lines.next();
    while let Some((range, _)) = first.clone() {
        if !text[range].trim().is_empty() {
            break;
        }
        first = lines.next();
    }
    let open = first.clone().map_or(start..start, |(range, _)| range);
    let format = match first.clone().map(|(range, _)| trim_eol(&text[range])) {
        Some("---") => Format::Yaml,
        Some("+++") => Format::Toml,
        // Eleventy's front matter in JavaScript is code to run, which no reader of data
        // does: the file is left out, said so, rather than failing the site.
        Some(fence @ ("---js" | "---javascript")) => {
            return Err(Diagnostic::warning(
                path,
                format!(
                    "front matter in JavaScript (`{fence}`) is not read: this file is not published"
                ),
            )
            .at(Location::in_text(text, open))
            .help(
                "write the fields as YAML between `---` lines to publish it (Eleventy reads both)",
            ));
        }
        _ => {
            return Err(Diagnostic::error(path, "missing front matter")
                .at(Location::in_text(text, open))
                .label("expected the line `---` here")
                .help(
                    "start the file with a line `---`, the YAML fields, then another line `---`",
                ));
        }
    };
    let fence = format.fence();
    let yaml_start = first.map_or(start, |(_, next)| next);
    for (range, next) in lines {
        if trim_eol(&text[range.clone()]) == fence {
            return Ok(Split {
                yaml: yaml_start..range.start,
                format,
                body_start: next,
            });
        }
    }
    Err(Diagnostic::error(path, "front matter is not closed")
        .at(Location::in_text(text, open.start..open.start + 3))
        .label(format!(
            "this `{fence}` opens the front matter, but no line `{fence}` closes it"
        ))
        .help(format!(
            "add a line `{fence}` after the last front-matter field"
        )))
}

fn trim_eol(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// Yields each line's byte range (without `\n`) and the offset of the next line.
struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl Iterator for LineIter<'_> {
    type Item = (std::ops::Range<usize>, usize);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let (len, step) = match memchr_newline(rest) {
            Some(i) => (i, i + 1),
            None => (rest.len(), rest.len()),
        };
        let item = (self.pos..self.pos + len, self.pos + step);
        self.pos += step;
        Some(item)
    }
}

fn memchr_newline(text: &str) -> Option<usize> {
    memchr::memchr(b'\n', text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (String, String) {
        let split = split("x.md", text).unwrap();
        (
            text[split.yaml].to_string(),
            text[split.body_start..].to_string(),
        )
    }

    #[test]
    fn body_may_contain_more_separator_lines() {
        let (yaml, body) = parts("---\ntitle: a\n---\nintro\n---\nmore\n");
        assert_eq!(yaml, "title: a\n");
        assert_eq!(body, "intro\n---\nmore\n");
    }

    #[test]
    fn bom_and_crlf_are_accepted() {
        let (yaml, body) = parts("\u{feff}---\r\ntitle: a\r\n---\r\nbody\r\n");
        assert_eq!(yaml, "title: a\r\n");
        assert_eq!(body, "body\r\n");
    }

    #[test]
    fn empty_front_matter_and_no_body() {
        assert_eq!(parts("---\n---\n"), (String::new(), String::new()));
        assert_eq!(parts("---\na: 1\n---"), ("a: 1\n".into(), String::new()));
    }

    #[test]
    fn javascript_front_matter_is_left_out_with_a_warning() {
        let said = split("x.md", "---js\nconst title = 'a';\n---\nbody\n").unwrap_err();
        assert!(!said.is_error());
        assert!(said.message.contains("`---js`"), "{}", said.message);
    }

    #[test]
    fn unclosed_front_matter_points_at_the_opening_line() {
        let err = split("x.md", "---\ntitle: a\n\nbody\n").unwrap_err();
        assert_eq!(err.message, "front matter is not closed");
        assert_eq!(err.location.unwrap().line, 1);
    }

    #[test]
    fn a_file_without_front_matter_is_reported() {
        let err = split("x.md", "# Just a heading\n").unwrap_err();
        assert_eq!(err.message, "missing front matter");
        assert!(err.help.unwrap().contains("---"));
    }

    #[test]
    fn blank_lines_before_the_opening_line_are_skipped() {
        let (yaml, body) = parts("\n  \n\t\r\n---\ntitle: a\n---\nbody\n");
        assert_eq!(yaml, "title: a\n");
        assert_eq!(body, "body\n");
        let (yaml, _) = parts("\u{feff}\n---\ntitle: a\n---\n");
        assert_eq!(yaml, "title: a\n");
    }

    #[test]
    fn text_before_the_opening_line_is_still_missing_front_matter() {
        let err = split("x.md", "\n\nhello\n---\ntitle: a\n---\n").unwrap_err();
        assert_eq!(err.message, "missing front matter");
        assert_eq!(err.location.unwrap().line, 3);
        let err = split("x.md", "\n \n").unwrap_err();
        assert_eq!(err.message, "missing front matter");
        let err = split("x.md", "\n---\ntitle: a\n").unwrap_err();
        assert_eq!(err.message, "front matter is not closed");
        assert_eq!(err.location.unwrap().line, 2);
    }

    #[test]
    fn plus_lines_open_toml_front_matter() {
        let text = "\n+++\ntitle = \"a\"\n---\n+++\nbody\n+++\n";
        let split = split("x.md", text).unwrap();
        assert_eq!(split.format, Format::Toml);
        assert_eq!(&text[split.yaml], "title = \"a\"\n---\n");
        assert_eq!(&text[split.body_start..], "body\n+++\n");
        assert_eq!(parts_format("---\na: 1\n---\n"), Format::Yaml);
    }

    fn parts_format(text: &str) -> Format {
        split("x.md", text).unwrap().format
    }

    #[test]
    fn unclosed_toml_names_its_own_fence() {
        let err = split("x.md", "+++\ntitle = \"a\"\n---\n").unwrap_err();
        assert_eq!(err.message, "front matter is not closed");
        assert!(err.help.unwrap().contains("`+++`"));
        assert!(split("x.md", "++++\na = 1\n++++\n").is_err());
    }

    #[test]
    fn a_dashed_line_with_more_text_does_not_close() {
        assert!(split("x.md", "---\na: 1\n----\n").is_err());
        assert!(split("x.md", "---\na: 1\n--- \n").is_err());
    }
}
