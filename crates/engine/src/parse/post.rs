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
mod tests {
    use super::*;

    fn parse(text: &str) -> ParsedPost {
        parse_post_text(
            "blog/en/2024-05-01_hello.md",
            Lang::EN,
            "2024-05-01_hello",
            text,
        )
    }

    fn aliased() -> PostReading {
        let mut keys = KeyAliases::default();
        let list = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect();
        assert!(keys.set("date", list(&["pubDate", "date", "publishDate"])));
        assert!(keys.set("description", list(&["description", "summary"])));
        PostReading {
            keys,
            ..PostReading::default()
        }
    }

    fn parse_with(text: &str, keys: &PostReading) -> ParsedPost {
        parse_post_text_with(
            "blog/en/2024-05-01_hello.md",
            Lang::EN,
            &PostName::seed("2024-05-01_hello"),
            text,
            keys,
        )
    }

    fn own_site(set: &[(&str, &[&str])], as_written: bool) -> PostReading {
        let mut keys = KeyAliases::default();
        for (field, list) in set {
            assert!(keys.set(field, list.iter().map(|k| k.to_string()).collect()));
        }
        PostReading {
            keys,
            tags_as_written: as_written,
            ..PostReading::default()
        }
    }

    /// A post of a site's own (non-strict) layout: `posts/{slug}`.
    fn parse_own(text: &str, reading: &PostReading) -> ParsedPost {
        let name = PostName {
            key: "posts/hello".into(),
            stem: "hello".into(),
            date: None,
            slug: "hello".into(),
            shape: crate::content::NameShape::Slug,
            strict: false,
            draft: false,
        };
        parse_post_text_with("posts/hello.md", Lang::EN, &name, text, reading)
    }

    const HEAD: &str = "title: Hello\ndescription: d\npubDate: 2024-05-01\n";

    fn meta(parsed: &ParsedPost) -> Arc<PostMeta> {
        assert!(
            !parsed.parsed.diagnostics.iter().any(|d| d.is_error()),
            "{:?}",
            parsed.parsed.diagnostics
        );
        parsed.parsed.value.clone().unwrap()
    }

    #[test]
    fn an_image_is_a_string_a_mappings_src_url_or_path_or_a_lists_first_item() {
        let reading = own_site(&[("image", &["image", "images", "cover"])], false);
        for (front, want) in [
            ("image: /a.png\n", Some("/a.png")),
            ("image: {src: /b.png, url: /x.png}\n", Some("/b.png")),
            (
                "image: {url: 'https://e.com/c.png'}\n",
                Some("https://e.com/c.png"),
            ),
            ("cover:\n  path: /d.png\n", Some("/d.png")),
            ("images: [/e.png, /f.png]\n", Some("/e.png")),
            ("images: [{src: /g.png}]\n", Some("/g.png")),
            ("images: []\n", None),
        ] {
            let post = meta(&parse_own(&format!("---\n{HEAD}{front}---\n"), &reading));
            assert_eq!(post.hero_image.as_deref(), want, "{front}");
        }
        let bad = parse_own(&format!("---\n{HEAD}image: {{alt: x}}\n---\n"), &reading);
        assert!(
            bad.parsed.diagnostics[0]
                .message
                .contains("must be a string or a mapping")
        );
    }

    #[test]
    fn a_relative_image_is_dropped_in_a_sites_own_layout_and_an_error_in_the_seeds() {
        let reading = own_site(&[("image", &["image"])], false);
        for image in ["./cover.png", "cover.png", "{src: ./cover.png}"] {
            let parsed = parse_own(&format!("---\n{HEAD}image: {image}\n---\n"), &reading);
            assert!(parsed.relative_image, "{image}");
            assert!(parsed.parsed.diagnostics.is_empty(), "{image}");
            assert_eq!(meta(&parsed).hero_image, None);
        }
        let kept = parse_own(&format!("---\n{HEAD}image: /cover.png\n---\n"), &reading);
        assert!(!kept.relative_image);
        let seed = parse(&format!("---\n{HEAD}heroImage: ./cover.png\n---\n"));
        assert!(!seed.relative_image);
        assert!(seed.parsed.diagnostics[0].message.contains("site-absolute"));
    }

    #[test]
    fn a_front_matter_slug_overrides_the_paths_and_the_id_uses_it() {
        let reading = own_site(&[("slug", &["slug"])], false);
        for (slug, want) in [
            ("my-post", "my-post"),
            ("My Post", "my-post"),
            ("/blog/2024/my-post/", "my-post"),
        ] {
            let post = meta(&parse_own(
                &format!("---\n{HEAD}slug: {slug}\n---\n"),
                &reading,
            ));
            assert_eq!(&*post.slug, want, "{slug}");
            assert_eq!(&*post.id, format!("en/2024-05-01_{want}"));
        }
        let plain = meta(&parse_own(&format!("---\n{HEAD}---\n"), &reading));
        assert_eq!(&*plain.slug, "hello");
        let bad = parse_own(&format!("---\n{HEAD}slug: '!!'\n---\n"), &reading);
        assert!(bad.parsed.value.is_none());
    }

    #[test]
    fn published_false_is_a_draft_draft_wins_and_a_published_date_is_no_flag() {
        let reading = own_site(&[("published", &["published"])], false);
        let draft =
            |front: &str| meta(&parse_own(&format!("---\n{HEAD}{front}---\n"), &reading)).draft;
        assert!(draft("published: false\n"));
        assert!(!draft("published: true\n"));
        assert!(!draft("published: true\ndraft: false\n"));
        assert!(draft("published: true\ndraft: true\n"));
        assert!(!draft("published: false\ndraft: false\n"));
        // Fuwari's `published` is a date: no draft flag, and no error.
        let parsed = parse_own(
            &format!("---\n{HEAD}published: 2024-04-10\n---\n"),
            &reading,
        );
        assert!(parsed.parsed.diagnostics.is_empty());
        assert!(!meta(&parsed).draft);
        let dated = own_site(
            &[("published", &["published"]), ("date", &["published"])],
            false,
        );
        let post = meta(&parse_own(
            "---\ntitle: a\ndescription: b\npublished: 2024-04-10\n---\n",
            &dated,
        ));
        assert!(!post.draft);
        assert_eq!(post.pub_date.to_string(), "2024-04-10T00:00:00.000Z");
    }

    #[test]
    fn categories_follow_the_tags_without_repeats() {
        let reading = own_site(&[("categories", &["categories", "category"])], false);
        let post = meta(&parse_own(
            &format!("---\n{HEAD}tags: [rust, web]\ncategories: [web, release]\n---\n"),
            &reading,
        ));
        let tags: Vec<&str> = post.tags.iter().map(|t| &**t).collect();
        assert_eq!(tags, ["rust", "web", "release"]);
        // One string is one item in a site's own layout, as written or not; the seed's rule is
        // a list.
        for as_written in [true, false] {
            let one = own_site(&[("categories", &["category"])], as_written);
            let post = meta(&parse_own(
                &format!("---\n{HEAD}tags: web\ncategory: release\n---\n"),
                &one,
            ));
            let tags: Vec<&str> = post.tags.iter().map(|t| &**t).collect();
            assert_eq!(tags, ["web", "release"]);
        }
        let seed = parse_with(
            "---\ntitle: T\ndescription: D\npubDate: 2024-05-01\ntags: web\n---\n",
            &PostReading::default(),
        );
        assert!(
            seed.parsed.diagnostics[0]
                .message
                .contains("must be a list")
        );
    }

    #[test]
    fn a_near_miss_of_the_sites_own_key_is_named() {
        let reading = own_site(
            &[
                ("translation_key", &["translationKey"]),
                ("date", &["date"]),
            ],
            false,
        );
        let parsed = parse_own(
            "---\ntitle: T\ndescription: D\ndate: 2024-05-01\ntranslationKy: x\n---\n",
            &reading,
        );
        let near: Vec<_> = parsed
            .parsed
            .unknown_keys
            .iter()
            .map(|key| (key.key.as_str(), key.near.as_deref()))
            .collect();
        assert_eq!(near, [("translationKy", Some("translationKey"))]);
    }

    #[test]
    fn series_and_its_order_read_from_their_aliases() {
        let reading = own_site(&[("series_order", &["seriesOrder", "weight"])], false);
        let post = meta(&parse_own(
            &format!("---\n{HEAD}series: intro\nweight: 3\n---\n"),
            &reading,
        ));
        assert_eq!(
            (post.series.as_deref(), post.series_order),
            (Some("intro"), Some(3))
        );
        let lone = parse_own(&format!("---\n{HEAD}weight: 3\n---\n"), &reading);
        assert_eq!(
            lone.parsed.diagnostics[0].message,
            "`weight` has no effect without `series`"
        );
    }

    #[test]
    fn without_series_files_a_series_is_named_by_its_text_or_a_lists_first_item() {
        let mut reading = own_site(&[("series_order", &["seriesOrder", "weight"])], true);
        reading.series_unfiled = true;
        let parsed = parse_own(
            &format!("---\n{HEAD}series: \"Learning Rust\"\nweight: 2\n---\n"),
            &reading,
        );
        let post = meta(&parsed);
        assert_eq!(
            (post.series.as_deref(), post.series_order),
            (Some("learning-rust"), Some(2))
        );
        assert_eq!(parsed.series_text.as_deref(), Some("Learning Rust"));
        assert!(!parsed.series_more);
        let parsed = parse_own(
            &format!(
                "+++\n{}series = [\"Theme Demo\", \"Other\"]\n+++\n",
                HEAD_TOML
            ),
            &reading,
        );
        assert_eq!(meta(&parsed).series.as_deref(), Some("theme-demo"));
        assert_eq!(parsed.series_text.as_deref(), Some("Theme Demo"));
        assert!(parsed.series_more);
        // Without `tags_as_written`, the name is a slug, in a list or not.
        reading.tags_as_written = false;
        let parsed = parse_own(&format!("---\n{HEAD}series: [intro]\n---\n"), &reading);
        assert_eq!(meta(&parsed).series.as_deref(), Some("intro"));
        let parsed = parse_own(
            &format!("---\n{HEAD}series: Learning Rust\n---\n"),
            &reading,
        );
        assert_eq!(
            parsed.parsed.diagnostics[0].message,
            "`series` is not a valid name: `Learning Rust`"
        );
        // With a series folder, a list is an error, as it always was.
        reading.series_unfiled = false;
        let parsed = parse_own(&format!("---\n{HEAD}series: [intro]\n---\n"), &reading);
        assert!(parsed.parsed.value.is_none());
        assert!(parsed.series_text.is_none());
    }

    const HEAD_TOML: &str = "title = \"Hello\"\ndescription = \"d\"\npubDate = 2024-05-01\n";

    #[test]
    fn dotted_keys_read_nested_tables_in_yaml_and_toml_and_a_literal_dotted_key_wins() {
        let reading = own_site(
            &[
                ("tags", &["tags", "taxonomies.tags"]),
                ("image", &["extra.cover"]),
                ("date", &["date"]),
            ],
            false,
        );
        let toml = "+++\ntitle = \"Hello\"\ndescription = \"d\"\ndate = 2024-05-01\n[taxonomies]\ntags = [\"rust\", \"web\"]\n[extra]\ncover = \"/c.png\"\n+++\n";
        let yaml = "---\ntitle: Hello\ndescription: d\ndate: 2024-05-01\ntaxonomies:\n  tags: [rust, web]\nextra: {cover: /c.png}\n---\n";
        for text in [toml, yaml] {
            let parsed = parse_own(text, &reading);
            assert!(parsed.parsed.unknown_keys.is_empty(), "{text}");
            let post = meta(&parsed);
            let tags: Vec<&str> = post.tags.iter().map(|t| &**t).collect();
            assert_eq!(tags, ["rust", "web"], "{text}");
            assert_eq!(post.hero_image.as_deref(), Some("/c.png"));
        }
        let literal = "---\ntitle: Hello\ndescription: d\ndate: 2024-05-01\nextra.cover: /literal.png\nextra: {cover: /nested.png}\n---\n";
        let post = meta(&parse_own(literal, &reading));
        assert_eq!(post.hero_image.as_deref(), Some("/literal.png"));
    }

    #[test]
    fn tags_as_written_are_published_under_their_slugs_without_errors() {
        let reading = own_site(&[("categories", &["categories"])], true);
        let parsed = parse_own(
            &format!(
                "---\n{HEAD}tags: [Web App, 指南, 'python:hypothesis', web-app, Preguntas Frecuentes]\ncategories: WEB APP\n---\n"
            ),
            &reading,
        );
        let post = meta(&parsed);
        assert!(
            parsed.parsed.diagnostics.is_empty(),
            "{:?}",
            parsed.parsed.diagnostics
        );
        let tags: Vec<&str> = post.tags.iter().map(|t| &**t).collect();
        assert_eq!(
            tags,
            [
                "web-app",
                "zhi-nan",
                "python-hypothesis",
                "preguntas-frecuentes"
            ]
        );
        let texts: Vec<&str> = parsed.tag_texts.iter().map(|(_, t)| &**t).collect();
        assert_eq!(
            texts,
            [
                "Web App",
                "指南",
                "python:hypothesis",
                "Preguntas Frecuentes"
            ]
        );
        // Off (the seed), the same tags are errors.
        let seed = parse_own(
            &format!("---\n{HEAD}tags: [Web App]\n---\n"),
            &own_site(&[], false),
        );
        assert!(seed.parsed.value.is_none());
        let nothing = parse_own(&format!("---\n{HEAD}tags: ['!?']\n---\n"), &reading);
        assert!(
            nothing.parsed.diagnostics[0]
                .message
                .contains("no letter or digit")
        );
    }

    #[test]
    fn aliased_keys_are_read_the_first_present_winning_and_are_known_keys() {
        let text =
            "---\ntitle: Hello\nsummary: s\npublishDate: 2024-05-02\ndate: 2024-05-03\n---\n";
        let parsed = parse_with(text, &aliased());
        assert!(
            parsed.parsed.diagnostics.is_empty(),
            "{:?}",
            parsed.parsed.diagnostics
        );
        assert!(parsed.parsed.unknown_keys.is_empty());
        let post = parsed.parsed.value.unwrap();
        assert_eq!(&*post.description, "s");
        assert_eq!(post.pub_date.to_string(), "2024-05-03T00:00:00.000Z");
        // Without the aliases, the same file misses its fields and has unknown keys.
        let plain = parse(text);
        assert!(plain.parsed.value.is_none());
        let keys: Vec<_> = plain
            .parsed
            .unknown_keys
            .iter()
            .map(|k| k.key.as_str())
            .collect();
        assert_eq!(keys, ["summary", "publishDate", "date"]);
    }

    #[test]
    fn a_missing_aliased_field_names_its_first_key_and_a_bad_alias_value_is_located() {
        let parsed = parse_with("---\ntitle: Hello\ndescription: d\n---\n", &aliased());
        let messages: Vec<_> = parsed
            .parsed
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(messages, ["missing required field `pubDate`"]);
        let parsed = parse_with(
            "---\ntitle: Hello\ndescription: d\npublishDate: someday\n---\n",
            &aliased(),
        );
        let error = &parsed.parsed.diagnostics[0];
        assert_eq!(
            error.message,
            "`publishDate` is not a valid date: `someday`"
        );
        assert_eq!(error.location.as_ref().unwrap().line, 4);
    }

    #[test]
    fn a_missing_description_comes_from_the_body_only_when_the_site_says_so() {
        let text = "---\ntitle: Hello\npubDate: 2024-05-01\n---\n\n# Hi\n\nThe *first* [paragraph](x).\n\nMore.\n";
        let plain = parse(text);
        assert!(plain.parsed.value.is_none());
        assert!(!plain.description_from_body);
        let reading = PostReading {
            description_from_body: true,
            ..PostReading::default()
        };
        let parsed = parse_with(text, &reading);
        assert!(parsed.description_from_body);
        let post = parsed.parsed.value.unwrap();
        assert_eq!(&*post.description, "The first paragraph.");
        // A description written, even empty, is the author's: no substitute.
        let written = parse_with(
            &text.replace("pubDate", "description: mine\npubDate"),
            &reading,
        );
        assert!(!written.description_from_body);
        assert_eq!(&*written.parsed.value.unwrap().description, "mine");
        let empty = parse_with(
            &text.replace("pubDate", "description: \"\"\npubDate"),
            &reading,
        );
        assert!(empty.parsed.value.is_none());
        // No paragraph to take (a link post): empty, with a warning at the file.
        let bodiless = parse_with(
            "---\ntitle: Hello\npubDate: 2024-05-01\n---\n# Hi\n",
            &reading,
        );
        let messages: Vec<_> = bodiless
            .parsed
            .diagnostics
            .iter()
            .map(|d| (d.is_error(), d.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [(
                false,
                "no description, and no paragraph in the body to take one from: its description is empty"
            )]
        );
        assert_eq!(&*bodiless.parsed.value.unwrap().description, "");
    }

    #[test]
    fn a_post_with_more_tags_than_the_bound_is_an_error_at_its_tags() {
        let tags: Vec<String> = (0..=MAX_TAGS_PER_POST).map(|i| format!("t{i}")).collect();
        let text = format!(
            "---\ntitle: Hello\ndescription: d\npubDate: 2024-05-01\ntags: [{}]\n---\nBody\n",
            tags.join(", ")
        );
        let parsed = parse_post_text(
            "blog/en/2024-05-01_hello.md",
            Lang::EN,
            "2024-05-01_hello",
            &text,
        );
        let error = parsed
            .parsed
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .expect("an error");
        assert!(
            error.message.contains("at most 64 tags; this one names 65"),
            "{}",
            error.message
        );
        assert_eq!(error.location.as_ref().unwrap().line, 5);
        assert!(parsed.parsed.value.is_none());
    }

    #[test]
    fn repeats_of_one_tag_count_toward_the_bound_and_are_refused_at_once() {
        let text = format!(
            "---\ntitle: Hello\ndescription: d\npubDate: 2024-05-01\ntags: [{}]\n---\nBody\n",
            vec!["welcome"; 20_000].join(", ")
        );
        let parsed = parse_post_text(
            "blog/en/2024-05-01_hello.md",
            Lang::EN,
            "2024-05-01_hello",
            &text,
        );
        let diagnostics = &parsed.parsed.diagnostics;
        assert_eq!(diagnostics.len(), 1, "one error, no warning per repeat");
        assert!(
            diagnostics[0]
                .message
                .contains("at most 64 tags; this one names 20000"),
            "{}",
            diagnostics[0].message
        );
        assert!(parsed.parsed.value.is_none());
        // Within the bound a repeat is still a warning, and the tag is kept once.
        let post = parse(
            "---\ntitle: Hello\ndescription: d\npubDate: 2024-05-01\ntags: [a, a]\n---\nBody\n",
        );
        assert_eq!(post.parsed.diagnostics.len(), 1);
        assert_eq!(post.parsed.value.unwrap().tags.len(), 1);
    }

    #[test]
    fn a_complete_post_parses() {
        let post = parse(
            "---\ntitle: Hello\ndescription: \"A first post\"\npubDate: '2024-05-01'\ntags: [tech, rust]\nheroImage: /images/hello.webp\nseries: intro\nseriesOrder: 2.0\ndraft: false\nkeywords: [\"ignored\"]\n---\nBody\n",
        );
        assert!(
            post.parsed.diagnostics.is_empty(),
            "{:?}",
            post.parsed.diagnostics
        );
        let meta = post.parsed.value.unwrap();
        assert_eq!(&*meta.id, "en/2024-05-01_hello");
        assert_eq!(&*meta.slug, "hello");
        assert_eq!(meta.series_order, Some(2));
        assert_eq!(meta.series.as_deref(), Some("intro"));
        assert_eq!(post.series_location.unwrap().line, 7);
    }

    #[test]
    fn errors_leave_no_value_and_are_all_reported() {
        let post = parse("---\ntitle: 3\npubDate: tomorrow\ndraft: \"true\"\n---\n");
        assert!(post.parsed.value.is_none());
        let messages: Vec<_> = post
            .parsed
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("`title` must be a string"));
        assert!(messages[1].contains("missing required field `description`"));
        assert!(messages[2].contains("`pubDate` is not a valid date"));
        assert!(messages[3].contains("`draft` must be true or false"));
    }

    #[test]
    fn an_empty_hero_means_none_and_a_relative_one_is_an_error() {
        for hero in ["\"\"", "\"  \"", "' '"] {
            let ok = parse(&format!(
                "---\ntitle: a\ndescription: b\npubDate: 2024-05-01\nheroImage: {hero}\n---\n"
            ));
            assert!(ok.parsed.diagnostics.is_empty(), "{hero}");
            assert_eq!(ok.parsed.value.unwrap().hero_image, None, "{hero}");
        }
        let bad =
            parse("---\ntitle: a\ndescription: b\npubDate: 2024-05-01\nheroImage: hero.png\n---\n");
        assert!(bad.parsed.diagnostics[0].message.contains("site-absolute"));
    }

    #[test]
    fn a_bad_file_name_is_an_error() {
        let post = parse_post_text(
            "blog/en/Hello World.md",
            Lang::EN,
            "Hello World",
            "---\ntitle: a\ndescription: b\npubDate: 2024-05-01\n---\n",
        );
        assert!(post.parsed.value.is_none());
        assert!(
            post.parsed.diagnostics[0]
                .message
                .contains("does not start with a date")
        );
    }
}
