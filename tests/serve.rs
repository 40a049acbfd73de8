//! The local server, tested over real HTTP: a server started in-process on 127.0.0.1:0 over a
//! fresh build of the sample site, and a real client (hyper's, so request paths go on the wire
//! exactly as written; the traversal tests write raw request lines on a TCP socket).
//!
//! Rebuilds are real publishes through the library (`build::outputs` + `write::Publisher`), sent
//! to the server with `Feed::send(Rebuild::from_report(..))`, as watch mode will do.

use crate::common;
mod site;
mod stub_site;

use bytes::Bytes;
use camino::{Utf8Path, Utf8PathBuf};
use common::{copy_tree, read_tree, repo, sample_config_in, sample_today};
use content_api::config::SiteConfig;
use content_api::serve::{self, Feed, Rebuild, etag_of};
use content_api::workspace::{Lifetime, Workspace};
use content_api::write::{self, Publisher, Report};
use content_api::{build, source};
use http_body_util::{BodyExt, Empty};
use hyper::header::HeaderMap;
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

/// Any single request or wait longer than this fails the test: a hang is a bug.
const PATIENCE: Duration = Duration::from_secs(20);

const HALF_MARATHON: [&str; 2] = [
    "blog/en/2023-08-27_training-for-my-first-half-marathon.md",
    "blog/es/2023-08-27_training-for-my-first-half-marathon.md",
];

/// A copy of the sample site, built into `out/`, served in-process.
struct Server {
    dir: tempfile::TempDir,
    config: Arc<SiteConfig>,
    addr: SocketAddr,
    feed: Feed,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    client: Client<HttpConnector, Empty<Bytes>>,
}

/// A response, read whole.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Reply {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("no {name} header in {:?}", self.headers))
            .to_str()
            .unwrap()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(300)])
            )
        })
    }

    /// Asserts a section-7 error body with the contract's headers.
    fn assert_problem(&self, status: u16, code: &str, path: &str) -> Value {
        assert_eq!(self.status.as_u16(), status, "status for {path}");
        assert_eq!(self.header("content-type"), "application/json");
        assert_eq!(self.header("cache-control"), "public, max-age=3600");
        assert_eq!(self.header("access-control-allow-origin"), "*");
        let body = self.json();
        assert_eq!(body["status"], status, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert_eq!(body["instance"], path, "{body}");
        for key in ["type", "title", "detail"] {
            assert!(body[key].is_string(), "{key} in {body}");
        }
        for key in ["message", "hint", "documentation_url"] {
            assert!(body["error"][key].is_string(), "error.{key} in {body}");
        }
        body
    }
}

impl Server {
    /// The sample site, built and served.
    async fn start() -> Server {
        let dir = tempfile::Builder::new()
            .prefix("content-api-serve")
            .tempdir()
            .unwrap();
        copy_tree(&repo().join("content"), &dir.path().join("content"));
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let mut config = sample_config_in(
            root.join("content").as_std_path(),
            root.join("out").as_std_path(),
        );
        config.history_file = root.join("content-api.history");
        let config = Arc::new(config);
        let mut server = Server {
            dir,
            config,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            feed: Feed::new(),
            stop: None,
            task: None,
            client: Client::builder(TokioExecutor::new()).build_http(),
        };
        server.publish().await;
        server.listen().await;
        server
    }

    /// Starts serving the output folder (again, after [`Server::stop`]).
    async fn listen(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
        self.addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve::serve_on(
            listener,
            self.out(),
            self.config.clone(),
            self.feed.clone(),
            async move {
                let _ = stopped.await;
            },
        ));
        self.stop = Some(stop);
        self.task = Some(task);
        // No pooled connection to an earlier server.
        self.client = Client::builder(TokioExecutor::new()).build_http();
    }

    /// Stops the server and waits until it has returned.
    async fn stop(&mut self) {
        let _ = self.stop.take().unwrap().send(());
        let task = self.task.take().unwrap();
        tokio::time::timeout(PATIENCE, task)
            .await
            .expect("the server stops")
            .unwrap()
            .unwrap();
    }

    fn out(&self) -> Utf8PathBuf {
        self.config.out_dir.clone()
    }

    fn content(&self) -> PathBuf {
        self.dir.path().join("content")
    }

    /// Builds the content into the output folder as `--once` does; returns what changed.
    async fn publish(&self) -> Report {
        let config = self.config.clone();
        tokio::task::spawn_blocking(move || publish(&config))
            .await
            .unwrap()
    }

    /// Publishes and tells the server, as watch mode does after each rebuild.
    async fn rebuild(&self) -> Rebuild {
        let rebuild = Rebuild::from_report(&self.publish().await);
        self.feed.send(rebuild.clone());
        rebuild
    }

    async fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, &[]).await
    }

    async fn request(&self, method: Method, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Empty::new()).unwrap();
        let response = tokio::time::timeout(PATIENCE, self.client.request(request))
            .await
            .expect("an answer in time")
            .expect("an HTTP response");
        let status = response.status();
        let headers = response.headers().clone();
        let body = tokio::time::timeout(PATIENCE, response.into_body().collect())
            .await
            .expect("a whole body in time")
            .unwrap()
            .to_bytes();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// Sends `request_line` and headers byte for byte on a new connection; returns the status
    /// code and the body. Clients normalise paths; this does not.
    async fn raw(&self, request_line: &str) -> (u16, String) {
        self.raw_request(format!(
            "{request_line}\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        ))
        .await
    }

    /// Sends `request` (a whole HTTP/1.1 request) as it is.
    async fn raw_request(&self, request: String) -> (u16, String) {
        let addr = self.addr;
        tokio::task::spawn_blocking(move || {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            let mut response = Vec::new();
            stream.read_to_end(&mut response).unwrap();
            let text = String::from_utf8_lossy(&response).into_owned();
            let status = text
                .split(' ')
                .nth(1)
                .and_then(|code| code.parse().ok())
                .unwrap_or_else(|| panic!("no status line in {text:?}"));
            let body = text
                .split_once("\r\n\r\n")
                .map(|(_, body)| body.to_string())
                .unwrap_or_default();
            (status, body)
        })
        .await
        .unwrap()
    }

    /// Opens the live-update stream and waits until it is subscribed.
    async fn events(&self) -> Events {
        let reply = self
            .client
            .get(
                format!("http://{}{}", self.addr, serve::EVENTS_PATH)
                    .parse()
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(reply.status(), StatusCode::OK);
        assert_eq!(reply.headers()["content-type"], "text/event-stream");
        let mut events = Events {
            body: reply.into_body(),
            buffer: String::new(),
        };
        let opening = events.next_block().await;
        assert!(opening.contains(": connected"), "{opening:?}");
        events
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A Server-Sent Events stream, read block by block (blocks end with a blank line).
struct Events {
    body: hyper::body::Incoming,
    buffer: String,
}

impl Events {
    async fn next_block(&mut self) -> String {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block = self.buffer[..end].to_string();
                self.buffer.drain(..end + 2);
                return block;
            }
            let frame = tokio::time::timeout(PATIENCE, self.body.frame())
                .await
                .expect("an event in time")
                .expect("the stream is open")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    }

    /// The data of the next `rebuild` event (keep-alive comments are skipped).
    async fn next_rebuild(&mut self) -> Value {
        loop {
            let block = self.next_block().await;
            if let Some(data) = block
                .strip_prefix("event: rebuild\ndata: ")
                .map(str::to_string)
            {
                return serde_json::from_str(&data).unwrap();
            }
        }
    }
}

/// What `--once` does: build, publish, and record the API paths in the publishing history.
fn publish(config: &Arc<SiteConfig>) -> Report {
    let today = sample_today();
    let mut publisher = Publisher::open(&config.out_dir).unwrap();
    let mut history = content_api::deploy::HistoryFile::load(config).unwrap();
    let workspace = Workspace::new(
        config.clone(),
        today,
        false,
        source::scan(config.content_dir.as_std_path(), config),
        Lifetime::Once,
        history.history_paths(),
    );
    let errors: Vec<_> = build::diagnostics(workspace.db())
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let outputs = build::outputs(workspace.db());
    let report = publisher.publish(&outputs).unwrap();
    history
        .record(outputs.iter().map(|(path, _)| &**path))
        .unwrap();
    report
}

fn expected_type(path: &str) -> &'static str {
    if path == ".well-known/ai-catalog.json" {
        "application/ai-catalog+json"
    } else if path == ".well-known/mcp/server-card.json" {
        "application/mcp-server-card+json"
    } else if path.ends_with(".json") {
        "application/json"
    } else if path.ends_with(".html") {
        "text/html; charset=utf-8"
    } else if path.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else if path.ends_with(".txt") {
        "text/plain; charset=utf-8"
    } else if path.ends_with(".js") {
        "text/javascript; charset=utf-8"
    } else if path == ".well-known/api-catalog" {
        "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
    } else {
        panic!("no expected media type for {path}")
    }
}

/// Files of the output folder that are never served: host configuration and the tool's state.
fn never_served(path: &str) -> bool {
    path.starts_with(".content-api/") || path.starts_with('_')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_file_is_served_with_its_type_etag_and_the_contract_headers() {
    let server = Server::start().await;
    let files = read_tree(server.out().as_std_path());
    assert!(files.len() > 50);
    for (path, bytes) in &files {
        let reply = server.get(&format!("/{path}")).await;
        if never_served(path) {
            reply.assert_problem(404, "resource_not_found", &format!("/{path}"));
            continue;
        }
        if path == "api/404.html" {
            // Under /api/ only JSON files are served (the file is for hosts' not-found rule).
            reply.assert_problem(404, "resource_not_found", "/api/404.html");
            continue;
        }
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.body, bytes[..], "{path}");
        assert_eq!(reply.header("content-type"), expected_type(path), "{path}");
        assert_eq!(reply.header("content-length"), bytes.len().to_string());
        assert_eq!(reply.header("cache-control"), "public, max-age=3600");
        assert_eq!(reply.header("access-control-allow-origin"), "*");
        assert_eq!(reply.header("etag"), etag_of(bytes), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_gives_the_headers_of_get_and_no_body() {
    let server = Server::start().await;
    for path in [
        "/api/posts.json",
        "/openapi.json",
        "/api/nope.json",
        "/404.html",
    ] {
        let get = server.get(path).await;
        let head = server.request(Method::HEAD, path, &[]).await;
        assert_eq!(head.status, get.status, "{path}");
        assert!(head.body.is_empty(), "{path}: HEAD has no body");
        for name in [
            "content-type",
            "content-length",
            "cache-control",
            "access-control-allow-origin",
        ] {
            assert_eq!(head.header(name), get.header(name), "{name} of {path}");
        }
        assert_eq!(head.headers.get("etag"), get.headers.get("etag"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matching_if_none_match_gets_304_without_a_body() {
    let server = Server::start().await;
    let first = server.get("/api/posts-en.json").await;
    let etag = first.header("etag").to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"));
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for value in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        for method in [Method::GET, Method::HEAD] {
            let reply = server
                .request(
                    method.clone(),
                    "/api/posts-en.json",
                    &[("if-none-match", value)],
                )
                .await;
            assert_eq!(reply.status, StatusCode::NOT_MODIFIED, "{method} {value}");
            assert!(reply.body.is_empty());
            assert_eq!(reply.header("etag"), etag);
            assert_eq!(reply.header("cache-control"), "public, max-age=3600");
            assert_eq!(reply.header("access-control-allow-origin"), "*");
        }
    }
    let stale = server
        .request(
            Method::GET,
            "/api/posts-en.json",
            &[("if-none-match", "\"0123\"")],
        )
        .await;
    assert_eq!(stale.status, StatusCode::OK);
    assert_eq!(stale.body, first.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_with_no_resource_gets_the_404_body_naming_it() {
    let server = Server::start().await;
    for path in [
        "/api/nope.json",
        "/api/series/fr/index.json",
        "/api/timeline/de/rust.json",
        "/api/slides-timeline/pt.json",
        "/api/series/en/no-such-series.json",
        "/api/posts.xml",
        "/api/posts",
        "/api/",
        "/api",
        "/api/index.json/",
        "/",
        "/blog/no-such-post",
        "/favicon.ico",
    ] {
        let reply = server.get(path).await;
        let body = reply.assert_problem(404, "resource_not_found", path);
        assert!(
            body["detail"].as_str().unwrap().contains(path),
            "the detail names {path}: {body}"
        );
        let hint = body["error"]["hint"].as_str().unwrap();
        assert!(
            hint.contains("https://lucia-montoya.example/api/index.json"),
            "{hint}"
        );
        assert!(
            hint.contains("https://lucia-montoya.example/openapi.json"),
            "{hint}"
        );
        assert_eq!(
            body["type"],
            "https://lucia-montoya.example/developers#errors"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_other_method_gets_405_with_allow() {
    let server = Server::start().await;
    for method in [
        "POST", "PUT", "DELETE", "PATCH", "TRACE", "QUERY", "PROPFIND",
    ] {
        for path in ["/api/posts.json", "/api/nope.json", "/openapi.json"] {
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            let reply = server.request(method.clone(), path, &[]).await;
            let body = reply.assert_problem(405, "method_not_allowed", path);
            assert_eq!(reply.header("allow"), "GET, HEAD", "{method} {path}");
            assert!(body["detail"].as_str().unwrap().contains(method.as_str()));
        }
    }
    // With a request body, which is never read.
    let (status, body) = server
        .raw_request(
            "POST /api/posts.json HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
                .into(),
        )
        .await;
    assert_eq!(status, 405);
    assert!(body.contains("method_not_allowed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_is_a_405_like_every_other_method() {
    let server = Server::start().await;
    let reply = server
        .request(
            Method::OPTIONS,
            "/api/posts.json",
            &[
                ("origin", "https://elsewhere.example"),
                ("access-control-request-method", "GET"),
            ],
        )
        .await;
    reply.assert_problem(405, "method_not_allowed", "/api/posts.json");
    assert_eq!(reply.header("allow"), "GET, HEAD");
    assert_eq!(reply.header("access-control-allow-origin"), "*");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_strings_and_credentials_are_ignored() {
    let server = Server::start().await;
    let plain = server.get("/api/posts.json").await;
    let decorated = server
        .request(
            Method::GET,
            "/api/posts.json?page=2&lang=fr&callback=x",
            &[
                ("authorization", "Bearer not-a-real-token"),
                ("cookie", "session=abc"),
            ],
        )
        .await;
    assert_eq!(decorated.status, StatusCode::OK);
    assert_eq!(decorated.body, plain.body);
    assert_eq!(decorated.header("etag"), plain.header("etag"));
    let missing = server
        .request(
            Method::GET,
            "/api/nope.json?x=1",
            &[("authorization", "Basic dXNlcjpwYXNz")],
        )
        .await;
    missing.assert_problem(404, "resource_not_found", "/api/nope.json");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_is_negotiated_outside_the_api_and_never_under_it() {
    let server = Server::start().await;
    let out = server.out();
    std::fs::write(out.join("guide.html"), "<h1>Guide</h1>").unwrap();
    std::fs::write(out.join("guide.md"), "# Guide").unwrap();
    std::fs::create_dir_all(out.join("docs")).unwrap();
    std::fs::write(out.join("docs/index.html"), "<h1>Docs</h1>").unwrap();
    std::fs::write(out.join("docs.md"), "# Docs").unwrap();
    std::fs::write(out.join("api/posts.json.md"), "# Not for the API").unwrap();
    let markdown = [("accept", "text/markdown")];

    let html = server.get("/guide").await;
    assert_eq!(html.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(html.header("vary"), "Accept");
    let negotiated = server.request(Method::GET, "/guide", &markdown).await;
    assert_eq!(negotiated.body, "# Guide");
    assert_eq!(
        negotiated.header("content-type"),
        "text/markdown; charset=utf-8"
    );
    assert_eq!(negotiated.header("vary"), "Accept");
    assert_eq!(server.get("/guide.md").await.body, "# Guide");
    assert_eq!(
        server.request(Method::GET, "/docs/", &markdown).await.body,
        "# Docs"
    );
    assert_eq!(
        server
            .request(Method::GET, "/docs/index.html", &markdown)
            .await
            .body,
        "# Docs"
    );
    assert_eq!(server.get("/docs/").await.body, "<h1>Docs</h1>");
    let browser = [("accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    assert_eq!(
        server.request(Method::GET, "/guide", &browser).await.body,
        "<h1>Guide</h1>"
    );

    let api = server
        .request(Method::GET, "/api/posts.json", &markdown)
        .await;
    assert_eq!(api.status, StatusCode::OK);
    assert_eq!(api.header("content-type"), "application/json");
    assert_eq!(api.header("vary"), "Accept");
    api.json();
    server.get("/api/posts.json.md").await.assert_problem(
        404,
        "resource_not_found",
        "/api/posts.json.md",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_traversal_never_reads_a_file_outside_the_output_folder() {
    let server = Server::start().await;
    let secret = "TOP-SECRET-CONTENTS";
    std::fs::write(server.dir.path().join("secret.json"), secret).unwrap();
    let out = server.out();
    std::os::unix::fs::symlink(
        server.dir.path().join("secret.json"),
        out.join("api/leak.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(server.dir.path(), out.join("up")).unwrap();
    std::os::unix::fs::symlink("/etc", out.join("api/etc")).unwrap();
    for target in [
        "/../secret.json",
        "/api/../../secret.json",
        "/%2e%2e/secret.json",
        "/%2E%2E/secret.json",
        "/api/%2e%2e/%2e%2e/secret.json",
        "/..%2fsecret.json",
        "/api/..%2F..%2Fsecret.json",
        "/%2e%2e%2fsecret.json",
        "/%252e%252e/secret.json",
        "/.%2e/secret.json",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/%2F..%2Fsecret.json",
        "/..%5csecret.json",
        "/api%5c..%5c..%5csecret.json",
        "/api/posts.json%00.txt",
        "/%00/etc/passwd",
        "/api/leak.json",
        "/up/secret.json",
        "/api/etc/passwd",
        "/api/etc/hostname",
        "/.content-api/manifest.json",
        "/.content-api/published.json",
        "/_headers",
    ] {
        let (status, body) = server.raw(&format!("GET {target} HTTP/1.1")).await;
        assert!(!body.contains(secret), "{target} leaked the secret");
        assert!(!body.contains("root:"), "{target} leaked /etc/passwd");
        assert_eq!(status, 404, "{target}: {body}");
        let problem: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(problem["error"]["code"], "resource_not_found", "{target}");
    }
    // Request targets that are not a path at all are refused by the HTTP parser (400) or
    // answered 404; never with a file.
    for line in [
        "GET /api\\..\\..\\secret.json HTTP/1.1",
        "GET ../secret.json HTTP/1.1",
        "GET http://localhost/../secret.json HTTP/1.1",
        "GET * HTTP/1.1",
    ] {
        let (status, body) = server.raw(line).await;
        assert!(!body.contains(secret), "{line} leaked the secret");
        assert!([400, 404].contains(&status), "{line}: {status} {body}");
    }
    // A link that stays inside the folder is followed.
    std::os::unix::fs::symlink(out.join("api/posts.json"), out.join("api/alias.json")).unwrap();
    assert_eq!(server.get("/api/alias.json").await.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_internal_failure_is_a_500_and_the_server_keeps_serving() {
    let server = Server::start().await;
    let out = server.out();
    std::os::unix::fs::symlink(out.join("api/loop.json"), out.join("api/loop.json")).unwrap();
    let reply = server.get("/api/loop.json").await;
    let body = reply.assert_problem(500, "internal_error", "/api/loop.json");
    assert!(
        body["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("Retrying is safe"),
        "{body}"
    );
    assert_eq!(server.get("/api/posts.json").await.status, StatusCode::OK);
    assert_eq!(server.get("/api/loop.json").await.status.as_u16(), 500);
    assert_eq!(server.get("/api/index.json").await.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_tag_answers_410_even_after_a_restart_and_the_host_files_say_so() {
    let mut server = Server::start().await;
    let path = "/api/timeline/en/half-marathon.json";
    assert_eq!(server.get(path).await.status, StatusCode::OK);
    let mut events = server.events().await;
    for post in HALF_MARATHON {
        std::fs::remove_file(server.content().join(post)).unwrap();
    }
    let rebuild = server.rebuild().await;
    assert!(rebuild.removed.iter().any(|p| p == path), "{rebuild:?}");
    let event = events.next_rebuild().await;
    assert!(
        event["removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == path),
        "{event}"
    );
    // The event is sent after the server has read the new state.
    let gone = server.get(path).await;
    let body = gone.assert_problem(410, "gone", path);
    assert!(body["detail"].as_str().unwrap().contains(path));
    let head = server.request(Method::HEAD, path, &[]).await;
    assert_eq!(head.status.as_u16(), 410);
    assert!(head.body.is_empty());
    // A path that never existed is still a 404.
    server
        .get("/api/timeline/en/never-was.json")
        .await
        .assert_problem(404, "resource_not_found", "/api/timeline/en/never-was.json");
    let gone = std::fs::read_to_string(server.out().join("_nginx_gone.conf")).unwrap();
    for lang in ["en", "es"] {
        assert!(
            gone.contains(&format!(
                "location = /api/timeline/{lang}/half-marathon.json {{"
            )),
            "{gone}"
        );
    }
    let worker = std::fs::read_to_string(server.out().join("_worker.js")).unwrap();
    assert!(
        worker.contains("\"api/timeline/en/half-marathon.json\""),
        "the edge layer's 410s"
    );

    // The history is on disk: a new server on the same folder still answers 410.
    drop(events);
    server.stop().await;
    server.listen().await;
    server.get(path).await.assert_problem(410, "gone", path);

    // The tag comes back: 200 again, and the rule leaves the host files.
    copy_tree(&repo().join("content/blog"), &server.content().join("blog"));
    let mut events = server.events().await;
    server.rebuild().await;
    events.next_rebuild().await;
    assert_eq!(server.get(path).await.status, StatusCode::OK);
    let gone = std::fs::read_to_string(server.out().join("_nginx_gone.conf")).unwrap();
    assert!(!gone.contains("half-marathon"), "{gone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_announced_on_the_event_stream_and_then_served() {
    let server = Server::start().await;
    let mut events = server.events().await;
    let mut second = server.events().await;
    let post = server.content().join(HALF_MARATHON[0]);
    let text = std::fs::read_to_string(&post).unwrap();
    std::fs::write(
        &post,
        text.replace(
            "title: \"Training for My First Half Marathon\"",
            "title: \"Twelve Weeks to 21 Kilometres\"",
        ),
    )
    .unwrap();
    let before = server.get("/api/posts.json").await;
    let rebuild = server.rebuild().await;
    for stream in [&mut events, &mut second] {
        let event = stream.next_rebuild().await;
        let changed: Vec<&str> = event["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(changed, rebuild.changed);
        assert!(changed.contains(&"/api/posts.json"), "{changed:?}");
        assert!(changed.contains(&"/api/timeline/en/half-marathon.json"));
        assert!(!changed.contains(&"/api/posts-es.json"), "{changed:?}");
        assert_eq!(event["removed"], Value::Array(Vec::new()));
    }
    let after = server.get("/api/posts.json").await;
    assert!(String::from_utf8_lossy(&after.body).contains("Twelve Weeks to 21 Kilometres"));
    assert_ne!(after.header("etag"), before.header("etag"));
    // The old ETag no longer validates.
    let revalidated = server
        .request(
            Method::GET,
            "/api/posts.json",
            &[("if-none-match", before.header("etag"))],
        )
        .await;
    assert_eq!(revalidated.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_see_whole_versions_while_a_file_is_replaced_again_and_again() {
    let server = Server::start().await;
    let out = server.out();
    let version = |fill: char| -> Vec<u8> {
        let items: Vec<String> = (0..20_000).map(|i| format!("\"{fill}{i}\"")).collect();
        format!("[{}]", items.join(",")).into_bytes()
    };
    let (a, b) = (version('a'), version('b'));
    write::write_atomically(&out, "api/churn.json", &a).unwrap();
    let writer = {
        let (out, a, b) = (out.clone(), a.clone(), b.clone());
        tokio::task::spawn_blocking(move || {
            for round in 0..300 {
                let bytes = if round % 2 == 0 { &b } else { &a };
                write::write_atomically(&out, "api/churn.json", bytes).unwrap();
            }
        })
    };
    let mut seen = (0, 0);
    while !writer.is_finished() || seen.0 + seen.1 < 20 {
        let reply = server.get("/api/churn.json").await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(
            reply.header("etag"),
            etag_of(&reply.body),
            "the ETag is of these bytes"
        );
        if reply.body == a[..] {
            seen.0 += 1;
        } else if reply.body == b[..] {
            seen.1 += 1;
        } else {
            panic!("a torn read: {} bytes", reply.body.len());
        }
    }
    writer.await.unwrap();
    eprintln!(
        "whole versions read: {} of one, {} of the other",
        seen.0, seen.1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_open_event_streams_and_returns() {
    let mut server = Server::start().await;
    let mut events = server.events().await;
    server.stop().await;
    let end = tokio::time::timeout(PATIENCE, events.body.frame())
        .await
        .expect("the stream ends");
    assert!(end.is_none() || end.unwrap().is_err());
}

// ---- The command: `content-api serve`. ----

/// `content-api serve` running in a temporary site; killed on drop.
struct Command {
    child: std::process::Child,
    url: String,
}

impl Command {
    fn start(site: &common::Site, extra: &[&str]) -> Result<Command, common::Run> {
        let mut child = std::process::Command::new(common::BIN)
            .env_remove("CI")
            .args(["serve", "--addr", "127.0.0.1:0", "--content", "content"])
            .args(["--out", "out", "--today", common::TODAY])
            .args(extra)
            .current_dir(site.root())
            .env_remove("RUST_LOG")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
        match line.trim().strip_prefix("listening on ") {
            Some(url) => Ok(Command {
                child,
                url: url.trim_end_matches('/').to_string(),
            }),
            None => {
                let status = child.wait().unwrap();
                let mut stderr = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut stderr)
                    .unwrap();
                Err(common::Run {
                    status,
                    stdout: line,
                    stderr,
                })
            }
        }
    }

    async fn get(&self, path: &str) -> (StatusCode, Bytes) {
        let client: Client<HttpConnector, Empty<Bytes>> =
            Client::builder(TokioExecutor::new()).build_http();
        let response = tokio::time::timeout(
            PATIENCE,
            client.get(format!("{}{path}", self.url).parse().unwrap()),
        )
        .await
        .unwrap()
        .unwrap();
        let status = response.status();
        (
            status,
            response.into_body().collect().await.unwrap().to_bytes(),
        )
    }
}

impl Drop for Command {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_builds_then_serves_and_prints_its_address() {
    let site = common::Site::new();
    let server = Command::start(&site, &[]).unwrap_or_else(|run| panic!("{}", run.stderr));
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    let (status, body) = server.get("/api/posts.json").await;
    assert_eq!(status, StatusCode::OK);
    // The preview sends the production base URL rewritten to its own address (tests/preview.rs).
    let on_disk = std::fs::read_to_string(site.out().join("api/posts.json")).unwrap();
    assert_eq!(
        String::from_utf8(body.to_vec()).unwrap(),
        on_disk.replace("http://localhost:4321", &server.url)
    );
    assert!(site.out().join("_worker.js").is_file());
    assert!(site.out().join("_headers").is_file());
    assert!(site.out().join("404.html").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_content_errors_the_command_serves_the_previous_build_or_waits_for_a_fix() {
    let site = common::Site::new();
    site.write(common::EN_POST, "---\ntitle: [broken\n---\n");
    {
        // No earlier build: the server answers 404 until the content builds, as watch mode
        // publishes nothing until then; a fix is picked up without a restart.
        let server = Command::start(&site, &[]).unwrap_or_else(|run| panic!("{}", run.stderr));
        let (status, _) = server.get("/api/posts.json").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        site.write(common::EN_POST, common::EN_POST_TEXT);
        let start = std::time::Instant::now();
        while server.get("/api/posts.json").await.0 != StatusCode::OK {
            assert!(start.elapsed() < PATIENCE, "the fix was never published");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    site.write(common::EN_POST, common::EN_POST_TEXT);
    site.build().assert_success();
    let before = site.out_snapshot();
    site.write(common::EN_POST, "---\ntitle: [broken\n---\n");
    let server = Command::start(&site, &[]).unwrap_or_else(|run| panic!("{}", run.stderr));
    let (status, body) = server.get("/api/posts-en.json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("\"title\":\"Hello\""));
    common::assert_same(&before, &site.out_snapshot());
}

#[test]
fn once_and_serve_together_is_a_usage_error() {
    let site = common::Site::new();
    let run = site.run(&["--once", "serve", "--out", "out"]);
    run.assert_code(2);
    // `--once` is the `build` command's flag spelling: a second command is an extra argument.
    assert!(
        run.stderr.contains("unexpected argument 'serve'") && run.stderr.contains("--once"),
        "{}",
        run.stderr
    );
    let run = site.run(&["serve", "--addr", "not-an-address"]);
    run.assert_code(2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_seen_by_the_watcher_reaches_the_event_stream() {
    let site = common::Site::new();
    let server = Command::start(&site, &[]).unwrap_or_else(|run| panic!("{}", run.stderr));
    let client: Client<HttpConnector, Empty<Bytes>> =
        Client::builder(TokioExecutor::new()).build_http();
    let reply = client
        .get(
            format!("{}{}", server.url, serve::EVENTS_PATH)
                .parse()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(reply.status(), StatusCode::OK);
    let mut events = Events {
        body: reply.into_body(),
        buffer: String::new(),
    };
    assert!(events.next_block().await.contains(": connected"));
    // A real file edit, seen by the real watcher.
    site.write(
        common::EN_POST,
        common::EN_POST_TEXT.replace("\"Hello\"", "\"Hello again\""),
    );
    // Events of earlier rebuilds (the first build's, relayed late under load) may come first:
    // wait for the one that carries the edit. After it, the server answers with the new bytes.
    let start = std::time::Instant::now();
    loop {
        assert!(
            start.elapsed() < PATIENCE,
            "the edit never reached the event stream"
        );
        let rebuild = events.next_rebuild().await;
        let changed: Vec<&str> = rebuild["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|url| url.as_str().unwrap())
            .collect();
        if !changed.contains(&"/api/posts-en.json") {
            continue;
        }
        let (status, body) = server.get("/api/posts-en.json").await;
        assert_eq!(status, StatusCode::OK);
        if String::from_utf8_lossy(&body).contains("Hello again") {
            break;
        }
    }
}

/// SIGTERM stops `serve` within a second even while a client that reads nothing holds
/// responses half sent: the server lets them go on for half a second, then closes them (it
/// used to wait 5 s, and the process waited for the server).
#[test]
fn sigterm_stops_serve_while_a_client_reads_nothing() {
    let site = common::Site::new();
    // A Markdown twin of 5.6 MB: a few of them overflow any socket buffer.
    let body = "A line of text long enough to fill the socket quickly.\n\n".repeat(100_000);
    site.write(common::EN_POST, format!("{}{body}", common::EN_POST_TEXT));
    let mut server = Command::start(&site, &[]).unwrap();
    let addr = server.url.trim_start_matches("http://").to_string();
    let mut stalled = std::net::TcpStream::connect(&addr).unwrap();
    let request = format!("GET /blog/hello.md HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stalled.write_all(request.repeat(8).as_bytes()).unwrap();
    // Until the server is stuck writing: the kernel's buffers fill within milliseconds.
    std::thread::sleep(Duration::from_millis(300));

    let pid = server.child.id() as libc::pid_t;
    let sent = std::time::Instant::now();
    // SAFETY: kill(2) on the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < PATIENCE, "serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    assert!(status.success(), "{status:?}");
    // Generous against a loaded machine; the wait it replaces was 5 s at least.
    assert!(took < Duration::from_secs(3), "stopped after {took:?}");
    drop(stalled);
}

/// Clients that take every slot and say nothing cannot lock a new client out until
/// their header timeout (30 s): the oldest are asked to give way, and the new one is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_filling_every_slot_give_way_to_a_new_client() {
    let server = Server::start().await;
    let addr = server.addr;
    let idle: Vec<std::net::TcpStream> = (0..serve::MAX_CONNECTIONS + 8)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    // Answered (not left in the listen queue): `raw` fails after PATIENCE, under the 30 s.
    let (status, body) = server.raw("GET /api/posts-en.json HTTP/1.1").await;
    assert_eq!(status, 200, "{body}");
    drop(idle);
}

/// Clients that take every slot and then stall (asking for a 6 MB file and reading
/// none of it, or sending their request head and never finishing it) give way within seconds:
/// a connection asked to close is closed after a short wait, answer done or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_clients_filling_every_slot_give_way_to_a_new_client_within_seconds() {
    use tokio::io::AsyncWriteExt;
    let server = Server::start().await;
    let item = "\"A line of text long enough to fill the socket quickly.\"";
    let big = format!("[{}]", vec![item; 110_000].join(","));
    std::fs::write(server.out().join("api/big.json"), &big).unwrap();
    for stall in [
        "GET /api/big.json HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "GET /api/posts-en.json HTTP/1.1\r\nHost: local",
    ] {
        let mut stalled = Vec::new();
        for _ in 0..serve::MAX_CONNECTIONS + 8 {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            // A small window: the server's writes stop at once.
            socket.set_recv_buffer_size(4096).unwrap();
            let mut stream = socket.connect(server.addr).await.unwrap();
            stream.write_all(stall.as_bytes()).await.unwrap();
            stalled.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let started = std::time::Instant::now();
        let (status, body) = server.raw("GET /api/posts-en.json HTTP/1.1").await;
        let took = started.elapsed();
        assert_eq!(status, 200, "{body}");
        assert!(
            took < Duration::from_secs(5),
            "a new client waited {took:?} behind {stall:?}"
        );
        drop(stalled);
    }
}
