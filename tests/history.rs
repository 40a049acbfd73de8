//! The history of published API paths: an input of the build that decides the host files'
//! 410s (`_nginx_gone.conf` here; `_worker.js` and Netlify's `_redirects` take the same list).
//!
//! - `--once` remembers what it published; removing a tag's last post lists its timelines in
//!   `_nginx_gone.conf` as 410, and bringing it back removes the rule.
//! - In a long-lived workspace (watch mode), `_nginx_gone.conf` re-renders only when the set of gone
//!   paths changes, and setting an equal history is not a change.
//! - The history lives beside `watch.toml`: a fresh clone without the output folder answers
//!   410 through the host files and through `serve`; a `--drafts` preview and a watch session
//!   never record; a legacy `out/.content-api/published.json` is validated and migrated once;
//!   bad lines are reported with file and line and never reach the host files.
//! - Builds that keep nothing between deploys read the live site's deploy record
//!   (`history/live_site.rs`).

use crate::common;
pub(crate) mod live_site;

use common::*;
use content_api::content::{ContentPath, FileContents};
use content_api::session::Session;
use content_api::source::ChangeSet;
use content_api::workspace::Workspace;
use content_api::{build, watch_toml};
use std::sync::Arc;

const HALF_MARATHON: [&str; 2] = [
    "blog/en/2023-08-27_training-for-my-first-half-marathon.md",
    "blog/es/2023-08-27_training-for-my-first-half-marathon.md",
];

#[test]
fn once_remembers_what_it_published_and_lists_removed_paths_as_gone() {
    let out = tempfile::tempdir().unwrap();
    let content = tempfile::tempdir().unwrap();
    golden_copy(&repo().join("content"), content.path());
    build(content.path(), out.path(), &[]);
    let redirects = || std::fs::read_to_string(out.path().join("_nginx_gone.conf")).unwrap();
    let gone_rules = || gone_locations(&redirects());
    assert!(gone_rules().is_empty(), "{}", redirects());
    let history = std::fs::read_to_string(out.path().join(".content-api/test.history")).unwrap();
    assert!(history.contains("\napi/timeline/en/half-marathon.json\n"));
    assert!(!history.contains("openapi.json"), "only API paths are kept");

    let saved: Vec<(std::path::PathBuf, Vec<u8>)> = HALF_MARATHON
        .iter()
        .map(|p| {
            let path = content.path().join(p);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            (path, bytes)
        })
        .collect();
    build(content.path(), out.path(), &[]);
    assert_eq!(
        gone_rules(),
        [
            "/api/timeline/en/half-marathon.json",
            "/api/timeline/es/half-marathon.json",
        ]
    );
    // A third build with the same content rewrites nothing: the gone set is stable.
    let second = build(content.path(), out.path(), &[]);
    assert!(String::from_utf8_lossy(&second.stderr).contains(" 0 written"));

    for (path, bytes) in saved {
        std::fs::write(path, bytes).unwrap();
    }
    build(content.path(), out.path(), &[]);
    assert!(gone_rules().is_empty(), "{}", redirects());
}

fn golden_copy(from: &std::path::Path, to: &std::path::Path) {
    for (path, bytes) in read_tree(from) {
        let target = to.join(&path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

fn redirects_of(workspace: &Workspace) -> String {
    let outputs = build::outputs(workspace.db());
    let (_, output) = outputs
        .iter()
        .find(|(path, _)| &**path == "_nginx_gone.conf")
        .unwrap();
    String::from_utf8(output.to_vec().unwrap()).unwrap()
}

/// The reason for the history's bound holds. With every one of `MAX_HISTORY_ENTRIES` paths
/// removed (tag timelines with names longer than most),
/// `_nginx_gone.conf`, the largest gone list, stays under the 25 MiB per file Cloudflare Pages
/// uploads, at about 900 bytes a path.
#[test]
fn a_full_history_of_removed_paths_keeps_the_gone_lists_within_the_host_limit() {
    use content_api::deploy::MAX_HISTORY_ENTRIES;
    use content_api::deploy::pages_limits::PAGES_MAX_FILE;
    let history: Vec<Arc<str>> = (0..MAX_HISTORY_ENTRIES)
        .map(|n| format!("api/timeline/en/a-rather-long-removed-tag-name-{n:05}.json").into())
        .collect();
    let workspace = recording_sample_workspace(history.into());
    let outputs = build::outputs(workspace.db());
    let size = |name: &str| {
        outputs
            .iter()
            .find(|(path, _)| &**path == name)
            .map_or(0, |(_, output)| output.len())
    };
    let nginx = size("_nginx_gone.conf");
    assert!(
        nginx > 600 * MAX_HISTORY_ENTRIES,
        "every path is listed: {nginx} bytes"
    );
    assert!(
        nginx < PAGES_MAX_FILE,
        "_nginx_gone.conf is {nginx} bytes ({} a path)",
        nginx / MAX_HISTORY_ENTRIES
    );
    assert!(size("_worker.js") < PAGES_MAX_FILE);
}

#[test]
fn redirects_re_render_only_when_the_gone_set_changes() {
    let history: Vec<Arc<str>> = vec!["api/series/en/retired.json".into()];
    let mut workspace = recording_sample_workspace(history.clone().into());
    assert!(redirects_of(&workspace).contains("location = /api/series/en/retired.json {"));
    // The first edit of a file lowers its durability (HIGH as loaded, LOW once edited), and
    // salsa cannot backdate across that drop: its dependents re-run once. Edit once first.
    let post = ContentPath::new(HALF_MARATHON[0]).unwrap();
    let text = std::fs::read_to_string(repo().join("content").join(HALF_MARATHON[0])).unwrap();
    workspace.apply([(
        post,
        FileContents::Text(Arc::new(format!("{text}\nA first edit.\n"))),
    )]);
    redirects_of(&workspace);
    workspace.db().take_executions();

    // An equal history is not a change.
    assert!(!workspace.set_history_paths(history.clone().into()));

    // A title edit changes posts, not the set of paths: the gone list is not rendered again.
    let post = ContentPath::new(HALF_MARATHON[0]).unwrap();
    let text = std::fs::read_to_string(repo().join("content").join(HALF_MARATHON[0])).unwrap();
    let edited = text.replace("Training for My First", "Training for a First");
    let applied = workspace.apply([(post, FileContents::Text(Arc::new(edited)))]);
    assert_eq!(applied.changed.len(), 1);
    redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "post_entry_json") > 0, "{executed:?}");
    assert!(runs_of(&executed, "gone_file") == 0, "{executed:?}");

    // Publishing the current paths grows the history without changing the gone set.
    let mut grown: Vec<Arc<str>> = build::outputs(workspace.db())
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| path.starts_with("api/"))
        .collect();
    grown.extend(history);
    grown.sort();
    assert!(workspace.set_history_paths(grown.clone().into()));
    redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "gone_file") == 0, "{executed:?}");

    // A new gone path re-renders it.
    let mut more = grown;
    more.push("api/timeline/es/retired.json".into());
    more.sort();
    assert!(workspace.set_history_paths(more.into()));
    let text = redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "gone_file") > 0, "{executed:?}");
    assert!(text.contains("location = /api/timeline/es/retired.json {"));
}

// ---- The history file beside watch.toml. ----

/// A site's `watch.toml` with every setting a production build needs (no placeholder).
const SITE_TOML: &str = "base_url = \"https://site.example\"\n\
    [site]\nauthor = \"Ana\"\nlicence = \"CC BY 4.0\"\n\
    licence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n";
const HISTORY: &str = "content-api.history";
const RUST_EN: &str = "api/timeline/en/rust.json";

/// A site folder as a repository holds it: `watch.toml`, `content/`, and (after a build)
/// `content-api.history` and `out/`.
fn site() -> Site {
    let site = Site::new();
    site.write_root("watch.toml", SITE_TOML);
    site
}

trait SiteExt {
    fn write_root(&self, relative: &str, text: &str);
    fn once(&self, extra: &[&str]) -> Run;
    fn read(&self, relative: &str) -> String;
    fn clone_without_out(&self) -> Site;
}

impl SiteExt for Site {
    fn write_root(&self, relative: &str, text: &str) {
        let path = self.root().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `content-api --once` in the site folder, as CI runs it (settings from `watch.toml`).
    fn once(&self, extra: &[&str]) -> Run {
        let mut args = vec!["--once", "--today", TODAY];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root().join(relative))
            .unwrap_or_else(|e| panic!("{relative}: {e}"))
    }

    /// What a fresh clone of the site's repository holds: everything but `out/`.
    fn clone_without_out(&self) -> Site {
        let clone = Site::empty();
        for (path, bytes) in read_tree(self.root()) {
            if path.starts_with("out/") {
                continue;
            }
            let target = clone.root().join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
        clone
    }
}

/// A build run from `site`'s folder (its `watch.toml` and history) of `other`'s content into
/// `other`'s output folder.
fn once_for_other_site(site: &Site, other: &Site) -> Run {
    site.once(&[
        "--content",
        other.content().to_str().unwrap(),
        "--out",
        other.out().to_str().unwrap(),
    ])
}

fn history_lines(site: &Site) -> Vec<String> {
    site.read(HISTORY)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn gone_rules(site: &Site) -> Vec<String> {
    gone_locations(&site.read("out/_nginx_gone.conf"))
}

/// The removed paths `_nginx_gone.conf` answers 410 for.
fn gone_locations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("location = ")?.strip_suffix(" {"))
        .map(str::to_string)
        .collect()
}

/// Removes the `rust` tag from the English post: its English timeline is no longer an output.
fn untag_english_post(site: &Site) {
    site.write(EN_POST, EN_POST_TEXT.replace("tags: [\"rust\"]\n", ""));
}

#[test]
fn a_fresh_clone_without_out_answers_410_for_what_an_earlier_build_published() {
    let site = site();
    site.once(&[]).assert_success();
    let lines = history_lines(&site);
    assert!(lines.contains(&RUST_EN.to_string()), "{lines:?}");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "the history is sorted");
    assert!(lines.iter().all(|l| l.starts_with("api/")), "{lines:?}");

    // The author removes the tag and pushes; CI builds a fresh clone: no out/ at all.
    untag_english_post(&site);
    let clone = site.clone_without_out();
    assert!(!clone.out().exists());
    let built = clone.once(&[]);
    built.assert_success();
    assert_eq!(gone_rules(&clone), ["/api/timeline/en/rust.json"]);
    // One line says which paths answer 410 from this deploy on; the next build, none.
    assert!(
        built.stderr.contains(
            "1 removed API path answers 410 Gone from this deploy on: /api/timeline/en/rust.json"
        ),
        "{}",
        built.stderr
    );
    let again = clone.once(&[]);
    assert!(!again.stderr.contains("410 Gone"), "{}", again.stderr);

    // And `serve` in a fresh clone answers 410 too (it builds before it listens).
    let clone = site.clone_without_out();
    let server = ServeCommand::start(&clone);
    let (status, body) = server.get("/api/timeline/en/rust.json");
    assert_eq!(status, 410, "{body}");
    assert!(body.contains("\"gone\""), "{body}");
    let (status, _) = server.get("/api/timeline/en/never-was.json");
    assert_eq!(status, 404);
    let (status, _) = server.get("/api/timeline/es/rust.json");
    assert_eq!(status, 200);
}

#[test]
fn a_drafts_preview_and_a_watch_session_never_record() {
    let site = site();
    // A draft with a tag of its own, previewed into the same output folder.
    site.write(
        "tags/secret.md",
        "---\nname: secret\ndescription: \"Not yet\"\ntier: primary\n---\n",
    );
    site.write(
        "blog/en/2024-05-02_draft.md",
        "---\ntitle: \"Draft\"\ndescription: \"Soon\"\npubDate: 2024-05-02\ndraft: true\ntags: [\"secret\"]\n---\n\nBody.\n",
    );
    site.once(&["--drafts"]).assert_success();
    assert!(
        site.root()
            .join("out/api/timeline/en/secret.json")
            .is_file()
    );
    assert!(
        !site.root().join(HISTORY).exists(),
        "a preview must not create the history"
    );
    site.once(&[]).assert_success();
    let recorded = site.read(HISTORY);
    assert!(!recorded.contains("secret"), "{recorded}");
    site.once(&["--drafts"]).assert_success();
    assert_eq!(site.read(HISTORY), recorded, "a preview must not touch it");
    site.once(&[]).assert_success();
    assert!(gone_rules(&site).is_empty(), "{:?}", gone_rules(&site));

    // A watch session: a tag added and removed within it was never deployed.
    let config = Arc::new(
        watch_toml::load(
            camino::Utf8Path::from_path(&site.root().join("watch.toml")).unwrap(),
            true,
        )
        .unwrap()
        .unwrap()
        .config,
    );
    let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
    let (mut session, _) = Session::start(config, today, false).unwrap();
    site.write(
        "tags/fleeting.md",
        "---\nname: fleeting\ndescription: \"Here and gone\"\ntier: primary\n---\n",
    );
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("[\"rust\"]", "[\"rust\", \"fleeting\"]"),
    );
    let batch = |paths: &[&str]| ChangeSet {
        paths: paths.iter().map(|p| p.to_string()).collect(),
        rescan: false,
        ..Default::default()
    };
    session
        .apply(&batch(&[EN_POST, "tags/fleeting.md"]))
        .unwrap();
    assert!(
        site.root()
            .join("out/api/timeline/en/fleeting.json")
            .is_file()
    );
    site.write(EN_POST, EN_POST_TEXT);
    session.apply(&batch(&[EN_POST])).unwrap();
    assert!(
        !site
            .root()
            .join("out/api/timeline/en/fleeting.json")
            .exists()
    );
    assert_eq!(site.read(HISTORY), recorded);
    assert!(gone_rules(&site).is_empty(), "{:?}", gone_rules(&site));
}

#[test]
fn a_legacy_history_is_validated_and_migrated_once() {
    let site = site();
    site.write_root(
        "out/.content-api/published.json",
        "{\n  \"generator\": \"content-api\",\n  \"published\": [\n    \"api/series/en/retired.json\",\n    \"api/x.json\\n/* /evil 200\",\n    \"api/../../etc/passwd\"\n  ]\n}\n",
    );
    let run = site.once(&[]);
    run.assert_success();
    let legacy = "out/.content-api/published.json";
    assert!(
        run.stderr.contains(&format!("{legacy}:5:")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{legacy}:6:")),
        "{}",
        run.stderr
    );
    assert!(!site.root().join(legacy).exists(), "migrated once");
    let lines = history_lines(&site);
    assert!(lines.contains(&"api/series/en/retired.json".to_string()));
    assert!(!site.read(HISTORY).contains("evil") && !site.read(HISTORY).contains(".."));
    assert_eq!(gone_rules(&site), ["/api/series/en/retired.json"]);
    assert!(!site.read("out/_nginx_gone.conf").contains("evil"));
    // A second build has nothing to migrate and nothing to say.
    let again = site.once(&[]);
    again.assert_success();
    assert!(!again.stderr.contains("warning"), "{}", again.stderr);
}

#[test]
fn bad_history_lines_are_reported_by_line_and_never_reach_the_host_files() {
    let site = site();
    site.write_root(
        HISTORY,
        "# hand-edited\napi/timeline/en/old.json\napi/x.json /evil 200\n<<<<<<< HEAD\napi/../secret.json\napi/timeline/es/old.json\n",
    );
    let run = site.once(&[]);
    run.assert_success();
    for line in [3, 4, 5] {
        assert!(
            run.stderr.contains(&format!("{HISTORY}:{line}:")),
            "line {line} not reported: {}",
            run.stderr
        );
    }
    assert_eq!(
        gone_rules(&site),
        ["/api/timeline/en/old.json", "/api/timeline/es/old.json",]
    );
    let history = site.read(HISTORY);
    assert!(!history.contains("evil") && !history.contains("<<<") && !history.contains(".."));
    assert!(history.contains("\napi/timeline/en/old.json\n"));
}

/// `content-api serve` in a site folder; killed on drop.
struct ServeCommand(common::Served);

impl ServeCommand {
    fn start(site: &Site) -> ServeCommand {
        ServeCommand(common::Served::spawn(
            std::process::Command::new(BIN)
                .env_remove("CI")
                .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
                .current_dir(site.root())
                .stderr(std::process::Stdio::null()),
        ))
    }

    /// A GET over a plain socket: the status code and the body.
    fn get(&self, path: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(self.0.addr()).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response.split(' ').nth(1).unwrap().parse().unwrap();
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }
}

// ---- The history belongs to one site. ----

#[test]
fn a_build_of_another_site_never_writes_this_sites_history() {
    let site = site();
    site.once(&[]).assert_success();
    let before = site.read(HISTORY);
    assert!(
        before.contains("# site: {"),
        "the history names its site:\n{before}"
    );
    // Another site's content, built from this folder (its watch.toml applies).
    let other = Site::new();
    other.write(
        TAG,
        TAG_TEXT
            .replace("name: rust", "name: go")
            .replace("Rust", "Go"),
    );
    std::fs::remove_file(other.content().join(TAG)).unwrap();
    other.write("tags/go.md", TAG_TEXT.replace("name: rust", "name: go"));
    other.write(EN_POST, EN_POST_TEXT.replace("\"rust\"", "\"go\""));
    other.write(ES_POST, ES_POST_TEXT.replace("\"rust\"", "\"go\""));
    let run = once_for_other_site(&site, &other);
    run.assert_success();
    assert!(
        run.stderr.contains("neither read nor recorded"),
        "{}",
        run.stderr
    );
    assert_eq!(
        site.read(HISTORY),
        before,
        "not one line of the other site's"
    );
    assert!(
        !other.out().join("api/timeline/en/rust.json").exists()
            && !std::fs::read_to_string(other.out().join("_nginx_gone.conf"))
                .unwrap()
                .contains("rust"),
        "this site's paths are not the other site's 410s"
    );
    // This site's next build answers 410 for nothing it never had.
    site.once(&[]).assert_success();
    assert!(gone_rules(&site).is_empty(), "{:?}", gone_rules(&site));
}

#[test]
fn a_history_no_build_claimed_is_adopted_only_by_the_site_whose_watch_toml_is_beside_it() {
    let site = site();
    // As an older version wrote it: no `# site:` line.
    let older = "api/timeline/en/retired.json\n";
    site.write_root(HISTORY, older);
    let other = Site::new();
    let run = once_for_other_site(&site, &other);
    run.assert_success();
    assert!(
        run.stderr.contains("names no site") && run.stderr.contains("# site: {"),
        "says so, with the line to add if it is that build's:\n{}",
        run.stderr
    );
    assert_eq!(site.read(HISTORY), older, "left untouched");
    assert!(
        !std::fs::read_to_string(other.out().join("_nginx_gone.conf"))
            .unwrap()
            .contains("retired"),
        "nothing read from it"
    );
    // The site of the watch.toml beside it reads it and claims it.
    let run = site.once(&[]);
    run.assert_success();
    assert!(!run.stderr.contains("names no site"), "{}", run.stderr);
    assert!(site.read(HISTORY).contains("# site: {"));
    assert_eq!(gone_rules(&site), ["/api/timeline/en/retired.json"]);
}

#[test]
fn a_build_outside_any_site_creates_no_history_in_the_current_folder() {
    let site = Site::new();
    let run = site.build();
    run.assert_success();
    assert!(!site.root().join(HISTORY).exists(), "{}", run.stderr);
    assert!(
        !site.root().join(".content-api").exists(),
        "no state either"
    );
    assert!(
        run.stderr.contains("records no publishing history"),
        "{}",
        run.stderr
    );
    // Naming the file is a decision: it is recorded.
    site.build_with(&["--history", "mine.history"])
        .assert_success();
    assert!(site.root().join("mine.history").is_file());
}
