//! The fields an author may write in more than one shape: an image as a path, a mapping's
//! `src` or a list's first item; tags as written, a list or one text; a series named in the
//! front matter alone, a text or a list's first item. Each shape reads to one value, and any
//! other is an error located at the value.

use super::{FrontMatter, describe, member, scalar};
use crate::diag::Diagnostic;
use crate::model::{SLUG_PATTERN, is_valid_slug, slugify};
use saphyr::{MarkedYaml, Scalar, YamlData};
use std::sync::Arc;

impl<'a> FrontMatter<'a> {
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
