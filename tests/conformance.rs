//! The HTTP contract on every host: one set of checks (`content_api::verify::checks`, the
//! table `content-api verify` runs against a deployed site) run against
//! `content-api serve`, against nginx with the server block `content-api hosting nginx`
//! prints, and against Cloudflare's local runtime (`wrangler pages dev`) over the output
//! folder as it is.
//!
//! The served build is the sample site built once, then built again after deleting the only
//! English post of one tag, so that tag's timeline is a removed path (410). The harness takes
//! any site (`Fixture::of`): `tests/languages.rs` runs it on sites in other languages.
//!
//! `CONTENT_API_CONFORMANCE_BIN` replaces the binary under test (default: this build's), to
//! measure another version with the same checks.
//!
//! nginx and wrangler are found on `PATH` (or `CONTENT_API_NGINX`, `CONTENT_API_WRANGLER`);
//! absent, their test follows `common::need`'s rule.

pub mod hosts;

use crate::common::{self, SAMPLE_TODAY, copy_sample_content, need, repo};
use content_api::verify::{Http, Target, checks, client};
use hosts::{DEBIAN_NGINX, DebianNginx, Host, free_port};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The `content-api` binary under test.
fn binary() -> PathBuf {
    std::env::var_os("CONTENT_API_CONFORMANCE_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_content-api")),
        PathBuf::from,
    )
}

/// Builds `content` into `out` as of `today`, from `root` (the folder whose `watch.toml` is the
/// site's settings).
fn build(root: &Path, content: &Path, out: &Path, today: &str) {
    let output = Command::new(binary())
        .env_remove("CI")
        .args(["--once", "--today", today])
        .arg("--content")
        .arg(content)
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(history_of(out))
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "build failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The fixture's own publishing history, beside its output folder (the repository's is the
/// sample site's, built into `out/`).
fn history_of(out: &Path) -> PathBuf {
    out.with_file_name("content-api.history")
}

/// A site the checks run on: its settings (`watch.toml`) and its content.
pub enum SiteSource {
    /// The bundled sample site: the repository's `watch.toml` and `content/`.
    Sample,
    /// A site folder holding a `watch.toml` and its `content/` (copied before it is built).
    Folder(PathBuf),
}

/// A built output folder with a removed path, and what the checks need to know about it.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    /// Where the commands run: the folder of the site's `watch.toml`.
    root: PathBuf,
    content: PathBuf,
    /// The date of every build and of `serve`.
    today: String,
    /// The site's settings, as its `watch.toml` gives them.
    pub config: content_api::config::SiteConfig,
    gone: String,
    post: String,
    series: String,
    tag: String,
}

impl Fixture {
    /// The sample site, built as of its date.
    fn new() -> Fixture {
        Fixture::of(SiteSource::Sample, SAMPLE_TODAY)
    }

    /// `source` copied into a temporary folder and built as of `today`, then built again after
    /// deleting the only default-language post of one tag, so that tag's timeline is a removed
    /// path (410).
    pub fn of(source: SiteSource, today: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let (root, content) = match &source {
            SiteSource::Sample => {
                let content = dir.path().join("content");
                copy_sample_content(&content);
                (repo(), content)
            }
            SiteSource::Folder(folder) => {
                let root = dir.path().join("site");
                common::copy_tree(folder, &root);
                let content = root.join("content");
                (root, content)
            }
        };
        let config = common::load_config(&root.join("watch.toml"));
        let lang = config.languages.default_lang().as_str();
        let out = dir.path().join("out");
        build(&root, &content, &out, today);
        let tag = common::remove_the_post_of_a_single_post_tag(&content, &out, lang);
        build(&root, &content, &out, today);
        let read = |path: &str| -> serde_json::Value {
            serde_json::from_slice(&std::fs::read(out.join(path)).unwrap()).unwrap()
        };
        let posts = read(&format!("api/posts-{lang}.json"));
        let post = posts[0]["slug"].as_str().unwrap().to_string();
        let series = read(&format!("api/series/{lang}/index.json"))["series"][0]["slug"]
            .as_str()
            .unwrap()
            .to_string();
        let remaining = posts[0]["tags"][0].as_str().unwrap().to_string();
        Fixture {
            dir,
            root,
            content,
            today: today.to_string(),
            config,
            gone: format!("/api/timeline/{lang}/{tag}.json"),
            post,
            series,
            tag: remaining,
        }
    }

    pub fn content(&self) -> PathBuf {
        self.content.clone()
    }

    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The site's production base URL, as its documents write it.
    fn base_url(&self) -> &str {
        self.config.base_url.trim_end_matches('/')
    }

    /// `content-api verify URL` with this fixture's settings.
    fn verify(&self, url: &str) -> std::process::Output {
        Command::new(binary())
            .env_remove("CI")
            .args(["verify", url])
            .arg("--content")
            .arg(self.content())
            .arg("--out")
            .arg(self.out())
            .arg("--history")
            .arg(history_of(&self.out()))
            .current_dir(&self.root)
            .output()
            .unwrap()
    }

    /// The checks' view of a host at `addr` whose documents name `base_url`.
    fn target(&self, addr: SocketAddr, base_url: &str) -> Target {
        Target {
            http: Http::plain(addr, None),
            base_url: base_url.into(),
            gone: Some(self.gone.clone()),
            languages: self.config.languages.clone(),
            post: Some(self.post.clone()),
            series: Some(self.series.clone()),
            tag: Some(self.tag.clone()),
            deployed: None,
            deadline: None,
        }
    }
}

/// Runs every check against `addr` and fails with the list of those that do not hold.
/// Runs every check against the host at `addr`. `base_url` is the base URL its answers name:
/// the site's on a production host, the local address on `content-api serve` (the preview
/// rewrites the production base URL to where it listens).
fn assert_conformance(host: &str, fixture: &Fixture, addr: SocketAddr, base_url: &str) {
    assert_target_conforms(host, &fixture.target(addr, base_url));
}

/// Every check, and the negotiation table, against `target`: strict, every class (a host of
/// the tool's own has no warning and no note), every check run.
fn assert_target_conforms(host: &str, target: &Target) {
    let mismatches = checks::negotiation(target);
    assert!(
        mismatches.is_empty(),
        "{host}: negotiation disagrees with http::NEGOTIATION_CASES:\n{}",
        mismatches.join("\n")
    );
    let outcomes = checks::run(target);
    let report = checks::strict_report(target, &outcomes);
    eprintln!(
        "{host}: {} checks, {} findings",
        checks::CHECKS.len(),
        report.len()
    );
    assert!(report.is_empty(), "{host}:\n{}", report.join("\n"));
    // Each of the tool's answers names the layer that made it.
    let reply = target.request("GET", "/api/x.json", &[]).unwrap();
    let answered = checks::Answered::of(&reply);
    assert!(
        checks::Target::tool_answered(&answered),
        "{host}: {:?}",
        reply.headers
    );
}

#[test]
fn serve_holds_the_contract() {
    serve_conforms(&Fixture::new());
}

/// `content-api serve` over the fixture holds the contract: every check, then `content-api
/// verify` by the site's URL (from the site's settings and history) with every check holding.
/// Returns the server, still running, and its address.
pub fn serve_conforms(fixture: &Fixture) -> (Host, SocketAddr) {
    let mut serve = Command::new(binary());
    serve
        .env_remove("CI")
        .args(["serve", "--addr", "127.0.0.1:0", "--today", &fixture.today])
        .arg("--content")
        .arg(fixture.content())
        .arg("--out")
        .arg(fixture.out())
        .arg("--history")
        .arg(history_of(&fixture.out()))
        .current_dir(&fixture.root);
    let (host, addr) = spawn_serve(serve, &fixture.dir.path().join("serve.log"));
    assert_conformance(
        "content-api serve",
        fixture,
        addr,
        &format!("http://{addr}"),
    );
    // `content-api verify` runs the same checks against a site by its URL, from the site's
    // settings (its history names the removed path).
    let verified = fixture.verify(&format!("http://{addr}"));
    let stdout = String::from_utf8_lossy(&verified.stdout);
    assert!(
        verified.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let total = checks::CHECKS.len();
    assert!(
        stdout.contains(&format!(
            "{total} of {total} checks hold on http://{addr}\n"
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("skip"), "every check ran: {stdout}");
    assert!(!stdout.contains("warn"), "no warning: {stdout}");
    assert!(!stdout.contains("note"), "no note: {stdout}");
    (host, addr)
}

#[test]
fn verify_names_each_failed_check_of_a_host_without_the_contract() {
    // A plain static file server over the same build: no 405 bodies, no JSON 404s, no 410s,
    // no contract headers.
    let fixture = Fixture::new();
    let port = free_port();
    let mut server = Host {
        child: Command::new("python3")
            .args([
                "-m",
                "http.server",
                "--bind",
                "127.0.0.1",
                &port.to_string(),
            ])
            .arg("--directory")
            .arg(fixture.out())
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3"),
        name: "python3 -m http.server",
        log: fixture.dir.path().join("none.log"),
    };
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    server.wait_ready(addr, Duration::from_secs(30));
    let verified = fixture.verify(&format!("http://{addr}"));
    let stdout = String::from_utf8_lossy(&verified.stdout);
    assert_eq!(verified.status.code(), Some(1), "{stdout}");
    for failed in [
        "FAIL 4.1.1/7.2.2 POST is 405",
        "FAIL 7 removed API path: 410",
        "FAIL 4.1.5/7.2.1 unknown API path",
    ] {
        assert!(stdout.contains(failed), "{failed}:\n{stdout}");
    }
    assert!(
        stdout
            .lines()
            .last()
            .unwrap_or("")
            .contains("checks hold on"),
        "{stdout}"
    );
}

/// The default site's answers to a few requests (status, type, body), by address.
fn default_site_answers(addr: SocketAddr) -> Vec<String> {
    [
        "/",
        "/index.nginx-debian.html",
        "/no-such-page",
        "/api/index.json",
    ]
    .iter()
    .map(|path| {
        let reply = client::request(addr, "GET", path, &[]).unwrap();
        format!(
            "GET {path}: {} {:?} {} bytes {:?}",
            reply.status,
            reply.header("content-type"),
            reply.body.len(),
            reply.header("cache-control")
        )
    })
    .collect()
}

#[test]
fn nginx_holds_the_contract() {
    if let Some(nginx) = debian_nginx_program() {
        nginx_conforms(&nginx, &Fixture::new());
    }
}

/// Debian's nginx, or `None` once `common::need` has said what is missing.
pub fn debian_nginx_program() -> Option<PathBuf> {
    let nginx = need::NGINX.program()?;
    if !Path::new(DEBIAN_NGINX)
        .join("sites-available/default")
        .is_file()
    {
        need::NGINX.missing(&format!("no Debian nginx configuration in {DEBIAN_NGINX}"));
        return None;
    }
    Some(nginx)
}

/// Debian's nginx (`nginx`) with the fixture's output beside its default site, by the server
/// block `content-api hosting nginx` prints: the default site answers as before, and the checks
/// hold.
pub fn nginx_conforms(nginx: &Path, fixture: &Fixture) {
    let host = DebianNginx::in_folder(fixture.dir.path());
    let addr = host.addr;
    let before = {
        let _alone = host.start(nginx, "nginx with its default site");
        default_site_answers(addr)
    };
    // docs/deploying.md's nginx recipe: the printed block beside the default site, on the same
    // port.
    host.enable_printed_block(
        &binary(),
        &fixture.root,
        &["--out".as_ref(), fixture.out().as_os_str()],
    );
    let _host = host.start(nginx, "nginx with the default site and the API");
    assert_eq!(
        default_site_answers(addr),
        before,
        "the default site answers as before"
    );
    let mut target = fixture.target(addr, fixture.base_url());
    let host = fixture.base_url().split_once("://").unwrap().1.to_string();
    target.http = Http::plain(addr, Some(host));
    assert_target_conforms(
        "nginx (Debian's configuration, beside the default site)",
        &target,
    );
}

/// `hosting nginx --listen` takes nginx's parameters after the address (`443 ssl`,
/// `[::]:443 ssl http2`), and Debian's nginx accepts the printed block (`nginx -t`, with a
/// certificate in the `http` context as a TLS site has one); a parameter nginx does not know is
/// refused by the tool, never printed.
#[test]
fn nginx_takes_a_listen_with_its_parameters() {
    let Some(nginx) = debian_nginx_program() else {
        return;
    };
    let Some(openssl) = need::OPENSSL.program() else {
        return;
    };
    let fixture = Fixture::new();
    let host = DebianNginx::in_folder(fixture.dir.path());
    let conf = &host.conf;
    let made = Command::new(openssl)
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(conf.join("tls.key"))
        .arg("-out")
        .arg(conf.join("tls.crt"))
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // Read before the API's block (files of sites-enabled/ are included in name order).
    std::fs::write(
        conf.join("sites-enabled/00-tls"),
        format!(
            "ssl_certificate {};\nssl_certificate_key {};\n",
            conf.join("tls.crt").display(),
            conf.join("tls.key").display()
        ),
    )
    .unwrap();
    let hosting = |listen: &str| {
        Command::new(binary())
            .env_remove("CI")
            .args(["hosting", "nginx", "--listen", listen])
            .arg("--out")
            .arg(fixture.out())
            .current_dir(&fixture.root)
            .output()
            .unwrap()
    };
    for listen in [
        "8443 ssl",
        "[::]:8443 ssl http2",
        "127.0.0.1:8444 ssl default_server",
    ] {
        let printed = hosting(listen);
        assert!(
            printed.status.success(),
            "{listen}: {}",
            String::from_utf8_lossy(&printed.stderr)
        );
        let block = String::from_utf8(printed.stdout).unwrap();
        assert!(
            block.contains(&format!("    listen {listen};\n")),
            "{block}"
        );
        std::fs::write(conf.join("sites-enabled/content-api"), &block).unwrap();
        let tested = host.test(&nginx);
        assert!(
            tested.status.success(),
            "nginx -t refused `listen {listen}`:\n{}",
            String::from_utf8_lossy(&tested.stderr)
        );
    }
    for bad in ["8443 sll", "8443 ssl; include /etc/passwd"] {
        let refused = hosting(bad);
        assert_eq!(refused.status.code(), Some(2), "{bad}");
        assert!(refused.stdout.is_empty(), "{bad}: nothing printed");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.contains("error:") && !said.contains("Some("), "{said}");
    }
}

#[test]
fn cloudflare_pages_holds_the_contract() {
    if let Some(wrangler) = need::WRANGLER.program() {
        wrangler_conforms(&wrangler, &Fixture::new());
    }
}

/// Cloudflare's local runtime (`wrangler pages dev`) over the fixture's output folder as it is:
/// the checks hold. Returns the host, still running, and its address.
pub fn wrangler_conforms(wrangler: &Path, fixture: &Fixture) -> (Host, SocketAddr) {
    let (host, addr) = hosts::wrangler(
        wrangler,
        &fixture.out(),
        fixture.dir.path(),
        fixture.dir.path(),
        "/api/index.json",
    );
    assert_conformance(
        "Cloudflare Pages (wrangler pages dev)",
        fixture,
        addr,
        fixture.base_url(),
    );
    (host, addr)
}

/// `content-api serve` in `site` (its `watch.toml`, content and output), as of `today`; returns
/// the host and its address once it answers.
fn serve_in(site: &Path, today: &str) -> (Host, SocketAddr) {
    let mut serve = Command::new(binary());
    serve
        .env_remove("CI")
        .args(["serve", "--addr", "127.0.0.1:0", "--today", today])
        .current_dir(site);
    spawn_serve(serve, &site.join("serve.log"))
}

/// Starts `serve` (its stderr in `log`) and waits until it answers at the address it prints.
pub fn spawn_serve(mut serve: Command, log: &Path) -> (Host, SocketAddr) {
    let mut child = serve
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut host = Host {
        child,
        name: "content-api serve",
        log: log.to_path_buf(),
    };
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    host.wait_ready(addr, Duration::from_secs(30));
    (host, addr)
}

#[test]
fn verify_passes_on_the_quick_start_site_with_one_post_and_no_series_or_tags() {
    // `init`, then the smallest site it can become: one English post, no tag, no series, no
    // deck, no Spanish post, nothing removed yet.
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    let init = Command::new(binary())
        .env_remove("CI")
        .arg("init")
        .current_dir(site)
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    for folder in ["content/blog/es", "content/tags"] {
        std::fs::remove_dir_all(site.join(folder)).unwrap();
    }
    let post = std::fs::read_dir(site.join("content/blog/en"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&post).unwrap();
    let untagged: String = text
        .lines()
        .filter(|line| !line.starts_with("tags:"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(untagged, text, "the post had tags");
    std::fs::write(&post, untagged).unwrap();
    // A day after any date `init` writes.
    let (_host, addr) = serve_in(site, "2999-01-01");
    let verified = Command::new(binary())
        .env_remove("CI")
        .args(["verify", &format!("http://{addr}")])
        .current_dir(site)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&verified.stdout);
    assert!(
        verified.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    assert!(
        !stdout.contains("FAIL") && !stdout.contains("warn"),
        "{stdout}"
    );
    for said in [
        "getSeries (/api/series/en/{slug}.json) not checked: the site has no series in English",
        "not checked: the newest post in English has no tag",
        "skip 7 removed API path: 410 gone: not checked: nothing removed yet",
    ] {
        assert!(stdout.contains(said), "{said}:\n{stdout}");
    }
    let total = checks::CHECKS.len();
    assert!(
        stdout.contains(&format!(
            "{} of {} checks hold on http://{addr}",
            total - 1,
            total - 1
        )),
        "{stdout}"
    );
}

#[test]
fn verify_stops_at_its_time_limit_and_lists_what_it_did_not_check() {
    // A host that accepts and never answers: without a total limit, each request would wait
    // its own 20 s, some thirty times.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().take(4) {
            open.push(stream);
        }
        std::thread::sleep(Duration::from_secs(3));
    });
    let dir = tempfile::tempdir().unwrap();
    let verified = Command::new(binary())
        .env_remove("CI")
        .args(["verify", &format!("http://{addr}"), "--timeout", "1"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&verified.stdout);
    assert_eq!(verified.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("time ran out after 1 s (--timeout)"),
        "{stdout}"
    );
    assert_eq!(
        stdout
            .matches("not checked: the time limit ran out")
            .count(),
        checks::CHECKS.len(),
        "{stdout}"
    );
    drop(held);
}
