//! What `content-api serve` adds for the author, over real HTTP (the browser side is in
//! tests/browser.rs): the landing page at `/`, the content's errors as JSON, and the production
//! base URL rewritten to the local address in what the server sends, while the output folder
//! keeps production URLs only.

use crate::common;

use common::Preview;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const PRODUCTION: &str = "https://lucia-montoya.example";
const POST: &str = "blog/en/2026-11-08_a-remote-week-in-salento.md";

/// Whether the server answers `path` of the output folder (not the host's files, not the
/// tool's state, under `api/` only JSON).
fn is_served(path: &str) -> bool {
    !(path.starts_with(".content-api/")
        || content_api::http::HOST_FILES.contains(&path)
        || (path.starts_with("api/") && !path.ends_with(".json")))
}

/// What these tests ask of the running preview.
trait Requests {
    /// One GET over a new connection, read to its end.
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply;
    /// `request` (a whole HTTP/1.1 request, its head as written) over a new connection.
    fn send(&self, request: &str) -> Reply;
    /// Polls `done` until it holds (failing after 30 s).
    fn wait_for(&self, what: &str, done: impl FnMut() -> bool);
}

impl Requests for Preview {
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let addr = self.addr();
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        self.send(&request)
    }

    fn send(&self, request: &str) -> Reply {
        let mut stream = TcpStream::connect(self.addr()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8(raw[..split].to_vec()).unwrap();
        let mut lines = head.lines();
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(": "))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: raw[split + 4..].to_vec(),
        }
    }

    fn wait_for(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "waited for {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

struct Reply {
    status: u16,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

#[test]
fn served_urls_point_at_the_preview_and_the_output_folder_keeps_production_urls() {
    let preview = Preview::start();
    let mut rewritten = 0;
    for (path, bytes) in common::read_tree(&preview.out()) {
        if !is_served(&path) {
            continue;
        }
        let on_disk = String::from_utf8(bytes).unwrap();
        assert!(
            !on_disk.contains("127.0.0.1") && !on_disk.contains("localhost"),
            "{path} in the output folder names a local address"
        );
        assert!(
            !on_disk.contains("__preview"),
            "{path} in the output folder holds preview-only script"
        );
        let reply = preview.get(&format!("/{path}"), &[]);
        assert_eq!(reply.status, 200, "{path}");
        let served = reply.text();
        assert_eq!(
            reply.headers["content-length"],
            served.len().to_string(),
            "{path}"
        );
        assert!(
            !served.contains(PRODUCTION),
            "{path} still names {PRODUCTION}"
        );
        let mut expected = on_disk.replace(PRODUCTION, preview.origin());
        if path.ends_with(".html") {
            let at = expected.rfind("</body>").unwrap();
            expected.insert_str(at, "<script src=\"/__preview.js\" defer></script>\n");
        }
        assert_eq!(served, expected, "{path}");
        if on_disk.contains(PRODUCTION) {
            rewritten += 1;
        }
        // The ETag is the served version's: it revalidates, and differs from the file's hash.
        let etag = &reply.headers["etag"];
        assert_ne!(
            *etag,
            content_api::serve::etag_of(on_disk.as_bytes()),
            "{path}"
        );
        let again = preview.get(&format!("/{path}"), &[("If-None-Match", etag)]);
        assert_eq!(again.status, 304, "{path}");
    }
    assert!(rewritten > 20, "only {rewritten} files named the base URL");
    // Error bodies name the preview too.
    let missing = preview.get("/api/nope.json", &[]);
    assert_eq!(missing.status, 404);
    assert!(
        missing
            .text()
            .contains(&format!("{}/developers#errors", preview.origin()))
    );
}

#[test]
fn the_landing_page_links_every_document_and_follows_the_content_errors() {
    let preview = Preview::start();
    let landing = preview.get("/", &[]);
    assert_eq!(landing.status, 200);
    assert_eq!(landing.headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(landing.headers["cache-control"], "no-cache");
    let page = landing.text();
    for link in [
        "/developers/",
        "/api/index.json",
        "/openapi.json",
        "/llms.txt",
    ] {
        assert!(page.contains(&format!("<a href=\"{link}\">")), "{link}");
    }
    for (path, _) in common::read_tree(&preview.out()) {
        let linked = page.contains(&format!("href=\"/{path}\""));
        assert_eq!(linked, is_served(&path), "{path}");
    }
    assert!(page.contains("data-errors=\"0\""));
    assert!(page.contains("<script src=\"/__preview.js\" defer></script>"));
    let script = preview.get("/__preview.js", &[]);
    assert_eq!(
        script.headers["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert!(script.text().contains("new EventSource(\"/__events\")"));

    let path = preview.content(POST);
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        good.replace("pubDate: 2026-11-08", "pubDate: 2026-13-45"),
    )
    .unwrap();
    preview.wait_for("the error on the landing page", || {
        preview.get("/", &[]).text().contains("data-errors=\"1\"")
    });
    let diagnostics: serde_json::Value =
        serde_json::from_slice(&preview.get("/__diagnostics", &[]).body).unwrap();
    let error = &diagnostics["diagnostics"][0];
    assert_eq!(error["severity"], "error");
    assert_eq!(error["path"], POST);
    assert_eq!(error["line"], 4);
    assert!(
        error["rendered"]
            .as_str()
            .unwrap()
            .contains("4 | pubDate: 2026-13-45")
    );
    std::fs::write(&path, good).unwrap();
    preview.wait_for("the fix on the landing page", || {
        preview.get("/", &[]).text().contains("data-errors=\"0\"")
    });
    let diagnostics: serde_json::Value =
        serde_json::from_slice(&preview.get("/__diagnostics", &[]).body).unwrap();
    assert_eq!(diagnostics["diagnostics"], serde_json::json!([]));
}

/// A new file that never built, deleted, takes its errors off the landing page at once, not
/// at the next save.
#[test]
fn a_broken_new_file_deleted_takes_its_errors_with_it() {
    let preview = Preview::start();
    let path = preview.content("blog/en/2026-01-01_never-built.md");
    std::fs::write(&path, "---\ntitle: x\n---\n").unwrap();
    preview.wait_for("the error on the landing page", || {
        preview.get("/", &[]).text().contains("data-errors=\"2\"")
    });
    // Once the rebuild's documents lane is done too: nothing else is left to refresh the page.
    let log = || std::fs::read_to_string(preview.root().join("serve.log")).unwrap_or_default();
    preview.wait_for("the documents lane after the error", || {
        log()
            .split_once("has errors")
            .is_some_and(|(_, after)| after.contains("documents lane:"))
    });
    std::fs::remove_file(&path).unwrap();
    preview.wait_for("the errors gone with the file", || {
        preview.get("/", &[]).text().contains("data-errors=\"0\"")
    });
    let diagnostics: serde_json::Value =
        serde_json::from_slice(&preview.get("/__diagnostics", &[]).body).unwrap();
    assert_eq!(diagnostics["diagnostics"], serde_json::json!([]));
}

#[test]
fn a_new_base_url_in_watch_toml_is_followed_by_the_rewrite() {
    let preview = Preview::start();
    let config = preview.root().join("watch.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace(PRODUCTION, "https://moved.example")).unwrap();
    preview.wait_for("the rebuild with the new base URL", || {
        std::fs::read_to_string(preview.out().join("api/index.json"))
            .is_ok_and(|index| index.contains("https://moved.example/api/posts.json"))
    });
    // The server hears of the new base URL right after the files are written.
    preview.wait_for("the new base URL to be rewritten", || {
        !preview
            .get("/api/index.json", &[])
            .text()
            .contains("moved.example")
    });
    let served = preview.get("/api/index.json", &[]).text();
    assert!(served.contains(&format!("{}/api/posts.json", preview.origin())));
}

#[test]
fn the_landing_page_shows_drafts_and_scheduled_posts_with_the_date_each_goes_live() {
    let preview = Preview::start();
    let page = preview.get("/", &[]).text();
    // The sample site (as of 2026-11-22): a post scheduled in both languages, four drafts.
    assert!(
        page.contains("data-scheduled=\"2\" data-drafts=\"4\""),
        "{page}"
    );
    assert!(page.contains("midnight in America/Bogota"), "{page}");
    assert!(
        page.contains(
            "goes live 2031-03-14</time> · post, en: <strong>A Post from the Future</strong> <code>blog/en/2031-03-14_a-post-from-the-future.md</code>"
        ),
        "{page}"
    );
    assert!(
        page.contains(
            "draft (dated 2025-03-29)</time> · post, en: <strong>Errors as JSON, Not HTML</strong>"
        ),
        "{page}"
    );
    assert!(page.contains("<code>content-api serve --future</code> shows them"));
    // A draft made public leaves the list at once (no reload needed: the event says so).
    let path = preview.content("blog/en/2025-03-29_errors-as-json-not-html.md");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("draft: true\n"), "{text}");
    std::fs::write(&path, text.replace("draft: true\n", "")).unwrap();
    preview.wait_for("the draft to leave the list", || {
        preview
            .get("/", &[])
            .text()
            .contains("data-scheduled=\"2\" data-drafts=\"3\"")
    });
}

/// A page on another site, reaching the preview through a name of its own that resolves
/// to 127.0.0.1 (DNS rebinding), is refused, and no page of another origin may read what is not
/// published (the landing page, the diagnostics, the event stream); the API keeps open CORS.
#[test]
fn only_its_own_hosts_are_answered_and_unpublished_titles_stay_on_this_origin() {
    let preview = Preview::start();
    let draft = "Errors as JSON, Not HTML";
    let landing = preview.get("/", &[]);
    assert!(
        landing.text().contains(draft),
        "the landing page lists drafts"
    );
    for path in [
        "/",
        "/__events",
        "/__diagnostics",
        "/api/index.json",
        "/llms.txt",
    ] {
        for host in ["evil.example", "evil.example:80", "localhost.evil.example"] {
            let own = format!(
                "HEAD {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                preview.addr()
            );
            assert_eq!(preview.send(&own).status, 200, "{path} on its own address");
            let request =
                format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
            let refused = preview.send(&request);
            assert_eq!(refused.status, 403, "{path} for {host}");
            assert!(!refused.text().contains(draft), "{path} for {host}");
            assert!(refused.text().contains("--origin"), "{}", refused.text());
        }
    }
    let port = preview.addr().rsplit(':').next().unwrap().to_string();
    for host in [
        "localhost",
        &format!("localhost:{port}"),
        &format!("[::1]:{port}"),
    ] {
        let request = format!("HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        assert_eq!(preview.send(&request).status, 200, "{host}");
    }
    // What shows unpublished content is for this origin's pages only.
    for path in ["/", "/__diagnostics"] {
        let reply = preview.get(path, &[("Origin", "http://evil.example")]);
        assert_eq!(reply.status, 200, "{path}");
        assert!(
            !reply.headers.contains_key("access-control-allow-origin"),
            "{path}: {:?}",
            reply.headers
        );
    }
    let request = format!(
        "HEAD /__events HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        preview.addr()
    );
    let events = preview.send(&request);
    assert_eq!(events.status, 200);
    assert!(!events.headers.contains_key("access-control-allow-origin"));
    // The published API keeps the contract's open CORS.
    let api = preview.get("/api/index.json", &[]);
    assert_eq!(api.headers["access-control-allow-origin"], "*");
}

/// A request names exactly one host (RFC 9112 §3.2): none, an empty one, or two is a
/// 400.
#[test]
fn a_request_without_one_host_is_a_400() {
    let preview = Preview::start();
    let addr = preview.addr();
    for request in [
        "GET /api/index.json HTTP/1.1\r\nConnection: close\r\n\r\n".to_string(),
        "GET /api/index.json HTTP/1.0\r\n\r\n".to_string(),
        "GET /api/index.json HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n".to_string(),
        format!(
            "GET /api/index.json HTTP/1.1\r\nHost: {addr}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
        ),
        format!(
            "GET /api/index.json HTTP/1.1\r\nHost: {addr}\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
    ] {
        let reply = preview.send(&request);
        assert_eq!(reply.status, 400, "{request:?}: {}", reply.text());
        let problem: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(problem["status"], 400, "{request:?}: {problem}");
        assert!(
            problem["detail"].as_str().unwrap().contains("Host"),
            "{problem}"
        );
    }
}
