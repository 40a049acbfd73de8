//! Parsing: one tracked query per content kind, from a `SourceFile` to a model value plus
//! diagnostics.
//!
//! Parsing never fails: a broken file yields `value: None` and the errors that explain why.
//! Each `*_meta` query projects the value without positions, so that indexes depending on it
//! are not re-run when an edit only moved text around or touched the body (salsa backdates an
//! equal result).

pub mod body;
pub mod fields;
pub mod frontmatter;
pub mod keys;
pub mod summary;

mod deck;
mod post;
mod series;
mod skill;
mod tag;
mod yaml_error;

pub use deck::{deck_meta, parse_deck, parse_deck_text};
pub use post::{parse_post, parse_post_text, post_meta, post_reading};
pub use series::{parse_series, parse_series_text, series_meta};
pub use skill::{parse_skill, skill_meta};
pub use tag::{parse_tag, parse_tag_text, tag_meta};

use crate::content::{FileContents, NameShape, PostName};
use crate::db::SourceFile;
use crate::diag::{Diagnostic, Location};
use crate::model::{SLUG_PATTERN, is_valid_slug};
use chrono::NaiveDate;
use std::sync::Arc;

/// The result of parsing one file: the value (absent when the file has errors), every
/// diagnostic, and where the Markdown body starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed<T> {
    /// What the file says, when it has no error.
    pub value: Option<T>,
    /// Every error, warning and note about the file, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// The byte offset where the Markdown body starts (after the front matter).
    pub body_start: usize,
    /// The front-matter keys no parser reads (checked against the site's settings later).
    pub unknown_keys: Vec<keys::UnknownKey>,
}

impl<T> Parsed<T> {
    fn failed(diagnostic: Diagnostic) -> Parsed<T> {
        Parsed {
            value: None,
            diagnostics: vec![diagnostic],
            body_start: 0,
            unknown_keys: Vec::new(),
        }
    }

    fn nothing() -> Parsed<T> {
        Parsed {
            value: None,
            diagnostics: Vec::new(),
            body_start: 0,
            unknown_keys: Vec::new(),
        }
    }
}

/// The text of `file`, or the `Parsed` to return when there is none (unreadable or deleted).
fn text_or_failure<T>(db: &dyn salsa::Database, file: SourceFile) -> Result<&str, Parsed<T>> {
    match file.contents(db) {
        // A detached post's head is its text up to the body, which is not parsed.
        FileContents::Text(text) | FileContents::Detached { head: text, .. } => Ok(text),
        FileContents::Missing => Err(Parsed::nothing()),
        FileContents::Unusable {
            problem,
            help,
            position,
        } => {
            let mut diagnostic =
                Diagnostic::error(file.path(db).as_str(), problem.clone()).help(help.clone());
            if let Some((line, column)) = *position {
                diagnostic = diagnostic.at(Location {
                    line,
                    column,
                    bytes: 0..0,
                });
            }
            Err(Parsed::failed(diagnostic))
        }
    }
}

/// Splits a dated file stem `YYYY-MM-DD_<slug>` into its date and slug.
pub fn dated_stem(path: &str, stem: &str) -> Result<(NaiveDate, Arc<str>), Diagnostic> {
    let (date, slug) = path_name(path, &PostName::seed(stem))?;
    Ok((date.expect("a seed name has a date"), slug))
}

/// The date (when the path has one) and the published slug of a post or deck's path, or the
/// error that says how to rename it.
pub fn path_name(path: &str, name: &PostName) -> Result<(Option<NaiveDate>, Arc<str>), Diagnostic> {
    let rename = match name.shape {
        NameShape::Dated(separator) => format!(
            "rename the file to YYYY-MM-DD{separator}<slug>.md, for example 2024-05-01{separator}my-post.md, with a slug of lowercase letters, digits and hyphens"
        ),
        NameShape::Slug => "rename the file with lowercase letters, digits and hyphens, or set its slug in the front matter".into(),
        NameShape::Index => "rename the bundle's folder with lowercase letters, digits and hyphens".into(),
    };
    if let NameShape::Dated(separator) = name.shape
        && !name.stem.contains(separator)
    {
        return Err(Diagnostic::error(
            path,
            format!("file name does not start with a date (`YYYY-MM-DD{separator}`)"),
        )
        .help(rename));
    }
    let date = match &name.date {
        None => None,
        Some(text) => match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            Ok(date) => Some(date),
            Err(_) => {
                let place = match name.shape {
                    NameShape::Dated(_) => "file name starts with",
                    NameShape::Slug | NameShape::Index => "the folders give the date",
                };
                return Err(Diagnostic::error(
                    path,
                    format!("{place} `{text}`, which is not a date (`YYYY-MM-DD`)"),
                )
                .help(rename));
            }
        },
    };
    match name.published_slug() {
        Some(slug) => Ok((date, slug)),
        None => Err(Diagnostic::error(
            path,
            format!(
                "the slug `{}` in the file name is not valid: slugs must match {SLUG_PATTERN}",
                name.slug
            ),
        )
        .help(rename)),
    }
}

/// Checks a name taken from a file stem (tags, series, skills).
fn named_stem(path: &str, stem: &str, what: &str) -> Result<Arc<str>, Diagnostic> {
    if is_valid_slug(stem) {
        Ok(stem.into())
    } else {
        Err(Diagnostic::error(
            path,
            format!("the {what} name `{stem}` is not valid: names must match {SLUG_PATTERN}"),
        )
        .help(format!(
            "rename the file with lowercase letters, digits and hyphens, for example `{}`",
            suggest_slug(stem)
        )))
    }
}

/// A best-effort slug for a help message: `My Post_1` → `my-post-1`.
fn suggest_slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "my-name".into()
    } else {
        trimmed.into()
    }
}

/// Heroes and other images are site-absolute paths (`/images/x.webp`) or full URLs. An empty or
/// whitespace-only value means "no image" (CONTENT_FORMAT.md: "empty means none").
fn check_image(front: &mut fields::FrontMatter<'_>, key: &str) -> Option<String> {
    let value = front.string(key)?;
    if value.trim().is_empty() {
        return None;
    }
    if value.starts_with('/') || value.starts_with("https://") || value.starts_with("http://") {
        Some(value)
    } else {
        front.invalid(
            key,
            format!("`{key}` must be a site-absolute path or a URL, found `{value}`"),
            "expected a path starting with `/`",
            "write the path from the site root, for example /images/blog/my-post/hero.webp",
        );
        None
    }
}

/// Checks that a URL field is an absolute http(s) URL.
fn check_url(front: &mut fields::FrontMatter<'_>, key: &str) -> Option<String> {
    let value = front.string(key)?;
    match url::Url::parse(&value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Some(value),
        _ => {
            front.invalid(
                key,
                format!("`{key}` must be an absolute http(s) URL, found `{value}`"),
                "expected a URL such as https://example.com/deck",
                "write the full address, starting with https://",
            );
            None
        }
    }
}
