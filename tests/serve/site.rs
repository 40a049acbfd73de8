//! `serve --site URL` in front of a real dev server, Debian's `hugo server`: the API, its
//! documents and the twins answered by the tool, every other request (any method, redirects,
//! the live-reload websocket) by Hugo, on one origin. (`astro dev` behind `serve --site` is in
//! tests/npm_package/astro.rs, where Astro is installed.)

use super::common::{self, Preview, http};
use super::stub_site::StubSite;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `hugo` (Debian's package; `CONTENT_API_HUGO` names another); `None` after
/// `common::need`'s rule when there is none.
fn hugo() -> Option<PathBuf> {
    common::need::HUGO.program()
}

/// A small Hugo site: a home page listing its notes, and one note.
fn hugo_site() -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let files = [
        (
            "hugo.toml",
            "title = \"A Hugo site\"\ndisableKinds = [\"taxonomy\", \"term\", \"RSS\", \"sitemap\"]\n",
        ),
        (
            "layouts/index.html",
            "<!doctype html><html><head><title>{{ .Site.Title }}</title></head><body>\
             <h1>{{ .Site.Title }}</h1>{{ range .Site.RegularPages }}<p class=\"note\">{{ .Title }}</p>{{ end }}\
             </body></html>\n",
        ),
        (
            "layouts/_default/single.html",
            "<!doctype html><html><head><title>{{ .Title }}</title></head><body><h1>{{ .Title }}</h1>\
             {{ .Content }}</body></html>\n",
        ),
        (
            "content/notes/first.md",
            "---\ntitle: First note\n---\n\nHello.\n",
        ),
    ];
    for (path, text) in files {
        let path = site.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    site
}

/// `hugo server` on `port`, its live reload and links pointing at `public` (the tool's address).
struct HugoServer {
    child: Child,
}

impl HugoServer {
    fn start(hugo: &PathBuf, site: &std::path::Path, port: u16, public: &str) -> HugoServer {
        let public_port = public.rsplit(':').next().unwrap();
        let child = Command::new(hugo)
            .args(["server", "--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--liveReloadPort", public_port])
            .args(["--baseURL", &format!("{public}/"), "--appendPort=false"])
            .args(["--disableFastRender", "--quiet"])
            .current_dir(site)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        HugoServer { child }
    }
}

impl Drop for HugoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_site_answers_the_api_and_passes_everything_else_to_hugo_server() {
    let Some(hugo) = hugo() else {
        return;
    };
    let hugo_port = http::free_port();
    let preview = Preview::start_with(&["--site", &format!("http://127.0.0.1:{hugo_port}")]);
    let addr = preview.addr().to_string();
    let site = hugo_site();
    let _hugo = HugoServer::start(&hugo, site.path(), hugo_port, preview.origin());
    http::wait_for(
        "hugo server, through serve",
        Duration::from_secs(60),
        || http::get(&addr, "/", &[]).status == 200,
    );

    // The site's pages are Hugo's, with Hugo's live reload on this origin.
    let home = http::get(&addr, "/", &[]);
    assert!(
        home.text().contains("<h1>A Hugo site</h1>"),
        "{}",
        home.text()
    );
    assert!(home.text().contains("First note"));
    assert!(
        home.text()
            .contains(&format!("port={}", addr.rsplit(':').next().unwrap())),
        "hugo's live-reload script points here: {}",
        home.text()
    );
    // The API is the tool's, with the contract's headers and errors.
    let posts = http::get(&addr, "/api/posts-en.json", &[]);
    assert_eq!(posts.status, 200);
    assert_eq!(posts.header("access-control-allow-origin"), Some("*"));
    assert!(http::json(&posts).as_array().is_some_and(|p| !p.is_empty()));
    let missing = http::get(&addr, "/api/nope.json", &[]);
    assert_eq!(missing.status, 404);
    assert_eq!(http::json(&missing)["instance"], "/api/nope.json");
    let post = http::request(&addr, "POST", "/api/posts-en.json", &[], b"x=1");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    // Its documents and the twins too.
    let llms = http::get(&addr, "/llms.txt", &[]);
    assert_eq!(llms.status, 200);
    assert!(llms.text().contains(preview.origin()), "links point here");
    let twin = http::get(
        &addr,
        "/blog/hello-from-medellin",
        &[("Accept", "text/markdown")],
    );
    assert_eq!(twin.status, 200);
    assert!(
        twin.header("content-type")
            .unwrap()
            .starts_with("text/markdown")
    );
    // The tool's landing page moved out of the site's way.
    let landing = http::get(&addr, "/__content-api/", &[]);
    assert!(landing.text().contains("content-api preview"));

    // A page loaded by a browser holding older API answers tells it to drop its cached copies.
    let page = http::get(
        &addr,
        "/",
        &[
            ("Sec-Fetch-Dest", "document"),
            ("Cookie", "content-api-generation=0-0"),
        ],
    );
    assert_eq!(page.header("clear-site-data"), Some("\"cache\""));
    assert!(
        page.header("set-cookie")
            .unwrap()
            .starts_with("content-api-generation=")
    );
    assert_eq!(home.header("clear-site-data"), None, "not without a cookie");

    // Everything else is Hugo's answer as it gave it: other methods with their body, its 404
    // (with the open CORS a static host adds), its redirects.
    let form = http::request(&addr, "POST", "/notes/first/", &[], b"name=a");
    assert_eq!(form.status, 200, "Go's file server answers POST like GET");
    assert!(form.text().contains("<h1>First note</h1>"));
    let unknown = http::get(&addr, "/no-such-page", &[]);
    assert_eq!(unknown.status, 404);
    assert!(!unknown.text().contains("resource_not_found"), "Hugo's 404");
    assert_eq!(unknown.header("access-control-allow-origin"), Some("*"));
    let redirect = http::get(&addr, "/notes/first", &[]);
    assert_eq!(redirect.status, 301, "{:?}", redirect.headers);
    assert!(redirect.header("location").unwrap().ends_with("first/"));

    // The live-reload websocket goes through: the handshake, Hugo's hello, and the reload it
    // sends when a page changes.
    let mut socket = http::WebSocket::connect(&addr, "/livereload", None);
    socket.send_text(
        r#"{"command":"hello","protocols":["http://livereload.com/protocols/official-7"]}"#,
    );
    assert!(socket.next_text().contains("hello"));
    std::fs::write(
        site.path().join("content/notes/first.md"),
        "---\ntitle: First note, edited\n---\n\nHello again.\n",
    )
    .unwrap();
    let said = socket.next_text();
    assert!(said.contains("reload"), "{said}");
    http::wait_for("the edited note", Duration::from_secs(30), || {
        http::get(&addr, "/", &[])
            .text()
            .contains("First note, edited")
    });

    // The one origin keeps the contract.
    let verify = Command::new(common::BIN)
        .env_remove("CI")
        .args(["verify", preview.origin()])
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "verify against serve --site:\n{}{}",
        String::from_utf8_lossy(&verify.stdout),
        String::from_utf8_lossy(&verify.stderr)
    );
}

/// The Hugo site's own posts, read where Hugo keeps them (`[layout]`): `serve --site` in front
/// of `hugo server` answers the API of the posts Hugo renders, and an author's save shows in
/// both, on one origin.
#[test]
fn serve_site_reads_the_hugo_sites_own_posts_and_follows_a_save() {
    let Some(hugo) = hugo() else {
        return;
    };
    let site = hugo_site();
    let post = |title: &str| {
        format!(
            "---\ntitle: \"{title}\"\ndate: 2024-05-01T09:00:00Z\ndescription: \"A post.\"\n---\n\nHello.\n"
        )
    };
    let write = |relative: &str, text: &str| {
        let path = site.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("content/posts/first-post/index.md", &post("First post"));
    write(
        "watch.toml",
        "languages = [\"en\"]\nout_dir = \"content-api-out\"\n[site]\nauthor = \"A. Writer\"\nlicence = \"CC-BY-4.0\"\n\
         [hosting]\nlive_record = \"off\"\n[layout]\nposts = [\"posts/{slug}\", \"posts/{slug}/index\"]\ntags = \"\"\nseries = \"\"\n\
         [front_matter.keys]\ndate = [\"date\"]\n",
    );
    let hugo_port = http::free_port();
    let served = common::Served::spawn(
        Command::new(common::BIN)
            .env_remove("CI")
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(["--site", &format!("http://127.0.0.1:{hugo_port}")])
            .current_dir(site.path())
            .stderr(Stdio::null()),
    );
    let addr = served.addr().to_string();
    let _hugo = HugoServer::start(&hugo, site.path(), hugo_port, &served.origin);
    http::wait_for(
        "hugo server, through serve",
        Duration::from_secs(60),
        || http::get(&addr, "/", &[]).text().contains("First post"),
    );
    let titles = || -> Vec<String> {
        let posts = http::get(&addr, "/api/posts-en.json", &[]);
        http::json(&posts)
            .as_array()
            .map(|posts| {
                posts
                    .iter()
                    .map(|p| format!("{} {}", p["id"], p["title"]))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(titles(), ["\"en/2024-05-01_first-post\" \"First post\""]);
    write(
        "content/posts/first-post/index.md",
        &post("First post, edited"),
    );
    http::wait_for(
        "the edit, in Hugo's page and in the API",
        Duration::from_secs(30),
        || {
            http::get(&addr, "/", &[])
                .text()
                .contains("First post, edited")
                && titles() == ["\"en/2024-05-01_first-post\" \"First post, edited\""]
        },
    );
}

#[test]
fn serve_site_says_when_the_dev_server_does_not_answer() {
    let port = http::free_port();
    let preview = Preview::start_with(&["--site", &format!("http://127.0.0.1:{port}")]);
    let reply = http::get(preview.addr(), "/", &[]);
    assert_eq!(reply.status, 502);
    let text = reply.text();
    assert!(
        text.contains(&format!("http://127.0.0.1:{port} does not answer"))
            && text.contains("--site"),
        "{text}"
    );
    // The API does not depend on it.
    assert_eq!(
        http::get(preview.addr(), "/api/posts-en.json", &[]).status,
        200
    );
}

#[test]
fn serve_site_refuses_an_address_that_is_not_an_http_origin() {
    for bad in [
        "https://example.com",
        "localhost:1313",
        "http://127.0.0.1:1313/blog",
    ] {
        let run = common::run_binary(
            &common::repo(),
            &[
                "serve",
                "--site",
                bad,
                "--out",
                "/nonexistent/never-written",
            ],
            common::TIMEOUT,
        );
        run.assert_code(2);
        assert!(run.stderr.contains("--site"), "{bad}: {}", run.stderr);
    }
}

/// The dev server's own guard against DNS rebinding (Vite's `Host` check) judges the
/// `Host` the browser sent, not `serve`'s address; and `serve` itself answers no other site's
/// name, for the site's pages (a dev server's transformed sources) as for the API.
#[test]
fn serve_site_passes_the_clients_host_on_and_answers_no_other_sites_name() {
    let stub = StubSite::start();
    let preview = Preview::start_with(&["--site", &stub.origin()]);
    let addr = preview.addr();
    for path in ["/", "/src/pages/index.astro"] {
        let page = http::get(addr, path, &[]);
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(page.text(), format!("host={addr}"), "{path}");
        let local = http::get(addr, path, &[("Host", "localhost:4399")]);
        assert_eq!(local.text(), "host=localhost:4399", "{path}");
    }
    let before = stub.seen().len();
    for path in [
        "/",
        "/src/pages/index.astro",
        "/api/index.json",
        "/__content-api/",
    ] {
        let refused = http::get(addr, path, &[("Host", "evil.example")]);
        assert_eq!(refused.status, 403, "{path}: {}", refused.text());
        assert!(!refused.text().contains("host="), "{path}");
    }
    assert_eq!(stub.seen().len(), before, "the dev server was never asked");
}

/// A dev server that never answers holds no slot a new client needs: with 520
/// requests waiting on it, the API, the landing page and another page answer within seconds.
#[test]
fn a_silent_dev_server_does_not_lock_new_clients_out() {
    let stub = StubSite::start();
    let preview = Preview::start_with(&["--site", &stub.origin()]);
    let addr = preview.addr().to_string();
    let request = format!("GET /slow HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let waiting: Vec<TcpStream> = (0..content_api::serve::MAX_CONNECTIONS + 8)
        .map(|_| {
            let mut stream = TcpStream::connect(&addr).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            stream
        })
        .collect();
    http::wait_for("the requests to reach the dev server", PATIENCE, || {
        stub.seen().len() >= content_api::serve::MAX_CONNECTIONS / 2
    });
    for path in ["/api/posts-en.json", "/__content-api/", "/a-page"] {
        let started = Instant::now();
        let reply = http::get(&addr, path, &[]);
        let took = started.elapsed();
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        assert!(took < Duration::from_secs(5), "{path} waited {took:?}");
    }
    drop(waiting);
}

/// How long a test waits for what should take a moment.
const PATIENCE: Duration = Duration::from_secs(30);

/// Only a websocket is joined end to end. Another upgrade (`h2c`), switched to by a
/// dev server, would carry later requests on that connection past the tool's rules (a
/// traversal, an `/api/` path) to the dev server unseen.
#[test]
fn serve_site_joins_no_upgrade_but_a_websocket() {
    let stub = StubSite::start();
    let preview = Preview::start_with(&["--site", &stub.origin()]);
    let addr = preview.addr();
    for upgrade in ["h2c", "websocket, h2c", "WebSocket2"] {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let head = format!(
            "GET /socket HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade, HTTP2-Settings\r\n\
             Upgrade: {upgrade}\r\nHTTP2-Settings: AAMAAABkAAQAoAAA\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).unwrap();
        let answer = read_head(&mut stream);
        assert!(
            !answer.starts_with("HTTP/1.1 101"),
            "{upgrade}: switched: {answer}"
        );
        // What follows on the connection is read by `serve` as requests, never tunnelled.
        let smuggled =
            "GET /../../etc/passwd HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        let _ = stream.write_all(smuggled.as_bytes());
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
    }
    // A websocket handshake the dev server accepts is joined (its hot reload).
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let head = format!(
        "GET /socket HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    assert!(
        read_head(&mut stream).starts_with("HTTP/1.1 101"),
        "a websocket is joined"
    );
    std::thread::sleep(Duration::from_millis(200));
    let seen = stub.seen();
    assert!(
        !seen
            .iter()
            .any(|text| text.contains("/../") || text.contains("passwd")),
        "a request went to the dev server unseen: {seen:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|text| text.to_ascii_lowercase().contains("upgrade: h2c")),
        "an h2c upgrade was passed on: {seen:?}"
    );
}

/// A request body that cannot be read (a chunk size past 64 bits) is the client's
/// fault: `400` with the contract's JSON error, as the tool answers itself, not a `502`.
#[test]
fn serve_site_answers_an_unreadable_body_with_400() {
    let stub = StubSite::start();
    let preview = Preview::start_with(&["--site", &stub.origin()]);
    let addr = preview.addr();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let request = format!(
        "POST /slow-form HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\n\
         1ffffffffffffffff\r\nx\r\n0\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let problem: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(problem["status"], 400, "{problem}");
}

/// A response's head, read byte by byte through its blank line.
fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}
