//! Blog posts: `blog/{lang}/YYYY-MM-DD_<slug>.md|.mdx`.

use super::fields::FrontMatter;
use super::keys::unknown_keys_near;
use super::summary;
use super::{Parsed, frontmatter, path_name, text_or_failure};
use crate::config::{KEY_FIELDS, KeyAliases};
use crate::content::{FileRole, PostName};
use crate::db::{Globals, SourceFile};
use crate::diag::{Diagnostic, Location};
use crate::model::{Lang, PostMeta, Timestamp, is_valid_slug, slugify};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A parsed post, plus where its `series` value is (for the cross-file "unknown series" check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedPost {
    /// Shared with [`post_meta`]'s memo: the two queries hold one copy of every post's fields.
    pub parsed: Parsed<Arc<PostMeta>>,
    pub series_location: Option<Location>,
    /// Where `tags` is, for the checks that need the taxonomy.
    pub tags_location: Option<Location>,
    /// The description is the body's first paragraph (`description_from_body`): the build
    /// says so once for the site.
    pub description_from_body: bool,
    /// A relative hero image (`./cover.png`) in a site's own layout was dropped: the build
    /// says so once for the site.
    pub relative_image: bool,
    /// Each tag's text as written, by its slug (`tags_as_written`; empty otherwise): the tag's
    /// display name where no tag file gives one.
    pub tag_texts: Vec<(Arc<str>, Arc<str>)>,
    /// The series' name as written, in a site without series files (`PostReading::
    /// series_unfiled`): the series' title.
    pub series_text: Option<Arc<str>>,
    /// The series value was a list of more than one: only the first is used (the build says so
    /// once for the site).
    pub series_more: bool,
    /// The key that links the post's translations (`[front_matter.keys] translation_key`,
    /// Hugo's `translationKey`): a translation takes the default language's slug.
    pub translation_key: Option<Arc<str>>,
}

/// Parses a post file: its value, its diagnostics, and what the site-wide checks need of it.
#[salsa::tracked(returns(ref))]
pub fn parse_post(db: &dyn salsa::Database, file: SourceFile) -> ParsedPost {
    let FileRole::Post { lang, name } = file.role(db) else {
        unreachable!("parse_post is only called on post files")
    };
    match text_or_failure(db, file) {
        Ok(text) => {
            parse_post_text_with(file.path(db).as_str(), *lang, name, text, post_reading(db))
        }
        Err(parsed) => ParsedPost {
            parsed,
            series_location: None,
            tags_location: None,
            description_from_body: false,
            relative_image: false,
            tag_texts: Vec::new(),
            series_text: None,
            series_more: false,
            translation_key: None,
        },
    }
}

/// The settings that change how a post is read, alone: other settings changing re-parses no
/// post.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PostReading {
    /// The keys a post's fields are read from (`[front_matter.keys]`).
    pub keys: KeyAliases,
    /// A post without a description gets its body's first paragraph (`description_from_body`).
    pub description_from_body: bool,
    /// Tags and categories are texts, published under their slugs (`tags_as_written`).
    pub tags_as_written: bool,
    /// The site's layout has no series folder: a post names its series by text or list
    /// ([`FrontMatter::series_name`]), and the series exists through its chapters alone.
    pub series_unfiled: bool,
}

/// The site's front-matter settings as the post parser reads them: the key aliases, and how
/// tags, series and descriptions are written.
#[salsa::tracked(returns(ref))]
pub fn post_reading(db: &dyn salsa::Database) -> PostReading {
    let rules = &Globals::get(db).config(db).front_matter;
    PostReading {
        keys: rules.keys.clone(),
        description_from_body: rules.description_from_body,
        tags_as_written: rules.tags_as_written,
        series_unfiled: Globals::get(db).config(db).layout.series().is_none(),
    }
}

/// The post without positions: what every index depends on. Equal across body-only edits.
/// A translation linked by its key (`translation_key`) to a post of the default language takes
/// that post's slug, so every version is published under one slug, as the contract's are; its
/// id stays its own (the indexes hold ids, and no other file's edit changes one).
#[salsa::tracked(returns(ref))]
pub fn post_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<PostMeta>> {
    let parsed = parse_post(db, file);
    let meta = parsed.parsed.value.clone()?;
    let adopted = parsed
        .translation_key
        .as_ref()
        .filter(|_| meta.lang != Globals::get(db).config(db).languages.default_lang())
        .and_then(|key| translation_slugs(db).get(key))
        .filter(|slug| **slug != meta.slug);
    match adopted {
        Some(slug) => Some(Arc::new(PostMeta {
            slug: slug.clone(),
            ..(*meta).clone()
        })),
        None => Some(meta),
    }
}

/// A default-language post's translation key and slug, alone: equal across every other edit.
#[salsa::tracked(returns(ref))]
fn post_translation(db: &dyn salsa::Database, file: SourceFile) -> Option<(Arc<str>, Arc<str>)> {
    let parsed = parse_post(db, file);
    let meta = parsed.parsed.value.as_ref()?;
    Some((parsed.translation_key.clone()?, meta.slug.clone()))
}

/// The default language's slug of each translation key (the first post in path order that
/// names it). Empty unless the site reads translation keys.
#[salsa::tracked(returns(ref))]
pub fn translation_slugs(db: &dyn salsa::Database) -> BTreeMap<Arc<str>, Arc<str>> {
    let mut slugs = BTreeMap::new();
    if post_reading(db).keys.of("translation_key").is_empty() {
        return slugs;
    }
    let site = Globals::get(db);
    let default = site.config(db).languages.default_lang();
    for tree in site
        .trees(db)
        .iter()
        .filter(|tree| tree.lang(db) == default)
    {
        for &file in tree.posts(db).iter() {
            if let Some((key, slug)) = post_translation(db, file) {
                slugs.entry(key.clone()).or_insert_with(|| slug.clone());
            }
        }
    }
    slugs
}

/// Every key a post's front matter may hold: those the API reads, then those the format
/// accepts for the site's own pages.
pub const POST_KEYS: &[&str] = &[
    "title",
    "description",
    "pubDate",
    "tags",
    "heroImage",
    "series",
    "seriesOrder",
    "draft",
    "updatedDate",
    "heroLayout",
    "keywords",
    "relatedSlide",
    "author",
];

/// The most tags a post may name. Each tag's timeline lists the post with every one of its tags,
/// so a post's share of the output grows with the square of its tag count: the bound keeps the
/// output linear in the input (a real site's posts name six at most).
pub const MAX_TAGS_PER_POST: usize = 64;

/// Parses the text of the post at `path` (pure: tests and the watcher's pre-check call it).
pub fn parse_post_text(path: &str, lang: Lang, stem: &str, text: &str) -> ParsedPost {
    parse_post_text_with(
        path,
        lang,
        &PostName::seed(stem),
        text,
        &PostReading::default(),
    )
}

/// [`parse_post_text`] with the site's keys for the fields (`[front_matter.keys]`).
pub fn parse_post_text_with(
    path: &str,
    lang: Lang,
    path_parts: &PostName,
    text: &str,
    reading: &PostReading,
) -> ParsedPost {
    let keys = &reading.keys;
    let split = match frontmatter::split(path, text) {
        Ok(split) => split,
        Err(diagnostic) => {
            return ParsedPost {
                parsed: Parsed::failed(diagnostic),
                series_location: None,
                tags_location: None,
                description_from_body: false,
                relative_image: false,
                tag_texts: Vec::new(),
                series_text: None,
                series_more: false,
                translation_key: None,
            };
        }
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let name = path_name(path, path_parts);
    let key = |field| keys.pick(field, |key| front.has(key));
    let (title_key, description_key, date_key) = (key("title"), key("description"), key("date"));
    // Optional fields: read from the first of their keys present, if any.
    let present = |field| keys.present(field, |key| front.has(key));
    let (tags_key, draft_key) = (present("tags"), present("draft"));
    let categories_key = present("categories");
    let title = front.required_string(title_key);
    let from_body = (reading.description_from_body && !front.has(description_key))
        .then(|| summary::from_body(&text[split.body_start..]))
        .flatten();
    let description_from_body = from_body.is_some();
    let description = match from_body {
        Some(description) => Some(description),
        // A link post (Hugo Coder's `externalLink`) has no paragraph: empty, and said so.
        None if reading.description_from_body && !front.has(description_key) => {
            front.push(
                Diagnostic::warning(
                    path,
                    "no description, and no paragraph in the body to take one from: its description is empty",
                )
                .help(format!("write a `{description_key}`, or a first paragraph")),
            );
            Some(String::new())
        }
        None => front.required_string(description_key),
    };
    // A site's own layout may date a post by its path alone (`2024-05-01-x.md`, `2024/05/01/`).
    let path_date = name.as_ref().ok().and_then(|(date, _)| *date);
    let dated_by_path = !path_parts.strict && path_date.is_some() && !front.has(date_key);
    let pub_date = match path_date {
        Some(date) if dated_by_path => Some(Timestamp::from_date(date)),
        _ => front.timestamp(date_key, true),
    };
    let tag_keys: Vec<&str> = tags_key.into_iter().chain(categories_key).collect();
    let (tags, tag_texts) = read_tags(
        &mut front,
        &tag_keys,
        reading.tags_as_written,
        !path_parts.strict,
    );
    let (hero_image, relative_image) = read_image(&mut front, keys, path_parts.strict);
    let series_key = keys.present("series", |key| front.has(key));
    let order_key = keys.present("series_order", |key| front.has(key));
    let (series, series_text, series_more) = match series_key {
        Some(key) if reading.series_unfiled => {
            match front.series_name(key, reading.tags_as_written) {
                Some(named) => (Some(named.slug), Some(named.text), named.more),
                None => (None, None, false),
            }
        }
        Some(key) => (front.slug(key), None, false),
        None => (None, None, false),
    };
    let series_order = order_key.and_then(|key| front.integer(key));
    let translation_key = keys
        .present("translation_key", |key| front.has(key))
        .and_then(|key| front.string(key))
        .map(Arc::from);
    // `draft` wins over `published`; a `published` that is not a boolean (a date, as Fuwari
    // writes it) is no draft flag.
    let published = keys
        .present("published", |key| front.has(key))
        .and_then(|key| front.if_boolean(key));
    let draft = path_parts.draft
        || if draft_key.is_some() || published.is_none() {
            draft_key
                .and_then(|key| front.boolean(key))
                .unwrap_or(false)
        } else {
            published == Some(false)
        };
    if let (Some(order_key), None) = (order_key, series_key) {
        let series = keys.pick("series", |_| false);
        front.warn(
            order_key,
            format!("`{order_key}` has no effect without `{series}`"),
            &format!("add `{series}: <name>` or remove `{order_key}`"),
        );
    }
    let series_location = series_key.map(|key| front.location(key));
    let tags_location = tag_keys.first().map(|key| front.location(key));
    let name = match keys.present("slug", |key| front.has(key)) {
        Some(key) => match (name, front_slug(&mut front, key)) {
            (Ok((date, _)), Some(slug)) => Ok((date, slug)),
            (name, _) => name,
        },
        None => name,
    };
    let (slug, name_error) = match name {
        Ok((_, slug)) => (Some(slug), None),
        Err(diagnostic) => (None, Some(diagnostic)),
    };
    // The contract's id is `<lang>/<YYYY-MM-DD>_<slug>`: the path's date, else the post's.
    let id = |slug: &str, pub_date: Timestamp| {
        let date = path_date.unwrap_or_else(|| pub_date.utc_date());
        Arc::from(format!("{lang}/{}_{slug}", date.format("%Y-%m-%d")))
    };
    let site_keys: Vec<&str> = KEY_FIELDS
        .iter()
        .flat_map(|(field, _)| keys.of(field))
        .map(String::as_str)
        .collect();
    let unknown_keys = unknown_keys_near(&front, POST_KEYS, &site_keys, |key| keys.is_key(key));
    let mut diagnostics = std::mem::take(&mut front.diagnostics);
    diagnostics.extend(name_error);
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let value = match (has_errors, slug, title, description, pub_date) {
        (false, Some(slug), Some(title), Some(description), Some(pub_date)) => {
            Some(Arc::new(PostMeta {
                id: id(&slug, pub_date),
                slug,
                lang,
                title,
                description,
                pub_date,
                tags,
                hero_image,
                series,
                series_order,
                draft,
            }))
        }
        _ => None,
    };
    ParsedPost {
        parsed: Parsed {
            value,
            diagnostics,
            body_start: split.body_start,
            unknown_keys,
        },
        series_location,
        tags_location,
        description_from_body,
        relative_image,
        tag_texts,
        series_text,
        series_more,
        translation_key,
    }
}

/// The post's tags, then its categories (`keys`: the keys present of `tags` and `categories`),
/// without repeats: slugs as written, or, with `tags_as_written`, the texts' slugs (and the
/// texts, for display names).
#[allow(clippy::type_complexity)]
fn read_tags(
    front: &mut FrontMatter<'_>,
    keys: &[&str],
    as_written: bool,
    one_string: bool,
) -> (Vec<Arc<str>>, Vec<(Arc<str>, Arc<str>)>) {
    // Counted as written, repeats included: a list of thousands of copies of one tag is refused
    // before each item is checked (and each repeat reported).
    let listed: usize = keys
        .iter()
        .map(|key| front.list_len(key).unwrap_or(0))
        .sum();
    if let Some(first) = keys.first()
        && listed > MAX_TAGS_PER_POST
    {
        front.error_at(
            first,
            format!("a post names at most {MAX_TAGS_PER_POST} tags; this one names {listed}"),
            "keep the tags a reader would look for: each tag's timeline lists the post with all of its tags, so the output grows with the square of a post's tags",
        );
        return (Vec::new(), Vec::new());
    }
    let mut texts = Vec::new();
    let mut tags = Vec::new();
    for &key in keys {
        if as_written {
            for (slug, text) in front.written_list(key) {
                if !tags.contains(&slug) {
                    tags.push(slug.clone());
                    texts.push((slug, text));
                }
            }
        } else if one_string && front.is_string(key) {
            // `category: release` (Jekyll): one name alone, in a site's own layout.
            if let Some(slug) = front.slug(key)
                && !tags.contains(&slug)
            {
                tags.push(slug);
            }
        } else {
            for slug in front.slug_list(key) {
                if !tags.contains(&slug) {
                    tags.push(slug);
                }
            }
        }
    }
    (tags, texts)
}

/// The hero image (`image`'s keys) and whether a relative one was dropped: site-absolute paths
/// and http(s) URLs are kept; a relative path is an error in the seed's (strict) layout, and is
/// dropped in a site's own (the build says so once for the site).
fn read_image(
    front: &mut FrontMatter<'_>,
    keys: &KeyAliases,
    strict: bool,
) -> (Option<String>, bool) {
    let Some(key) = keys.present("image", |key| front.has(key)) else {
        return (None, false);
    };
    let Some(value) = front.image(key) else {
        return (None, false);
    };
    if value.starts_with('/') || value.starts_with("https://") || value.starts_with("http://") {
        (Some(value), false)
    } else if strict {
        front.invalid(
            key,
            format!("`{key}` must be a site-absolute path or a URL, found `{value}`"),
            "expected a path starting with `/`",
            "write the path from the site root, for example /images/blog/my-post/hero.webp",
        );
        (None, false)
    } else {
        (None, true)
    }
}

/// The slug a post's front matter gives (`slug`'s keys): its last `/` part, made a slug when it
/// is not one (`My Post` → `my-post`); an error when nothing of it can be.
fn front_slug(front: &mut FrontMatter<'_>, key: &str) -> Option<Arc<str>> {
    let value = front.string(key)?;
    let last = value
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if is_valid_slug(last) {
        return Some(last.into());
    }
    match slugify(last) {
        Some(slug) => Some(slug.into()),
        None => {
            front.invalid(
                key,
                format!("`{key}` has nothing to make a slug of: `{value}`"),
                "expected a name such as my-post",
                "write the slug with letters or digits, or remove it to use the file's name",
            );
            None
        }
    }
}

#[cfg(test)]
mod tests;
