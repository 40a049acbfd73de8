//! The front-matter keys a site's posts actually use: for each field content-api reads, which
//! of the keys generators and themes use for it occur, most used first; whether posts lack a
//! description, whether tags are written as words rather than slugs, and how many are drafts.

use super::value::{self, Value};
use super::{KeyChoice, Why};
use content_api_engine::parse::frontmatter::{Format, split};
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// The fields of `[front_matter.keys]` and, for each, the keys sites use for it, in the order
/// that breaks a tie.
pub const CANDIDATES: &[(&str, &[&str])] = &[
    ("title", &["title"]),
    (
        "date",
        &[
            "date",
            "pubDate",
            "publishDate",
            "pubDatetime",
            "created_at",
            "published",
        ],
    ),
    (
        "description",
        &["description", "summary", "excerpt", "subtitle"],
    ),
    ("tags", &["tags", "taxonomies.tags"]),
    (
        "categories",
        &["categories", "category", "taxonomies.categories"],
    ),
    ("draft", &["draft"]),
    ("published", &["published"]),
    (
        "image",
        &[
            "image",
            "cover",
            "cover.image",
            "coverImage",
            "heroImage",
            "ogImage",
            "featuredImage",
            "images",
            "extra.image",
            "extra.social_media_card",
        ],
    ),
    ("slug", &["slug"]),
    ("series", &["series", "serie"]),
    ("series_order", &["seriesOrder", "weight"]),
    ("translation_key", &["translationKey", "translation_key"]),
];

/// What the posts' front matter says.
#[derive(Debug)]
pub struct Report {
    pub keys: Vec<KeyChoice>,
    pub description_from_body: Why<bool>,
    pub tags_as_written: Why<bool>,
    /// Posts marked `draft: true` or `published: false`.
    pub drafts: usize,
    /// Posts read, and of those, posts whose title is in Chinese, Japanese or Korean script.
    pub read: usize,
    pub cjk_titles: usize,
    pub undecided: Vec<String>,
}

/// Reads the front matter of each file (path for messages, text).
pub fn scan<'a>(files: impl IntoIterator<Item = (&'a str, String)>) -> Report {
    let mut read = 0;
    let mut cjk_titles = 0;
    let mut unreadable: Vec<&str> = Vec::new();
    let mut counts: BTreeMap<(&'static str, &'static str), usize> = BTreeMap::new();
    let mut without_description = 0;
    let mut drafts = 0;
    let mut written_tag: Option<String> = None;
    let mut tag_count = 0;
    for (path, text) in files {
        let Some(front) = parse(path, &text) else {
            unreadable.push(path);
            continue;
        };
        read += 1;
        let cjk = |c: char| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ac00}'..='\u{d7af}');
        cjk_titles += usize::from(front.get_str("title").is_some_and(|t| t.chars().any(cjk)));
        for (field, keys) in CANDIDATES {
            for key in *keys {
                // `weight` orders a series only in a post of a series (Hugo's orders sections).
                let in_series = *field != "series_order"
                    || ["series", "serie"].iter().any(|k| front.get(k).is_some());
                if in_series && front.path(key).is_some_and(|v| fits(field, v)) {
                    *counts.entry((field, key)).or_default() += 1;
                }
            }
        }
        let descriptions = CANDIDATES
            .iter()
            .find(|(field, _)| *field == "description")
            .map_or(&[][..], |(_, keys)| *keys);
        if !descriptions.iter().any(|key| front.get_str(key).is_some()) {
            without_description += 1;
        }
        let draft = matches!(front.get("draft"), Some(Value::Bool(true)))
            || front.get("draft").and_then(Value::str) == Some("true")
            || matches!(front.get("published"), Some(Value::Bool(false)));
        drafts += usize::from(draft);
        let tag_lists = [
            "tags",
            "categories",
            "category",
            "taxonomies.tags",
            "taxonomies.categories",
        ]
        .iter()
        .filter_map(|key| front.path(key));
        for tag in tag_lists.flat_map(Value::strings) {
            tag_count += 1;
            let slug = !tag.is_empty()
                && tag
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !slug && written_tag.is_none() {
                written_tag = Some(tag);
            }
        }
    }
    let mut keys = Vec::new();
    for (field, candidates) in CANDIDATES {
        let mut used: Vec<(Reverse<usize>, usize, &str)> = candidates
            .iter()
            .enumerate()
            .filter_map(|(order, key)| {
                counts
                    .get(&(*field, *key))
                    .map(|n| (Reverse(*n), order, *key))
            })
            .collect();
        used.sort();
        if used.is_empty() {
            continue;
        }
        let said: Vec<String> = used
            .iter()
            .map(|(Reverse(n), _, key)| format!("{key} in {n} of {read}"))
            .collect();
        keys.push(KeyChoice {
            field,
            keys: used.iter().map(|(_, _, key)| key.to_string()).collect(),
            why: said.join(", "),
        });
    }
    let description_from_body = Why {
        value: without_description > 0,
        why: if without_description > 0 {
            format!(
                "{without_description} of {read} posts have no description: their first paragraph stands in"
            )
        } else {
            format!("all {read} posts have a description")
        },
    };
    let tags_as_written = match written_tag {
        Some(tag) => Why {
            value: true,
            why: format!("tags are written as words (\"{tag}\"); each gets a URL slug"),
        },
        None if tag_count == 0 => Why {
            value: false,
            why: "no post has tags".to_string(),
        },
        None => Why {
            value: false,
            why: format!("all {tag_count} tags are already slugs"),
        },
    };
    let mut undecided = Vec::new();
    if !unreadable.is_empty() {
        let shown: Vec<&str> = unreadable.iter().take(3).copied().collect();
        undecided.push(format!(
            "{} posts have no front matter it could read (first: {}): their keys were not counted",
            unreadable.len(),
            shown.join(", ")
        ));
    }
    Report {
        read,
        cjk_titles,
        keys,
        description_from_body,
        tags_as_written,
        drafts,
        undecided,
    }
}

/// Whether a value under one of a field's keys is that field: `published` is a date in some
/// themes (Fuwari) and the inverse of `draft` in others; `cover` is an image or a table of one.
fn fits(field: &str, value: &Value) -> bool {
    match field {
        "published" | "draft" => matches!(value, Value::Bool(_)),
        "date" | "image" => !matches!(value, Value::Bool(_) | Value::Map(_)),
        _ => true,
    }
}

/// A file's front matter as a map, `None` when it has none or it does not parse.
fn parse(path: &str, text: &str) -> Option<Value> {
    let found = split(path, text).ok()?;
    let inside = &text[found.yaml];
    let front = match found.format {
        Format::Yaml => value::yaml(inside)?,
        Format::Toml => value::toml(inside)?,
    };
    matches!(front, Value::Map(_)).then_some(front)
}
