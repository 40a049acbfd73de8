//! The bundled sample site (`content/`, `watch.toml`, the committed `out/`), the optional
//! real corpus and a synthetic one, built whole; and what a build of the sample executes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// ---- Building whole sites: the sample `content/` and the optional real corpus. ----

/// The date the committed sample build (and the real-corpus checks) are made for.
pub const SAMPLE_TODAY: &str = "2026-11-22";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `content-api` with `args` in the repository folder.
pub fn content_api(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_content-api"))
        .args(args)
        .current_dir(repo())
        // Builds of other content than the sample's use its watch.toml only in part.
        .env_remove("CI")
        .output()
        .expect("the binary runs")
}

/// Builds the bundled sample site into `out` as a fresh clone would: its `watch.toml`, its
/// committed publishing history (`content-api.history`), the reproducible date.
pub fn build_sample(out: &Path) -> Output {
    content_api(&[
        "--once",
        "--today",
        SAMPLE_TODAY,
        "--out",
        out.to_str().unwrap(),
    ])
}

/// [`build_sample`] into a new temporary folder, failing the test when the build fails.
pub fn built_sample() -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let result = build_sample(out.path());
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    out
}

/// Builds `content` into `out` with the reproducible date and returns the process output,
/// failing the test when the build fails. It runs in the repository with its `watch.toml`: the
/// publishing history goes to the output folder's state folder (unless `extra` names one), so a
/// test never records into the sample site's `content-api.history`.
pub fn build(content: &Path, out: &Path, extra: &[&str]) -> Output {
    let history = out.join(".content-api/test.history");
    let history = history.to_str().unwrap();
    let mut args = vec![
        "--once",
        "--today",
        SAMPLE_TODAY,
        "--content",
        content.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    if !extra.contains(&"--history") {
        args.extend(["--history", history]);
    }
    args.extend_from_slice(extra);
    let output = content_api(&args);
    assert!(
        output.status.success(),
        "build of {} failed: {}",
        content.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Copies the bundled sample site (`content/`) to `dest`.
pub fn copy_sample_content(dest: &Path) {
    for (path, bytes) in read_tree(&repo().join("content")) {
        let target = dest.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

/// Every file below `dir`, by `/`-separated relative path.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("readable tree");
        if entry.file_type().is_file() {
            let relative = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/");
            files.insert(relative, std::fs::read(entry.path()).unwrap());
        }
    }
    files
}

/// Copies every file below `from` to the same relative path below `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for (path, bytes) in read_tree(from) {
        let target = to.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

/// Asserts two trees hold the same files with the same bytes, naming the first difference.
pub fn assert_same_tree(
    expected: &BTreeMap<String, Vec<u8>>,
    actual: &BTreeMap<String, Vec<u8>>,
    hint: &str,
) {
    let missing: Vec<_> = expected
        .keys()
        .filter(|k| !actual.contains_key(*k))
        .collect();
    let extra: Vec<_> = actual
        .keys()
        .filter(|k| !expected.contains_key(*k))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, unexpected {extra:?}. {hint}"
    );
    for (path, bytes) in expected {
        if actual[path] != *bytes {
            panic!(
                "{path} differs.\nexpected: {}\nactual:   {}\n{hint}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(400)]),
                String::from_utf8_lossy(&actual[path][..actual[path].len().min(400)])
            );
        }
    }
}

/// The real corpus (`../shared/corpus/xergioalex`, beside this checkout). The tests that use it
/// are `#[ignore]`d, because a fresh clone does not have it: run them with `--ignored` where it
/// is. Asking for it where it is absent fails the test rather than passing it unchecked.
pub fn corpus() -> PathBuf {
    let dir = repo().join("../shared/corpus/xergioalex");
    assert!(
        dir.is_dir(),
        "{} is absent: this test needs the real corpus beside the checkout",
        dir.display()
    );
    dir
}

/// A synthetic bilingual corpus under `root` (the benchmarks' generator, deterministic): 150
/// posts per language (lists span three runs of 64), 40 tags in three tiers, 12 series, 20
/// decks per language, about 2% drafts, every date in the past of [`SAMPLE_TODAY`].
pub fn synthetic_corpus(root: &Path) -> PathBuf {
    let dir = root.join("synthetic");
    super::synthetic::generate(
        &dir,
        super::synthetic::Shape {
            posts: 150,
            tags: 40,
            series: 12,
            slides: 20,
            paragraphs: 3,
            seed: 15,
        },
    );
    dir
}

/// The posts of a content folder a build publishes: every `blog/` file without `draft: true`
/// (the synthetic corpus has no scheduled posts).
pub fn published_post_count(content: &Path) -> usize {
    read_tree(&content.join("blog"))
        .values()
        .filter(|bytes| !String::from_utf8_lossy(bytes).contains("\ndraft: true\n"))
        .count()
}

// ---- The sample configuration and what a build executes. ----

/// The configuration in `path` (a `watch.toml`), which must exist and be valid.
pub fn load_config(path: &Path) -> content_api::config::SiteConfig {
    let path = camino::Utf8Path::from_path(path).expect("a UTF-8 path");
    content_api::watch_toml::load(path, true)
        .unwrap_or_else(|e| panic!("{path}: {e:?}"))
        .unwrap_or_else(|| panic!("{path} is missing"))
        .config
}

/// The sample site's configuration (`watch.toml` at the repository root).
pub fn sample_config() -> content_api::config::SiteConfig {
    load_config(&repo().join("watch.toml"))
}

/// [`sample_config`] with the content folder at `content` and the output folder at `out`.
pub fn sample_config_in(content: &Path, out: &Path) -> content_api::config::SiteConfig {
    let mut config = sample_config();
    config.content_dir = camino::Utf8PathBuf::from_path_buf(content.to_owned()).unwrap();
    config.out_dir = camino::Utf8PathBuf::from_path_buf(out.to_owned()).unwrap();
    config
}

/// [`SAMPLE_TODAY`] as a date.
pub fn sample_today() -> chrono::NaiveDate {
    chrono::NaiveDate::parse_from_str(SAMPLE_TODAY, "%Y-%m-%d").unwrap()
}

/// The name of every query a full watch-mode build of the sample site executes: its outputs,
/// its diagnostics, and a refresh of every group. Recorded once per test binary.
pub fn full_build_queries() -> &'static BTreeSet<String> {
    static NAMES: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let workspace = recording_sample_workspace(Default::default());
        content_api::build::diagnostics(workspace.db());
        content_api::build::outputs(workspace.db());
        content_api::build::refresh_groups(workspace.db());
        query_names(&workspace.db().take_executions())
            .into_iter()
            .collect()
    })
}

/// A watch-mode workspace over the bundled sample site (its configuration and date) on a
/// recording database, so a test can see which queries run; `published` is the history.
pub fn recording_sample_workspace(
    published: content_api::output::HistoryPaths,
) -> content_api::workspace::Workspace {
    let config = sample_config();
    let scan = content_api::source::scan(&repo().join("content"), &config);
    content_api::workspace::Workspace::with_database(
        content_api::db::Database::recording(),
        std::sync::Arc::new(config),
        sample_today(),
        false,
        scan,
        content_api::workspace::Lifetime::Watch,
        published,
    )
}

/// `parse_post(Id(3))` → `parse_post`: the query names of a recording database's log.
pub fn query_names(executed: &[String]) -> Vec<String> {
    executed
        .iter()
        .map(|e| e.split('(').next().unwrap_or(e).to_string())
        .collect()
}

/// How many times `query` appears in `executed` (names, as [`query_names`] gives them). Panics
/// when no full build executes a query of that name: an assertion that a misspelt, renamed or
/// untracked function "did not run" would pass whatever the code does.
pub fn runs_of(executed: &[String], query: &str) -> usize {
    let known = full_build_queries();
    assert!(
        known.contains(query),
        "`{query}` is not a query a full build executes, so counting its runs proves nothing; \
         known queries: {known:?}"
    );
    executed.iter().filter(|q| *q == query).count()
}

/// Deletes from `content` the only post in `lang` of a tag with one post (found in the build
/// `out`), so that the next build makes that tag's timeline a removed path; returns the tag.
pub fn remove_the_post_of_a_single_post_tag(
    content: &std::path::Path,
    out: &std::path::Path,
    lang: &str,
) -> String {
    let (tag, slug) = single_post_tag_in(out, lang);
    let post_file = std::fs::read_dir(content.join("blog").join(lang))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            name.split_once('_').is_some_and(|(_, s)| s == slug)
        })
        .expect("the post's file");
    std::fs::remove_file(post_file).unwrap();
    tag
}

/// A tag with exactly one post in the language `lang` (its code), and that post's slug.
pub fn single_post_tag_in(out: &std::path::Path, lang: &str) -> (String, String) {
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(out.join("api/timeline").join(lang))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let timeline: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if timeline["total"] == 1 {
            let tag = path.file_stem().unwrap().to_string_lossy().into_owned();
            let slug = timeline["posts"][0]["slug"].as_str().unwrap().to_string();
            return (tag, slug);
        }
    }
    panic!("the site has no tag with a single post in `{lang}`");
}
