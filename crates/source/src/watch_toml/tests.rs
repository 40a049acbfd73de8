//! `watch.toml`'s keys, defaults and located errors, parsed from text.

use super::*;
use crate::config::DEFAULT_BASE_URL;

#[test]
fn front_matter_keys_default_to_the_formats_and_may_be_aliased() {
    let config = parse("watch.toml", "", Utf8Path::new("site")).unwrap();
    let keys = &config.front_matter.keys;
    assert_eq!(keys.of("date"), ["pubDate"]);
    assert_eq!(keys.pick("description", |_| false), "description");
    let text = "[front_matter.keys]\ndate = [\"pubDate\", \"date\", \"publishDate\"]\ndescription = [\"description\", \"summary\"]\n";
    let config = parse("watch.toml", text, Utf8Path::new("site")).unwrap();
    let keys = &config.front_matter.keys;
    assert_eq!(
        keys.pick("date", |k| k == "publishDate" || k == "date"),
        "date"
    );
    assert_eq!(keys.pick("date", |_| false), "pubDate");
    assert!(keys.is_key("summary") && !keys.is_key("excerpt"));
    assert_eq!(keys.of("title"), ["title"]);
    assert!(!config.front_matter.description_from_body);
    let text = "[front_matter]\ndescription_from_body = true\n";
    let config = parse("watch.toml", text, Utf8Path::new("site")).unwrap();
    assert!(config.front_matter.description_from_body);
    let text = "[front_matter]\ndescription_from_body = \"yes\"\n";
    assert!(parse("watch.toml", text, Utf8Path::new("site")).is_err());
}

#[test]
fn the_new_fields_have_their_defaults_and_dotted_keys_and_tags_as_written_are_read() {
    let config = parse("watch.toml", "", Utf8Path::new("site")).unwrap();
    let keys = &config.front_matter.keys;
    assert_eq!(keys.of("image"), ["heroImage"]);
    assert_eq!(keys.of("series_order"), ["seriesOrder"]);
    assert!(keys.of("slug").is_empty() && keys.of("published").is_empty());
    assert!(keys.of("categories").is_empty());
    assert!(!config.front_matter.tags_as_written);
    let text = "[front_matter]\ntags_as_written = true\n[front_matter.keys]\ntags = [\"tags\", \"taxonomies.tags\"]\nimage = [\"image\", \"images\"]\nslug = [\"slug\"]\npublished = [\"published\"]\ncategories = [\"categories\"]\nseries_order = [\"seriesOrder\", \"weight\"]\n";
    let config = parse("watch.toml", text, Utf8Path::new("site")).unwrap();
    let keys = &config.front_matter.keys;
    assert!(config.front_matter.tags_as_written);
    assert_eq!(keys.present("slug", |k| k == "slug"), Some("slug"));
    assert_eq!(keys.present("slug", |_| false), None);
    assert!(keys.is_key("taxonomies") && keys.is_key("weight") && !keys.is_key("extra"));
}

#[test]
fn unknown_or_empty_front_matter_key_lists_are_errors_at_their_line() {
    let text = "[front_matter]\nsite_keys = []\n\n[front_matter.keys]\ndate = [\"date\"]\nsumary = [\"x\"]\n";
    let err = parse("watch.toml", text, Utf8Path::new("site")).unwrap_err();
    assert!(err.message.contains("sumary"), "{}", err.message);
    assert_eq!(err.location.unwrap().line, 6);
    let text = "[front_matter.keys]\ndate = []\n";
    let err = parse("watch.toml", text, Utf8Path::new("site")).unwrap_err();
    assert_eq!(
        err.message,
        "invalid `date`: list keys, none of them empty (at least one for title, description and date): the first present in a file wins"
    );
    assert_eq!(err.location.unwrap().line, 2);
    // An optional field may have none: it is not read.
    let text = "[front_matter.keys]\ndraft = []\nslug = []\n";
    let config = parse("watch.toml", text, Utf8Path::new("site")).unwrap();
    assert!(config.front_matter.keys.of("draft").is_empty());
    let text = "[front_matter.keys]\ndraft = [\"\"]\n";
    assert!(parse("watch.toml", text, Utf8Path::new("site")).is_err());
}

#[test]
fn an_empty_file_gives_the_documented_defaults() {
    let config = parse("watch.toml", "", Utf8Path::new("site")).unwrap();
    assert_eq!(config.base_url, DEFAULT_BASE_URL);
    assert_eq!(config.content_dir, "site/content");
    assert_eq!(config.out_dir, "site/out");
    assert_eq!(config.history_file, "site/content-api.history");
    assert_eq!(config.timezone, chrono_tz::UTC);
    assert_eq!(config.api_version, "1.0.0");
}

#[test]
fn base_url_loses_its_trailing_slash() {
    let config = parse(
        "w.toml",
        "base_url = \"https://example.com/\"\n",
        Utf8Path::new("."),
    )
    .unwrap();
    assert_eq!(
        config.url("/api/index.json"),
        "https://example.com/api/index.json"
    );
}

#[test]
fn a_misspelt_key_is_an_error_at_its_line() {
    let err = parse(
        "w.toml",
        "base_url = \"https://a.b\"\ncontnt_dir = \"x\"\n",
        Utf8Path::new("."),
    )
    .unwrap_err();
    assert!(err.message.contains("contnt_dir"), "{}", err.message);
    assert_eq!(err.location.unwrap().line, 2);
}

#[test]
fn a_known_licence_gets_its_own_url_and_terms() {
    let licence = |text: &str| parse("w.toml", text, Utf8Path::new(".")).unwrap().licence;
    let cc0 = licence("[site]\nlicence = \"CC0 1.0\"\n");
    assert_eq!(
        cc0.url.as_deref(),
        Some("https://creativecommons.org/publicdomain/zero/1.0/")
    );
    assert!(!cc0.requires_attribution() && cc0.url_names.is_none());
    let default = licence("");
    assert_eq!(default.name, "CC BY 4.0");
    assert!(default.requires_attribution());
    let unknown = licence("[site]\nlicence = \"All rights reserved\"\n");
    assert_eq!((unknown.url, unknown.known), (None, None));
    // An unknown name with a known URL takes that licence's terms; a known name with the
    // URL of another licence is flagged.
    let by_url = licence(
        "[site]\nlicence = \"Creative Commons BY\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n",
    );
    assert_eq!(by_url.known.map(|k| k.spdx), Some("CC-BY-4.0"));
    assert!(by_url.url_names.is_none());
    let mismatch = licence(
        "[site]\nlicence = \"CC0 1.0\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n",
    );
    assert_eq!(mismatch.known.map(|k| k.spdx), Some("CC0-1.0"));
    assert_eq!(mismatch.url_names.map(|k| k.spdx), Some("CC-BY-4.0"));
}

#[test]
fn bad_values_name_the_key_and_the_fix() {
    let err = parse(
        "w.toml",
        "timezone = \"Mars/Olympus\"\n",
        Utf8Path::new("."),
    )
    .unwrap_err();
    assert!(err.message.contains("timezone"));
    assert!(err.message.contains("IANA"));
    let err = parse("w.toml", "base_url = \"ftp://x\"\n", Utf8Path::new(".")).unwrap_err();
    assert!(err.message.contains("https://"));
    let err = parse("w.toml", "[api]\nversion = \"v1\"\n", Utf8Path::new(".")).unwrap_err();
    assert_eq!(err.location.unwrap().line, 2);
}

#[test]
fn the_placeholder_keys_the_file_sets_are_reported_even_when_they_equal_the_defaults() {
    let sets = |text: &str| read("watch.toml", text, Utf8Path::new(".")).unwrap().sets;
    assert_eq!(sets(""), PlaceholderKeys::default());
    // The default's own value, written out, is still a choice the author made.
    let text =
        format!("base_url = \"{DEFAULT_BASE_URL}\"\n[site]\nauthor = \"The site's author\"\n");
    assert_eq!(
        sets(&text),
        PlaceholderKeys {
            base_url: true,
            author: true,
            licence: false,
        }
    );
    // A licence URL alone does not choose the licence.
    let text = "[site]\nlicence_url = \"https://x.example/l\"\n";
    assert!(!sets(text).licence);
    assert!(sets("[site]\nlicence = \"MIT\"\n").licence);
}
