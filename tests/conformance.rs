//! The HTTP contract on every host: one set of checks (`conformance/checks.rs`) run against
//! `content-api serve`, against nginx with the server block `content-api hosting nginx`
//! prints, and against Cloudflare's local runtime (`wrangler pages dev`) over the output
//! folder as it is.
//!
//! The served build is the sample site built once, then built again after deleting the only
//! English post of one tag, so that tag's timeline is a removed path (410).
//!
//! `CONTENT_API_CONFORMANCE_BIN` replaces the binary under test (default: this build's), to
//! measure another version with the same checks.
//!
//! nginx and wrangler are found on `PATH` (or `CONTENT_API_NGINX`, `CONTENT_API_WRANGLER`).
//! Absent, their test says so and passes, unless `CONTENT_API_REQUIRE_HOSTS=1` (set by
//! `.ci/run`), which makes a missing host a failure.

#[path = "conformance/checks.rs"]
mod checks;
#[path = "conformance/client.rs"]
mod client;
mod common;
#[path = "conformance/hosts.rs"]
mod hosts;

use checks::Target;
use common::{SAMPLE_TODAY, copy_sample_content, repo};
use hosts::{Host, find_program, free_port};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The base URL of the sample site (`watch.toml`).
const BASE_URL: &str = "https://lucia-montoya.example";

/// The `content-api` binary under test.
fn binary() -> PathBuf {
    std::env::var_os("CONTENT_API_CONFORMANCE_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_content-api")),
        PathBuf::from,
    )
}

/// Builds `content` into `out` as of the sample's date, from the repository folder (its
/// `watch.toml`).
fn build(content: &Path, out: &Path) {
    let output = Command::new(binary())
        .args(["--once", "--today", SAMPLE_TODAY])
        .arg("--content")
        .arg(content)
        .arg("--out")
        .arg(out)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "build failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A built output folder with a removed path, and what the checks need to know about it.
struct Fixture {
    dir: tempfile::TempDir,
    gone: String,
    post: String,
    series: String,
    tag: String,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        copy_sample_content(&content);
        let out = dir.path().join("out");
        build(&content, &out);
        let (tag, slug) = checks::single_post_tag(&out);
        let post_file = std::fs::read_dir(content.join("blog/en"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let name = p.file_stem().unwrap().to_string_lossy().into_owned();
                name.split_once('_').is_some_and(|(_, s)| s == slug)
            })
            .expect("the post's file");
        std::fs::remove_file(post_file).unwrap();
        build(&content, &out);
        let read = |path: &str| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(out.join(path)).unwrap()).unwrap()
        };
        let post = read("api/posts-en.json")[0]["slug"]
            .as_str()
            .unwrap()
            .to_string();
        let series = read("api/series/en/index.json")["series"][0]["slug"]
            .as_str()
            .unwrap()
            .to_string();
        let remaining = read("api/posts-en.json")[0]["tags"][0]
            .as_str()
            .unwrap()
            .to_string();
        Fixture {
            dir,
            gone: format!("/api/timeline/en/{tag}.json"),
            post,
            series,
            tag: remaining,
        }
    }

    fn content(&self) -> PathBuf {
        self.dir.path().join("content")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The checks' view of a host at `addr` whose documents name `base_url`.
    fn target(&self, addr: SocketAddr, base_url: &str) -> Target {
        Target {
            addr,
            base_url: base_url.into(),
            gone: self.gone.clone(),
            post: self.post.clone(),
            series: self.series.clone(),
            tag: self.tag.clone(),
        }
    }
}

/// Runs every check against `addr` and fails with the list of those that do not hold.
/// Runs every check against the host at `addr`. `base_url` is the base URL its answers name:
/// the site's on a production host, the local address on `content-api serve` (the preview
/// rewrites the production base URL to where it listens).
fn assert_conformance(host: &str, fixture: &Fixture, addr: SocketAddr, base_url: &str) {
    let failures = checks::run(&fixture.target(addr, base_url));
    let total = checks::CHECKS.len();
    eprintln!("{host}: {} of {total} checks hold", total - failures.len());
    let report: Vec<String> = failures
        .iter()
        .map(|(name, why)| format!("- {name}: {why}"))
        .collect();
    assert!(failures.is_empty(), "{host}:\n{}", report.join("\n"));
}

#[test]
fn serve_holds_the_contract() {
    let fixture = Fixture::new();
    let log = fixture.dir.path().join("serve.log");
    let mut child = Command::new(binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--today", SAMPLE_TODAY])
        .arg("--content")
        .arg(fixture.content())
        .arg("--out")
        .arg(fixture.out())
        .current_dir(repo())
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut host = Host {
        child,
        name: "content-api serve",
        log,
    };
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    host.wait_ready(addr, Duration::from_secs(30));
    assert_conformance(
        "content-api serve",
        &fixture,
        addr,
        &format!("http://{addr}"),
    );
}

#[test]
fn nginx_holds_the_contract() {
    let Some(nginx) = find_program("CONTENT_API_NGINX", "nginx") else {
        return;
    };
    let fixture = Fixture::new();
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let printed = Command::new(binary())
        .args(["hosting", "nginx", "--listen", &addr.to_string()])
        .arg("--out")
        .arg(fixture.out())
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let conf = fixture.dir.path().join("nginx");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(conf.join("server.conf"), &printed.stdout).unwrap();
    let d = conf.display();
    std::fs::write(
        conf.join("nginx.conf"),
        format!(
            "worker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
             fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
             include {d}/server.conf;\n}}\n"
        ),
    )
    .unwrap();
    let log = conf.join("error.log");
    let child = Command::new(nginx)
        .arg("-p")
        .arg(&conf)
        .arg("-c")
        .arg(conf.join("nginx.conf"))
        .args(["-g", "daemon off;"])
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(conf.join("stderr.log")).unwrap())
        .spawn()
        .unwrap();
    let mut host = Host {
        child,
        name: "nginx",
        log,
    };
    host.wait_ready(addr, Duration::from_secs(30));
    assert_conformance("nginx", &fixture, addr, BASE_URL);
}

#[test]
fn cloudflare_pages_holds_the_contract() {
    let Some(wrangler) = find_program("CONTENT_API_WRANGLER", "wrangler") else {
        return;
    };
    let fixture = Fixture::new();
    let (_host, addr) = hosts::wrangler(
        &wrangler,
        &fixture.out(),
        fixture.dir.path(),
        fixture.dir.path(),
        "/api/index.json",
    );
    assert_conformance(
        "Cloudflare Pages (wrangler pages dev)",
        &fixture,
        addr,
        BASE_URL,
    );
}
