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

use super::HALF_MARATHON;
use super::common::{copy_sample_content, read_tree};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

/// A static file server on a loopback port, serving `root` (GET only; 404 for the rest).
struct LiveSite {
    base_url: String,
    root: tempfile::TempDir,
}

impl LiveSite {
    fn start() -> LiveSite {
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
    fn deploy(&self, dist: &Path) {
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

    let optional = fresh_site(&base_url, "\n[hosting]\nlive_record = \"optional\"\n");
    let said = assert_built(&build(optional.path(), true, &[]));
    assert!(
        said.contains("WARN") && said.contains("building from the committed history"),
        "{said}"
    );

    let local = fresh_site(&base_url, "");
    let said = assert_built(&build(local.path(), false, &[]));
    assert!(
        said.contains("building from the committed history"),
        "{said}"
    );

    let off = fresh_site(&base_url, "\n[hosting]\nlive_record = \"off\"\n");
    let said = assert_built(&build(off.path(), true, &[]));
    assert!(!said.contains("deploy record"), "{said}");
}
