//! Sites laid out as their generators lay them out (`[layout]` in `watch.toml`): Hugo's page
//! bundles with language suffixes, Jekyll's `_posts/` dated by file name with `_drafts/`,
//! date folders and category folders. Each small site is written into a temporary folder and
//! built; what is checked is what a reader of the API sees (each post's id, slug, language and
//! date, drafts left out), the errors a broken layout or name gives, and, in watch mode, that
//! edits in a page bundle and its translations leave the output equal to a fresh build.

use crate::common::{self, fresh_build, live_snapshot, load_config, spawn_logged};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TODAY: &str = "2024-06-01";

/// A post's front matter with the seed's keys (`pubDate` only when given).
fn post(title: &str, date: Option<&str>) -> String {
    let date = date.map_or(String::new(), |d| format!("pubDate: {d}\n"));
    format!(
        "---\ntitle: \"{title}\"\ndescription: \"About {title}.\"\n{date}---\n\nBody of {title}.\n"
    )
}

/// A site in a temporary folder: `watch.toml` and `files` (path → text) below its root.
fn site(watch_toml: &str, files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("watch.toml"),
        format!(
            "base_url = \"https://site.example\"\nout_dir = \"out\"\n{watch_toml}\n[site]\nauthor = \"A. Writer\"\nlicence = \"CC-BY-4.0\"\n[hosting]\nlive_record = \"off\"\n"
        ),
    )
    .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn run(site: &Path, args: &[&str]) -> Output {
    Command::new(common::BIN)
        .args(args)
        .args(["--today", TODAY])
        .current_dir(site)
        .env_remove("CI")
        .output()
        .expect("the binary runs")
}

fn build(site: &Path) -> Output {
    let output = run(site, &["build"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `api/posts-<lang>.json` as (id, slug, pubDate) triples, newest first.
fn posts(site: &Path, lang: &str) -> Vec<(String, String, String)> {
    let text = std::fs::read(site.join(format!("out/api/posts-{lang}.json"))).unwrap();
    let list: Value = serde_json::from_slice(&text).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|post| {
            let field = |name: &str| post[name].as_str().unwrap().to_string();
            (field("id"), field("slug"), field("pubDate"))
        })
        .collect()
}

fn ids(site: &Path, lang: &str) -> Vec<String> {
    posts(site, lang).into_iter().map(|(id, ..)| id).collect()
}

const HUGO: &str = r#"content_dir = "content"
languages = ["en", "fr"]
[layout]
posts = ["posts/{slug}.{lang}", "posts/{slug}/index.{lang}"]
decks = []
tags = ""
series = ""
"#;

fn hugo_files() -> Vec<(&'static str, String)> {
    vec![
        ("content/_index.md", "---\ntitle: Home\n---\n".into()),
        ("content/posts/_index.md", "---\ntitle: Posts\n---\n".into()),
        ("content/about.md", "---\ntitle: About\n---\n".into()),
        (
            "content/posts/first-steps/index.md",
            post("First steps", Some("2024-01-10")),
        ),
        (
            "content/posts/first-steps/index.fr.md",
            post("Premiers pas", Some("2024-01-12")),
        ),
        // A bundle's other Markdown is one of its resources, not a post or a warning.
        (
            "content/posts/first-steps/notes.md",
            "not front matter".into(),
        ),
        (
            "content/posts/Second Post.md",
            post("Second", Some("2024-03-01T10:00:00Z")),
        ),
    ]
}

#[test]
fn a_hugo_site_publishes_its_page_bundles_and_their_translations() {
    let dir = site(HUGO, &hugo_files());
    let output = build(dir.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(
        posts(dir.path(), "en"),
        [
            (
                "en/2024-03-01_second-post".into(),
                "second-post".into(),
                "2024-03-01T10:00:00.000Z".into()
            ),
            (
                "en/2024-01-10_first-steps".into(),
                "first-steps".into(),
                "2024-01-10T00:00:00.000Z".into()
            ),
        ]
    );
    assert_eq!(ids(dir.path(), "fr"), ["fr/2024-01-12_first-steps"]);
    // The default language at the root, the other under its code, as the contract's pages.
    assert!(dir.path().join("out/blog/first-steps.md").is_file());
    assert!(dir.path().join("out/fr/blog/first-steps.md").is_file());
    // `new` writes the default layout's files: here it says so instead of writing one the
    // site would not read.
    let new = run(dir.path(), &["new", "post", "Third"]);
    let stderr = String::from_utf8_lossy(&new.stderr);
    assert_eq!(new.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("[layout] in watch.toml is its own"),
        "{stderr}"
    );
    assert!(!dir.path().join("content/blog").exists());
}

#[test]
fn a_jekyll_site_dates_posts_by_their_names_and_keeps_drafts_aside() {
    let config = r#"content_dir = "."
languages = ["en"]
[layout]
posts = ["_posts/{date}-{slug}", "_posts/**/{date}-{slug}"]
drafts = ["_drafts/{slug}"]
decks = []
tags = ""
series = ""
"#;
    let files = vec![
        ("_config.yml", "title: My blog\n".into()),
        ("index.md", "---\nlayout: home\n---\n".into()),
        (
            "_posts/2023-07-04-hello-world.markdown",
            post("Hello world", None),
        ),
        (
            "_posts/travel/2024-02-29-leap-day.md",
            post("Leap day", None),
        ),
        // The front matter's date wins over the name's; the slug stays the name's.
        (
            "_posts/2024-05-18-release.md",
            post("Release", Some("2024-05-19 10:00:00 +0200")),
        ),
        ("_drafts/not-yet.md", post("Not yet", Some("2024-04-01"))),
        ("_site/2024-01-01-built.md", post("Built", None)),
    ];
    let dir = site(config, &files);
    build(dir.path());
    assert_eq!(
        posts(dir.path(), "en"),
        [
            (
                "en/2024-05-18_release".into(),
                "release".into(),
                "2024-05-19T08:00:00.000Z".into()
            ),
            (
                "en/2024-02-29_leap-day".into(),
                "leap-day".into(),
                "2024-02-29T00:00:00.000Z".into()
            ),
            (
                "en/2023-07-04_hello-world".into(),
                "hello-world".into(),
                "2023-07-04T00:00:00.000Z".into()
            ),
        ]
    );
    // The draft is published only in a preview, marked as one.
    let preview = tempfile::tempdir().unwrap();
    let out = preview.path().to_str().unwrap();
    let output = run(dir.path(), &["build", "--drafts", "--out", out]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let drafts: Value =
        serde_json::from_slice(&std::fs::read(preview.path().join("api/posts-en.json")).unwrap())
            .unwrap();
    assert!(
        drafts
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["slug"] == "not-yet"),
        "{drafts}"
    );
}

#[test]
fn date_folders_and_category_folders_are_read() {
    let config = r#"languages = ["de"]
[layout]
posts = ["blog/{yyyy}/{mm}/{dd}/{slug}", "notes/*/{slug}"]
decks = []
"#;
    let files = vec![
        ("content/blog/2022/11/05/herbst.md", post("Herbst", None)),
        (
            "content/notes/rust/lifetimes.md",
            post("Lifetimes", Some("2023-02-01")),
        ),
    ];
    let dir = site(config, &files);
    build(dir.path());
    assert_eq!(
        ids(dir.path(), "de"),
        ["de/2023-02-01_lifetimes", "de/2022-11-05_herbst"]
    );
}

#[test]
fn a_broken_layout_or_name_is_an_error_that_says_what_to_do() {
    // A pattern the reader cannot follow: located in watch.toml, exit 2.
    let dir = site("[layout]\nposts = [\"posts/{title}\"]\n", &[]);
    let output = run(dir.path(), &["check"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid `posts`")
            && stderr.contains("posts/{title}")
            && stderr.contains("watch.toml:"),
        "{stderr}"
    );
    // A file name whose date is not one, and a bundle beside a file of the same slug.
    let config = "languages = [\"en\"]\n[layout]\nposts = [\"posts/{date}-{slug}\", \"posts/{slug}/index\"]\n";
    let files = vec![
        ("content/posts/2024-02-30-x.md", post("X", None)),
        ("content/posts/2024-01-01-y.md", post("Y", None)),
        ("content/posts/y/index.md", post("Y", Some("2024-01-01"))),
    ];
    let dir = site(config, &files);
    let output = run(dir.path(), &["check"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("file name starts with `2024-02-30`, which is not a date"),
        "{stderr}"
    );
    assert!(stderr.contains("duplicate slug `y`"), "{stderr}");
}

#[test]
fn a_layout_that_finds_nothing_is_an_error_naming_what_it_saw() {
    let config = "languages = [\"en\"]\n[layout]\nposts = [\"articles/{slug}\"]\n";
    let files = vec![("content/posts/hello.md", post("Hello", Some("2024-01-01")))];
    let dir = site(config, &files);
    let output = run(dir.path(), &["build"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("no posts found")
            && stderr.contains("`articles/{slug}`")
            && stderr.contains("content/posts/hello.md"),
        "{stderr}"
    );
    assert!(!dir.path().join("out/api/posts-en.json").exists());
}

/// How long the daemon may take to follow an edit.
const PATIENCE: Duration = Duration::from_secs(30);

/// `content-api watch` on a site, and a fresh build of its content to compare with.
struct Watching {
    child: std::process::Child,
    log: Arc<std::sync::Mutex<Vec<String>>>,
    content: PathBuf,
    out: PathBuf,
    config: Arc<content_api::config::SiteConfig>,
}

impl Watching {
    fn start(site: &Path) -> Watching {
        let (child, log) = spawn_logged(
            Command::new(common::BIN)
                .args(["watch", "--today", TODAY])
                .current_dir(site)
                .env_remove("CI")
                .env("RUST_LOG", "info,salsa=warn"),
        );
        let content = site.join("content");
        let mut config = load_config(&site.join("watch.toml"));
        config.content_dir = camino::Utf8PathBuf::from_path_buf(content.clone()).unwrap();
        let watching = Watching {
            child,
            log,
            content,
            out: site.join("out"),
            config: Arc::new(config),
        };
        let start = Instant::now();
        while !watching.said(common::DAEMON_READY) {
            assert!(
                start.elapsed() < PATIENCE,
                "{:#?}",
                watching.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        watching
    }

    fn said(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    /// Waits until the output is a fresh build's of the content on disk.
    fn equal_to_fresh(&self, step: &str) {
        let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
        let start = Instant::now();
        loop {
            let fresh: BTreeMap<String, Vec<u8>> =
                fresh_build(self.config.clone(), today, &self.out);
            if live_snapshot(&self.out) == fresh {
                return;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "{step}: the output is not a fresh build's: {:#?}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn write(&self, path: &str, text: String) {
        let path: PathBuf = self.content.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_mode_follows_edits_in_page_bundles_and_translations() {
    let dir = site(&format!("{HUGO}[watch]\ndebounce_ms = 20\n"), &hugo_files());
    let watching = Watching::start(dir.path());
    let content = watching.content.clone();
    let equal_to_fresh = |step: &str| watching.equal_to_fresh(step);
    let write = |path: &str, text: String| watching.write(path, text);
    equal_to_fresh("start");
    write(
        "posts/first-steps/index.fr.md",
        post("Premiers pas, revus", Some("2024-01-12")),
    );
    equal_to_fresh("a translation edited");
    write(
        "posts/new-one/index.fr.md",
        post("Nouveau", Some("2024-04-01")),
    );
    equal_to_fresh("a bundle in French only");
    write(
        "posts/new-one/index.md",
        post("New one", Some("2024-04-02")),
    );
    equal_to_fresh("its English version");
    std::fs::rename(
        content.join("posts/new-one"),
        content.join("posts/renamed-one"),
    )
    .unwrap();
    equal_to_fresh("the bundle renamed");
    std::fs::remove_file(content.join("posts/first-steps/index.fr.md")).unwrap();
    equal_to_fresh("a translation removed");
    assert!(
        ids(dir.path(), "fr")
            .iter()
            .all(|id| !id.ends_with("first-steps")),
        "{:?}",
        ids(dir.path(), "fr")
    );
}

/// Hugo's folder per language with localized names, linked by `translationKey`: the Spanish
/// version takes the English slug, in a build and in watch mode when the English one's slug
/// changes; a translation that would take a slug its language already has is an error.
#[test]
fn translations_linked_by_a_key_share_the_default_languages_slug() {
    let config = r#"languages = ["en", "es"]
[layout]
posts = ["{lang}/posts/{slug}"]
decks = []
tags = ""
series = ""
[front_matter.keys]
translation_key = ["translationKey"]
"#;
    let keyed = |title: &str, key: &str| {
        post(title, Some("2024-03-01"))
            .replace("---\n\n", &format!("translationKey: {key}\n---\n\n"))
    };
    let files = vec![
        ("content/en/posts/coffee.md", keyed("Coffee", "coffee")),
        ("content/es/posts/cafe.md", keyed("Café", "coffee")),
        ("content/es/posts/solo.md", post("Solo", Some("2024-03-02"))),
    ];
    let dir = site(&format!("{config}[watch]\ndebounce_ms = 20\n"), &files);
    build(dir.path());
    let es = posts(dir.path(), "es");
    let slugs: Vec<&str> = es.iter().map(|(_, slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["solo", "coffee"], "{es:?}");
    assert_eq!(es[1].0, "es/2024-03-01_cafe", "the id keeps its own name");
    assert!(dir.path().join("out/es/blog/coffee.md").is_file());
    // A Spanish post already named `coffee`: the translation cannot take the slug too.
    std::fs::write(
        dir.path().join("content/es/posts/coffee.md"),
        post("Otro", Some("2024-03-03")),
    )
    .unwrap();
    let check = run(dir.path(), &["check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("duplicate slug `coffee`"), "{stderr}");
    std::fs::remove_file(dir.path().join("content/es/posts/coffee.md")).unwrap();
    // In watch mode, the English post renamed: its translation follows, as a fresh build.
    let watching = Watching::start(dir.path());
    watching.equal_to_fresh("start");
    std::fs::rename(
        dir.path().join("content/en/posts/coffee.md"),
        dir.path().join("content/en/posts/java.md"),
    )
    .unwrap();
    watching.equal_to_fresh("the English post renamed");
    let slugs: Vec<String> = posts(dir.path(), "es")
        .into_iter()
        .map(|(_, slug, _)| slug)
        .collect();
    assert_eq!(slugs, ["solo", "java"]);
}
