//! Save-to-answer latency in the author's dev server (not a test): the time from writing a post
//! to the first answer of `GET /api/posts-en.json` that carries the edit, through `astro dev`
//! with the integration (`@content-api/astro`), and through `content-api serve` alone on the
//! same content, in alternation.
//!
//!     cargo bench --bench dev_server -- --site DIR           # 40 edits on each server
//!     cargo bench --bench dev_server -- --site DIR --edits 100
//!
//! `--site DIR` is an Astro site with the integration and its packages installed (the fixture
//! `tests/fixtures/astro-dev-site` after `npm install astro@7 <the @content-api/astro tarball>`,
//! its dependencies from their tarballs as `tests/npm_package/astro.rs` installs them; `node` on
//! PATH must run Astro). Its `src/content` is replaced by the seed site's content
//! (`../shared/corpus/xergioalex`) or, without it, the bundled sample. `serve` is this
//! checkout's release binary, run by `astro dev` through `CONTENT_API_BINARY` too, so both
//! rows measure the same build of the tool.
//!
//! Each edit rewrites the newest English post's title with a fresh marker, then polls every
//! millisecond (a new connection each, as a browser reload) until the answer carries it. The
//! watcher's debounce is part of what is measured: it is part of what the author waits for.

#[allow(dead_code)] // The tests use more of it.
#[path = "../tests/common/http.rs"]
mod http;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let mut site = None;
    let mut edits = 40usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--site" => site = args.next().map(PathBuf::from),
            "--edits" => edits = args.next().and_then(|n| n.parse().ok()).expect("--edits N"),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let Some(site) = site else {
        eprintln!(
            "dev_server: give --site DIR (an Astro site with the integration installed); see the file's header"
        );
        return;
    };
    let site = site.canonicalize().expect("--site exists");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let binary = repo.join("target/release/content-api");
    assert!(
        Command::new("cargo")
            .args(["build", "--release", "--quiet"])
            .current_dir(repo)
            .status()
            .unwrap()
            .success()
    );
    let seed = repo.join("../shared/corpus/xergioalex");
    let corpus = if seed.is_dir() {
        seed
    } else {
        repo.join("content")
    };
    let content = site.join("src/content");
    let _ = std::fs::remove_dir_all(&content);
    copy_tree(&corpus, &content);
    let post = newest_english_post(&content);
    let posts = std::fs::read_dir(content.join("blog/en")).unwrap().count()
        + std::fs::read_dir(content.join("blog/es")).unwrap().count();
    println!(
        "content: {} ({posts} post files); edited: {}",
        corpus.display(),
        post.strip_prefix(&content).unwrap().display()
    );

    let astro = Server::astro(&site, &binary);
    let serve = Server::serve(&site, &binary);
    let mut astro_ms = Vec::new();
    let mut serve_ms = Vec::new();
    for i in 0..edits {
        // Alternate which server goes first: neither always edits a file the other just wrote.
        let order: [(&Server, &mut Vec<f64>); 2] = if i % 2 == 0 {
            [(&astro, &mut astro_ms), (&serve, &mut serve_ms)]
        } else {
            [(&serve, &mut serve_ms), (&astro, &mut astro_ms)]
        };
        for (server, times) in order {
            times.push(server.edit_and_wait(&post, &format!("m{i}{}", server.name)));
        }
    }
    println!(
        "{:<28} {:>9} {:>9} {:>9} {:>9}",
        "save → API answer", "median", "p90", "min", "max"
    );
    for (name, times) in [
        ("astro dev + integration", &mut astro_ms),
        ("content-api serve", &mut serve_ms),
    ] {
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{name:<28} {:>7.1}ms {:>7.1}ms {:>7.1}ms {:>7.1}ms",
            at(0.5),
            at(0.9),
            times[0],
            times[times.len() - 1]
        );
    }
}

/// A dev server and the address of its API.
struct Server {
    name: &'static str,
    child: Child,
    addr: String,
    /// The content folder it watches (each server has its own copy).
    content: PathBuf,
}

impl Server {
    fn astro(site: &Path, binary: &Path) -> Server {
        let port = http::free_port();
        let mut child = Command::new("npx")
            .args([
                "--no-install",
                "astro",
                "dev",
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .env("CONTENT_API_BINARY", binary)
            .env("ASTRO_TELEMETRY_DISABLED", "1")
            .current_dir(site)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_line(&mut child, "the API is served here too");
        Server {
            name: "astro",
            child,
            addr: format!("127.0.0.1:{port}"),
            content: site.join("src/content"),
        }
    }

    fn serve(site: &Path, binary: &Path) -> Server {
        let copy = site.join("node_modules/.cache/dev-server-bench");
        let _ = std::fs::remove_dir_all(&copy);
        copy_tree(&site.join("src/content"), &copy.join("content"));
        let mut child = Command::new(binary)
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--content",
                "content",
                "--out",
                "out",
            ])
            .arg("--config")
            .arg(site.join("watch.toml"))
            .current_dir(&copy)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let line = wait_for_line(&mut child, "listening on http://");
        let addr = line
            .trim()
            .trim_start_matches("listening on http://")
            .trim_end_matches('/')
            .to_string();
        Server {
            name: "serve",
            child,
            addr,
            content: copy.join("content"),
        }
    }

    /// Milliseconds from the write to the first answer carrying `marker`.
    fn edit_and_wait(&self, post: &Path, marker: &str) -> f64 {
        let file = self
            .content
            .join(post.strip_prefix(post.ancestors().nth(3).unwrap()).unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        let retitled = retitle(&text, marker);
        // Settle: the previous edit's documents lane is done before this one starts.
        std::thread::sleep(Duration::from_millis(400));
        let start = Instant::now();
        std::fs::write(&file, retitled).unwrap();
        loop {
            let reply = http::get(&self.addr, "/api/posts-en.json", &[]);
            if reply.status == 200 && reply.text().contains(marker) {
                return start.elapsed().as_secs_f64() * 1000.0;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{} never showed {marker}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// The title line with `marker` at its end.
fn retitle(text: &str, marker: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("title:") {
            Some(title) => {
                let title = title.trim().trim_matches(|c| c == '"' || c == '\'');
                let base = title.split(" [").next().unwrap_or(title);
                format!("title: \"{base} [{marker}]\"")
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The newest English post that is no draft (the first of `posts-en.json` unless scheduled).
fn newest_english_post(content: &Path) -> PathBuf {
    let mut posts: Vec<PathBuf> = std::fs::read_dir(content.join("blog/en"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .filter(|path| {
            !std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .any(|line| line.trim() == "draft: true")
        })
        .collect();
    posts.sort();
    posts.pop().expect("an English post")
}

fn wait_for_line(child: &mut Child, needle: &str) -> String {
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let start = Instant::now();
    loop {
        let line = lines.next().expect("the server's output ended").unwrap();
        if line.contains(needle) {
            // Keep draining its output so it never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            return line;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no {needle:?}");
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
