//! What the build benchmarks share about running a build: warming the page cache, waiting out
//! the disk's writeback, and reaping a child with its exit status, peak memory and CPU time.

// Each bench uses what it needs of this module.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

/// A bench site's `watch.toml`: a real author and licence (no placeholder warnings), and no
/// Cloudflare file-count check. A corpus of 10,000 posts per language is over Pages' 20,000
/// files, and a build that prints a warning saves no fingerprint, so the no-change shortcut
/// would never be measured.
pub const BENCH_SETTINGS: &str = "base_url = \"https://bench.example\"\n\
    [site]\nauthor = \"Bench Author\"\nlicence = \"CC-BY-4.0\"\n\
    [hosting]\ncloudflare_max_files = 0\n";

/// Reads every file once so that the run measures the build, not the disk.
pub fn warm(dir: &Path) {
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if entry.file_type().is_file() {
            let _ = std::fs::read(entry.path());
        }
    }
}

/// Writes back every dirty page of the file system that holds `dir` and returns how long that
/// took: before a timed run, so that it does not pay for the previous run's writeback; after
/// it, to see what the bytes it wrote cost the disk.
pub fn write_back(dir: &Path) -> Duration {
    let started = std::time::Instant::now();
    if let Ok(folder) = std::fs::File::open(dir) {
        sync_file_system(&folder);
    }
    started.elapsed()
}

/// Writes back the dirty pages of the file system that holds `folder`: `syncfs` on Linux;
/// elsewhere (macOS has no `syncfs`) `sync`, every file system's, which includes that one.
pub fn sync_file_system(folder: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs on a descriptor the caller holds open.
        unsafe { libc::syncfs(folder.as_raw_fd()) };
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = folder;
        // SAFETY: sync(2) takes no arguments and cannot fail.
        unsafe { libc::sync() };
    }
}

/// How a reaped child ran.
#[derive(Clone, Copy)]
pub struct Usage {
    /// Its exit code, -1 when a signal ended it.
    pub code: i32,
    /// Peak resident memory, in KB.
    pub max_rss_kb: i64,
    /// CPU time in the program.
    pub user: Duration,
    /// CPU time in the kernel on its behalf (file creation, page faults).
    pub sys: Duration,
}

impl Usage {
    /// User plus system time: steadier than wall time on a shared machine.
    pub fn cpu(&self) -> Duration {
        self.user + self.sys
    }
}

/// Waits for our child `pid` (with wait4, which also reports its resources).
pub fn wait_with_rusage(pid: u32) -> Usage {
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child with valid pointers to local variables.
    let result = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(result, pid as libc::pid_t, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Usage {
        code,
        max_rss_kb: usage.ru_maxrss,
        user: time(usage.ru_utime),
        sys: time(usage.ru_stime),
    }
}
