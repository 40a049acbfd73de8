//! Sharing the output folder with the site's generator (Astro's `dist/`, Hugo's `public/`):
//! files this tool did not write are never silently replaced.
//!
//! - the site's `_headers` and `_redirects` survive: the tool's rules go in a marked block at
//!   the top, the site's lines are kept byte for byte after it, through rebuilds and through the
//!   site generator writing its own version again;
//! - the site's own `404.html` wins, and is not claimed in the manifest;
//! - any other file of the site in the way stops the build, names the files, writes nothing.

mod common;

use common::*;
use content_api::write::{MANIFEST_PATH, OWNED_BLOCK_BEGIN, OWNED_BLOCK_END};

const SITE_404: &str = "<!doctype html><title>Lost?</title><p>The site's own page.\n";
const SITE_HEADERS: &str = "/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n";
// No final newline, CRLF on one line: kept exactly as they are.
const SITE_REDIRECTS: &str = "/blog/old /blog/new 301\r\n/*  /index.html  200";

/// A site whose generator already built into `out/`.
fn site_with_its_own_files() -> Site {
    let site = Site::new();
    std::fs::create_dir_all(site.out()).unwrap();
    for (name, text) in [
        ("404.html", SITE_404),
        ("_headers", SITE_HEADERS),
        ("_redirects", SITE_REDIRECTS),
        ("index.html", "<p>home</p>\n"),
    ] {
        std::fs::write(site.out().join(name), text).unwrap();
    }
    site
}

fn read(site: &Site, name: &str) -> String {
    std::fs::read_to_string(site.out().join(name)).unwrap()
}

/// The file is the tool's block, then exactly `site_bytes`; returns the block's rules.
fn assert_merged(text: &str, site_bytes: &str) -> Vec<String> {
    assert!(
        text.starts_with(&format!("{OWNED_BLOCK_BEGIN}\n")),
        "the block comes first:\n{text}"
    );
    let end = format!("\n{OWNED_BLOCK_END}\n");
    let (block, after) = text.split_once(&end).expect("the block ends");
    assert_eq!(after, site_bytes, "the site's lines, byte for byte");
    assert_eq!(text.matches(OWNED_BLOCK_BEGIN).count(), 1, "{text}");
    block
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_sites_host_files_survive_and_the_merged_files_keep_its_lines() {
    let site = site_with_its_own_files();
    site.build().assert_success();
    assert_eq!(
        read(&site, "404.html"),
        SITE_404,
        "the site's 404.html wins"
    );
    assert_eq!(read(&site, "index.html"), "<p>home</p>\n");
    assert!(
        site.out().join("api/404.html").is_file(),
        "the API's own 404"
    );
    let manifest = read(&site, MANIFEST_PATH);
    assert!(
        !manifest.contains("\"404.html\""),
        "not claimed: {manifest}"
    );
    assert!(manifest.contains("\"_redirects\""), "{manifest}");

    let headers = assert_merged(&read(&site, "_headers"), SITE_HEADERS);
    assert!(headers.contains(&"  Access-Control-Allow-Origin: *".to_string()));
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    // First match wins: the API's fallback comes before the site's catch-all.
    assert_eq!(rules, ["/api/* /api/404.json 404"]);

    // A rebuild that removes a tag rewrites the block only.
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
    site.build().assert_success();
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    assert_eq!(
        rules,
        [
            "/api/timeline/en/rust.json /api/410.json 410",
            "/api/* /api/404.json 404"
        ]
    );
    assert_eq!(read(&site, "404.html"), SITE_404);

    // The site generator builds again and writes its own versions; so does the tool after it.
    let new_site_redirects = "/feed /rss.xml 301\n";
    std::fs::write(site.out().join("_redirects"), new_site_redirects).unwrap();
    std::fs::write(site.out().join("404.html"), SITE_404).unwrap();
    site.build().assert_success();
    let rules = assert_merged(&read(&site, "_redirects"), new_site_redirects);
    assert_eq!(rules.len(), 2, "{rules:?}");
    assert_merged(&read(&site, "_headers"), SITE_HEADERS);
    assert_eq!(read(&site, "404.html"), SITE_404);

    // An unchanged rebuild writes nothing at all (but the tool's fingerprint of the build,
    // which the builds before could not save: their outputs were too recent to trust).
    let outputs = |mut snapshot: Snapshot| {
        snapshot.remove(std::path::Path::new(".content-api/fingerprint.json"));
        snapshot
    };
    let before = outputs(site.out_snapshot());
    site.build().assert_success();
    assert_same(&before, &outputs(site.out_snapshot()));
}

#[test]
fn without_a_site_404_the_tool_writes_its_own() {
    let site = Site::new();
    site.build().assert_success();
    assert!(read(&site, "404.html").contains("Not Found"));
    assert_merged(&read(&site, "_redirects"), "");
}

#[test]
fn any_other_file_of_the_site_in_the_way_stops_the_build_before_it_writes() {
    let site = site_with_its_own_files();
    std::fs::write(site.out().join("llms.txt"), "the site's own llms.txt\n").unwrap();
    std::fs::create_dir_all(site.out().join("api")).unwrap();
    std::fs::write(site.out().join("api/posts.json"), "[]").unwrap();
    let before = site.out_snapshot();
    let run = site.build();
    assert_ne!(run.code(), 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for named in ["llms.txt", "api/posts.json", "--out"] {
        assert!(
            run.stderr.contains(named),
            "{named} not named:\n{}",
            run.stderr
        );
    }
    assert_same(&before, &site.out_snapshot());
    assert!(
        !site.root().join("content-api.history").exists(),
        "nothing recorded either"
    );

    // Moving the file away is enough.
    std::fs::remove_file(site.out().join("llms.txt")).unwrap();
    std::fs::remove_file(site.out().join("api/posts.json")).unwrap();
    site.build().assert_success();
    // A file that already holds exactly the bytes the tool writes is not a collision.
    let fresh = Site::new();
    fresh.build().assert_success();
    std::fs::remove_dir_all(fresh.out().join(".content-api")).unwrap();
    fresh.build().assert_success();
}

#[test]
fn watch_rebuilds_keep_the_sites_files_too() {
    use content_api::session::{Batch, Session};
    use std::sync::Arc;
    let site = site_with_its_own_files();
    let mut config = content_api::config::SiteConfig::defaults(
        camino::Utf8Path::from_path(site.root()).unwrap(),
    );
    config.content_dir = camino::Utf8PathBuf::from_path_buf(site.content()).unwrap();
    config.out_dir = camino::Utf8PathBuf::from_path_buf(site.out()).unwrap();
    let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
    let (mut session, outcome) = Session::start(Arc::new(config), today, false).unwrap();
    let first = outcome.report.expect("published");
    assert!(
        !first.written.iter().any(|p| &**p == "404.html"),
        "{first:?}"
    );
    assert_eq!(read(&site, "404.html"), SITE_404);
    let batch = Batch {
        paths: [EN_POST.to_string()].into(),
        rescan: false,
        ..Default::default()
    };
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
    let report = session.apply(&batch).unwrap().report.expect("published");
    assert!(
        report
            .removed
            .contains(&"api/timeline/en/rust.json".to_string())
    );
    assert!(
        !report.removed.iter().any(|p| p == "404.html"),
        "{report:?}"
    );
    let rules = assert_merged(&read(&site, "_redirects"), SITE_REDIRECTS);
    assert_eq!(
        rules,
        ["/api/* /api/404.json 404"],
        "a preview records nothing"
    );
    assert_eq!(read(&site, "404.html"), SITE_404);
    // The same content again: nothing to write, nothing removed.
    site.write(EN_POST, EN_POST_TEXT);
    session.apply(&batch).unwrap();
    let before = site.out_snapshot();
    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "Body!"));
    let report = session.apply(&batch).unwrap().report.expect("published");
    assert_eq!(
        report.written.iter().map(|p| &**p).collect::<Vec<_>>(),
        ["blog/hello.md", "llms-full.txt"]
    );
    assert!(report.removed.is_empty());
    let after = site.out_snapshot();
    assert_eq!(before.len(), after.len());
    assert_eq!(read(&site, "404.html"), SITE_404);
}
