//! Real personal sites as their authors keep them: nine public sites of five generators
//! (`tests/fixtures/sites/`, trimmed copies with their source and licence in each folder's
//! `SOURCE.md`) go through `init` (which writes their `watch.toml` from their own files),
//! `check`, `build` and `verify`, and publish as many posts per language as the generator
//! does; on one of them, a translation saved while `serve` runs shows in the API.
//!
//! The counts are what each generator publishes, measured on the fixture (for the Hugo sites,
//! with Hugo itself: `hugo list all`, the command in each `SOURCE.md`), minus drafts, which
//! the API leaves out as the generators' production builds do.

use crate::common::{self, Served, TIMEOUT, http, run_binary};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The date of every build: after every fixture post.
const TODAY: &str = "2026-11-28";

/// A real site and what it must publish.
struct RealSite {
    /// Its folder in `tests/fixtures/sites/`.
    folder: &'static str,
    /// What `init` names it.
    generator: &'static str,
    /// Published posts per language, in the site's order (the default first).
    published: &'static [(&'static str, usize)],
    /// A sentence `init` prints among what it could not decide, when it has one.
    undecided: Option<&'static str>,
}

const SITES: [RealSite; 9] = [
    RealSite {
        folder: "astro-blog",
        generator: "Astro",
        published: &[("en", 5)],
        undecided: None,
    },
    // Its configuration says `lang: "en"` for posts written in Chinese: `init` takes the
    // configuration's word and says it could not decide.
    RealSite {
        folder: "astro-paper-zh",
        generator: "Astro",
        published: &[("en", 12)],
        undecided: Some("Chinese, Japanese or Korean"),
    },
    RealSite {
        folder: "fuwari",
        generator: "Astro",
        published: &[("en", 5)],
        undecided: None,
    },
    RealSite {
        folder: "loveit",
        generator: "Hugo",
        published: &[("en", 8), ("zh-cn", 8)],
        undecided: None,
    },
    RealSite {
        folder: "hugo-coder",
        generator: "Hugo",
        published: &[("en", 10), ("pt-br", 10)],
        undecided: None,
    },
    RealSite {
        folder: "docsy-example",
        generator: "Hugo",
        published: &[("en", 3), ("fa", 2), ("no", 0)],
        undecided: None,
    },
    RealSite {
        folder: "jekyllrb",
        generator: "Jekyll",
        published: &[("en", 14)],
        undecided: None,
    },
    // Its fifth post's front matter is JavaScript (a draft, to Eleventy): left out, said so.
    RealSite {
        folder: "eleventy-base-blog",
        generator: "Eleventy",
        published: &[("en", 4)],
        undecided: None,
    },
    RealSite {
        folder: "tabi",
        generator: "Zola",
        published: &[("en", 9), ("es", 9), ("ca", 9), ("ar", 1)],
        undecided: None,
    },
];

fn fixture(folder: &str) -> std::path::PathBuf {
    common::repo().join("tests/fixtures/sites").join(folder)
}

/// A copy of the site without its hand-written `watch.toml`: as its author has it.
fn copy_site(folder: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixture(folder);
    for entry in walkdir::WalkDir::new(&from)
        .into_iter()
        .filter_map(Result::ok)
    {
        let relative = entry.path().strip_prefix(&from).unwrap();
        let target = dir.path().join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if relative != Path::new("watch.toml") {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    dir
}

fn posts(out: &Path, lang: &str) -> Vec<Value> {
    let text = std::fs::read(out.join(format!("api/posts-{lang}.json")))
        .unwrap_or_else(|e| panic!("api/posts-{lang}.json: {e}"));
    serde_json::from_slice::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn init_check_build_and_verify_publish_what_each_generator_publishes() {
    for site in &SITES {
        let dir = copy_site(site.folder);
        let root = dir.path();
        let init = run_binary(root, &["init"], TIMEOUT);
        init.assert_code(0);
        let said = format!("{}{}", init.stdout, init.stderr);
        assert!(
            said.contains(&format!("generator: {}", site.generator)),
            "{}: {said}",
            site.folder
        );
        if let Some(undecided) = site.undecided {
            assert!(said.contains(undecided), "{}: {said}", site.folder);
        }
        let check = run_binary(root, &["check", "--today", TODAY], TIMEOUT);
        assert_eq!(check.code(), 0, "{}: check\n{}", site.folder, check.stderr);
        // Its summary names each language (posts counted with drafts and scheduled ones).
        for (lang, _) in site.published {
            assert!(
                check.stderr.contains(&format!(" {lang}: ")),
                "{}: `check` should summarise {lang}:\n{}",
                site.folder,
                check.stderr
            );
        }
        let build = run_binary(root, &["build", "--today", TODAY], TIMEOUT);
        assert_eq!(build.code(), 0, "{}: build\n{}", site.folder, build.stderr);
        let out = root.join("content-api-out");
        for (lang, count) in site.published {
            assert_eq!(
                posts(&out, lang).len(),
                *count,
                "{}: published posts in {lang}",
                site.folder
            );
        }
        // No stray language: exactly the site's lists.
        let lists: Vec<String> = std::fs::read_dir(out.join("api"))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("posts-"))
            .collect();
        assert_eq!(
            lists.len(),
            site.published.len(),
            "{}: {lists:?}",
            site.folder
        );
        let served = Served::spawn(
            Command::new(common::BIN)
                .env_remove("CI")
                .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
                .current_dir(root)
                .stderr(Stdio::null()),
        );
        let verify = run_binary(root, &["verify", &served.origin], TIMEOUT);
        assert_eq!(
            verify.code(),
            0,
            "{}: verify\n{}{}",
            site.folder,
            verify.stdout,
            verify.stderr
        );
    }
}

/// LoveIt keeps each post as a page bundle with one file per language (`index.en.md`,
/// `index.zh-cn.md`): a save of the Chinese file while `serve` runs changes the Chinese list.
#[test]
fn a_saved_translation_of_a_real_hugo_site_shows_in_the_api() {
    let dir = copy_site("loveit");
    let root = dir.path();
    run_binary(root, &["init"], TIMEOUT).assert_code(0);
    let served = Served::spawn(
        Command::new(common::BIN)
            .env_remove("CI")
            .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
            .current_dir(root)
            .stderr(Stdio::null()),
    );
    let titles = || -> Vec<String> {
        let reply = http::get(served.addr(), "/api/posts-zh-cn.json", &[]);
        http::json(&reply)
            .as_array()
            .map(|posts| {
                posts
                    .iter()
                    .map(|p| p["title"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(titles().len(), 8);
    let file = root.join("content/posts/basic-markdown-syntax/index.zh-cn.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let title_line = text
        .lines()
        .find(|line| line.starts_with("title:"))
        .expect("a title line")
        .to_string();
    std::fs::write(&file, text.replace(&title_line, "title: \"已编辑的标题\"")).unwrap();
    http::wait_for(
        "the edited title in api/posts-zh-cn.json",
        Duration::from_secs(30),
        || titles().iter().any(|t| t == "已编辑的标题"),
    );
    assert_eq!(titles().len(), 8);
}
