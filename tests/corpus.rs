//! Compatibility with a real site's content (`../shared/corpus/xergioalex`: ignored by
//! default, since a fresh clone lacks it; `cargo test --test integration -- --ignored corpus::`
//! where it is), built as of 2026-11-22: the counts of CONTENT_FORMAT.md section 6, series
//! order, draft renumbering, valid JSON everywhere.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::Path;

fn json(out: &Path, path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(out.join(path)).unwrap()).unwrap()
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
#[ignore = "needs the real corpus at ../shared/corpus/xergioalex: cargo test --test integration -- --ignored corpus::"]
fn the_real_corpus_builds_with_the_documented_counts() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    let result = build(&corpus, out.path(), &[]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!stderr.contains("error"), "{stderr}");
    let out = out.path();
    assert_eq!(json(out, "api/posts.json").as_array().unwrap().len(), 190);
    for lang in ["en", "es"] {
        assert_eq!(
            json(out, &format!("api/posts-{lang}.json"))
                .as_array()
                .unwrap()
                .len(),
            95,
            "{lang}"
        );
        assert_eq!(
            count_files(&out.join(format!("api/timeline/{lang}"))),
            32,
            "{lang} tag timelines"
        );
        // The series folder holds one file per series plus index.json.
        assert_eq!(
            count_files(&out.join(format!("api/series/{lang}"))),
            11,
            "{lang} series"
        );
        assert_eq!(
            json(out, &format!("api/series/{lang}/index.json"))["total"],
            10
        );
        assert_eq!(
            json(out, &format!("api/slides-timeline/{lang}.json"))["total"],
            34,
            "{lang} decks"
        );
    }
    // Demo posts in `_demo/` are not content.
    let posts = json(out, "api/posts.json");
    assert!(
        posts
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p["id"].as_str().unwrap().contains("_demo"))
    );
    // Every file is valid JSON.
    for (path, bytes) in read_tree(out) {
        if path.ends_with(".json") {
            serde_json::from_slice::<Value>(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    }
}

#[test]
#[ignore = "needs the real corpus at ../shared/corpus/xergioalex: cargo test --test integration -- --ignored corpus::"]
fn series_are_listed_by_latest_chapter_then_order_then_slug() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    build(&corpus, out.path(), &[]);
    let listing = json(out.path(), "api/series/en/index.json");
    let slugs: Vec<&str> = listing["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap())
        .collect();
    assert_eq!(
        slugs,
        [
            "working-with-agents",
            "the-mythos-saga",
            "slides-as-code",
            "aeo-from-invisible-to-cited",
            "learning-mobile-development",
            "mastering-openclaw",
            "the-library-of-tomorrow",
            "building-agents",
            "building-xergioalex",
            "trading-journey",
        ]
    );
    // The rule, checked on the data itself: lastPostDate descending, then order, then slug.
    let entries = listing["series"].as_array().unwrap();
    for pair in entries.windows(2) {
        let key = |s: &Value| {
            (
                s["lastPostDate"].as_str().unwrap().to_string(),
                s["order"].as_i64().unwrap(),
                s["slug"].as_str().unwrap().to_string(),
            )
        };
        let (a, b) = (key(&pair[0]), key(&pair[1]));
        assert!(
            a.0 > b.0 || (a.0 == b.0 && (a.1, &a.2) < (b.1, &b.2)),
            "{a:?} before {b:?}"
        );
    }
    // `playing-with-time` has only draft chapters: it is not listed and has no file.
    assert!(
        !out.path()
            .join("api/series/en/playing-with-time.json")
            .exists()
    );
}

#[test]
#[ignore = "needs the real corpus at ../shared/corpus/xergioalex: cargo test --test integration -- --ignored corpus::"]
fn a_draft_chapter_renumbers_the_chapters_after_it() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    build(&corpus, out.path(), &[]);
    // working-with-agents: chapter 6 is a draft, so seriesOrder 7 is the 6th published chapter.
    let detail = json(out.path(), "api/series/en/working-with-agents.json");
    let posts = detail["posts"].as_array().unwrap();
    assert_eq!(detail["total"], 8);
    let positions: Vec<(i64, i64)> = posts
        .iter()
        .map(|p| {
            (
                p["seriesCurrent"].as_i64().unwrap(),
                p["seriesTotal"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(positions, (1..=8).map(|i| (i, 8)).collect::<Vec<_>>());
    let index = json(out.path(), "api/posts-en.json");
    let mut orders: Vec<(i64, i64)> = index
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["series"] == "working-with-agents")
        .map(|p| {
            (
                p["seriesOrder"].as_i64().unwrap(),
                p["seriesCurrent"].as_i64().unwrap(),
            )
        })
        .collect();
    orders.sort();
    assert_eq!(
        orders,
        [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (7, 6),
            (8, 7),
            (9, 8)
        ]
    );
}
