//! How `FrontMatter` reports: each error or warning located at the field it is about (or at the
//! front matter's opening line when the field is missing), with saphyr's character positions
//! turned into byte ranges of the file.

use super::FrontMatter;
use crate::diag::{Diagnostic, Location};
use saphyr::{MarkedYaml, Scalar};

impl FrontMatter<'_> {
    /// A field as the front matter's language writes it: `key: value` or `key = value`.
    pub fn field(&self, key: &str, value: &str) -> String {
        match self.format {
            super::Format::Yaml => format!("{key}: {value}"),
            super::Format::Toml => format!("{key} = {value}"),
        }
    }

    /// Records an error about the value of `key` (for checks beyond types).
    pub fn invalid(&mut self, key: &str, message: String, label: &str, help: &str) {
        let at = self.location(key);
        self.push(
            Diagnostic::error(self.path, message)
                .at(at)
                .label(label)
                .help(help),
        );
    }

    /// Records a warning about the value of `key`: the file is still published.
    pub fn warn(&mut self, key: &str, message: String, help: &str) {
        let at = self.location(key);
        self.push(Diagnostic::warning(self.path, message).at(at).help(help));
    }

    /// An error at `key`'s line.
    pub fn error_at(&mut self, key: &str, message: String, help: &str) {
        let at = self.location(key);
        self.push(Diagnostic::error(self.path, message).at(at).help(help));
    }

    /// Records that the required field `key` is missing, with `example` as the fix.
    pub fn missing(&mut self, key: &str, example: &str) {
        let at = self.opening_line();
        self.push(
            Diagnostic::error(self.path, format!("missing required field `{key}`"))
                .at(at)
                .label("in this front matter")
                .help(format!(
                    "add a line `{}` between the `{}` lines",
                    self.field(key, example),
                    self.format.fence()
                )),
        );
    }

    /// Records a diagnostic, unless the YAML did not parse (then its syntax error says it all).
    pub fn push(&mut self, diagnostic: Diagnostic) {
        if !self.syntax_error {
            self.diagnostics.push(diagnostic);
        }
    }

    pub(super) fn diagnostics_for(&self, key: &str) -> usize {
        let needle = format!("`{key}`");
        self.diagnostics
            .iter()
            .filter(|d| d.message.contains(&needle))
            .count()
    }

    /// The error for a value of `key` that is not of the `expected` type, at the value.
    pub(super) fn type_error(
        &self,
        key: &str,
        node: &MarkedYaml<'_>,
        expected: &str,
        help: String,
    ) -> Diagnostic {
        let found = super::describe(&node.data);
        Diagnostic::error(
            self.path,
            format!("`{key}` must be {expected}, found {found}"),
        )
        .at(self.location_of_node(node))
        .label(format!("expected {expected}"))
        .help(help)
    }

    pub(super) fn opening_line(&self) -> Location {
        let start = self.text.find(self.format.fence()).unwrap_or(0);
        Location::in_text(self.text, start..start + 3)
    }

    pub(super) fn location_of_node(&self, node: &MarkedYaml<'_>) -> Location {
        self.location_of_chars(node.span.start.index(), node.span.end.index())
    }

    pub(super) fn location_of_chars(&self, start: usize, end: usize) -> Location {
        let start_byte = self.byte_offset(start);
        let end_byte = self.byte_offset(end.max(start + 1)).max(start_byte);
        Location::in_text(
            self.text,
            self.yaml_offset + start_byte..self.yaml_offset + end_byte,
        )
    }

    pub(super) fn push_error_at_chars(
        &mut self,
        chars: usize,
        message: &str,
        label: &str,
        help: &str,
    ) {
        let at = self.location_of_chars(chars, chars + 3);
        self.push(
            Diagnostic::error(self.path, message)
                .at(at)
                .label(label)
                .help(help),
        );
    }
}

/// How to write a field as an integer: its own number when the value is a quoted one.
/// `field` is the field's start as the front matter writes it (`key: ` or `key = `).
pub(super) fn integer_help(field: &str, value: Option<&Scalar<'_>>) -> String {
    match value {
        Some(Scalar::String(s)) if s.trim().parse::<i64>().is_ok() => {
            format!("write a whole number without quotes: {field}{}", s.trim())
        }
        _ => format!("write a whole number without quotes, for example {field}2"),
    }
}
