//! Memory of `content-api serve` under hostile clients (not a test): slow clients that ask for
//! the largest file and never read, clients that pipeline many requests without reading, and
//! clients that vanish mid-response; the server's resident size (VmRSS) is printed before,
//! under each load, and after the clients left. Bounded in clients and time.
//!
//!     cargo bench --bench serve_soak                  # 5000 posts per language
//!     cargo bench --bench serve_soak -- 10000         # another corpus size
//!
//! The preview (`serve`) rewrites the production base URL in every response, so a large file
//! goes through that rewrite too: what it holds per client is what this measures.

#[path = "support/corpus.rs"]
mod corpus;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TODAY: &str = "2026-11-22";
/// Clients of each kind.
const SLOW: usize = 300;
const PIPELINING: usize = 300;
const REQUESTS_PER_PIPELINE: usize = 20;
const VANISHING: usize = 300;
/// How long each load is held before it is measured.
const HOLD: Duration = Duration::from_secs(3);

fn main() {
    let posts = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(5000);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpora");
    let content = corpus::corpus_for(&root, posts);
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut server = start(&content, &out, port);
    let size = std::fs::metadata(out.join("api/posts.json")).unwrap().len();
    println!(
        "content-api serve: {posts} posts per language, /api/posts.json is {:.1} MB",
        size as f64 / 1e6
    );
    let idle = rss(&server);
    println!("{:<48} {:>8}", "state", "RSS MB");
    println!("{:<48} {:>8.1}", "idle, after the first build", mb(idle));

    let slow: Vec<TcpStream> = (0..SLOW).map(|_| ask(addr, 1)).collect();
    std::thread::sleep(HOLD);
    println!(
        "{:<48} {:>8.1}",
        format!("{SLOW} clients that never read posts.json"),
        mb(rss(&server))
    );
    drop(slow);

    let pipelining: Vec<TcpStream> = (0..PIPELINING)
        .map(|_| ask(addr, REQUESTS_PER_PIPELINE))
        .collect();
    std::thread::sleep(HOLD);
    println!(
        "{:<48} {:>8.1}",
        format!("{PIPELINING} clients pipelining {REQUESTS_PER_PIPELINE} requests, unread"),
        mb(rss(&server))
    );
    drop(pipelining);

    for _ in 0..VANISHING {
        let mut client = ask(addr, 1);
        let mut first = [0u8; 4096];
        let _ = client.read(&mut first);
        drop(client);
    }
    std::thread::sleep(HOLD);
    println!(
        "{:<48} {:>8.1}",
        format!("after {VANISHING} clients that left mid-response"),
        mb(rss(&server))
    );
    std::thread::sleep(Duration::from_secs(10));
    println!(
        "{:<48} {:>8.1}",
        "all clients gone (10 s later)",
        mb(rss(&server))
    );
    // The server still answers.
    let mut check = ask(addr, 1);
    let mut buffer = [0u8; 12];
    check.read_exact(&mut buffer).unwrap();
    assert_eq!(&buffer[..12], b"HTTP/1.1 200");
    let _ = server.kill();
    let _ = server.wait();
}

/// A client that sent `requests` GETs of `/api/posts.json` (pipelined) and reads nothing.
fn ask(addr: SocketAddr, requests: usize) -> TcpStream {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let request = "GET /api/posts.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(requests);
    stream.write_all(request.as_bytes()).unwrap();
    stream
}

fn start(content: &Path, out: &Path, port: u16) -> Child {
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
        .arg("--out")
        .arg(out)
        .current_dir(out.parent().unwrap())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .expect("content-api starts");
    let started = Instant::now();
    // Up once its first build is published.
    while TcpStream::connect(("127.0.0.1", port)).is_err() || !out.join("api/posts.json").is_file()
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "serve did not start"
        );
        assert!(child.try_wait().unwrap().is_none(), "serve exited");
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

/// The resident size of `child`, in bytes (Linux `/proc`).
fn rss(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
