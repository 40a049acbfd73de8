//! Watch-mode benchmark: time from a file write to each lane's last output write, per kind of
//! edit, on generated corpora; and resident memory over many consecutive edits.
//!
//! The session publishes in two lanes, as the daemon does: "api ms" is the time from the write
//! to the API lane published (the API and the edited post's own outputs), "docs ms" to the
//! documents lane published right after it (`llms-full.txt`, `llms.txt`, the portal; the daemon
//! starts that lane 200 ms after the last API publish, which is not counted here). "api/" is
//! how many files under `api/` the API lane wrote per edit. "cpu" is the process's CPU time
//! (user + sys, every thread) per edit, for each lane: steadier than wall time on a busy machine.
//!
//!     cargo bench --bench watch                    # 1000 and 10000 posts per language
//!     cargo bench --bench watch -- 10000 --one-lane      # both lanes in every publish (as before lanes)
//!     cargo bench --bench watch -- 10000 --per-kind 50   # fewer edits per kind (default 200)
//!     cargo bench --bench watch -- 1000 10000 50000
//!     cargo bench --bench watch -- 10000 --edits 10000   # memory over 10,000 edits
//!     cargo bench --bench watch -- 10000 --kind none --edits 10000   # memory only
//!     cargo bench --bench watch -- 10000 --kind none --renames 3000  # memory over renames
//!     cargo bench --bench watch -- 10000 --kind none --first 50  # first vs repeat title edits
//!     cargo bench --bench watch -- 10000 --kind none --first 10 --again 300  # more repeats
//!     cargo bench --bench watch -- 10000 --kind body      # one kind of edit (for profiling)
//!     CONTENT_API_BENCH_DIR=/dev/shm cargo bench --bench watch   # content and output on tmpfs
//!     cargo bench --bench watch -- 10000 --languages 5   # five languages (en, es and copies of es)
//!     cargo bench --bench watch -- 10000 --layout hugo   # posts as Hugo page bundles (support/layouts.rs)
//!
//! Edits go through the same path as the daemon (`Session::apply` with the changed path, then
//! `Session::publish_documents`), so the numbers exclude only the debounce window, the
//! documents lane's quiet time and the OS's notification latency. Each measured edit writes
//! the file, applies it, and waits for every output write of each lane to finish.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/layouts.rs"]
mod layouts;

use content_api::config::SiteConfig;
use content_api::model::{Lang, Languages};
use content_api::session::Session;
use content_api::source::ChangeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Edits per kind unless `--per-kind N` says otherwise.
const EDITS_PER_KIND: usize = 200;

/// Rewrites a file's text for the `i`-th edit.
type Edit = fn(&str, usize) -> String;

fn main() {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .init();
    }
    let mut sizes = Vec::new();
    let mut memory_edits = 0;
    let mut renames = 0;
    let mut first_edits = 0;
    let mut again_edits = None;
    let mut only: Option<String> = None;
    let mut lanes = true;
    let mut per_kind = EDITS_PER_KIND;
    let mut languages = 2;
    let mut layout: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--kind" {
            only = args.next();
        } else if arg == "--one-lane" {
            lanes = false;
        } else if arg == "--languages" {
            languages = args
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(languages);
        } else if arg == "--layout" {
            layout = args.next();
        } else if arg == "--per-kind" {
            per_kind = args.next().and_then(|n| n.parse().ok()).unwrap_or(per_kind);
        } else if arg == "--first" {
            first_edits = args.next().and_then(|n| n.parse().ok()).unwrap_or(50);
        } else if arg == "--again" {
            again_edits = args.next().and_then(|n| n.parse().ok());
        } else if arg == "--renames" {
            renames = args.next().and_then(|n| n.parse().ok()).unwrap_or(3_000);
        } else if arg == "--edits" {
            memory_edits = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
        } else if let Ok(n) = arg.parse() {
            sizes.push(n);
        }
    }
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000];
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpora");
    println!(
        "watch mode: file write → each lane's last output write (debounce and quiet time excluded), {per_kind} edits per kind, {}\n",
        if lanes {
            "two lanes"
        } else {
            "one lane (both lanes in every publish: api ms = docs ms)"
        }
    );
    println!(
        "{:>10} {:<26} {:>17} {:>9} {:>9} {:>17} {:>9} {:>9} {:>7} {:>7} {:>7} {:>8} {:>8}",
        "posts/lang",
        "edit",
        "api ms: median",
        "p99",
        "max",
        "docs ms: median",
        "p99",
        "max",
        "first",
        "writes",
        "api/",
        "api cpu",
        "docs cpu"
    );
    for posts in sizes {
        let source = corpus_for(&root, posts);
        let work = work_dir();
        let content = work.path().join("content");
        layouts::copy_tree(&source, &content);
        let extra = add_languages(&content, languages);
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        if !extra.is_empty() {
            let codes = ["en", "es"].into_iter().chain(extra.iter().copied());
            config.languages =
                Languages::new(codes.filter_map(Lang::parse).collect()).expect("distinct codes");
        }
        // The posts moved where the layout puts them, and the site told so.
        let moved = layout.as_deref().map(|name| {
            let toml = layouts::watch_toml(name);
            let root = camino::Utf8Path::new(".");
            config.layout = content_api::watch_toml::parse("watch.toml", &toml, root)
                .expect("the bench's layouts parse")
                .layout;
            layouts::relay(&content, name, "en")
        });
        config.content_dir = camino::Utf8PathBuf::from_path_buf(content.clone()).unwrap();
        config.out_dir = camino::Utf8PathBuf::from_path_buf(work.path().join("out")).unwrap();
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let started = Instant::now();
        let (mut session, outcome) = Session::start(Arc::new(config), today, false).unwrap();
        assert_eq!(outcome.errors, 0);
        if lanes {
            session.use_lanes();
        }
        let measure = Measure { posts, per_kind };
        let rss_start = rss_mb();
        settle(work.path());
        println!(
            "{:>10} {:<26} {:>9.0} (first build; resident memory {rss_start:.0} MB)",
            posts,
            "start",
            ms(started.elapsed())
        );
        let posts_en = match &moved {
            Some(moved) => {
                let mut en: Vec<String> = moved
                    .iter()
                    .filter(|(lang, _)| lang == "en")
                    .map(|(_, path)| path.clone())
                    .collect();
                en.sort();
                en
            }
            None => post_paths(&content, "en"),
        };
        let target = posts_en[posts_en.len() / 2].clone();
        let kinds: [(&str, Edit); 3] = [
            ("body (same post)", |text, i| {
                text.trim_end().to_string() + &format!("\n\nEdit {i}.\n")
            }),
            ("title (same post)", |text, i| {
                set_line(text, "title:", &format!("title: \"Edited title {i}\""))
            }),
            ("tags (same post)", |text, i| {
                let tags = if i % 2 == 0 {
                    "tags: [\"tech\", \"topic-6\"]"
                } else {
                    "tags: [\"personal\", \"topic-9\"]"
                };
                set_line(text, "tags:", tags)
            }),
        ];
        for (name, edit) in kinds {
            if only
                .as_ref()
                .is_some_and(|kind| !name.starts_with(kind.as_str()))
            {
                continue;
            }
            measure.run(&mut session, &content, name, |i| {
                (target.clone(), edit as Edit, i)
            });
        }
        // A series description: its outputs (the series' detail files and listings) are small
        // at every corpus size, so the time should not grow with the corpus.
        if only
            .as_ref()
            .is_none_or(|kind| "series".starts_with(kind.as_str()))
        {
            measure.run(&mut session, &content, "series (description)", |i| {
                (
                    "series/series-3.md".to_string(),
                    (|text, i| {
                        set_line(
                            text,
                            "description:",
                            &format!("description: \"Edited description {i}.\""),
                        )
                    }) as Edit,
                    i,
                )
            });
        }
        // Every edit on a different post: each is that post's first edit in the session.
        let spread = posts_en.clone();
        if only.is_none() {
            measure.run(
                &mut session,
                &content,
                "title (a different post)",
                move |i| {
                    (
                        spread[(i * 7919) % spread.len()].clone(),
                        (|text, i| set_line(text, "title:", &format!("title: \"Spread {i}\"")))
                            as Edit,
                        i,
                    )
                },
            );
        }
        if memory_edits > 0 {
            // Edits start from each file's original text, so the content keeps its size and any
            // growth is the daemon's.
            let originals: Vec<String> = posts_en[..50]
                .iter()
                .map(|path| std::fs::read_to_string(content.join(path)).unwrap())
                .collect();
            session.release_memory();
            let before = rss_mb();
            for i in 0..memory_edits {
                let path = &posts_en[i % 50];
                let file = content.join(path);
                let text = &originals[i % 50];
                let edited = if i % 2 == 0 {
                    set_line(text, "title:", &format!("title: \"Memory {i}\""))
                } else {
                    text.trim_end().to_string() + &format!("\n\nMore {i}.\n")
                };
                std::fs::write(&file, edited).unwrap();
                session
                    .apply(&ChangeSet {
                        paths: [path.clone()].into(),
                        ..Default::default()
                    })
                    .unwrap();
                session.publish_documents().unwrap();
                if (i + 1) % (memory_edits / 10).max(1) == 0 {
                    // What the daemon does on its idle tick, a second after a save.
                    session.release_memory();
                    println!(
                        "{:>10} resident memory after {} edits: {:.0} MB",
                        posts,
                        i + 1,
                        rss_mb()
                    );
                }
            }
            let after = rss_mb();
            println!(
                "{:>10} resident memory over {memory_edits} edits: {before:.0} MB → {after:.0} MB ({:+.1}%)",
                posts,
                (after - before) / before * 100.0
            );
        }
        if first_edits > 0 {
            measure_first_edits(
                &mut session,
                &content,
                posts,
                &posts_en,
                first_edits,
                again_edits.unwrap_or(first_edits),
            );
        }
        if renames > 0 {
            measure_renames(&mut session, &content, posts, &posts_en[..50], renames);
        }
    }
}

/// Title edits of `count` posts never edited before (each one's first edit in the session),
/// then `again` edits of the last of them (`--again`, `count` unless given): wall time and the
/// process's CPU time (user + system, every thread) per edit, which a loaded machine disturbs
/// less than the wall time, and how long the save itself took (the write of the post, in the
/// wall time: the writer's work left behind on the disk can slow it).
fn measure_first_edits(
    session: &mut Session,
    content: &Path,
    posts: usize,
    paths: &[String],
    count: usize,
    again_count: usize,
) {
    let mut first = Vec::with_capacity(count);
    let mut again = Vec::with_capacity(again_count);
    for i in 0..count + again_count {
        // Spread over the corpus, from the end backwards: no other mode edits those first.
        let path = &paths[paths.len() - 1 - (i.min(count - 1) * 7919) % (paths.len() / 2)];
        let file = content.join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        let edited = set_line(&text, "title:", &format!("title: \"Timed {i}\""));
        let (wall, cpu) = (Instant::now(), cpu_time());
        std::fs::write(&file, edited).unwrap();
        let saved = wall.elapsed();
        session
            .apply(&ChangeSet {
                paths: [path.clone()].into(),
                ..Default::default()
            })
            .unwrap();
        let taken = (wall.elapsed(), cpu_time() - cpu, saved);
        if i < count {
            first.push(taken)
        } else {
            again.push(taken)
        }
    }
    for (name, times) in [
        ("title, first edit", &mut first),
        ("title, edited again", &mut again),
    ] {
        let mut wall: Vec<Duration> = times.iter().map(|t| t.0).collect();
        let mut cpu: Vec<Duration> = times.iter().map(|t| t.1).collect();
        let mut save: Vec<Duration> = times.iter().map(|t| t.2).collect();
        wall.sort();
        cpu.sort();
        save.sort();
        println!(
            "{:>10} {:<26} wall median {:.1} ms, max {:.1} ms; cpu median {:.1} ms, max {:.1} ms; of which the save {:.2} ms ({} edits)",
            posts,
            name,
            ms(wall[wall.len() / 2]),
            ms(wall[wall.len() - 1]),
            ms(cpu[cpu.len() / 2]),
            ms(cpu[cpu.len() - 1]),
            ms(save[save.len() / 2]),
            times.len()
        );
    }
}

/// Renames `files` round-robin to names never used before, `count` times, one batch per rename
/// (both paths, as the watcher reports a rename), and prints resident memory along the way.
/// Every rename leaves a path the session has seen and will not see again: memory that grows
/// with the count is kept for dead paths.
fn measure_renames(
    session: &mut Session,
    content: &Path,
    posts: usize,
    files: &[String],
    count: usize,
) {
    let mut current: Vec<String> = files.to_vec();
    session.release_memory();
    let before = rss_mb();
    let started = Instant::now();
    for i in 0..count {
        let slot = i % current.len();
        let old = current[slot].clone();
        let stem = files[slot].trim_end_matches(".md");
        let new = format!("{stem}-r{i}.md");
        std::fs::rename(content.join(&old), content.join(&new)).unwrap();
        session
            .apply(&ChangeSet {
                paths: [old, new.clone()].into(),
                ..Default::default()
            })
            .unwrap();
        current[slot] = new;
        if (i + 1) % (count / 10).max(1) == 0 {
            session.release_memory();
            println!(
                "{:>10} resident memory after {} renames: {:.0} MB",
                posts,
                i + 1,
                rss_mb()
            );
        }
    }
    let after = rss_mb();
    println!(
        "{:>10} resident memory over {count} renames: {before:.0} MB → {after:.0} MB ({:+.2} KB per rename; {:.1} ms per rename)",
        posts,
        (after - before) * 1024.0 / count as f64,
        ms(started.elapsed()) / count as f64
    );
}

/// How many edits of each kind, on how large a corpus.
struct Measure {
    posts: usize,
    per_kind: usize,
}

impl Measure {
    /// Applies the edits produced by `edit(i) = (path, how, i)`, each followed by the
    /// documents lane, and prints both lanes' timings.
    fn run(
        &self,
        session: &mut Session,
        content: &Path,
        name: &str,
        edit: impl Fn(usize) -> (String, Edit, usize),
    ) {
        let mut api_times = Vec::with_capacity(self.per_kind);
        let mut documents_times = Vec::with_capacity(self.per_kind);
        let (mut writes, mut api_writes) = (0, 0);
        let (mut api_cpu, mut documents_cpu) = (Duration::ZERO, Duration::ZERO);
        for i in 0..self.per_kind {
            let (path, how, i) = edit(i);
            let file = content.join(&path);
            let edited = how(&std::fs::read_to_string(&file).unwrap(), i);
            let (started, cpu) = (Instant::now(), cpu_time());
            std::fs::write(&file, edited).unwrap();
            let outcome = session
                .apply(&ChangeSet {
                    paths: [path].into(),
                    ..Default::default()
                })
                .unwrap();
            api_times.push(started.elapsed());
            let api_done = cpu_time();
            api_cpu += api_done - cpu;
            let documents = session.publish_documents().unwrap();
            documents_times.push(started.elapsed());
            documents_cpu += cpu_time() - api_done;
            if let Some(report) = &outcome.report {
                writes += report.written.len();
                api_writes += report
                    .written
                    .iter()
                    .filter(|p| p.starts_with("api/"))
                    .count();
            }
            writes += documents.report.map_or(0, |r| r.written.len());
        }
        let first = documents_times[0];
        let stats = |times: &mut Vec<Duration>| {
            times.sort();
            let at = |q: usize| ms(times[(times.len() * q / 100).min(times.len() - 1)]);
            format!("{:>17.2} {:>9.2} {:>9.2}", at(50), at(99), at(100))
        };
        let per_edit = |n: usize| n as f64 / self.per_kind as f64;
        println!(
            "{:>10} {:<26} {} {} {:>7.2} {:>7.1} {:>7.1} {:>8.2} {:>8.2}",
            self.posts,
            name,
            stats(&mut api_times),
            stats(&mut documents_times),
            ms(first),
            per_edit(writes),
            per_edit(api_writes),
            ms(api_cpu) / self.per_kind as f64,
            ms(documents_cpu) / self.per_kind as f64
        );
    }
}

/// Writes the first build's files to disk (`syncfs`) before anything is timed. On a disk, the
/// kernel writes them back over the next half minute, and every edit measured meanwhile
/// shared the disk and a core with 200 MB of writeback (at 10k posts per language): the same
/// binary's repeat edit measured 7 to 14 ms on this VM's ext4 depending on what ran before.
/// An author's edits come later than that; the first edits after starting are slower.
fn settle(dir: &Path) {
    let folder = std::fs::File::open(dir).expect("the bench folder opens");
    #[cfg(target_os = "linux")]
    rustix::fs::syncfs(&folder).expect("syncfs");
    // No syncfs elsewhere (macOS): sync writes back every file system, that one included.
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        drop(folder);
        rustix::fs::sync();
    }
    // Windows flushes a whole volume only for an administrator: the write-back is not waited
    // out there, and the first edits may share the disk with it.
    #[cfg(windows)]
    drop(folder);
}

/// The folder the copied content and the output live in: `CONTENT_API_BENCH_DIR` when set (for
/// example `/dev/shm`, to take one file system's inode allocation out of the numbers), else the
/// system's temporary folder.
fn work_dir() -> tempfile::TempDir {
    match std::env::var_os("CONTENT_API_BENCH_DIR") {
        Some(dir) => tempfile::tempdir_in(dir).unwrap(),
        None => tempfile::tempdir().unwrap(),
    }
}

fn set_line(text: &str, prefix: &str, line: &str) -> String {
    text.lines()
        .map(|l| if l.starts_with(prefix) { line } else { l })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn post_paths(content: &Path, lang: &str) -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir(content.join("blog").join(lang))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| format!("blog/{lang}/{}", e.file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    paths.sort();
    paths
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The CPU time this process used so far (user + sys, every thread).
#[cfg(unix)]
fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF always exists.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The CPU time this process used so far (user + kernel, every thread): GetProcessTimes.
#[cfg(windows)]
fn cpu_time() -> Duration {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: this process's pseudo-handle, and pointers to local variables.
    let done = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    assert!(done != 0, "GetProcessTimes failed");
    // FILETIME counts 100 ns intervals.
    let time = |t: FILETIME| {
        Duration::from_nanos(
            ((u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime)) * 100,
        )
    };
    time(user) + time(kernel)
}

/// Current resident memory of this process (Linux only: 0 elsewhere).
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The languages past the corpus's two that `--languages N` adds, each a copy of the Spanish
/// posts and decks (same sizes, same tags and series): a site of N languages.
fn add_languages(content: &Path, languages: usize) -> Vec<&'static str> {
    let extra: Vec<&'static str> = ["fr", "de", "it", "pt", "ja", "ko", "nl", "pl"]
        .into_iter()
        .take(languages.saturating_sub(2))
        .collect();
    for code in &extra {
        for kind in ["blog", "slides"] {
            layouts::copy_tree(
                &content.join(kind).join("es"),
                &content.join(kind).join(code),
            );
        }
    }
    extra
}

/// The corpus for `posts` posts per language (see benches/once.rs), generated on first use.
fn corpus_for(root: &Path, posts: usize) -> PathBuf {
    let dir = root.join(format!("posts-{posts}"));
    if !dir.join("blog").is_dir() {
        corpus::generate(&dir, corpus::Shape::scaled(posts));
    }
    dir
}
