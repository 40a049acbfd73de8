//! content-api side by side with Hugo on the same generated corpus: cold build, build with
//! nothing changed, and edit-to-disk latency in watch mode, per size, as a Markdown table.
//!
//!     cargo bench --bench vs_hugo                        # 1000 and 5000 posts per language
//!     cargo bench --bench vs_hugo -- 1000 5000 25000
//!     CONTENT_API_BENCH_DIR=/dev/shm cargo bench --bench vs_hugo   # output folders on tmpfs
//!     CONTENT_API_BIN=path/to/content-api cargo bench --bench vs_hugo   # another binary
//!     cargo bench --bench vs_hugo -- 1000 --no-hugo --only edit --edits 30   # content-api's
//!         edit loop alone (A/B of two binaries with CONTENT_API_BIN)
//!     cargo bench --bench vs_hugo -- 1000 --save atomic  # edits saved as temp file + rename
//!     cargo bench --bench vs_hugo -- 25000 --no-hugo --only edit --during-documents   # each
//!         edit saved while content-api's documents lane writes llms-full.txt
//!
//! The Hugo side is the site in `../shared/peers/hugo/` (the API's core JSON: per-language post
//! indexes, tag and series lists; less than content-api writes) run by the `hugo` on the PATH
//! (Debian's 0.111). Without either, only content-api is measured, and the bench says so.
//!
//! - cold: a new process, an empty output folder (and no Hugo `resources/` or cache), the
//!   content in the page cache, the disk quiet (what earlier runs wrote is written back first);
//! - no change: the same command again on the output it just wrote;
//! - edit to disk: a daemon (`content-api` watch mode with `debounce_ms = 30`; `hugo server
//!   --renderToDisk --disableFastRender`: `hugo --watch` rewrites no JSON in 0.111) runs; a post's title is saved (in place by default: truncate, write,
//!   close, as VS Code and nano do) and the clock stops when the language's post index on disk
//!   contains the new title (`api/posts-en.json`; Hugo's `en/posts.json`). Each edit changes a
//!   post not edited before. An index that never shows the title fails the bench: a fast wrong
//!   answer is never reported. With `--during-documents`, content-api's edits are saved once its
//!   temporary file for `llms-full.txt` appears (its documents lane, 200 ms after the last
//!   edit, is writing): the edit an author makes while the large documents are rewritten.
//!
//! Runs are interleaved (content-api, Hugo, content-api, ...) so that load from elsewhere hits
//! both; figures are medians. At 25,000 posts per language Hugo takes 17–35 s per build, so
//! that size gets fewer runs and edits (printed in the table).
//!
//! Nothing is deleted until the bench ends: an output folder is moved aside before the next
//! cold build. On ext4 without a journal, creating files right after deleting as many is up to
//! ten times slower (the kernel skips recently deleted inodes); a CI machine does not meet
//! that, and the bench would be measuring its own deletions.

#[path = "support/corpus.rs"]
mod corpus;
#[allow(dead_code)] // The tests use more of it.
#[path = "../tests/common/daemon_log.rs"]
mod daemon_log;
#[path = "support/lanes.rs"]
mod lanes;
#[path = "support/process.rs"]
mod process;

use daemon_log::{Log, spawn_with_output_logged};
use lanes::documents_writing;
use process::{wait_with_rusage, warm, write_back};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The date both tools build as (the corpus's newest posts are older).
const TODAY: &str = "2026-11-22";
/// How long one edit may take to reach disk before the bench fails.
const EDIT_PATIENCE: Duration = Duration::from_secs(120);

struct Options {
    sizes: Vec<usize>,
    hugo: bool,
    only: Option<String>,
    edits: Option<usize>,
    runs: Option<usize>,
    atomic: bool,
    during_documents: bool,
}

fn main() {
    let options = parse_args();
    let binary = std::env::var("CONTENT_API_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_content-api").into());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpora = manifest.join("target/bench-corpora");
    let out_root = std::env::var_os("CONTENT_API_BENCH_DIR")
        .map_or_else(|| corpora.clone(), PathBuf::from)
        .join(format!("vs-hugo-{}", std::process::id()));
    let hugo = if options.hugo {
        find_hugo(&manifest.join("../shared/peers/hugo"))
    } else {
        println!("Hugo skipped (--no-hugo).");
        None
    };
    let save = if options.atomic {
        "temp file + rename"
    } else {
        "in place"
    };
    println!(
        "content-api{} vs {}; output folders under {}; edits saved {save}\n",
        if binary.ends_with("content-api") && std::env::var_os("CONTENT_API_BIN").is_none() {
            String::new()
        } else {
            format!(" ({binary})")
        },
        hugo.as_ref()
            .map_or("(no Hugo)".to_string(), |h| h.version.clone()),
        out_root.display()
    );
    let mut rows = Vec::new();
    // Removed at the end, not between sizes (see the module documentation).
    let mut later = Vec::new();
    for &posts in &options.sizes {
        let source = corpus::corpus_for(&corpora, posts);
        let work = corpora.join(format!("vs-hugo-work-{posts}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        copy_tree(&source, &work);
        std::fs::create_dir_all(&out_root).unwrap();
        let site = Site::new(&out_root, posts, &work, &binary, hugo.as_ref());
        let big = posts >= 20_000;
        let runs = options.runs.unwrap_or(if big { 2 } else { 5 });
        let edits = options.edits.unwrap_or(if big { 3 } else { 7 });
        let wanted = |what: &str| options.only.as_deref().is_none_or(|only| only == what);
        if wanted("build") {
            let (cold, unchanged) = site.builds(runs);
            rows.push(Row::new(posts, format!("cold build ({runs} runs)"), cold));
            rows.push(Row::new(
                posts,
                format!("no-change build ({runs} runs)"),
                unchanged,
            ));
        }
        if wanted("edit") {
            let (latency, waits) = site.edits(edits, options.atomic, options.during_documents);
            let when = if options.during_documents {
                ", saved while llms-full.txt is written"
            } else {
                ""
            };
            rows.push(Row::new(
                posts,
                format!("title edit{when} → post index on disk ({edits} edits)"),
                latency,
            ));
            rows.push(Row::new(
                posts,
                "of which content-api waited before rebuilding (its log)".into(),
                waits,
            ));
        }
        later.extend([work, site.dir]);
    }
    for folder in later {
        let _ = std::fs::remove_dir_all(folder);
    }
    let _ = std::fs::remove_dir_all(&out_root);
    print_table(&rows, hugo.is_some());
    println!("\n{}", machine());
}

fn parse_args() -> Options {
    let mut options = Options {
        sizes: Vec::new(),
        hugo: true,
        only: None,
        edits: None,
        runs: None,
        atomic: false,
        during_documents: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || args.next().and_then(|n| n.parse().ok());
        match arg.as_str() {
            "--no-hugo" => options.hugo = false,
            "--only" => options.only = args.next(),
            "--edits" => options.edits = number(),
            "--runs" => options.runs = number(),
            "--save" => options.atomic = args.next().as_deref() == Some("atomic"),
            "--during-documents" => options.during_documents = true,
            "--bench" => {} // What `cargo bench` passes.
            _ => match arg.parse() {
                Ok(n) => options.sizes.push(n),
                Err(_) => eprintln!("ignored argument {arg:?}"),
            },
        }
    }
    if options.sizes.is_empty() {
        options.sizes = vec![1_000, 5_000];
    }
    options
}

struct Hugo {
    site: PathBuf,
    version: String,
}

/// The Hugo peer site and a `hugo` that runs, or `None` with the reason printed.
fn find_hugo(site: &Path) -> Option<Hugo> {
    if !site.join("hugo.toml.in").is_file() {
        println!(
            "Hugo skipped: the peer site {} is absent (it is in the project's shared folder).",
            site.display()
        );
        return None;
    }
    match Command::new("hugo").arg("version").output() {
        Ok(output) if output.status.success() => {
            let text = String::from_utf8_lossy(&output.stdout);
            let version = text
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            Some(Hugo {
                site: site.to_path_buf(),
                version,
            })
        }
        _ => {
            println!("Hugo skipped: no `hugo` on the PATH (Debian: apt-get install hugo).");
            None
        }
    }
}

/// One size's folders: the content (a copy both tools read), content-api's config and
/// output, Hugo's site and output.
struct Site {
    dir: PathBuf,
    content: PathBuf,
    binary: String,
    config: PathBuf,
    out: PathBuf,
    hugo: Option<PathBuf>,
    hugo_out: PathBuf,
}

impl Site {
    fn new(root: &Path, posts: usize, content: &Path, binary: &str, hugo: Option<&Hugo>) -> Site {
        let dir = root.join(format!("posts-{posts}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("bench.toml");
        std::fs::write(
            &config,
            format!("{}[watch]\ndebounce_ms = 30\n", process::BENCH_SETTINGS),
        )
        .unwrap();
        let hugo = hugo.map(|hugo| {
            let site = dir.join("hugo-site");
            copy_tree(&hugo.site.join("layouts"), &site.join("layouts"));
            let template = std::fs::read_to_string(hugo.site.join("hugo.toml.in")).unwrap();
            let absolute = content.canonicalize().unwrap();
            std::fs::write(
                site.join("hugo.toml"),
                template.replace("@CORPUS@", absolute.to_str().unwrap()),
            )
            .unwrap();
            site
        });
        Site {
            content: content.to_path_buf(),
            binary: binary.to_string(),
            config,
            out: dir.join("content-api-out"),
            hugo,
            hugo_out: dir.join("hugo-out"),
            dir,
        }
    }

    fn content_api(&self) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .arg("--config")
            .arg(&self.config)
            .args(["--today", TODAY, "--content"])
            .arg(&self.content)
            .arg("--out")
            .arg(&self.out)
            .arg("--history")
            .arg(self.dir.join("bench.history"))
            .env("RUST_LOG", "info,salsa=warn")
            .env_remove("CI"); // Placeholder site settings are an error under CI.
        command
    }

    /// `hugo` (a build) or `hugo server` (watching; `subcommand` is `Some("server")`).
    fn hugo(&self, site: &Path, subcommand: Option<&str>) -> Command {
        let mut command = Command::new("hugo");
        command
            .current_dir(site)
            .args(subcommand)
            .arg("--cacheDir")
            .arg(site.join("cache"))
            .arg("-d")
            .arg(&self.hugo_out);
        command
    }

    /// Cold and no-change builds, `runs` of each per tool, interleaved.
    fn builds(&self, runs: usize) -> (Pair, Pair) {
        let mut cold = Pair::default();
        let mut unchanged = Pair::default();
        for _ in 0..runs {
            warm(&self.content);
            set_aside(&self.out);
            let _ = std::fs::remove_file(self.dir.join("bench.history"));
            // Each cold build starts on a quiet disk, as in CI: not paying for the writeback
            // of what the builds before it wrote.
            write_back(&self.dir);
            cold.ours.push(timed(self.content_api().arg("--once")));
            // The build right after one that wrote files cannot trust the new files' timestamps
            // (they are within the file system's racy window), so it checks in full and saves
            // the fingerprint; a CI build of an unchanged site meets a settled folder.
            std::thread::sleep(Duration::from_millis(300));
            timed(self.content_api().arg("--once"));
            unchanged.ours.push(timed(self.content_api().arg("--once")));
            self.check_title(&self.out.join("api/posts-en.json"), None);
            if let Some(site) = &self.hugo {
                warm(&self.content);
                set_aside(&self.hugo_out);
                set_aside(&site.join("resources"));
                set_aside(&site.join("cache"));
                write_back(&self.dir);
                cold.theirs
                    .push(timed(self.hugo(site, None).arg("--quiet")));
                unchanged
                    .theirs
                    .push(timed(self.hugo(site, None).arg("--quiet")));
                self.check_title(&self.hugo_out.join("en/posts.json"), None);
            }
        }
        (cold, unchanged)
    }

    /// A newest-first published English post's title must be in `index` (a cold build that
    /// wrote nothing useful is never timed as a win).
    fn check_title(&self, index: &Path, title: Option<&str>) {
        let title = title.map(str::to_string).unwrap_or_else(|| {
            let post = &english_posts(&self.content)[0];
            title_of(&std::fs::read_to_string(post).unwrap())
        });
        let text = std::fs::read_to_string(index)
            .unwrap_or_else(|e| panic!("{} was not written: {e}", index.display()));
        assert!(
            text.contains(&title),
            "{} lacks the title {title:?}",
            index.display()
        );
    }

    /// Edit-to-disk latency of `edits` title edits per tool, each on a post not edited before;
    /// and content-api's wait from the first event to the start of its rebuild (its log).
    fn edits(&self, edits: usize, atomic: bool, during_documents: bool) -> (Pair, Pair) {
        let posts = english_posts(&self.content);
        let mut targets = posts.iter().step_by((posts.len() / (2 * edits + 1)).max(1));
        let mut pair = Pair::default();
        let mut waits = Pair::default();
        let run = std::process::id();
        {
            set_aside(&self.out);
            let daemon = Daemon::start(self.content_api().arg("watch"), "; writing to ");
            for i in 0..edits {
                let post = targets.next().expect("enough posts");
                let title = format!("Bench edit {run} content-api {i}");
                let index = self.out.join("api/posts-en.json");
                let reported = daemon.rebuild_lines().len();
                if during_documents && i > 0 {
                    assert!(
                        documents_writing(&self.out, Duration::from_secs(5)),
                        "the documents lane never wrote llms-full.txt after edit {i}"
                    );
                }
                pair.ours.push(edit(post, &title, &index, atomic, &daemon));
                waits.ours.extend(daemon.wait_before_rebuild(reported));
                if !during_documents {
                    // Let the rebuild's slower outputs finish before the next edit.
                    std::thread::sleep(Duration::from_millis(300));
                }
            }
        }
        if let Some(site) = &self.hugo {
            set_aside(&self.hugo_out);
            // `hugo --watch` rebuilds but rewrites no JSON in 0.111; the server writes every
            // file of a rebuild to disk with these flags.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .map(|address| address.port().to_string())
                .unwrap();
            let mut command = self.hugo(site, Some("server"));
            command
                .args([
                    "--renderToDisk",
                    "--disableFastRender",
                    "--disableLiveReload",
                ])
                .args(["--bind", "127.0.0.1", "--port", &port]);
            let daemon = Daemon::start(&mut command, "Press Ctrl+C to stop");
            for i in 0..edits {
                let post = targets.next().expect("enough posts");
                let title = format!("Bench edit {run} Hugo {i}");
                let index = self.hugo_out.join("en/posts.json");
                let latency = edit(post, &title, &index, atomic, &daemon);
                pair.theirs.push(latency);
                // Hugo rewrites every file per rebuild: let it finish.
                std::thread::sleep(Duration::from_millis(500) + latency.wall);
            }
        }
        (pair, waits)
    }
}

/// Moves `folder` (when it exists) to a new name beside it, removed with the size's folder at
/// the end of the bench: the next build starts with an empty folder and no deleted inodes.
fn set_aside(folder: &Path) {
    static SET_ASIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if folder.exists() {
        let n = SET_ASIDE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = folder.file_name().unwrap().to_string_lossy();
        std::fs::rename(
            folder,
            folder.with_file_name(format!("{name}.set-aside-{n}")),
        )
        .unwrap();
    }
}

/// What changes when a file is written or replaced: its inode (a rename over it), its
/// modification time to the nanosecond and its length. On Windows, which has no inode here,
/// the last write time (100 ns steps) and the length.
#[cfg(unix)]
fn file_stamp(metadata: &std::fs::Metadata) -> (u64, i64, u64) {
    use std::os::unix::fs::MetadataExt;
    (metadata.ino(), metadata.mtime_nsec(), metadata.len())
}

#[cfg(windows)]
fn file_stamp(metadata: &std::fs::Metadata) -> (u64, i64, u64) {
    use std::os::windows::fs::MetadataExt;
    (0, metadata.last_write_time() as i64, metadata.file_size())
}

/// Saves `post` with `title` and returns how long it took until `index` on disk contains it.
fn edit(post: &Path, title: &str, index: &Path, atomic: bool, daemon: &Daemon) -> Timing {
    let text = std::fs::read_to_string(post).unwrap();
    let edited = text
        .lines()
        .map(|line| {
            if line.starts_with("title:") {
                format!("title: \"{title}\"")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let started = Instant::now();
    if atomic {
        let name = post.file_name().unwrap().to_str().unwrap();
        let temp = post.with_file_name(format!(".{name}.tmp"));
        std::fs::write(&temp, edited).unwrap();
        std::fs::rename(&temp, post).unwrap();
    } else {
        std::fs::write(post, edited).unwrap();
    }
    let mut seen = None;
    loop {
        let stamp = std::fs::metadata(index).ok().map(|m| file_stamp(&m));
        if stamp.is_some() && stamp != seen {
            seen = stamp;
            if std::fs::read_to_string(index).is_ok_and(|text| text.contains(title)) {
                return Timing {
                    wall: started.elapsed(),
                    cpu: None,
                };
            }
        }
        assert!(
            started.elapsed() < EDIT_PATIENCE,
            "{} never showed the title {title:?}; log: {:#?}",
            index.display(),
            daemon.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_micros(250));
    }
}

/// A watch process with its output collected; stopped on drop.
struct Daemon {
    child: Child,
    log: Log,
}

impl Daemon {
    /// Starts `command` and waits until a line of its output contains `ready`.
    fn start(command: &mut Command, ready: &str) -> Daemon {
        let (child, log) = spawn_with_output_logged(command, "the watcher");
        let daemon = Daemon { child, log };
        let started = Instant::now();
        while !daemon.log.lock().unwrap().iter().any(|l| l.contains(ready)) {
            assert!(
                started.elapsed() < Duration::from_secs(600),
                "the watcher never said {ready:?}: {:#?}",
                daemon.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // Let the first build's slower outputs and the watches settle.
        std::thread::sleep(Duration::from_millis(500));
        daemon
    }
}

impl Daemon {
    /// content-api's API-lane lines "<what>: wrote ... in X ms, Y ms after the first event
    /// (api lane; ...)", cut after "event" (the documents lane's lines are not rebuild starts).
    fn rebuild_lines(&self) -> Vec<String> {
        const END: &str = " ms after the first event";
        let log = self.log.lock().unwrap();
        log.iter()
            .filter(|line| !line.contains("documents lane:"))
            .filter_map(|line| line.find(END).map(|at| line[..at + END.len()].to_string()))
            .collect()
    }

    /// Y − X of the first rebuild line after the first `seen` ones: how long the first event
    /// waited before its rebuild started (debounce, queueing).
    fn wait_before_rebuild(&self, seen: usize) -> Option<Timing> {
        let started = Instant::now();
        let line = loop {
            if let Some(line) = self.rebuild_lines().get(seen) {
                break line.clone();
            }
            if started.elapsed() > Duration::from_secs(5) {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let tail = &line[line.rfind(" in ")? + 4..];
        let (took, since) = tail
            .strip_suffix(" ms after the first event")?
            .split_once(" ms, ")?;
        let ms = |text: &str| text.trim().parse::<f64>().ok();
        let wait = (ms(since)? - ms(took)?).max(0.0);
        Some(Timing {
            wall: Duration::from_secs_f64(wait / 1000.0),
            cpu: None,
        })
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    /// The process's user + system time, for whole builds.
    cpu: Option<Duration>,
}

/// One measure's timings for content-api (`ours`) and Hugo (`theirs`).
#[derive(Default)]
struct Pair {
    ours: Vec<Timing>,
    theirs: Vec<Timing>,
}

struct Row {
    posts: usize,
    measure: String,
    pair: Pair,
}

impl Row {
    /// The row, also printed at once to stderr as progress (the table comes at the end).
    fn new(posts: usize, measure: String, pair: Pair) -> Row {
        let wall = |timings: &[Timing]| {
            median(timings.iter().map(|t| t.wall))
                .map_or("–".to_string(), |ms| format!("{ms:.0}"))
        };
        eprintln!(
            "{posts} posts/lang, {measure}: content-api {} ms, Hugo {} ms",
            wall(&pair.ours),
            wall(&pair.theirs)
        );
        Row {
            posts,
            measure,
            pair,
        }
    }
}

fn median(values: impl Iterator<Item = Duration>) -> Option<f64> {
    let mut values: Vec<Duration> = values.collect();
    values.sort();
    (!values.is_empty()).then(|| values[values.len() / 2].as_secs_f64() * 1000.0)
}

fn print_table(rows: &[Row], hugo: bool) {
    println!(
        "| posts/lang | measure | content-api ms (cpu) | {} | content-api / Hugo |",
        if hugo { "Hugo ms (cpu)" } else { "Hugo" }
    );
    println!("|---:|---|---:|---:|---:|");
    let cell = |timings: &[Timing]| -> (Option<f64>, String) {
        let wall = median(timings.iter().map(|t| t.wall));
        let cpu = median(timings.iter().filter_map(|t| t.cpu));
        let text = match (wall, cpu) {
            (Some(wall), Some(cpu)) => format!("{wall:.0} ({cpu:.0})"),
            (Some(wall), None) => format!("{wall:.0}"),
            _ => "–".to_string(),
        };
        (wall, text)
    };
    for row in rows {
        let (ours, ours_text) = cell(&row.pair.ours);
        let (theirs, theirs_text) = cell(&row.pair.theirs);
        let ratio = match (ours, theirs) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
            _ => "–".to_string(),
        };
        let mut spread = String::new();
        if let (Some(min), Some(max)) = (
            row.pair.ours.iter().map(|t| t.wall).min(),
            row.pair.ours.iter().map(|t| t.wall).max(),
        ) {
            spread = format!(
                " [{:.0}–{:.0}]",
                min.as_secs_f64() * 1000.0,
                max.as_secs_f64() * 1000.0
            );
        }
        println!(
            "| {} | {} | {ours_text}{spread} | {theirs_text} | {ratio} |",
            row.posts, row.measure
        );
    }
}

/// Runs `command` to completion: wall time and the child's CPU time (user + system).
fn timed(command: &mut Command) -> Timing {
    let started = Instant::now();
    #[allow(clippy::zombie_processes)] // reaped by wait4 below
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the build starts");
    let pid = child.id();
    let mut stderr = String::new();
    let mut child = child;
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let usage = wait_with_rusage(pid);
    let wall = started.elapsed();
    std::mem::forget(child);
    assert!(usage.code == 0, "{command:?} failed: {stderr}");
    Timing {
        wall,
        cpu: Some(usage.cpu()),
    }
}

/// Published English posts (no draft), newest first.
fn english_posts(content: &Path) -> Vec<PathBuf> {
    let mut posts: Vec<PathBuf> = std::fs::read_dir(content.join("blog/en"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                let front = t.split("\n---").next().unwrap_or("");
                !front.contains("draft: true") && front.contains("\ntitle:")
            })
        })
        .collect();
    posts.sort();
    posts.reverse();
    let today = TODAY.replace('-', "");
    posts.retain(|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.get(..10)
            .is_some_and(|date| date.replace('-', "") <= today)
    });
    posts
}

fn title_of(text: &str) -> String {
    let line = text.lines().find(|l| l.starts_with("title:")).unwrap();
    line["title:".len()..].trim().trim_matches('"').to_string()
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The machine, for the README: cores, CPU model, memory, kernel, the output's file system.
fn machine() -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .unwrap_or("?")
        .trim()
        .to_string();
    let memory_gib = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or("?".to_string(), |kb| format!("{:.1}", kb / 1024.0 / 1024.0));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
    let out = std::env::var("CONTENT_API_BENCH_DIR").unwrap_or_else(|_| "target/".into());
    let fs = Command::new("df")
        .args(["--output=fstype"])
        .arg(&out)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .nth(1)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "?".into());
    format!(
        "Machine: {cores} cores ({model}), {memory_gib} GiB RAM, Linux {kernel}; output folders on {fs} ({out})."
    )
}
