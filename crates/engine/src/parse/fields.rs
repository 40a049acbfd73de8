//! Typed access to front-matter fields, with an error for every field of the wrong type.
//!
//! The YAML is parsed with `saphyr`, which keeps a position for every node; each accessor
//! checks the node's type and, when it is wrong, records a diagnostic that points at the value
//! and says what was expected. Accessors return `None` after recording such an error, so a
//! parser can read every field and report all problems of a file at once.

mod errors;
mod shapes;
mod toml;

use errors::integer_help;
pub use shapes::SeriesName;

use super::frontmatter::{Format, Split};
use super::yaml_error::explain;
use crate::diag::{Diagnostic, Location};
use crate::model::{DATE_FORMS, SLUG_PATTERN, Timestamp, is_valid_slug};
use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};
use saphyr_parser::Parser;
use std::sync::Arc;

/// The front matter of one file, ready for typed reads.
pub struct FrontMatter<'a> {
    path: &'a str,
    text: &'a str,
    yaml: &'a str,
    yaml_offset: usize,
    /// saphyr positions count characters; in ASCII text they are byte offsets already.
    yaml_is_ascii: bool,
    entries: Vec<(&'a str, MarkedYaml<'a>, MarkedYaml<'a>)>,
    /// YAML or TOML: what the helps write (`key: value` or `key = value`).
    format: Format,
    /// The YAML has a syntax error: that one error is the file's only diagnostic, since every
    /// field check after it would be noise ("missing" fields that are there).
    syntax_error: bool,
    /// Every problem found so far, in the order the fields were read.
    pub diagnostics: Vec<Diagnostic>,
}

impl<'a> FrontMatter<'a> {
    /// Parses the YAML of `split`. A syntax error is recorded where the author can fix it (see
    /// `yaml_error`) and silences every later check of the file; a non-mapping document is
    /// recorded and leaves no fields.
    pub fn parse(path: &'a str, text: &'a str, split: &Split) -> FrontMatter<'a> {
        let yaml = &text[split.yaml.clone()];
        let mut front = FrontMatter {
            path,
            text,
            yaml,
            yaml_offset: split.yaml.start,
            yaml_is_ascii: yaml.is_ascii(),
            entries: Vec::new(),
            format: split.format,
            syntax_error: false,
            diagnostics: Vec::new(),
        };
        if split.format == Format::Toml {
            match toml::entries(yaml) {
                Ok(entries) => front.entries = entries,
                Err(err) => {
                    let start = split.yaml.start + err.bytes.start.min(yaml.len());
                    let end = split.yaml.start + err.bytes.end.min(yaml.len());
                    let first = err.message.lines().next().unwrap_or("").trim();
                    front.diagnostics.push(
                        Diagnostic::error(path, format!("front matter is not valid TOML: {first}"))
                            .at(Location::in_text(text, start..end.max(start)))
                            .label("the TOML cannot be read from here")
                            .help("write one `key = value` field per line between the `+++` lines, strings in quotes: title = \"...\""),
                    );
                    front.syntax_error = true;
                }
            }
            return front;
        }
        // `load_from_str` reads through a char iterator and a lookahead buffer; a parser over
        // the `str` itself (the same scanner, so the same positions) parses a post's front
        // matter in a fraction of the time.
        match MarkedYaml::load_from_parser(&mut Parser::new_from_str(yaml)) {
            Err(err) => {
                let at = front.byte_offset(err.marker().index());
                let first_line = Location::in_text(text, split.yaml.start..split.yaml.start).line;
                let explained = explain(yaml, err.info(), at, first_line);
                let start = split.yaml.start + explained.bytes.start;
                let end = split.yaml.start + explained.bytes.end;
                front.diagnostics.push(
                    Diagnostic::error(path, explained.message)
                        .at(Location::in_text(text, start..end))
                        .label(explained.label)
                        .help(explained.help),
                );
                front.syntax_error = true;
            }
            Ok(mut documents) => {
                if documents.len() > 1 {
                    front.push_error_at_chars(
                        documents[1].span.start.index(),
                        "front matter holds more than one YAML document",
                        "a second document starts here",
                        "remove the extra `---` or `...` line inside the front matter",
                    );
                }
                match documents.drain(..).next().map(|doc| doc.data) {
                    None | Some(YamlData::Value(Scalar::Null)) => {}
                    Some(YamlData::Mapping(map)) => front.collect_entries(map),
                    Some(other) => {
                        let found = describe(&other);
                        front.diagnostics.push(
                            Diagnostic::error(path, format!("front matter must be a list of `key: value` fields, found {found}"))
                                .at(Location::in_text(text, split.yaml.clone()))
                                .help("write one `key: value` field per line between the `---` lines"),
                        );
                    }
                }
            }
        }
        front
    }

    fn collect_entries(&mut self, map: saphyr::AnnotatedMapping<'a, MarkedYaml<'a>>) {
        for (key, value) in map {
            // Non-string keys (`1: x`) are not fields of ours; they are ignored like unknown keys.
            if let YamlData::Value(Scalar::String(name)) = &key.data {
                let name: &'a str = match name {
                    std::borrow::Cow::Borrowed(s) => s,
                    // Escaped keys are rare; look them up by their source text.
                    std::borrow::Cow::Owned(_) => self.source_of(&key),
                };
                self.entries.push((name, key, value));
            }
        }
    }

    fn source_of(&self, node: &MarkedYaml<'a>) -> &'a str {
        let start = self.byte_offset(node.span.start.index());
        let end = self.byte_offset(node.span.end.index());
        &self.yaml[start..end]
    }

    /// The byte offset in the YAML of a saphyr character index.
    fn byte_offset(&self, chars: usize) -> usize {
        if self.yaml_is_ascii {
            chars.min(self.yaml.len())
        } else {
            char_to_byte(self.yaml, chars)
        }
    }

    /// The value of `key`: a top-level field of that name, else, for a dotted key
    /// (`taxonomies.tags`), the key of nested mappings (YAML mappings and TOML tables alike).
    fn get(&self, key: &str) -> Option<&MarkedYaml<'a>> {
        let literal = self
            .entries
            .iter()
            .find(|(name, _, _)| *name == key)
            .map(|(_, _, value)| value);
        if literal.is_some() || !key.contains('.') {
            return literal;
        }
        let mut parts = key.split('.');
        let first = parts.next()?;
        let mut node = self
            .entries
            .iter()
            .find(|(name, _, _)| *name == first)
            .map(|(_, _, value)| value)?;
        for part in parts {
            node = member(node, part)?;
        }
        Some(node)
    }

    /// A boolean at `key`, or `None` for anything else, without a word (`published`, which
    /// some sites write as a date).
    pub fn if_boolean(&self, key: &str) -> Option<bool> {
        match scalar(self.get(key)?) {
            Some(Scalar::Boolean(b)) => Some(*b),
            _ => None,
        }
    }

    /// Whether the front matter has `key` (a dotted key reads nested mappings).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Every field name, in order (for localized lookups like `titleEs`).
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(name, _, _)| *name)
    }

    /// The location of the key `key` itself, or of the front matter's first line.
    pub fn key_location(&self, key: &str) -> Location {
        match self.entries.iter().find(|(name, _, _)| *name == key) {
            Some((_, node, _)) => self.location_of_node(node),
            None => self.opening_line(),
        }
    }

    /// The location of the value of `key`, or of the front matter's first line.
    pub fn location(&self, key: &str) -> Location {
        match self.get(key) {
            Some(node) => self.location_of_node(node),
            None => self.opening_line(),
        }
    }

    /// An optional string. An empty value (`key:` or `key: ""`) reads as absent.
    pub fn string(&mut self, key: &str) -> Option<String> {
        let node = self.get(key)?;
        match scalar(node) {
            Some(Scalar::Null) => None,
            Some(Scalar::String(s)) if s.is_empty() => None,
            Some(Scalar::String(s)) => Some(s.to_string()),
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "a string",
                    format!("put the value in quotes: {}", self.field(key, "\"...\"")),
                ));
                None
            }
        }
    }

    /// A required, non-empty string.
    pub fn required_string(&mut self, key: &str) -> Option<String> {
        if !self.has(key) {
            self.missing(key, "\"...\"");
            return None;
        }
        let value = self.string(key);
        if value.is_none() && self.diagnostics_for(key) == 0 {
            let at = self.location(key);
            self.push(
                Diagnostic::error(self.path, format!("`{key}` is empty"))
                    .at(at)
                    .help(format!(
                        "give `{key}` a value, or remove the file from the content folder"
                    )),
            );
        }
        value
    }

    /// A date or date-time (see [`Timestamp::parse`]).
    pub fn timestamp(&mut self, key: &str, required: bool) -> Option<Timestamp> {
        let Some(node) = self.get(key) else {
            if required {
                self.missing(key, "2024-05-01");
            }
            return None;
        };
        // Locations are computed on the error paths only: they cost a scan of the text.
        match scalar(node) {
            Some(Scalar::Null) if !required => None,
            Some(Scalar::String(s)) => match Timestamp::parse(s) {
                Some(ts) => Some(ts),
                None => {
                    let shown = s.to_string();
                    let at = self.location_of_node(node);
                    self.push(
                        Diagnostic::error(
                            self.path,
                            format!("`{key}` is not a valid date: `{shown}`"),
                        )
                        .at(at)
                        .label("expected a date like 2024-05-01 or 2024-05-01T09:30:00Z")
                        .help(format!(
                            "write `{key}` as YYYY-MM-DD or in one of the accepted forms: {DATE_FORMS}"
                        )),
                    );
                    None
                }
            },
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "a date",
                    format!("write a date such as {}", self.field(key, "2024-05-01")),
                ));
                None
            }
        }
    }

    /// An optional boolean. A quoted `"true"` is an error, as on the original site.
    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        let node = self.get(key)?;
        match scalar(node) {
            Some(Scalar::Boolean(b)) => Some(*b),
            Some(Scalar::Null) => None,
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "true or false",
                    format!("write it without quotes: {}", self.field(key, "true")),
                ));
                None
            }
        }
    }

    /// An optional integer. `2.0` reads as 2; `"2"` (a string) and `2.5` are errors.
    pub fn integer(&mut self, key: &str) -> Option<i64> {
        let node = self.get(key)?;
        match scalar(node) {
            Some(Scalar::Integer(n)) => Some(*n),
            Some(Scalar::FloatingPoint(f)) if f.fract() == 0.0 && f.abs() < 9e15 => {
                Some(f.0 as i64)
            }
            Some(Scalar::Null) => None,
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "an integer",
                    integer_help(&self.field(key, ""), scalar(node)),
                ));
                None
            }
        }
    }

    /// An optional slug-valued string (a series or parent tag name).
    pub fn slug(&mut self, key: &str) -> Option<Arc<str>> {
        let value = self.string(key)?;
        if is_valid_slug(&value) {
            Some(value.into())
        } else {
            let at = self.location(key);
            self.push(
                Diagnostic::error(self.path, format!("`{key}` is not a valid name: `{value}`"))
                    .at(at)
                    .label(format!("names must match {SLUG_PATTERN}"))
                    .help("use lowercase letters, digits and hyphens only, as in the file names under tags/ and series/"),
            );
            None
        }
    }

    /// Whether `key` holds one string (not a list).
    pub fn is_string(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|node| matches!(scalar(node), Some(Scalar::String(_))))
    }

    /// How many items the list at `key` holds, repeats included (`None`: no list there).
    pub fn list_len(&self, key: &str) -> Option<usize> {
        match &self.get(key)?.data {
            YamlData::Sequence(items) => Some(items.len()),
            _ => None,
        }
    }

    /// An optional list of slugs (`tags`). Duplicates are dropped with a warning; invalid
    /// entries are errors.
    pub fn slug_list(&mut self, key: &str) -> Vec<Arc<str>> {
        let Some(node) = self.get(key) else {
            return Vec::new();
        };
        let items = match &node.data {
            YamlData::Sequence(items) => items,
            YamlData::Value(Scalar::Null) => return Vec::new(),
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "a list",
                    format!("write a list: {}", self.field(key, "[\"rust\", \"web\"]")),
                ));
                return Vec::new();
            }
        };
        let mut out: Vec<Arc<str>> = Vec::with_capacity(items.len());
        // Collected apart from `self.diagnostics` because `items` borrows `self`.
        let mut problems = Vec::new();
        for item in items {
            match scalar(item) {
                Some(Scalar::String(s)) if is_valid_slug(s) => {
                    if out.iter().any(|seen| **seen == **s) {
                        problems.push(
                            Diagnostic::warning(
                                self.path,
                                format!("`{s}` is listed twice in `{key}`"),
                            )
                            .at(self.location_of_node(item))
                            .help("remove the second occurrence"),
                        );
                    } else {
                        out.push(Arc::from(s.as_ref()));
                    }
                }
                Some(Scalar::String(s)) => {
                    problems.push(
                        Diagnostic::error(self.path, format!("`{s}` in `{key}` is not a valid name"))
                            .at(self.location_of_node(item))
                            .label(format!("names must match {SLUG_PATTERN}"))
                            .help("use lowercase letters, digits and hyphens only (it becomes part of a URL)"),
                    );
                }
                _ => {
                    let found = describe(&item.data);
                    problems.push(
                        Diagnostic::error(
                            self.path,
                            format!("every entry of `{key}` must be a string, found {found}"),
                        )
                        .at(self.location_of_node(item))
                        .help("put each entry in quotes"),
                    );
                }
            }
        }
        self.diagnostics.extend(problems);
        out
    }
}

/// The value of `name` in the mapping `node` (looking through explicit tags).
fn member<'n, 'a>(node: &'n MarkedYaml<'a>, name: &str) -> Option<&'n MarkedYaml<'a>> {
    match &node.data {
        YamlData::Mapping(map) => map
            .iter()
            .find(|(key, _)| matches!(scalar(key), Some(Scalar::String(s)) if s == name))
            .map(|(_, value)| value),
        YamlData::Tagged(_, inner) => member(inner, name),
        _ => None,
    }
}

/// The scalar a node holds, looking through explicit tags such as `!!str`.
fn scalar<'n, 'a>(node: &'n MarkedYaml<'a>) -> Option<&'n Scalar<'a>> {
    match &node.data {
        YamlData::Value(value) => Some(value),
        YamlData::Tagged(_, inner) => scalar(inner),
        _ => None,
    }
}

/// "a string", "a list"...: how a YAML node reads to an author.
fn describe<'a>(data: &YamlData<'a, MarkedYaml<'a>>) -> String {
    match data {
        YamlData::Value(Scalar::Null) => "an empty value".into(),
        YamlData::Value(Scalar::Boolean(b)) => format!("the boolean {b}"),
        YamlData::Value(Scalar::Integer(n)) => format!("the number {n}"),
        YamlData::Value(Scalar::FloatingPoint(f)) => format!("the number {f}"),
        YamlData::Value(Scalar::String(s)) => format!("the string \"{s}\""),
        YamlData::Sequence(_) => "a list".into(),
        YamlData::Mapping(_) => "a nested mapping".into(),
        YamlData::Tagged(_, inner) => describe(&inner.data),
        YamlData::Alias(_) => "an alias".into(),
        _ => "an unreadable value".into(),
    }
}

/// saphyr counts characters; diagnostics need bytes.
fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests;
