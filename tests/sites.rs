//! Real personal sites as their authors keep them: nine public sites of five generators
//! (`tests/fixtures/sites/`, trimmed copies with their source and licence in each folder's
//! `SOURCE.md`) go through `init` (which writes their `watch.toml` from their own files),
//! `check`, `build` and `verify`, and publish as many posts per language as the generator
//! does; on one of them, a translation saved while `serve` runs shows in the API.
//!
//! The counts are what each generator publishes, measured on the fixture, minus drafts, which
//! the API leaves out as the generators' production builds do. For the three Hugo sites, Hugo
//! itself is asked too, during the test (`hugo list all`, Debian's, as each `SOURCE.md` runs
//! it: the theme that is not in the fixture left out, a stand-in per shortcode).

use crate::common::{self, Served, TIMEOUT, http, run_binary};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
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
    /// For a Hugo site, how Hugo itself lists its pages here (`hugo list all`).
    hugo: Option<HugoRun>,
}

/// How Debian's Hugo (0.111) lists a fixture's pages, as each `SOURCE.md` says: the site's
/// config without what names its theme (not in the fixture) or what 0.111 does not know, plus
/// settings that keep Hugo's writes out of the fixture, and an empty stand-in for each
/// shortcode the posts call.
struct HugoRun {
    /// The site's config file.
    config: &'static str,
    /// Lines dropped from it (by their start), and top-level YAML keys dropped with their block.
    drop_lines: &'static [&'static str],
    drop_blocks: &'static [&'static str],
    /// Settings added, in the config's format (`{stubs}` and `{scratch}` are filled in).
    extra: &'static str,
}

const SITES: [RealSite; 9] = [
    RealSite {
        folder: "astro-blog",
        generator: "Astro",
        published: &[("en", 5)],
        undecided: None,
        hugo: None,
    },
    // Its configuration says `lang: "en"` for posts written in Chinese: `init` takes the
    // configuration's word and says it could not decide.
    RealSite {
        folder: "astro-paper-zh",
        generator: "Astro",
        published: &[("en", 12)],
        undecided: Some("Chinese, Japanese or Korean"),
        hugo: None,
    },
    RealSite {
        folder: "fuwari",
        generator: "Astro",
        published: &[("en", 5)],
        undecided: None,
        hugo: None,
    },
    RealSite {
        folder: "loveit",
        generator: "Hugo",
        published: &[("en", 8), ("zh-cn", 8)],
        undecided: None,
        hugo: Some(HugoRun {
            config: "hugo.toml",
            drop_lines: &[
                "theme = ",
                "themesDir = ",
                "  posts = \":contentbasename\"",
                "enableGitInfo",
            ],
            drop_blocks: &[],
            extra: "layoutDir = \"{stubs}\"\npublishDir = \"{scratch}/public\"\nresourceDir = \"{scratch}/resources\"\nignoreErrors = [\"error-output-taxonomy\"]\n",
        }),
    },
    RealSite {
        folder: "hugo-coder",
        generator: "Hugo",
        published: &[("en", 9), ("pt-br", 9)],
        undecided: None,
        hugo: Some(HugoRun {
            config: "hugo.toml",
            drop_lines: &["theme = ", "enableGitInfo"],
            drop_blocks: &[],
            extra: "layoutDir = \"{stubs}\"\npublishDir = \"{scratch}/public\"\nresourceDir = \"{scratch}/resources\"\n",
        }),
    },
    RealSite {
        folder: "docsy-example",
        generator: "Hugo",
        published: &[("en", 3), ("fa", 2), ("no", 0)],
        undecided: None,
        hugo: Some(HugoRun {
            config: "hugo.yaml",
            drop_lines: &[],
            drop_blocks: &[
                "module:",
                "outputs:",
                "outputFormats:",
                "mediaTypes:",
                "permalinks:",
                "enableGitInfo:",
            ],
            extra: "layoutDir: {stubs}\npublishDir: {scratch}/public\nresourceDir: {scratch}/resources\nenableGitInfo: false\n",
        }),
    },
    RealSite {
        folder: "jekyllrb",
        generator: "Jekyll",
        published: &[("en", 14)],
        undecided: None,
        hugo: None,
    },
    // Its fifth post's front matter is JavaScript (a draft, to Eleventy): left out, said so.
    RealSite {
        folder: "eleventy-base-blog",
        generator: "Eleventy",
        published: &[("en", 4)],
        undecided: None,
        hugo: None,
    },
    RealSite {
        folder: "tabi",
        generator: "Zola",
        published: &[("en", 9), ("es", 9), ("ca", 9), ("ar", 1)],
        undecided: None,
        hugo: None,
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

/// `content-api serve` of the site at `root`, on a free port.
fn serve(root: &Path) -> Served {
    Served::spawn(
        Command::new(common::BIN)
            .env_remove("CI")
            .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
            .current_dir(root)
            .stderr(Stdio::null()),
    )
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
        // It reads the site with what it wrote, and says what it found in each language.
        for (lang, _) in site.published {
            assert!(
                said.contains(&format!("  {lang}: ")),
                "{}: init should count {lang}: {said}",
                site.folder
            );
        }
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
        // As many as Hugo itself publishes, language by language.
        if let Some(run) = &site.hugo
            && let Some(hugo) = common::need::HUGO.program()
        {
            let default = site.published[0].0;
            for (lang, count) in hugo_pages(&hugo, root, run, default) {
                let ours = site.published.iter().find(|(l, _)| *l == lang);
                assert_eq!(
                    ours.map(|(_, n)| *n),
                    Some(count),
                    "{}: Hugo publishes {count} posts in {lang}",
                    site.folder
                );
            }
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
        let served = serve(root);
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

/// Hugo's own count of the published pages below `content*/.../posts|blog` per language
/// (`hugo list all`, drafts left out), the language read from each page's permalink.
fn hugo_pages(hugo: &Path, root: &Path, run: &HugoRun, default: &str) -> BTreeMap<String, usize> {
    let scratch = tempfile::tempdir().unwrap();
    let stubs = scratch.path().join("stubs");
    std::fs::create_dir_all(stubs.join("shortcodes")).unwrap();
    let mut texts = String::new();
    for entry in walkdir::WalkDir::new(root.join("content"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.file_type().is_file() {
            texts.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    let call = regex_lite::Regex::new(r"\{\{[<%]\s*([A-Za-z0-9_.-][A-Za-z0-9_./-]*)").unwrap();
    let names: BTreeSet<&str> = call
        .captures_iter(&texts)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    let closing =
        regex_lite::Regex::new(r"\{\{[<%]\s*/\s*([A-Za-z0-9_.-][A-Za-z0-9_./-]*)").unwrap();
    let closed: BTreeSet<&str> = closing
        .captures_iter(&texts)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    for name in names {
        let closed = closed.contains(name);
        let body = if closed { "{{ .Inner }}" } else { "" };
        let stub = stubs.join(format!("shortcodes/{name}.html"));
        std::fs::create_dir_all(stub.parent().unwrap()).unwrap();
        std::fs::write(stub, body).unwrap();
    }
    let original = std::fs::read_to_string(root.join(run.config)).unwrap();
    let mut kept = String::new();
    let mut skipping = false;
    for line in original.lines() {
        if !line.starts_with([' ', '\t', '#']) && !line.is_empty() {
            skipping = run.drop_blocks.iter().any(|key| line.starts_with(key));
        }
        if skipping || run.drop_lines.iter().any(|start| line.starts_with(start)) {
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    let extension = run.config.rsplit('.').next().unwrap();
    let config = scratch.path().join(format!("site.{extension}"));
    let extra = scratch.path().join(format!("extra.{extension}"));
    std::fs::write(&config, kept).unwrap();
    let settings = run
        .extra
        .replace("{stubs}", stubs.to_str().unwrap())
        .replace("{scratch}", scratch.path().to_str().unwrap());
    std::fs::write(&extra, settings).unwrap();
    let listed = Command::new(hugo)
        .args(["list", "all", "--config"])
        .arg(format!("{},{}", config.display(), extra.display()))
        .current_dir(root)
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.status.success(),
        "hugo list all: {}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (draft, permalink) = (fields[fields.len() - 2], fields[fields.len() - 1]);
        if draft == "true" {
            continue;
        }
        // `https://host/fa/blog/...`: the first segment is the language, unless it is the
        // default's (at the root).
        let first = permalink.split('/').nth(3).unwrap_or_default();
        let lang = if first.len() <= 5
            && first.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && !["posts", "blog"].contains(&first)
        {
            first.to_string()
        } else {
            default.to_string()
        };
        *counts.entry(lang).or_default() += 1;
    }
    counts
}

/// LoveIt keeps each post as a page bundle with one file per language (`index.en.md`,
/// `index.zh-cn.md`): a save of the Chinese file while `serve` runs changes the Chinese list.
#[test]
fn a_saved_translation_of_a_real_hugo_site_shows_in_the_api() {
    let dir = copy_site("loveit");
    let root = dir.path();
    run_binary(root, &["init"], TIMEOUT).assert_code(0);
    let served = serve(root);
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
