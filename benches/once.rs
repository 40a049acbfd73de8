//! Cold `--once` benchmark: wall time and peak memory of a full build into an empty output
//! folder, on generated corpora of 1,000 and 10,000 posts per language (or the sizes given).
//!
//!     cargo bench --bench once                 # 1000 and 10000 posts per language
//!     cargo bench --bench once -- 1000 50000   # other sizes
//!     CONTENT_API_BIN=path/to/content-api cargo bench --bench once   # another binary
//!     CONTENT_API_BENCH_DIR=/dev/shm cargo bench --bench once   # output folder on tmpfs
//!     cargo bench --bench once -- 10000 --layout hugo   # the posts as Hugo page bundles
//!
//! `--layout NAME` (`seed`, `hugo`, `jekyll`, `astro`; see `benches/support/layouts.rs`) moves
//! the corpus's posts where that generator puts them and builds with the sample's `watch.toml`
//! plus that `[layout]`: the same posts read another way, for a ratio against `seed`.
//!
//! Corpora come from `../shared/tools/gen_corpus.py` when it is there (the generator the
//! reference numbers of Hugo and Astro were measured with), else from the Rust port in
//! `benches/support/corpus.rs`. They are cached under `target/bench-corpora/`.
//!
//! "Cold" means a new process and an empty output folder. The content files are read once
//! before each run so that they are in the OS page cache: on this kind of VM the page cache
//! drains within seconds, and disk latency would otherwise dominate and vary run to run.
//!
//! Each run starts on a quiet disk: the bench writes back every dirty page of the output's file
//! system first (`syncfs`), as on a CI machine, where the build is the first thing that writes.
//! Without it, run N waits on the writeback of the runs before it (a 50,000-post build writes
//! 924 MB, and the kernel starts writing back once 10% of memory is dirty), which measures how
//! many runs came before. That cost is the bytes a build writes, and it is printed on its own:
//! "writeback ms" is how long the `syncfs` right after each run took (median).
//!
//! Each run writes a folder of its own, and the folders are deleted after the last run: on
//! ext4 mounted without a journal (this kind of VM's disk), creating files right after many
//! were deleted makes every new inode skip the recently freed ones (`recently_deleted` in the
//! kernel's `find_inode_bit`), which took 35 to 40% of a 10k build's CPU when the previous
//! run's output had just been deleted. A CI checkout does not pay that; a build run right
//! after `rm -rf out` does (build into the existing folder instead: unchanged files are
//! not rewritten).
//!
//! That window is long, and it counts every process's deletions on the disk, so the numbers on
//! such a disk move with what ran before the bench. On a fresh 2 GB ext4 image without a
//! journal, creating 20,000 one-byte files took 0.70 s; right after deleting 20,000 others,
//! 8.2 s; 45 seconds later, with 40,000 deleted, 15.4 s. An ext4 with a journal (the default of
//! `mkfs.ext4`) does not make the check: `CONTENT_API_BENCH_DIR` on such a file system (a loop
//! image: `mkfs.ext4 img; mount -o loop img DIR`) measures the write path without it.

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/layouts.rs"]
mod layouts;
#[path = "support/process.rs"]
mod process;

use process::{Usage, wait_with_rusage, warm, write_back};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let layout = args
        .iter()
        .position(|a| a == "--layout")
        .and_then(|at| args.get(at + 1).cloned());
    if let Some(name) = &layout {
        assert!(
            layouts::posts_pattern(name).is_some(),
            "--layout takes one of {:?}",
            layouts::NAMES
        );
    }
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000]
    } else {
        sizes
    };
    // CONTENT_API_BIN measures another build (for example an older commit) on the same corpora.
    let binary = std::env::var("CONTENT_API_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_content-api").into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpora");
    // CONTENT_API_BENCH_DIR puts the output folder elsewhere (for example /dev/shm, to see the
    // build without one disk file system's cost of creating 20,000 files).
    let out_root =
        std::env::var_os("CONTENT_API_BENCH_DIR").map_or_else(|| root.clone(), PathBuf::from);
    println!("content-api --once, cold (new process, empty output folder), {RUNS} runs each\n");
    println!(
        "{:>10} {:>7} {:>6} {:>10} {:>7} {:>7} {:>12} {:>9} {:>9} {:>8} {:>12}",
        "posts/lang",
        "files",
        "MB",
        "median ms",
        "min ms",
        "max ms",
        "median cpu ms",
        "(user ms",
        "sys ms)",
        "peak MB",
        "writeback ms"
    );
    for posts in sizes {
        let seed = corpus::corpus_for(&root, posts);
        let (content, config) = match &layout {
            Some(name) => laid_out(&root, &seed, posts, name),
            None => (seed, None),
        };
        let (files, bytes) = tree_size(&content);
        let mut walls = Vec::new();
        let mut cpus: Vec<Usage> = Vec::new();
        let mut peak_kb = 0;
        let mut outs = Vec::new();
        let mut writebacks = Vec::new();
        for run in 0..RUNS {
            warm(&content);
            let out = out_root.join(format!("out-{posts}-{run}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&out);
            write_back(&out_root);
            let started = Instant::now();
            #[allow(clippy::zombie_processes)] // reaped by wait_with_rusage
            let mut command = Command::new(&binary);
            if let Some(config) = &config {
                command.arg("--config").arg(config);
            }
            let child = command
                .args(["--once", "--today", "2026-11-22", "--content"])
                .arg(&content)
                .arg("--out")
                .arg(&out)
                // Not the sample site's history beside the repository's watch.toml.
                .arg("--history")
                .arg(out.join(".content-api/bench.history"))
                .env("RUST_LOG", "warn")
                .spawn()
                .expect("content-api starts");
            // Reaped by wait4, which also reports the child's peak memory and CPU time.
            let usage = wait_with_rusage(child.id());
            std::mem::forget(child);
            walls.push(started.elapsed());
            writebacks.push(write_back(&out_root));
            cpus.push(usage);
            assert!(usage.code == 0, "build failed for {posts} posts");
            peak_kb = peak_kb.max(usage.max_rss_kb);
            outs.push(out);
        }
        // Deleted once every run is done: a build that creates 20,000 files right after 20,000
        // were deleted measures the file system's inode allocator, not the build (see above).
        for out in outs {
            let _ = std::fs::remove_dir_all(out);
        }
        walls.sort();
        writebacks.sort();
        // The run of median CPU time, with its split between the program and the kernel.
        cpus.sort_by_key(Usage::cpu);
        let cpu = cpus[cpus.len() / 2];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:>10} {:>7} {:>6.1} {:>10.0} {:>7.0} {:>7.0} {:>12.0} {:>9.0} {:>9.0} {:>8.0} {:>12.0}",
            posts,
            files,
            bytes as f64 / 1e6,
            ms(walls[walls.len() / 2]),
            ms(walls[0]),
            ms(walls[walls.len() - 1]),
            ms(cpu.cpu()),
            ms(cpu.user),
            ms(cpu.sys),
            peak_kb as f64 / 1024.0,
            ms(writebacks[writebacks.len() / 2])
        );
    }
}

fn tree_size(dir: &Path) -> (usize, u64) {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(n, bytes), e| {
            (n + 1, bytes + e.metadata().map(|m| m.len()).unwrap_or(0))
        })
}

/// The corpus of `posts` posts per language laid out as `name` lays it out (made once, beside
/// the seed-laid one), and a config file that reads it: the sample's `watch.toml` with that
/// `[layout]`.
fn laid_out(root: &Path, seed: &Path, posts: usize, name: &str) -> (PathBuf, Option<PathBuf>) {
    let dir = root.join(format!("posts-{posts}-{name}"));
    if !dir.join("tags").is_dir() {
        let _ = std::fs::remove_dir_all(&dir);
        layouts::copy_tree(seed, &dir);
        layouts::relay(&dir, name, "en");
    }
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("watch.toml");
    let text = std::fs::read_to_string(sample).expect("the sample's watch.toml");
    let config = root.join(format!("watch-{name}.toml"));
    std::fs::write(&config, text + "\n" + &layouts::watch_toml(name)).unwrap();
    (dir, Some(config))
}
