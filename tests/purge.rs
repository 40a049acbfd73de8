//! The CDN purge list (`--purge-list FILE`): after each build, the full URLs whose bytes changed
//! or that were removed, one a line, and nothing else.
//!
//! - a body edit lists only the post's Markdown twin and `llms-full.txt`;
//! - a tag removal lists the timeline and every document that mentions the tag, exactly the
//!   files whose bytes differ (checked against snapshots of the folder before and after);
//! - an unchanged rebuild lists nothing;
//! - watch mode rewrites the list after every rebuild;
//! - where the site's own build empties the output folder before each run, the list is measured
//!   against what the last recorded build published (kept beside the history), not against the
//!   empty folder, and the 410 memory holds.

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const BASE: &str = "https://site.example";

fn site() -> Site {
    let site = Site::new();
    std::fs::write(
        site.root().join("watch.toml"),
        format!("base_url = \"{BASE}\"\n"),
    )
    .unwrap();
    site
}

fn build_listing(site: &Site) -> Vec<String> {
    site.run(&["--once", "--today", TODAY, "--purge-list", "purge.txt"])
        .assert_success();
    read_list(site)
}

fn read_list(site: &Site) -> Vec<String> {
    std::fs::read_to_string(site.root().join("purge.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The output folder's URLs with their bytes (host files and the tool's state are not URLs; a
/// folder's `index.html` is also served at the folder's URL, with and without the slash).
fn served(site: &Site) -> BTreeMap<String, Vec<u8>> {
    let mut urls = BTreeMap::new();
    for (path, bytes) in read_tree(&site.out()) {
        // State files and the files that configure a host are never served.
        if path.starts_with(".content-api/") || content_api::http::HOST_FILES.contains(&&*path) {
            continue;
        }
        if let Some(folder) = path.strip_suffix("/index.html") {
            urls.insert(format!("{BASE}/{folder}"), bytes.clone());
            urls.insert(format!("{BASE}/{folder}/"), bytes.clone());
        }
        urls.insert(format!("{BASE}/{path}"), bytes);
    }
    urls
}

/// The URLs whose bytes differ between two states of the folder, or that exist in only one.
fn differences(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> Vec<String> {
    let mut urls: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|url| before.get(*url) != after.get(*url))
        .cloned()
        .collect();
    urls.sort();
    urls.dedup();
    urls
}

#[test]
fn the_purge_list_names_exactly_what_changed() {
    let site = site();
    let first = build_listing(&site);
    assert!(
        first.contains(&format!("{BASE}/api/posts.json")),
        "{first:?}"
    );
    assert!(first.contains(&format!("{BASE}/developers")), "{first:?}");
    assert!(first.iter().all(|url| url.starts_with(BASE)), "{first:?}");
    assert!(
        !first.iter().any(|url| url.contains("_redirects")
            || url.contains("_headers")
            || url.contains(".content-api")),
        "{first:?}"
    );

    assert!(
        build_listing(&site).is_empty(),
        "an unchanged rebuild lists nothing"
    );

    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "Body, edited."));
    // The deploy record lists every file's hash, so it changes with any of them.
    assert_eq!(
        build_listing(&site),
        [
            format!("{BASE}/.well-known/content-api/deploy.json"),
            format!("{BASE}/blog/hello.md"),
            format!("{BASE}/llms-full.txt")
        ]
    );

    // The English post loses its only tag: its English timeline is removed, and every document
    // that mentioned the tag on that post changes.
    let before = served(&site);
    site.write(
        EN_POST,
        EN_POST_TEXT
            .replace("Body.", "Body, edited.")
            .replace("tags: [\"rust\"]\n", ""),
    );
    let listed = build_listing(&site);
    assert_eq!(listed, differences(&before, &served(&site)));
    for expected in [
        "api/timeline/en/rust.json",
        "api/posts.json",
        "api/posts-en.json",
        "blog/hello.md",
    ] {
        assert!(
            listed.contains(&format!("{BASE}/{expected}")),
            "{expected} missing from {listed:?}"
        );
    }
    for unrelated in [
        "api/posts-es.json",
        "api/timeline/es/rust.json",
        "openapi.json",
    ] {
        assert!(
            !listed.contains(&format!("{BASE}/{unrelated}")),
            "{unrelated} listed: {listed:?}"
        );
    }
    assert!(build_listing(&site).is_empty());
}

#[test]
fn watch_mode_rewrites_the_list_after_every_rebuild() {
    let site = site();
    let mut child = std::process::Command::new(BIN)
        .env_remove("CI")
        .args(["watch", "--today", TODAY, "--purge-list", "purge.txt"])
        .current_dir(site.root())
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |wanted: &dyn Fn(&[String]) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let list = std::fs::read_to_string(site.root().join("purge.txt"))
                .map(|text| text.lines().map(str::to_string).collect::<Vec<_>>())
                .unwrap_or_default();
            if wanted(&list) {
                return;
            }
            assert!(Instant::now() < deadline, "the list is still {list:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for(&|list| list.contains(&format!("{BASE}/api/posts.json")));
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("Body.", "Body, edited in watch."),
    );
    let expected = [
        format!("{BASE}/blog/hello.md"),
        format!("{BASE}/llms-full.txt"),
    ];
    wait_for(&|list| list == expected);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_output_folder_emptied_before_each_build_still_gets_an_exact_list() {
    let site = site();
    // The site's generator empties the folder and writes its own files, then the API is built.
    let site_build = |site: &Site| {
        let _ = std::fs::remove_dir_all(site.out());
        std::fs::create_dir_all(site.out()).unwrap();
        std::fs::write(site.out().join("index.html"), "<p>home</p>\n").unwrap();
    };
    site_build(&site);
    let first = build_listing(&site);
    assert!(
        first.contains(&format!("{BASE}/api/posts.json")),
        "{first:?}"
    );
    let state = site.root().join(".content-api/outputs.json");
    assert!(
        state.is_file(),
        "kept beside the history, outside the folder"
    );
    let before = served(&site);

    site_build(&site);
    assert_eq!(
        build_listing(&site),
        Vec::<String>::new(),
        "nothing changed since the last deploy"
    );

    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "A new body."));
    site_build(&site);
    let listed = build_listing(&site);
    let mut changed = differences(&before, &served(&site));
    changed.retain(|url| !url.ends_with("/index.html") && url != &format!("{BASE}/index.html"));
    assert_eq!(listed, changed, "exactly the URLs whose bytes changed");
    assert!(
        listed.contains(&format!("{BASE}/blog/hello.md")),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&format!("{BASE}/api/index.json")),
        "{listed:?}"
    );

    // A removed tag: its timeline is listed as removed, and still answers 410 from a folder
    // that was emptied (the history is beside watch.toml too).
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
    site_build(&site);
    let listed = build_listing(&site);
    assert!(
        listed.contains(&format!("{BASE}/api/timeline/en/rust.json")),
        "{listed:?}"
    );
    let gone = std::fs::read_to_string(site.out().join("_nginx_gone.conf")).unwrap();
    assert!(
        gone.contains("location = /api/timeline/en/rust.json {"),
        "{gone}"
    );
}

#[test]
fn a_tampered_record_of_the_last_build_puts_nothing_foreign_in_the_list() {
    let site = site();
    build_listing(&site);
    let state = site.root().join(".content-api/outputs.json");
    let record = std::fs::read_to_string(&state).unwrap();
    let hash = "\"00000000000000000000000000000001\"";
    let forged = |extra: &str| record.replacen("\"files\":{", &format!("\"files\":{{{extra},"), 1);
    let newline = format!("\"api/x\\nhttps://victim.example/everything\":{hash}");
    let many: Vec<String> = (0..230_000)
        .map(|n| format!("\"api/f{n}.json\":{hash}"))
        .collect();
    for (what, extra) in [("a newline", newline), ("230,000 paths", many.join(","))] {
        std::fs::write(&state, forged(&extra)).unwrap();
        site.write(
            EN_POST,
            EN_POST_TEXT.replace("Body.", &format!("Body with {what}.")),
        );
        let listed = build_listing(&site);
        assert!(
            listed.len() < 100
                && listed
                    .iter()
                    .all(|url| url.starts_with(&format!("{BASE}/"))),
            "{what}: {} URLs: {:?}",
            listed.len(),
            &listed[..listed.len().min(5)]
        );
        assert!(
            !listed
                .iter()
                .any(|url| url.contains("victim") || url.contains("/api/f1.json")),
            "{what}"
        );
    }
}
