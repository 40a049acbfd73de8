//! The live site as the memory of builds that keep nothing (Cloudflare Pages' Git integration:
//! a fresh clone each time, nothing pushed back). A local HTTP server stands in for the live
//! site; each deploy is a build in a fresh copy of the site with no history and no state, as
//! `CI=true`, whose output then replaces what the server serves.
//!
//! - the first deploy finds no record (404) and works;
//! - a tag timeline removed in the second deploy still answers 410 after the third (its path in
//!   `_nginx_gone.conf` and in the edge layer), carried by the live site's record alone;
//! - the third deploy's purge list names exactly the URLs whose bytes changed since the second,
//!   and a fourth with nothing changed purges nothing;
//! - a site that cannot be reached is an error in CI, a warning with `live_record =
//!   "optional"` or outside CI, and nothing is written on the error.
//! - what a record may change is bounded and said (issue 50): a site's own file is never made
//!   gone, each path made gone only by the record is named, a record or a committed history past
//!   `MAX_HISTORY_ENTRIES` stops the build at once, a page in place of the record is a warning
//!   in CI, and a bot challenge names the way through;
//! - a record listing more files than a deploy of the site holds (`cloudflare_max_files`) is
//!   refused, so the purge list stays the build's own URLs, and a legitimate one stays exact.

use super::HALF_MARATHON;
use super::common::{copy_sample_content, read_tree};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

/// A static file server on a loopback port, serving `root` (GET only; 404 for the rest).
pub(crate) struct LiveSite {
    pub(crate) base_url: String,
    root: tempfile::TempDir,
}

impl LiveSite {
    pub(crate) fn start() -> LiveSite {
        let root = tempfile::tempdir().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let served = root.path().to_path_buf();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let line = String::from_utf8_lossy(&request);
                let path = line
                    .split(' ')
                    .nth(1)
                    .unwrap_or("/")
                    .trim_start_matches('/');
                let file = served.join(path);
                let reply = match std::fs::read(&file) {
                    Ok(body) if !path.split('/').any(|part| part == "..") => {
                        let mut reply = format!(
                            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        reply.extend(body);
                        reply
                    }
                    _ => {
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = stream.write_all(&reply);
            }
        });
        LiveSite { base_url, root }
    }

    /// Serves `dist` from now on, in place of the previous deploy.
    pub(crate) fn deploy(&self, dist: &Path) {
        for entry in std::fs::read_dir(self.root.path()).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                std::fs::remove_dir_all(path).unwrap();
            } else {
                std::fs::remove_file(path).unwrap();
            }
        }
        for (path, bytes) in read_tree(dist) {
            let target = self.root.path().join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
    }
}

/// A fresh copy of the site: the sample content and a `watch.toml` for `base_url`, writing into
/// `dist/`; no history, no state, no output.
fn fresh_site(base_url: &str, hosting: &str) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    copy_sample_content(&site.path().join("content"));
    std::fs::write(
        site.path().join("watch.toml"),
        format!(
            "base_url = \"{base_url}\"\nout_dir = \"dist\"\ntimezone = \"America/Bogota\"\n\n[site]\nname = \"Live\"\nauthor = \"Lucía Montoya\"\nlicence = \"CC BY 4.0\"\n{hosting}"
        ),
    )
    .unwrap();
    site
}

fn build(site: &Path, ci: bool, extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_content-api"));
    command
        .args(["build", "--today", super::common::SAMPLE_TODAY])
        .args(extra)
        .current_dir(site);
    if ci {
        command.env("CI", "true");
    } else {
        command.env_remove("CI");
    }
    command.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn assert_built(output: &Output) -> String {
    let said = stderr(output);
    assert!(output.status.success(), "the build failed:\n{said}");
    said
}

fn remove_half_marathon(site: &Path) {
    for post in HALF_MARATHON {
        std::fs::remove_file(site.join("content").join(post)).unwrap();
    }
}

const GONE: &str = "api/timeline/en/half-marathon.json";

#[test]
fn deploys_from_fresh_clones_keep_410s_and_purge_only_what_changed() {
    let live = LiveSite::start();

    // 1. The first deploy: nothing to read, and that is fine.
    let first = fresh_site(&live.base_url, "");
    let said = assert_built(&build(first.path(), true, &[]));
    assert!(
        said.contains("answers 404") && said.contains("first deploy"),
        "{said}"
    );
    let dist = first.path().join("dist");
    assert!(dist.join(GONE).is_file());
    assert!(dist.join(".well-known/content-api/deploy.json").is_file());
    live.deploy(&dist);

    // 2. The tag's only post is removed: its timeline is gone, and this deploy knows it.
    let second = fresh_site(&live.base_url, "");
    remove_half_marathon(second.path());
    let said = assert_built(&build(second.path(), true, &[]));
    assert!(
        said.contains("read the live site's deploy record"),
        "{said}"
    );
    let dist = second.path().join("dist");
    assert!(!dist.join(GONE).exists());
    let gone = std::fs::read_to_string(dist.join("_nginx_gone.conf")).unwrap();
    assert!(gone.contains(&format!("/{GONE}")), "{gone}");
    live.deploy(&dist);
    let deployed_second = read_tree(&dist);

    // 3. A fresh clone again, with one title edited: only the live site remembers the timeline.
    let third = fresh_site(&live.base_url, "");
    remove_half_marathon(third.path());
    let post = third
        .path()
        .join("content/blog/en/2024-06-02_running-up-las-palmas.md");
    let text = std::fs::read_to_string(&post).unwrap();
    std::fs::write(
        &post,
        text.replace(
            "title: \"Running Up Las Palmas\"",
            "title: \"Up Las Palmas\"",
        ),
    )
    .unwrap();
    let purge = third.path().join("purge.txt");
    let said = assert_built(&build(
        third.path(),
        true,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    assert!(
        said.contains("read the live site's deploy record"),
        "{said}"
    );
    let dist = third.path().join("dist");
    let gone = std::fs::read_to_string(dist.join("_nginx_gone.conf")).unwrap();
    assert!(
        gone.contains(&format!("/{GONE}")),
        "410 in nginx's rules:\n{gone}"
    );
    let edge = std::fs::read_to_string(dist.join("_worker.js")).unwrap();
    assert!(
        edge.contains(&format!("\"{GONE}\"")),
        "410 in the edge layer"
    );
    let history = std::fs::read_to_string(third.path().join("content-api.history")).unwrap();
    assert!(history.lines().any(|line| line == GONE), "{history}");

    // The purge list: exactly the URLs whose bytes differ from the second deploy's.
    let deployed_third = read_tree(&dist);
    let paths: BTreeSet<&String> = deployed_second
        .keys()
        .chain(deployed_third.keys())
        .collect();
    let changed: BTreeSet<String> = paths
        .into_iter()
        .filter(|path| !path.starts_with(".content-api/") && *path != "_headers")
        .filter(|path| deployed_second.get(*path) != deployed_third.get(*path))
        .map(|path| format!("{}/{path}", live.base_url))
        .collect();
    let listed: BTreeSet<String> = std::fs::read_to_string(&purge)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(
        listed
            .iter()
            .any(|url| url.ends_with("/blog/running-up-las-palmas.md")),
        "{listed:#?}"
    );
    assert_eq!(
        listed, changed,
        "the purge list names what changed, no more"
    );
    assert!(listed.len() < 20, "not every URL: {listed:#?}");

    // 4. The same content deployed again from a fresh clone: nothing changed, nothing to purge.
    live.deploy(&dist);
    let fourth = fresh_site(&live.base_url, "");
    remove_half_marathon(fourth.path());
    std::fs::copy(
        &post,
        fourth
            .path()
            .join("content/blog/en/2024-06-02_running-up-las-palmas.md"),
    )
    .unwrap();
    let purge = fourth.path().join("purge.txt");
    assert_built(&build(
        fourth.path(),
        true,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    assert_eq!(
        std::fs::read_to_string(&purge).unwrap(),
        "",
        "an unchanged deploy purges nothing"
    );
    assert_eq!(read_tree(&fourth.path().join("dist")), deployed_third);
}

#[test]
fn an_unreachable_site_is_an_error_in_ci_unless_optional_and_a_warning_elsewhere() {
    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let base_url = format!("http://{closed}");

    let site = fresh_site(&base_url, "");
    let output = build(site.path(), true, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("cannot read the live site's deploy record"),
        "{said}"
    );
    assert!(said.contains("live_record = \"optional\""), "{said}");
    assert!(!site.path().join("dist").exists(), "nothing is written");

    // Issue 49: what the build falls back on is said as it is: no history file yet...
    let optional = fresh_site(&base_url, "\n[hosting]\nlive_record = \"optional\"\n");
    let said = assert_built(&build(optional.path(), true, &[]));
    assert!(
        said.contains("WARN")
            && said.contains("building with no publishing history yet (")
            && said.contains("content-api.history does not exist; this build starts it)"),
        "{said}"
    );
    assert!(!said.contains("committed history"), "{said}");

    // ... or a history file and how many paths it names.
    let local = fresh_site(&base_url, "");
    std::fs::write(
        local.path().join("content-api.history"),
        "api/timeline/en/one.json\napi/timeline/en/two.json\n",
    )
    .unwrap();
    let said = assert_built(&build(local.path(), false, &[]));
    assert!(
        said.contains("building from the publishing history ")
            && said.contains("content-api.history (2 API paths)"),
        "{said}"
    );

    let off = fresh_site(&base_url, "\n[hosting]\nlive_record = \"off\"\n");
    let said = assert_built(&build(off.path(), true, &[]));
    assert!(!said.contains("deploy record"), "{said}");
}

/// A server on a loopback port that answers every request with `reply`.
fn answer_always(reply: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(reply);
        }
    });
    base_url
}

/// Rewrites the history of the record `live` serves with `edit`.
fn edit_live_history(live: &LiveSite, edit: impl FnOnce(&mut Vec<serde_json::Value>)) {
    let file = live.root.path().join(".well-known/content-api/deploy.json");
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    edit(record["history"].as_array_mut().unwrap());
    std::fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();
}

/// Issue 50, finding 3: what a live record may make gone is bounded and said. A record naming
/// a file the site itself serves in the output folder (`api/contact.json`) does not make hosts
/// answer 410 over it, and the entry is not carried into the history or the next record; every
/// path that answers 410 only because the record lists it is named.
#[test]
fn a_record_never_makes_a_site_file_gone_and_names_each_path_it_makes_gone() {
    let live = LiveSite::start();
    let first = fresh_site(&live.base_url, "");
    assert_built(&build(first.path(), true, &[]));
    live.deploy(&first.path().join("dist"));
    const SITE_FILE: &str = "api/contact.json";
    const OLD: &str = "api/timeline/en/old-tag.json";
    edit_live_history(&live, |history| {
        history.push(SITE_FILE.into());
        history.push(OLD.into());
    });

    let second = fresh_site(&live.base_url, "");
    let dist = second.path().join("dist");
    std::fs::create_dir_all(dist.join("api")).unwrap();
    std::fs::write(dist.join(SITE_FILE), "{\"site\":\"contact\"}").unwrap();
    let said = assert_built(&build(second.path(), true, &[]));
    assert!(
        said.contains(&format!("/{SITE_FILE} as an API path")) && said.contains("site's own file"),
        "{said}"
    );
    let named = said
        .lines()
        .skip_while(|line| !line.contains("because the live site's deploy record lists"))
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(named.contains("1 API path answers 410 Gone"), "{said}");
    assert!(named.contains(&format!("/{OLD}")), "{said}");
    let gone = std::fs::read_to_string(dist.join("_nginx_gone.conf")).unwrap();
    assert!(gone.contains(&format!("location = /{OLD} ")), "{gone}");
    assert!(
        !gone.contains(SITE_FILE),
        "nginx would answer 410 over the site's file:\n{gone}"
    );
    let edge = std::fs::read_to_string(dist.join("_worker.js")).unwrap();
    assert!(
        !edge.contains(SITE_FILE),
        "the edge layer lists the site's file"
    );
    assert_eq!(
        std::fs::read_to_string(dist.join(SITE_FILE)).unwrap(),
        "{\"site\":\"contact\"}"
    );
    let history = std::fs::read_to_string(second.path().join("content-api.history")).unwrap();
    assert!(!history.contains(SITE_FILE), "{history}");
    let record = std::fs::read_to_string(dist.join(".well-known/content-api/deploy.json")).unwrap();
    assert!(!record.contains(SITE_FILE), "the next record carries it on");
    assert!(record.contains(OLD));
}

/// Issue 50, finding 4: a record or a committed history past `MAX_HISTORY_ENTRIES` stops the
/// build at once, before anything is written, instead of rendering gone lists hosts refuse.
#[test]
fn a_record_or_a_history_past_the_bound_stops_the_build_quickly() {
    const BOUND: usize = content_api::deploy::MAX_HISTORY_ENTRIES;
    let live = LiveSite::start();
    let first = fresh_site(&live.base_url, "");
    assert_built(&build(first.path(), true, &[]));
    live.deploy(&first.path().join("dist"));
    edit_live_history(&live, |history| {
        history.extend((0..=BOUND).map(|n| format!("api/timeline/en/removed-{n}.json").into()));
    });
    let second = fresh_site(&live.base_url, "");
    let started = std::time::Instant::now();
    let output = build(second.path(), true, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("more than a history holds (20000)"), "{said}");
    assert!(!second.path().join("dist").exists(), "nothing is written");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());

    // The committed history's bound is the same.
    let committed = fresh_site(&live.base_url, "\n[hosting]\nlive_record = \"off\"\n");
    let mut lines = String::new();
    for n in 0..=BOUND {
        lines.push_str(&format!("api/timeline/en/removed-{n}.json\n"));
    }
    std::fs::write(committed.path().join("content-api.history"), lines).unwrap();
    let started = std::time::Instant::now();
    let output = build(committed.path(), true, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("lists more than 20000 API paths"), "{said}");
    assert!(
        !committed.path().join("dist").exists(),
        "nothing is written"
    );
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// Issue 50, finding 10: a page where the record should be is a warning in CI that says what
/// it costs; a bot challenge says what it is and how to let the build through.
#[test]
fn a_page_or_a_bot_challenge_in_place_of_the_record_is_said_in_ci() {
    let page = answer_always(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 33\r\nconnection: close\r\n\r\n<!doctype html><title>Home</title",
    );
    let site = fresh_site(&page, "");
    let said = assert_built(&build(site.path(), true, &[]));
    let warning = said
        .lines()
        .find(|line| line.starts_with("warning:") && line.contains("not a deploy record"))
        .unwrap_or_else(|| panic!("no warning:\n{said}"));
    assert!(
        warning.contains("404, not 410") && warning.contains("purge list names every URL"),
        "{warning}"
    );

    let challenge = answer_always(
        b"HTTP/1.1 403 Forbidden\r\ncf-mitigated: challenge\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    let site = fresh_site(&challenge, "");
    let output = build(site.path(), true, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    for words in [
        "403 Forbidden",
        "bot challenge",
        "/.well-known/content-api/deploy.json",
        "firewall",
        "live_record = \"optional\"",
    ] {
        assert!(said.contains(words), "{words}: {said}");
    }
}

/// Rewrites the files of the record `live` serves with `edit`.
fn edit_live_files(
    live: &LiveSite,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
) {
    let file = live.root.path().join(".well-known/content-api/deploy.json");
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    edit(record["files"].as_object_mut().unwrap());
    std::fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();
}

fn purge_list(file: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A record may list no more files than a deploy of the site holds (`cloudflare_max_files`,
/// `deploy::record_file_bound`): each file it lists that the build does not publish is a
/// removed path, up to three URLs of the purge list. A legitimate record (a deploy of the
/// sample, then a post removed) still gives the exact list; a hostile one listing 200,000
/// files is refused, said, and the list is only the build's own URLs; an error in CI.
#[test]
fn a_record_listing_more_files_than_a_deploy_holds_is_refused_and_the_purge_list_stays_bounded() {
    let live = LiveSite::start();
    let first = fresh_site(&live.base_url, "");
    assert_built(&build(first.path(), true, &[]));
    let deployed_first = read_tree(&first.path().join("dist"));
    live.deploy(&first.path().join("dist"));

    // Legitimate: a post removed, the list is exactly what changed or went.
    let second = fresh_site(&live.base_url, "");
    remove_half_marathon(second.path());
    let purge = second.path().join("purge.txt");
    assert_built(&build(
        second.path(),
        true,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    let deployed_second = read_tree(&second.path().join("dist"));
    let changed: BTreeSet<String> = deployed_first
        .keys()
        .chain(deployed_second.keys())
        .filter(|path| !path.starts_with(".content-api/"))
        .filter(|path| !content_api::http::HOST_FILES.contains(&path.as_str()))
        .filter(|path| deployed_first.get(*path) != deployed_second.get(*path))
        .flat_map(|path| {
            let mut urls = vec![format!("{}/{path}", live.base_url)];
            if let Some(folder) = path.strip_suffix("/index.html") {
                urls.push(format!("{}/{folder}", live.base_url));
                urls.push(format!("{}/{folder}/", live.base_url));
            } else if path == "index.html" {
                urls.push(format!("{}/", live.base_url));
            }
            urls
        })
        .collect();
    let listed = purge_list(&purge);
    assert!(
        listed.iter().any(|url| url.ends_with(&format!("/{GONE}"))),
        "{listed:#?}"
    );
    assert_eq!(
        listed, changed,
        "the purge list names what changed, no more"
    );

    // Hostile: the live record lists 200,000 files (as many as a build records), nearly all of
    // them paths no deploy of this site held.
    edit_live_files(&live, |files| {
        for n in 0..200_000 - files.len() {
            files.insert(
                format!("blog/en/forged-{n}/index.html"),
                format!("{n:032x}").into(),
            );
        }
    });
    let third = fresh_site(&live.base_url, "");
    remove_half_marathon(third.path());
    let purge = third.path().join("purge.txt");
    let said = assert_built(&build(
        third.path(),
        false,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    assert!(
        said.contains("more than a deploy of this site holds (20000")
            && said.contains("the purge list names every URL"),
        "{said}"
    );
    let listed = purge_list(&purge);
    let outputs = read_tree(&third.path().join("dist")).len();
    assert!(
        listed.len() <= 3 * outputs && listed.len() <= 20_000,
        "{} URLs for {outputs} files",
        listed.len()
    );
    assert!(
        !listed.iter().any(|url| url.contains("forged-")),
        "a forged path is purged"
    );

    // In CI, the build stops before writing anything.
    let fourth = fresh_site(&live.base_url, "");
    let output = build(fourth.path(), true, &[]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("more than a deploy of this site holds") && said.contains("purges every URL"),
        "{said}"
    );
    assert!(!fourth.path().join("dist").exists(), "nothing is written");
}

/// Issue 49: documents the site writes itself where the tool would write its own are the
/// site's, so a deploy record leaves them out, and a deploy from a fresh clone with those files
/// unchanged purges none of them; once the site drops one and the tool writes its own, its URL
/// is purged.
#[test]
fn the_sites_own_documents_are_not_recorded_nor_purged_when_unchanged() {
    const SITE_FILES: [(&str, &str); 2] = [
        ("llms-full.txt", "The site's own llms-full.txt.\n"),
        ("blog/running-up-las-palmas.md", "# The site's own twin\n"),
    ];
    let live = LiveSite::start();
    // The site generator's output, before each build.
    let with_site_files = |site: &Path, files: &[(&str, &str)]| {
        for (path, text) in files {
            let file = site.join("dist").join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
    };
    let record_of = |dist: &Path| -> serde_json::Value {
        let text =
            std::fs::read_to_string(dist.join(".well-known/content-api/deploy.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };

    let first = fresh_site(&live.base_url, "");
    with_site_files(first.path(), &SITE_FILES);
    assert_built(&build(first.path(), true, &[]));
    let dist = first.path().join("dist");
    let record = record_of(&dist);
    for (path, text) in SITE_FILES {
        assert_eq!(std::fs::read_to_string(dist.join(path)).unwrap(), text);
        assert!(
            record["files"].get(path).is_none(),
            "the site's own {path} is not in the record"
        );
    }
    assert!(record["files"].get("llms.txt").is_some(), "the tool's are");
    live.deploy(&dist);

    // The same site files again: nothing of theirs is purged (nor anything else).
    let second = fresh_site(&live.base_url, "");
    with_site_files(second.path(), &SITE_FILES);
    let purge = second.path().join("purge.txt");
    let said = assert_built(&build(
        second.path(),
        true,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    assert!(
        said.contains("read the live site's deploy record"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&purge).unwrap(),
        "",
        "an unchanged deploy with the site's own documents purges nothing"
    );
    live.deploy(&second.path().join("dist"));

    // The site drops its llms-full.txt: the tool's takes its place, and its URL is purged.
    let third = fresh_site(&live.base_url, "");
    with_site_files(third.path(), &SITE_FILES[1..]);
    let purge = third.path().join("purge.txt");
    assert_built(&build(
        third.path(),
        true,
        &["--purge-list", purge.to_str().unwrap()],
    ));
    let listed = std::fs::read_to_string(&purge).unwrap();
    let url = |path: &str| format!("{}/{path}", live.base_url);
    assert!(
        listed.lines().any(|line| line == url("llms-full.txt")),
        "{listed}"
    );
    assert!(
        !listed.lines().any(|line| line == url(SITE_FILES[1].0)),
        "{listed}"
    );
    assert!(
        record_of(&third.path().join("dist"))["files"]
            .get("llms-full.txt")
            .is_some()
    );
}
