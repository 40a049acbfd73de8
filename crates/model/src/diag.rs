//! Diagnostics: what is wrong, where (file, line, column), and how to fix it.
//!
//! Parsing never fails: it returns a value and a list of [`Diagnostic`]s. Positions are computed
//! when the diagnostic is made (the text is at hand then); rendering only needs the text again to
//! show the offending line, rustc style, through `annotate-snippets`.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use std::fmt;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// How bad a diagnostic is: whether it fails the build, or only tells.
pub enum Severity {
    /// Fails a build (exit status 1): the content must be fixed.
    Error,
    /// Something is likely wrong, but the build goes on.
    Warning,
    /// What the build did for the site, said once (never a failure, `CI` included).
    Note,
}

impl Severity {
    /// The word a reader sees: `error`, `warning`, `note`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A position in a file: 1-based line and column (columns count characters), plus the byte
/// range to underline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub column: usize,
    /// The bytes to underline.
    pub bytes: Range<usize>,
}

impl Location {
    /// The location of the byte range `bytes` in `text`.
    pub fn in_text(text: &str, bytes: Range<usize>) -> Location {
        let start = floor_char_boundary(text, bytes.start.min(text.len()));
        let end = floor_char_boundary(text, bytes.end.clamp(start, text.len()));
        let before = &text[..start];
        let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
        let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
        let column = text[line_start..start].chars().count() + 1;
        Location {
            line,
            column,
            bytes: start..end,
        }
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// One problem in the content, the config or the walk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Whether it fails the build, warns or only tells.
    pub severity: Severity,
    /// Path relative to the content folder (or the config file's path).
    pub path: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Boxed: most diagnostics travel in `Result`s, and this keeps them small.
    pub location: Option<Box<Location>>,
    /// Shown under the underlined text.
    pub label: Option<String>,
    /// One sentence on how to fix it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error in the file at `path`.
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            message: message.into(),
            location: None,
            label: None,
            help: None,
        }
    }

    /// A warning about the file at `path`.
    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    /// A note on what the build did with the file at `path`.
    pub fn note(path: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(path, message)
        }
    }

    /// Points the diagnostic at `location`.
    pub fn at(mut self, location: Location) -> Diagnostic {
        self.location = Some(Box::new(location));
        self
    }

    /// Sets the words shown under the underlined text.
    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    /// Sets the sentence on how to fix it.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Whether the diagnostic fails the build.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders like rustc: a title, `--> path:line:column`, the source line with the span
    /// underlined, then `help:`. `source` is the file's text when it is available.
    pub fn render(&self, source: Option<&str>, color: bool) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
        };
        let title = level.primary_title(self.message.as_str());
        let group = match (&self.location, source) {
            (Some(location), Some(source)) if location.bytes.end <= source.len() => {
                let mut annotation = AnnotationKind::Primary.span(location.bytes.clone());
                if let Some(label) = &self.label {
                    annotation = annotation.label(label.as_str());
                }
                // The bare path: annotate-snippets appends `:line:column` itself (giving it
                // `display_path()` printed the position twice, `x.md:6:14:6:14`).
                title.element(
                    Snippet::source(source)
                        .path(self.path.as_str())
                        .annotation(annotation),
                )
            }
            _ => {
                // No text to show (a file name, an unreadable file): just `--> path:line:col`.
                let mut origin = Origin::path(self.path.as_str());
                if let Some(location) = &self.location {
                    origin = origin.line(location.line).char_column(location.column);
                }
                let mut group = title.element(origin);
                if let Some(label) = &self.label {
                    group = group.element(Level::NOTE.message(label.as_str()));
                }
                group
            }
        };
        let mut report: Vec<Group<'_>> = vec![group];
        if let Some(help) = &self.help {
            report.push(Group::with_title(
                Level::HELP.secondary_title(help.as_str()),
            ));
        }
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.render(&report).to_string()
    }

    /// `path:line:column`, or just the path when the position is unknown.
    pub fn display_path(&self) -> String {
        match &self.location {
            Some(location) => format!("{}:{}:{}", self.path, location.line, location.column),
            None => self.path.clone(),
        }
    }
}

/// One line per diagnostic: `error: path:line:column: message`. Used in logs and tests.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = self.severity.name();
        write!(f, "{level}: {}: {}", self.display_path(), self.message)?;
        if let Some(help) = &self.help {
            write!(f, " (help: {help})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_source_text_the_position_is_still_shown_rustc_style() {
        let shown = Diagnostic::error("blog/en/x.md", "file is not valid UTF-8")
            .at(Location {
                line: 2,
                column: 11,
                bytes: 0..0,
            })
            .help("save the file as UTF-8")
            .render(None, false);
        assert!(shown.contains("--> blog/en/x.md:2:11"), "{shown}");
        assert!(!shown.contains("= -->"), "{shown}");
        let shown = Diagnostic::error("blog/en/x.mdx", "duplicate id").render(None, false);
        assert!(
            shown.lines().any(|line| line.trim() == "--> blog/en/x.mdx"),
            "{shown}"
        );
    }

    #[test]
    fn location_counts_lines_and_characters_not_bytes() {
        let text = "---\ntítulo: x\nbad: [\n";
        let at = text.find("bad").unwrap();
        let location = Location::in_text(text, at..at + 3);
        assert_eq!((location.line, location.column), (3, 1));
        let at = text.find(": x").unwrap();
        assert_eq!(Location::in_text(text, at..at + 1).column, 7);
    }

    #[test]
    fn rendering_names_the_file_line_and_fix() {
        let text = "---\nseriesOrder: \"2\"\n---\n";
        let at = text.find("\"2\"").unwrap();
        let diagnostic = Diagnostic::error(
            "blog/en/2024-01-01_x.md",
            "`seriesOrder` must be an integer",
        )
        .at(Location::in_text(text, at..at + 3))
        .label("found a string")
        .help("write the number without quotes");
        let shown = diagnostic.render(Some(text), false);
        assert!(shown.contains("blog/en/2024-01-01_x.md:2:14"), "{shown}");
        assert!(!shown.contains(":2:14:"), "position printed twice: {shown}");
        assert!(shown.contains("found a string"), "{shown}");
        assert!(
            shown.contains("help: write the number without quotes"),
            "{shown}"
        );
        assert!(
            diagnostic
                .to_string()
                .starts_with("error: blog/en/2024-01-01_x.md:2:14:")
        );
    }
}
