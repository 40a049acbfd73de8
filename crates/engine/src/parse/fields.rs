//! Typed access to front-matter fields, with an error for every field of the wrong type.
//!
//! The YAML is parsed with `saphyr`, which keeps a position for every node; each accessor
//! checks the node's type and, when it is wrong, records a diagnostic that points at the value
//! and says what was expected. Accessors return `None` after recording such an error, so a
//! parser can read every field and report all problems of a file at once.

mod errors;
mod toml;

use errors::integer_help;

use super::frontmatter::{Format, Split};
use super::yaml_error::explain;
use crate::diag::{Diagnostic, Location};
use crate::model::{DATE_FORMS, SLUG_PATTERN, Timestamp, is_valid_slug, slugify};
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

    /// An image: a string, a mapping's `src` (else `url`, else `path`), or the first item of a
    /// list of either (Hugo's `images`). Empty reads as absent; any other value is an error.
    pub fn image(&mut self, key: &str) -> Option<String> {
        let node = self.get(key)?;
        let node = match &node.data {
            YamlData::Sequence(items) => items.first()?,
            _ => node,
        };
        let found = match &node.data {
            YamlData::Mapping(_) => ["src", "url", "path"]
                .iter()
                .find_map(|name| member(node, name))
                .map(scalar),
            _ => Some(scalar(node)),
        };
        match found {
            Some(None | Some(Scalar::Null)) => None,
            Some(Some(Scalar::String(s))) if s.trim().is_empty() => None,
            Some(Some(Scalar::String(s))) => Some(s.to_string()),
            _ => {
                self.push(self.type_error(
                    key,
                    node,
                    "a string or a mapping with `src`",
                    format!(
                        "write the image's path: {}",
                        self.field(key, "/images/hero.webp")
                    ),
                ));
                None
            }
        }
    }

    /// Tags as written (`tags_as_written`): a list of texts, or one text (`tags: web`), each
    /// with its slug ([`slugify`]); texts whose slug an earlier one has are that tag. A text
    /// with nothing to make a slug of, or an entry that is not text, is an error.
    pub fn written_list(&mut self, key: &str) -> Vec<(Arc<str>, Arc<str>)> {
        let Some(node) = self.get(key) else {
            return Vec::new();
        };
        let items: Vec<&MarkedYaml<'a>> = match &node.data {
            YamlData::Sequence(items) => items.iter().collect(),
            YamlData::Value(Scalar::Null) => return Vec::new(),
            _ => vec![node],
        };
        let mut out: Vec<(Arc<str>, Arc<str>)> = Vec::with_capacity(items.len());
        let mut problems = Vec::new();
        for item in items {
            let text = match scalar(item) {
                Some(Scalar::String(s)) => s.trim().to_string(),
                Some(Scalar::Integer(n)) => n.to_string(),
                _ => {
                    let found = describe(&item.data);
                    problems.push(
                        Diagnostic::error(
                            self.path,
                            format!("every entry of `{key}` must be a text, found {found}"),
                        )
                        .at(self.location_of_node(item))
                        .help("write each entry as a word or phrase"),
                    );
                    continue;
                }
            };
            match slugify(&text) {
                Some(slug) if !out.iter().any(|(seen, _)| **seen == *slug) => {
                    out.push((Arc::from(slug), Arc::from(text)));
                }
                Some(_) => {}
                None => problems.push(
                    Diagnostic::error(
                        self.path,
                        format!("`{text}` in `{key}` has no letter or digit to name it by"),
                    )
                    .at(self.location_of_node(item))
                    .help("write the tag as a word or phrase, or remove it"),
                ),
            }
        }
        self.diagnostics.extend(problems);
        out
    }

    /// A series named in the front matter alone, in a site whose layout has no series folder:
    /// a text, or a list whose first item is taken (Hugo's `series = ["Theme Demo"]`). With
    /// `as_written` (`tags_as_written`) any text, named by its slug ([`slugify`]); otherwise the
    /// text must be a slug. Empty (`""`, `[]`) reads as absent; anything else is an error.
    pub fn series_name(&mut self, key: &str, as_written: bool) -> Option<SeriesName> {
        let node = self.get(key)?;
        let (item, more) = match &node.data {
            YamlData::Sequence(items) => (items.first()?, items.len() > 1),
            _ => (node, false),
        };
        let text = match scalar(item) {
            Some(Scalar::Null) => return None,
            Some(Scalar::String(s)) if s.trim().is_empty() => return None,
            Some(Scalar::String(s)) => s.trim().to_string(),
            Some(Scalar::Integer(n)) if as_written => n.to_string(),
            _ => {
                let example = if as_written {
                    "\"Learning Rust\""
                } else {
                    "learning-rust"
                };
                let diagnostic = self.type_error(
                    key,
                    item,
                    "a text or a list of texts",
                    format!("name the series: {}", self.field(key, example)),
                );
                self.push(diagnostic);
                return None;
            }
        };
        let at = self.location_of_node(item);
        let slug = if as_written {
            slugify(&text)
        } else {
            is_valid_slug(&text).then(|| text.clone())
        };
        match slug {
            Some(slug) if slug == "index" => {
                self.push(
                    Diagnostic::error(self.path, format!("a series cannot be named `{text}`"))
                        .at(at)
                        .label("its slug is `index`")
                        .help("`api/series/{lang}/index.json` is the series listing; name the series otherwise"),
                );
                None
            }
            Some(slug) => Some(SeriesName {
                slug: slug.into(),
                text: text.into(),
                more,
            }),
            None if as_written => {
                self.push(
                    Diagnostic::error(
                        self.path,
                        format!("`{text}` in `{key}` has no letter or digit to name it by"),
                    )
                    .at(at)
                    .help("write the series' name as a word or phrase, or remove it"),
                );
                None
            }
            None => {
                self.push(
                    Diagnostic::error(self.path, format!("`{key}` is not a valid name: `{text}`"))
                        .at(at)
                        .label(format!("names must match {SLUG_PATTERN}"))
                        .help("use lowercase letters, digits and hyphens only, or set `tags_as_written = true` under [front_matter] in watch.toml to name series (and tags) by any text"),
                );
                None
            }
        }
    }

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

/// A series a post names without a series file ([`FrontMatter::series_name`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesName {
    /// What the API names it by.
    pub slug: Arc<str>,
    /// The text as written: the series' title.
    pub text: Arc<str>,
    /// The value was a list of more than one series: only the first is used.
    pub more: bool,
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
mod tests {
    use super::*;
    use crate::parse::frontmatter::split;

    fn with_front<T>(
        yaml: &str,
        f: impl FnOnce(&mut FrontMatter<'_>) -> T,
    ) -> (T, Vec<Diagnostic>) {
        let text = format!("---\n{yaml}---\nbody\n");
        let parts = split("x.md", &text).unwrap();
        let mut front = FrontMatter::parse("x.md", &text, &parts);
        let value = f(&mut front);
        (value, front.diagnostics)
    }

    #[test]
    fn strings_dates_and_lists_read_from_their_usual_spellings() {
        let (value, diags) = with_front(
            "title: \"Hola “mundo”\"\npubDate: 2024-05-01\ntags: [\"a\", b]\n# a comment\nempty: \"\"\n",
            |f| {
                (
                    f.string("title"),
                    f.timestamp("pubDate", true),
                    f.slug_list("tags"),
                    f.string("empty"),
                )
            },
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value.0.as_deref(), Some("Hola “mundo”"));
        assert_eq!(value.1.unwrap().to_string(), "2024-05-01T00:00:00.000Z");
        assert_eq!(value.2, vec![Arc::<str>::from("a"), Arc::from("b")]);
        assert_eq!(value.3, None);
    }

    #[test]
    fn a_quoted_number_is_a_type_error_at_its_line() {
        let (value, diags) = with_front("title: x\nseriesOrder: \"2\"\n", |f| {
            f.integer("seriesOrder")
        });
        assert_eq!(value, None);
        assert_eq!(diags.len(), 1);
        assert_eq!(
            diags[0].message,
            "`seriesOrder` must be an integer, found the string \"2\""
        );
        assert_eq!(diags[0].location.as_ref().unwrap().line, 3);
    }

    #[test]
    fn the_integer_help_repeats_the_quoted_number() {
        let (_, diags) = with_front("seriesOrder: \"1\"\n", |f| f.integer("seriesOrder"));
        assert_eq!(
            diags[0].help.as_deref(),
            Some("write a whole number without quotes: seriesOrder: 1")
        );
        let (_, diags) = with_front("seriesOrder: first\n", |f| f.integer("seriesOrder"));
        assert_eq!(
            diags[0].help.as_deref(),
            Some("write a whole number without quotes, for example seriesOrder: 2")
        );
    }

    #[test]
    fn a_whole_float_reads_as_an_integer() {
        let (value, diags) = with_front("seriesOrder: 2.0\n", |f| f.integer("seriesOrder"));
        assert_eq!((value, diags.len()), (Some(2), 0));
    }

    #[test]
    fn a_quoted_boolean_is_a_type_error() {
        let (value, diags) = with_front("draft: \"true\"\n", |f| f.boolean("draft"));
        assert_eq!(value, None);
        assert!(diags[0].message.contains("must be true or false"));
    }

    #[test]
    fn missing_and_invalid_fields_are_all_reported() {
        let (_, diags) = with_front("pubDate: 2024-02-30\ntags: [\"Rust\"]\n", |f| {
            f.required_string("title");
            f.timestamp("pubDate", true);
            f.slug_list("tags");
        });
        let messages: Vec<_> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "missing required field `title`",
                "`pubDate` is not a valid date: `2024-02-30`",
                "`Rust` in `tags` is not a valid name"
            ]
        );
    }

    fn with_toml<T>(toml: &str, f: impl FnOnce(&mut FrontMatter<'_>) -> T) -> (T, Vec<Diagnostic>) {
        let text = format!("+++\n{toml}+++\nbody\n");
        let parts = split("x.md", &text).unwrap();
        let mut front = FrontMatter::parse("x.md", &text, &parts);
        let value = f(&mut front);
        (value, front.diagnostics)
    }

    #[test]
    fn toml_fields_read_through_the_same_typed_readers() {
        let (value, diags) = with_toml(
            "title = \"Hola “mundo”\"\ndate = 2024-05-01T09:30:00-05:00\nday = 2024-05-01\ntags = [\"a\", \"b\"]\ndraft = true\nseriesOrder = 2\n# a comment\n[extra]\nx = 1\n",
            |f| {
                (
                    f.string("title"),
                    f.timestamp("date", true),
                    f.timestamp("day", true),
                    f.slug_list("tags"),
                    f.boolean("draft"),
                    f.integer("seriesOrder"),
                    f.keys().map(String::from).collect::<Vec<_>>(),
                )
            },
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value.0.as_deref(), Some("Hola “mundo”"));
        assert_eq!(value.1.unwrap().to_string(), "2024-05-01T14:30:00.000Z");
        assert_eq!(value.2.unwrap().to_string(), "2024-05-01T00:00:00.000Z");
        assert_eq!(value.3, vec![Arc::<str>::from("a"), Arc::from("b")]);
        assert_eq!((value.4, value.5), (Some(true), Some(2)));
        assert_eq!(
            value.6,
            [
                "title",
                "date",
                "day",
                "tags",
                "draft",
                "seriesOrder",
                "extra"
            ]
        );
    }

    #[test]
    fn toml_type_errors_are_located_with_a_toml_fix() {
        let (_, diags) = with_toml(
            "title = \"é\"\nseriesOrder = \"2\"\ndraft = \"true\"\ndate = 09:30:00\n",
            |f| {
                f.integer("seriesOrder");
                f.boolean("draft");
                f.timestamp("date", true);
                f.required_string("description");
            },
        );
        let found: Vec<_> = diags
            .iter()
            .map(|d| {
                let at = d.location.as_ref().unwrap();
                (
                    d.message.as_str(),
                    at.line,
                    at.column,
                    d.help.clone().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            found[0].0,
            "`seriesOrder` must be an integer, found the string \"2\""
        );
        assert_eq!((found[0].1, found[0].2), (3, 15));
        assert_eq!(
            found[0].3,
            "write a whole number without quotes: seriesOrder = 2"
        );
        assert_eq!(
            (found[1].1, found[1].3.as_str()),
            (4, "write it without quotes: draft = true")
        );
        assert_eq!(found[2].0, "`date` is not a valid date: `09:30:00`");
        assert_eq!((found[2].1, found[2].2), (5, 8));
        assert_eq!(found[3].0, "missing required field `description`");
        assert_eq!(found[3].1, 1);
        assert!(
            found[3]
                .3
                .contains("`description = \"...\"` between the `+++` lines")
        );
    }

    #[test]
    fn broken_toml_is_one_located_error() {
        let (_, diags) = with_toml("title = \"a\"\ndate = \n", |f| {
            f.required_string("description");
        });
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0]
                .message
                .starts_with("front matter is not valid TOML"),
            "{}",
            diags[0].message
        );
        assert_eq!(diags[0].location.as_ref().unwrap().line, 3);
        let (_, diags) = with_toml("title: \"yaml in toml\"\n", |_| ());
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].location.as_ref().unwrap().line, 2);
        let (_, diags) = with_toml("a = 1\na = 2\n", |_| ());
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn dotted_keys_images_silent_booleans_and_written_lists() {
        let (value, diags) = with_front(
            "extra:\n  cover: {url: /c.png}\npublished: 2024-04-10\ntags: Web App\nimages: [{src: /i.png}]\n",
            |f| {
                (
                    f.has("extra.cover"),
                    f.image("extra.cover"),
                    f.image("images"),
                    f.if_boolean("published"),
                    f.written_list("tags"),
                    f.has("extra.nothing"),
                )
            },
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert!(value.0 && !value.5);
        assert_eq!(value.1.as_deref(), Some("/c.png"));
        assert_eq!(value.2.as_deref(), Some("/i.png"));
        assert_eq!(value.3, None);
        assert_eq!(
            value.4,
            vec![(Arc::<str>::from("web-app"), Arc::from("Web App"))]
        );
        let (value, diags) = with_toml("[taxonomies]\ntags = [\"指南\", \"Zhi Nan\"]\n", |f| {
            f.written_list("taxonomies.tags")
        });
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            value,
            vec![(Arc::<str>::from("zhi-nan"), Arc::from("指南"))]
        );
    }

    #[test]
    fn a_series_without_a_file_is_a_text_or_a_lists_first_item() {
        let named = |slug: &str, text: &str, more: bool| SeriesName {
            slug: slug.into(),
            text: text.into(),
            more,
        };
        let (value, diags) = with_toml("series = [\"Theme Demo\"]\n", |f| {
            f.series_name("series", true)
        });
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value, Some(named("theme-demo", "Theme Demo", false)));
        let (value, diags) = with_front("series: \"Learning Rust\"\n", |f| {
            f.series_name("series", true)
        });
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value, Some(named("learning-rust", "Learning Rust", false)));
        let (value, diags) = with_front("series: [\"Démo\", \"Other\"]\n", |f| {
            f.series_name("series", true)
        });
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value, Some(named("demo", "Démo", true)));
        // Empty reads as absent, without a word.
        for empty in ["series: \"\"\n", "series: []\n", "series:\n"] {
            let (value, diags) = with_front(empty, |f| f.series_name("series", true));
            assert_eq!((value, diags.len()), (None, 0), "{empty}");
        }
    }

    #[test]
    fn a_series_without_a_file_is_a_slug_unless_written_as_text() {
        let (value, diags) = with_front("series: [intro]\n", |f| f.series_name("series", false));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(value.map(|named| named.slug), Some(Arc::from("intro")));
        let (value, diags) = with_front("series: Learning Rust\n", |f| {
            f.series_name("series", false)
        });
        assert_eq!(value, None);
        assert_eq!(diags.len(), 1);
        assert_eq!(
            diags[0].message,
            "`series` is not a valid name: `Learning Rust`"
        );
        assert!(
            diags[0]
                .help
                .as_deref()
                .unwrap()
                .contains("tags_as_written")
        );
        let (value, diags) = with_front("series: \"!!\"\n", |f| f.series_name("series", true));
        assert_eq!(value, None);
        assert_eq!(
            diags[0].message,
            "`!!` in `series` has no letter or digit to name it by"
        );
        let (value, diags) = with_front("series: Index\n", |f| f.series_name("series", true));
        assert_eq!(value, None);
        assert_eq!(diags[0].message, "a series cannot be named `Index`");
        let (value, diags) = with_front("series: {a: 1}\n", |f| f.series_name("series", true));
        assert_eq!(value, None);
        assert!(
            diags[0]
                .message
                .contains("must be a text or a list of texts"),
            "{diags:?}"
        );
    }

    #[test]
    fn broken_yaml_is_located() {
        let (_, diags) = with_front("title: [unclosed\nother: 1\n", |_| ());
        assert_eq!(diags.len(), 1);
        assert!(
            diags[0]
                .message
                .starts_with("front matter is not valid YAML")
        );
        assert!(diags[0].location.as_ref().unwrap().line >= 2);
    }
}
