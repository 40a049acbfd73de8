//! `--once` with nothing changed: wall and CPU time of a build whose inputs and output folder
//! are exactly as the last build left them, on generated corpora of 1,000 and 10,000 posts per
//! language (or the sizes given), with the output folder on the disk (`target/bench-corpora/`)
//! and on tmpfs (`/dev/shm`, when it exists).
//!
//!     cargo bench --bench noop                 # 1000 and 10000 posts per language
//!     cargo bench --bench noop -- 1000 50000   # other sizes
//!     CONTENT_API_BIN=path/to/content-api cargo bench --bench noop   # another binary
//!
//! Each case: a cold build into an empty folder, a pause longer than the racy window of the
//! outputs' timestamps, one more build (it writes nothing and saves the fingerprint), then the
//! measured runs, each a new process. The `reused` column says whether every measured run
//! reported that it reused the fingerprint (a binary without one says `no`). The content files
//! are read before each case so that they are in the page cache.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/process.rs"]
mod process;

use process::{wait_with_rusage, warm};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 9;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000]
    } else {
        sizes
    };
    let binary = std::env::var("CONTENT_API_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_content-api").into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpora");
    let mut places = vec![("disk", root.clone())];
    if Path::new("/dev/shm").is_dir() {
        places.push(("tmpfs", PathBuf::from("/dev/shm")));
    }
    println!("content-api --once with nothing changed (new process each run), {RUNS} runs each\n");
    println!(
        "{:>10} {:>6} {:>7} {:>10} {:>7} {:>7} {:>14} {:>7}",
        "posts/lang", "out on", "files", "median ms", "min ms", "max ms", "median cpu ms", "reused"
    );
    for posts in sizes {
        let content = corpus::corpus_for(&root, posts);
        for (place, folder) in &places {
            warm(&content);
            let case = folder.join(format!("noop-{posts}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&case);
            std::fs::create_dir_all(&case).unwrap();
            std::fs::write(case.join("bench.toml"), process::BENCH_SETTINGS).unwrap();
            let build = |log: &Path| run(&binary, &content, &case, log);
            let log = case.join("log");
            let (status, _, _) = build(&log);
            assert_eq!(status, 0, "the cold build failed: {}", read(&log));
            std::thread::sleep(Duration::from_millis(400));
            let (status, _, _) = build(&log);
            assert_eq!(status, 0, "the second build failed: {}", read(&log));
            let files = read(&log)
                .split("built ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next().map(str::to_string))
                .unwrap_or_default();
            let mut walls = Vec::new();
            let mut cpus = Vec::new();
            let mut all_reused = true;
            for _ in 0..RUNS {
                let (status, wall, cpu) = build(&log);
                assert_eq!(status, 0, "a build failed: {}", read(&log));
                all_reused &= read(&log).contains("its fingerprint matched");
                walls.push(wall);
                cpus.push(cpu);
            }
            walls.sort();
            cpus.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "{:>10} {:>6} {:>7} {:>10.0} {:>7.0} {:>7.0} {:>14.0} {:>7}",
                posts,
                place,
                files,
                ms(walls[RUNS / 2]),
                ms(walls[0]),
                ms(walls[RUNS - 1]),
                ms(cpus[RUNS / 2]),
                if all_reused { "yes" } else { "no" }
            );
            let _ = std::fs::remove_dir_all(&case);
        }
    }
}

/// One build into `case/out` (history in `case/`), its log in `log`: exit code, wall, CPU.
fn run(binary: &str, content: &Path, case: &Path, log: &Path) -> (i32, Duration, Duration) {
    let log = std::fs::File::create(log).unwrap();
    let started = Instant::now();
    #[allow(clippy::zombie_processes)] // reaped by wait_with_rusage
    let child = Command::new(binary)
        .arg("--config")
        .arg(case.join("bench.toml"))
        .args(["--once", "--today", "2026-11-22", "--content"])
        .arg(content)
        .arg("--out")
        .arg(case.join("out"))
        .arg("--history")
        .arg(case.join("bench.history"))
        .env("RUST_LOG", "info")
        .stderr(Stdio::from(log))
        .spawn()
        .expect("content-api starts");
    let usage = wait_with_rusage(child.id());
    std::mem::forget(child);
    (usage.code, started.elapsed(), usage.cpu())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
