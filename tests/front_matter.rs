//! A site's own front matter, through the binary: a site with its own `[layout]` (no tags
//! folder), `tags_as_written` and aliased keys (`slug`, `published`, `categories`, `image`)
//! builds and checks without an error, publishes its tags under their slugs, names them as
//! written in `llms.txt`, and says once that it dropped relative hero images.

use crate::common;

use common::{Site, TODAY};

const WATCH_TOML: &str = r#"base_url = "https://own.example"
languages = ["en"]

[site]
name = "Own Layout"
description = "A site laid out its own way."
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
date = ["date", "published"]
image = ["image", "images"]
slug = ["slug"]
published = ["published"]
categories = ["categories", "category"]
"#;

fn own_site() -> Site {
    let site = Site::empty();
    std::fs::write(site.root().join("watch.toml"), WATCH_TOML).unwrap();
    site.write(
        "posts/first.md",
        "---\ntitle: First\ndescription: One\ndate: 2024-05-01\ntags: [Web App, 指南]\ncategory: Release Notes\nimage: {src: ./cover.png}\n---\n\nBody.\n",
    );
    site.write(
        "posts/second.md",
        "---\ntitle: Second\ndescription: Two\npublished: 2024-05-02\nslug: My Second Post\ntags: web app\nimages: [/img/second.png]\n---\n\nBody.\n",
    );
    site.write(
        "posts/hidden.md",
        "---\ntitle: Hidden\ndescription: Three\ndate: 2024-05-03\npublished: false\n---\n\nBody.\n",
    );
    site
}

#[test]
fn tags_as_written_and_aliased_keys_build_without_errors() {
    let site = own_site();
    let check = site.run(&["check", "--today", TODAY]);
    check.assert_success();
    assert!(check.errors().is_empty(), "{}", check.stderr);
    let warnings = check.warnings();
    assert_eq!(warnings.len(), 1, "{}", check.stderr);
    assert!(
        warnings[0]
            .message
            .contains("1 post names a relative hero image"),
        "{}",
        warnings[0].message
    );
    site.run(&["--once", "--today", TODAY]).assert_success();
    for tag in ["web-app", "zhi-nan", "release-notes"] {
        let timeline = site.out_json(&format!("api/timeline/en/{tag}.json"));
        assert!(timeline.is_array() || timeline.is_object(), "{tag}");
    }
    let web_app = std::fs::read_to_string(site.out().join("api/timeline/en/web-app.json")).unwrap();
    assert!(web_app.contains("my-second-post") && web_app.contains("first"));
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(
        !posts.contains("Hidden"),
        "a post with `published: false` is a draft"
    );
    assert!(posts.contains("\"web-app\"") && !posts.contains("Web App"));
    assert!(posts.contains("/img/second.png"));
    let llms = std::fs::read_to_string(site.out().join("llms.txt")).unwrap();
    assert!(llms.contains("[Web App (en)]"), "{llms}");
    assert!(llms.contains("[指南 (en)]"), "{llms}");
}
