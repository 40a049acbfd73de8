//! Blog posts: `blog/{lang}/YYYY-MM-DD_<slug>.md|.mdx`.

use super::fields::FrontMatter;
use super::keys::unknown_keys;
use super::summary;
use super::{Parsed, check_image, frontmatter, path_name, text_or_failure};
use crate::config::KeyAliases;
use crate::content::{FileRole, PostName};
use crate::db::{Site, SourceFile};
use crate::diag::Location;
use crate::model::{Lang, PostMeta, Timestamp};
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
}

#[salsa::tracked(returns(ref))]
pub fn post_reading(db: &dyn salsa::Database) -> PostReading {
    let rules = &Site::get(db).config(db).front_matter;
    PostReading {
        keys: rules.keys.clone(),
        description_from_body: rules.description_from_body,
    }
}

/// The post without positions: what every index depends on. Equal across body-only edits.
#[salsa::tracked(returns(ref))]
pub fn post_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<PostMeta>> {
    parse_post(db, file).parsed.value.clone()
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
            };
        }
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let name = path_name(path, path_parts);
    let key = |field| keys.pick(field, |key| front.has(key));
    let (title_key, description_key, date_key) = (key("title"), key("description"), key("date"));
    let (tags_key, draft_key) = (key("tags"), key("draft"));
    let title = front.required_string(title_key);
    let from_body = (reading.description_from_body && !front.has(description_key))
        .then(|| summary::from_body(&text[split.body_start..]))
        .flatten();
    let description_from_body = from_body.is_some();
    let description = match from_body {
        Some(description) => Some(description),
        None => front.required_string(description_key),
    };
    // A site's own layout may date a post by its path alone (`2024-05-01-x.md`, `2024/05/01/`).
    let path_date = name.as_ref().ok().and_then(|(date, _)| *date);
    let dated_by_path = !path_parts.strict && path_date.is_some() && !front.has(date_key);
    let pub_date = match path_date {
        Some(date) if dated_by_path => Some(Timestamp::from_date(date)),
        _ => front.timestamp(date_key, true),
    };
    // Counted as written, repeats included: a list of thousands of copies of one tag is refused
    // before each item is checked (and each repeat reported).
    let listed = front.list_len(tags_key).unwrap_or(0);
    let tags = if listed > MAX_TAGS_PER_POST {
        front.error_at(
            tags_key,
            format!("a post names at most {MAX_TAGS_PER_POST} tags; this one names {listed}"),
            "keep the tags a reader would look for: each tag's timeline lists the post with all of its tags, so the output grows with the square of a post's tags",
        );
        Vec::new()
    } else {
        front.slug_list(tags_key)
    };
    let hero_image = check_image(&mut front, "heroImage");
    let series = front.slug("series");
    let series_order = front.integer("seriesOrder");
    let draft = path_parts.draft || front.boolean(draft_key).unwrap_or(false);
    if series_order.is_some() && !front.has("series") {
        front.warn(
            "seriesOrder",
            "`seriesOrder` has no effect without `series`".into(),
            "add `series: <name>` or remove `seriesOrder`",
        );
    }
    let series_location = front.has("series").then(|| front.location("series"));
    let tags_location = front.has(tags_key).then(|| front.location(tags_key));
    let (slug, name_error) = match name {
        Ok((_, slug)) => (Some(slug), None),
        Err(diagnostic) => (None, Some(diagnostic)),
    };
    // The contract's id is `<lang>/<YYYY-MM-DD>_<slug>`: the path's date, else the post's.
    let id = |slug: &str, pub_date: Timestamp| {
        let date = path_date.unwrap_or_else(|| pub_date.utc_date());
        Arc::from(format!("{lang}/{}_{slug}", date.format("%Y-%m-%d")))
    };
    let unknown_keys = unknown_keys(&front, POST_KEYS, |key| keys.is_key(key));
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
            description_from_body: false,
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
        // No paragraph to take: still the missing-field error.
        let bodiless = parse_with(
            "---\ntitle: Hello\npubDate: 2024-05-01\n---\n# Hi\n",
            &reading,
        );
        let messages: Vec<_> = bodiless
            .parsed
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(messages, ["missing required field `description`"]);
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
