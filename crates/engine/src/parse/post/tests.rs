//! The post parser's tests: each front-matter field's spellings, aliases and errors, the
//! sites' own layouts, and the bounds on tags.

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
    let draft = |front: &str| meta(&parse_own(&format!("---\n{HEAD}{front}---\n"), &reading)).draft;
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
    let text = "---\ntitle: Hello\nsummary: s\npublishDate: 2024-05-02\ndate: 2024-05-03\n---\n";
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
    let post =
        parse("---\ntitle: Hello\ndescription: d\npubDate: 2024-05-01\ntags: [a, a]\n---\nBody\n");
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
