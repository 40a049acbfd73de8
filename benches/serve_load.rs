//! Load check of `content-api serve` (not a test): 64 keep-alive connections for 10 seconds on
//! loopback against `api/posts.json` and a tag timeline, while an edit loop rewrites a post's
//! title every ~100 ms and publishes the rebuild into the served folder. Then the same load
//! against nginx serving the same folder, when nginx is installed (`apt-get install nginx`).
//!
//!     cargo bench --bench serve_load                 # 1000 posts per language, 10 s each
//!     cargo bench --bench serve_load -- 2000 20      # other corpus size and duration
//!
//! Every response is checked: status 200, and the 128-bit hash of its body must be the hash of
//! a version the edit loop published (recorded before each publish). A torn read (a mix of
//! two versions, or a truncated file) cannot match, so "torn" counts responses that are not a
//! complete published document. Errors are connection failures and non-200 answers.
//!
//! The load generator, the edit loop and the server share the machine's cores, for both
//! servers alike: the numbers compare the two, they do not measure either alone.

#[path = "support/corpus.rs"]
mod corpus;

use bytes::Bytes;
use camino::{Utf8Path, Utf8PathBuf};
use content_api::build;
use content_api::config::SiteConfig;
use content_api::content::{ContentPath, FileContents};
use content_api::source;
use content_api::workspace::{Lifetime, Workspace};
use content_api::write::Publisher;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use xxhash_rust::xxh3::xxh3_128;

const CONNECTIONS: usize = 64;
const EDIT_EVERY: Duration = Duration::from_millis(100);
const TODAY: &str = "2026-11-22";

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let posts = args.first().copied().unwrap_or(1000) as usize;
    let seconds = args.get(1).copied().unwrap_or(10);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpora");
    let content = corpus::corpus_for(&root, posts);
    let work = tempfile::tempdir().unwrap();
    let out = Utf8PathBuf::from_path_buf(work.path().join("out")).unwrap();

    let mut site = Site::build(&content, &out);
    println!(
        "content-api serve under load: {posts} posts per language, {CONNECTIONS} connections, {seconds} s per server"
    );
    println!(
        "paths: /{} ({} KB) and /{} ({} KB); a title edit and publish every {} ms\n",
        site.targets[0],
        size(&out, &site.targets[0]) / 1024,
        site.targets[1],
        size(&out, &site.targets[1]) / 1024,
        EDIT_EVERY.as_millis()
    );

    let mut results = Vec::new();
    let port = free_port();
    let server = start_content_api(&content, &out, port);
    results.push(("content-api", run_load(&mut site, port, seconds)));
    stop(server);

    match start_nginx(work.path(), &out) {
        Some((nginx, port)) => {
            results.push(("nginx", run_load(&mut site, port, seconds)));
            stop(nginx);
        }
        None => println!("nginx is not installed (apt-get install nginx): no comparison\n"),
    }

    println!(
        "{:<12} {:>9} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5} {:>6}",
        "server", "requests", "req/s", "MB/s", "p50 ms", "p99 ms", "errors", "torn", "edits"
    );
    for (name, r) in &results {
        let secs = r.elapsed.as_secs_f64();
        println!(
            "{:<12} {:>9} {:>8.0} {:>8.1} {:>7.2} {:>7.2} {:>7} {:>5} {:>6}",
            name,
            r.requests,
            r.requests as f64 / secs,
            r.bytes as f64 / 1e6 / secs,
            r.p50.as_secs_f64() * 1e3,
            r.p99.as_secs_f64() * 1e3,
            r.errors,
            r.torn,
            r.edits
        );
    }
    if results.iter().any(|(_, r)| r.errors > 0 || r.torn > 0) {
        eprintln!("\nFAILED: errors or torn responses");
        std::process::exit(1);
    }
}

/// The build side: a long-lived workspace that the edit loop changes, and the hashes of every
/// version of the measured files it ever published.
struct Site {
    workspace: Workspace,
    publisher: Publisher,
    post: ContentPath,
    text: String,
    edits: u64,
    /// `api/posts.json` and the timeline of the edited post's first tag.
    targets: [String; 2],
    known: Arc<RwLock<HashSet<u128>>>,
}

impl Site {
    fn build(content: &Path, out: &Utf8Path) -> Site {
        let today = chrono::NaiveDate::parse_from_str(TODAY, "%Y-%m-%d").unwrap();
        let publisher = Publisher::open(out).expect("the output folder opens");
        let config = config_for(content, out);
        let scan = source::scan(content, &config);
        let workspace = Workspace::new(
            Arc::new(config),
            today,
            false,
            scan,
            Lifetime::Watch,
            Default::default(),
        );
        assert!(
            build::diagnostics(workspace.db())
                .iter()
                .all(|d| !d.is_error()),
            "the corpus has errors"
        );
        // The newest English post: it is in posts.json and in its tags' timelines.
        let outputs = build::outputs(workspace.db());
        let (_, index) = outputs
            .iter()
            .find(|(p, _)| &**p == "api/posts-en.json")
            .unwrap();
        let entries: serde_json::Value = serde_json::from_slice(&index.to_vec().unwrap()).unwrap();
        let id = entries[0]["id"].as_str().unwrap();
        let tag = entries[0]["tags"][0].as_str().unwrap();
        let post = ["md", "mdx"]
            .iter()
            .map(|ext| format!("blog/{id}.{ext}"))
            .find(|p| content.join(p).is_file())
            .expect("the newest post's file");
        let mut site = Site {
            text: std::fs::read_to_string(content.join(&post)).unwrap(),
            post: ContentPath::new(&post).unwrap(),
            workspace,
            publisher,
            edits: 0,
            targets: [
                "api/posts.json".to_string(),
                format!("api/timeline/en/{tag}.json"),
            ],
            known: Arc::default(),
        };
        site.publish();
        site
    }

    /// Builds and publishes, recording the measured files' hashes before they reach the disk.
    fn publish(&mut self) {
        let groups = build::refresh_groups(self.workspace.db());
        {
            let mut known = self.known.write().unwrap();
            for (path, output) in groups.iter().flat_map(|group| group.iter()) {
                if self.targets.iter().any(|t| **t == **path) {
                    known.insert(output.hash);
                }
            }
        }
        self.publisher.publish_groups(&groups).unwrap();
    }

    /// Rewrites the post's title (in the database, as a watch-mode edit does) and publishes.
    fn edit(&mut self) {
        self.edits += 1;
        let text: String = self
            .text
            .lines()
            .map(|line| {
                if line.starts_with("title:") {
                    format!("title: \"Edited under load, version {}\"\n", self.edits)
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        self.workspace
            .apply([(self.post.clone(), FileContents::Text(Arc::new(text)))]);
        self.publish();
    }
}

/// The configuration `content-api serve --content C --out O` uses with no watch.toml.
fn config_for(content: &Path, out: &Utf8Path) -> SiteConfig {
    let mut config = SiteConfig::defaults(Utf8Path::new("."));
    config.content_dir = Utf8PathBuf::from_path_buf(content.to_owned()).unwrap();
    config.out_dir = out.to_owned();
    config
}

fn size(out: &Utf8Path, path: &str) -> u64 {
    std::fs::metadata(out.join(path)).unwrap().len()
}

#[derive(Default)]
struct Results {
    requests: u64,
    bytes: u64,
    errors: u64,
    torn: u64,
    edits: u64,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
}

#[derive(Default)]
struct Tally {
    requests: u64,
    bytes: u64,
    errors: u64,
    torn: u64,
    latencies: Vec<u32>,
}

/// Runs the edit loop on this thread and the load on a runtime, for `seconds`.
fn run_load(site: &mut Site, port: u16, seconds: u64) -> Results {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let duration = Duration::from_secs(seconds);
    let done = Arc::new(AtomicBool::new(false));
    let paths: Arc<[String; 2]> = Arc::new(site.targets.clone());
    let known = site.known.clone();
    let load = {
        let done = done.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let started = Instant::now();
                let deadline = started + duration;
                let tasks: Vec<_> = (0..CONNECTIONS)
                    .map(|i| {
                        tokio::spawn(connection(addr, paths.clone(), known.clone(), deadline, i))
                    })
                    .collect();
                let mut total = Tally::default();
                for task in tasks {
                    let tally = task.await.unwrap();
                    total.requests += tally.requests;
                    total.bytes += tally.bytes;
                    total.errors += tally.errors;
                    total.torn += tally.torn;
                    total.latencies.extend(tally.latencies);
                }
                done.store(true, Ordering::SeqCst);
                (total, started.elapsed())
            })
        })
    };
    let edits_before = site.edits;
    while !done.load(Ordering::SeqCst) {
        let started = Instant::now();
        site.edit();
        std::thread::sleep(EDIT_EVERY.saturating_sub(started.elapsed()));
    }
    let (mut tally, elapsed) = load.join().unwrap();
    tally.latencies.sort_unstable();
    let percentile = |p: f64| -> Duration {
        let index = ((tally.latencies.len() as f64 * p) as usize).min(tally.latencies.len() - 1);
        Duration::from_micros(tally.latencies[index] as u64)
    };
    Results {
        requests: tally.requests,
        bytes: tally.bytes,
        errors: tally.errors,
        torn: tally.torn,
        edits: site.edits - edits_before,
        elapsed,
        p50: percentile(0.50),
        p99: percentile(0.99),
    }
}

/// One keep-alive connection sending requests one after another until the deadline;
/// reconnects after a failure (counted as an error).
async fn connection(
    addr: SocketAddr,
    paths: Arc<[String; 2]>,
    known: Arc<RwLock<HashSet<u128>>>,
    deadline: Instant,
    offset: usize,
) -> Tally {
    let mut tally = Tally::default();
    let mut turn = offset;
    'connect: while Instant::now() < deadline {
        let Ok(stream) = tokio::net::TcpStream::connect(addr).await else {
            tally.errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let Ok((mut sender, conn)) =
            hyper::client::conn::http1::handshake::<_, Empty<Bytes>>(TokioIo::new(stream)).await
        else {
            tally.errors += 1;
            continue;
        };
        tokio::spawn(conn);
        while Instant::now() < deadline {
            turn += 1;
            let path = &paths[turn % 2];
            let request = Request::get(format!("/{path}"))
                .header("host", "localhost")
                .body(Empty::new())
                .unwrap();
            let sent = Instant::now();
            let response = match sender.send_request(request).await {
                Ok(response) => response,
                Err(_) => {
                    tally.errors += 1;
                    continue 'connect;
                }
            };
            let status = response.status();
            let body = match response.into_body().collect().await {
                Ok(body) => body.to_bytes(),
                Err(_) => {
                    tally.errors += 1;
                    continue 'connect;
                }
            };
            tally
                .latencies
                .push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
            tally.requests += 1;
            tally.bytes += body.len() as u64;
            if status != hyper::StatusCode::OK {
                tally.errors += 1;
            } else if !known.read().unwrap().contains(&xxh3_128(&body)) {
                tally.torn += 1;
            }
        }
    }
    tally
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something answers HTTP on `port`.
fn wait_for(port: u16, child: &mut Child) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the server exited: {status}");
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nothing listens on port {port} after 30 s");
}

fn start_content_api(content: &Path, out: &Utf8Path, port: u16) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_content-api"))
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--today",
            TODAY,
        ])
        .arg("--content")
        .arg(content)
        .args(["--out", out.as_str()])
        // No watch.toml from the working folder: the same configuration as `config_for`.
        .current_dir(out.parent().unwrap())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .expect("content-api starts");
    wait_for(port, &mut child);
    child
}

/// nginx serving `out` on a free loopback port, as a static host would (sendfile, keep-alive,
/// the contract's headers), or `None` when nginx is not installed.
fn start_nginx(work: &Path, out: &Utf8Path) -> Option<(Child, u16)> {
    let binary = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).is_file())?;
    let port = free_port();
    let prefix = work.join("nginx");
    std::fs::create_dir_all(prefix.join("logs")).unwrap();
    // SAFETY: geteuid has no preconditions.
    #[cfg(unix)]
    let root = unsafe { libc::geteuid() } == 0;
    #[cfg(not(unix))]
    let root = false;
    let user = if root { "user root;" } else { "" };
    let p = prefix.display();
    let conf = format!(
        "{user}
worker_processes auto;
daemon off;
pid {p}/nginx.pid;
error_log {p}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 65;
  client_body_temp_path {p}/body;
  proxy_temp_path {p}/proxy;
  fastcgi_temp_path {p}/fastcgi;
  uwsgi_temp_path {p}/uwsgi;
  scgi_temp_path {p}/scgi;
  types {{ application/json json; }}
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{port};
    root {out};
    add_header Cache-Control \"public, max-age=3600\" always;
    add_header Access-Control-Allow-Origin \"*\" always;
  }}
}}
"
    );
    let conf_path = prefix.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let mut child = Command::new(binary)
        .arg("-p")
        .arg(&prefix)
        .arg("-c")
        .arg(&conf_path)
        .arg("-e")
        .arg(prefix.join("logs/error.log"))
        .spawn()
        .expect("nginx starts");
    wait_for(port, &mut child);
    Some((child, port))
}

/// Stops a server this bench started (SIGTERM to its own pid; on Windows, which has no
/// SIGTERM, TerminateProcess) and reaps it.
fn stop(mut child: Child) {
    // SAFETY: kill on the pid of our own child, which has not been reaped yet.
    #[cfg(unix)]
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    #[cfg(not(unix))]
    let _ = child.kill();
    let _ = child.wait();
}
