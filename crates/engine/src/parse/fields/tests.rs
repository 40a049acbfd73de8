//! The typed front-matter readers' tests: the same fields from YAML and TOML, and each type
//! error located with its fix.

use super::*;
use crate::parse::frontmatter::split;

fn with_front<T>(yaml: &str, f: impl FnOnce(&mut FrontMatter<'_>) -> T) -> (T, Vec<Diagnostic>) {
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
