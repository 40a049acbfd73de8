//! Series named in front matter alone, through the binary: in a site whose layout has no series
//! folder, a post's `series` is a text or a list (Hugo's `series = ["Theme Demo"]`), its
//! chapters are ordered by the order key's aliases (`weight`), and the series is published
//! under its slug with its title as written and its first chapter's description; the real Hugo
//! site in `tests/fixtures/sites/hugo-coder` checks without a series error.

use crate::common;

use common::{Site, TODAY};
use std::path::Path;

const WATCH_TOML: &str = r#"base_url = "https://own.example"
languages = ["en"]

[site]
name = "Own Series"
description = "A site whose series have no files."
author = "Ada"
contact_name = "Ada"
licence = "CC BY 4.0"

[hosting]
live_record = "off"

[layout]
posts = ["posts/{slug}"]
decks = []
drafts = []
tags = ""
series = ""

[front_matter]
tags_as_written = true

[front_matter.keys]
date = ["date"]
series_order = ["seriesOrder", "weight"]
"#;

fn own_site() -> Site {
    let site = Site::empty();
    std::fs::write(site.root().join("watch.toml"), WATCH_TOML).unwrap();
    // The second chapter by `weight` is the older post: the order key wins over the date.
    site.write(
        "posts/ownership.md",
        "---\ntitle: Ownership\ndescription: Who owns what.\ndate: 2024-05-01\nseries: \"Learning Rust\"\nweight: 2\n---\n\nBody.\n",
    );
    site.write(
        "posts/hello-cargo.md",
        "---\ntitle: Hello Cargo\ndescription: A first crate with cargo.\ndate: 2024-05-03\nseries: \"Learning Rust\"\nweight: 1\n---\n\nBody.\n",
    );
    site.write(
        "posts/theme.md",
        "+++\ntitle = \"Theme\"\ndescription = \"The theme, shown.\"\ndate = 2024-05-02\nseries = [\"Theme Demo\", \"Other Demo\"]\n+++\n\nBody.\n",
    );
    site
}

#[test]
fn a_series_without_a_file_is_published_from_its_chapters() {
    let site = own_site();
    let check = site.run(&["check", "--today", TODAY]);
    check.assert_success();
    assert!(check.errors().is_empty(), "{}", check.stderr);
    let warnings = check.warnings();
    assert_eq!(warnings.len(), 1, "{}", check.stderr);
    assert!(
        warnings[0]
            .message
            .contains("1 post names more than one series: only the first of each list is used"),
        "{}",
        warnings[0].message
    );
    site.run(&["--once", "--today", TODAY]).assert_success();

    let detail = site.out_json("api/series/en/learning-rust.json");
    assert_eq!(detail["series"], "learning-rust");
    let chapters: Vec<&str> = detail["posts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|post| post["slug"].as_str().unwrap())
        .collect();
    assert_eq!(chapters, ["hello-cargo", "ownership"]);
    assert_eq!(detail["posts"][0]["seriesTitle"], "Learning Rust");
    assert_eq!(detail["posts"][1]["seriesCurrent"], 2);

    let listing = site.out_json("api/series/en/index.json");
    let rows = listing["series"].as_array().unwrap();
    assert_eq!(listing["total"], 2, "{listing}");
    let learning = rows
        .iter()
        .find(|row| row["slug"] == "learning-rust")
        .unwrap_or_else(|| panic!("{listing}"));
    assert_eq!(learning["title"], "Learning Rust");
    assert_eq!(learning["description"], "A first crate with cargo.");
    assert_eq!(learning["order"], 0);
    assert_eq!(learning["postCount"], 2);
    assert!(learning["heroImage"].is_null(), "{learning}");
    let theme = rows
        .iter()
        .find(|row| row["slug"] == "theme-demo")
        .unwrap_or_else(|| panic!("{listing}"));
    assert_eq!(theme["title"], "Theme Demo");
    assert!(!site.out().join("api/series/en/other-demo.json").exists());
}

#[test]
fn the_hugo_coder_site_checks_without_a_series_error() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sites/hugo-coder");
    let site = Site::empty();
    crate::common::copy_tree(&fixture, site.root());
    let check = site.run(&["check", "--config", "watch.toml", "--today", TODAY]);
    let series: Vec<_> = check
        .diagnostics()
        .into_iter()
        .filter(|shown| shown.message.contains("series"))
        .collect();
    assert!(series.is_empty(), "{series:?}\n{}", check.stderr);
    // What remains is the fixture's own: its external posts have no description and no body.
    for error in check.errors().iter().filter(|error| error.path.is_some()) {
        assert_eq!(
            error.message, "missing required field `description`",
            "{error:?}"
        );
    }
}
