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
/// on other Unix systems (macOS has no `syncfs`) `sync`, every file system's, which includes
/// that one. Not on Windows, where flushing a whole volume needs administrator rights: there
/// the previous run's write-back is not waited out, and the time returned is nothing.
pub fn sync_file_system(folder: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs on a descriptor the caller holds open.
        unsafe { libc::syncfs(folder.as_raw_fd()) };
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        let _ = folder;
        // SAFETY: sync(2) takes no arguments and cannot fail.
        unsafe { libc::sync() };
    }
    #[cfg(windows)]
    let _ = folder;
}

/// How a reaped child ran.
#[derive(Clone, Copy)]
pub struct Usage {
    /// Its exit code, -1 when a signal ended it.
    pub code: i32,
    /// Peak resident memory, in KB (on Windows, its peak working set).
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
#[cfg(unix)]
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

/// Waits for our child `pid` and reads what Windows kept of it once it ended: its exit code,
/// its CPU times (`GetProcessTimes`) and its peak working set (`K32GetProcessMemoryInfo`). The
/// caller still holds the child's `Child`, whose handle keeps those readable.
#[cfg(windows)]
pub fn wait_with_rusage(pid: u32) -> Usage {
    use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE, WAIT_OBJECT_0};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, GetProcessTimes, INFINITE, OpenProcess,
        PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE, WaitForSingleObject,
    };
    /// psapi.h's PROCESS_MEMORY_COUNTERS.
    #[repr(C)]
    #[derive(Default)]
    struct MemoryCounters {
        cb: u32,
        page_fault_count: u32,
        peak_working_set_size: usize,
        working_set_size: usize,
        quota_peak_paged_pool_usage: usize,
        quota_paged_pool_usage: usize,
        quota_peak_non_paged_pool_usage: usize,
        quota_non_paged_pool_usage: usize,
        pagefile_usage: usize,
        peak_pagefile_usage: usize,
    }
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn K32GetProcessMemoryInfo(process: HANDLE, counters: *mut MemoryCounters, cb: u32) -> i32;
    }
    // SAFETY: OpenProcess returns a handle this function owns (closed below), or null.
    let process = unsafe {
        OpenProcess(
            PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_SYNCHRONIZE,
            0,
            pid,
        )
    };
    assert!(!process.is_null(), "OpenProcess({pid}) failed");
    // SAFETY: the calls below read into local variables through valid pointers, on a handle
    // opened with the rights they need.
    unsafe {
        assert_eq!(
            WaitForSingleObject(process, INFINITE),
            WAIT_OBJECT_0,
            "waiting for {pid} failed"
        );
        let mut code = 0u32;
        assert!(
            GetExitCodeProcess(process, &mut code) != 0,
            "GetExitCodeProcess failed"
        );
        let zero = FILETIME {
            dwLowDateTime: 0,
            dwHighDateTime: 0,
        };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        assert!(
            GetProcessTimes(process, &mut created, &mut exited, &mut kernel, &mut user) != 0,
            "GetProcessTimes failed"
        );
        let mut memory = MemoryCounters {
            cb: std::mem::size_of::<MemoryCounters>() as u32,
            ..MemoryCounters::default()
        };
        let peak = if K32GetProcessMemoryInfo(process, &mut memory, memory.cb) != 0 {
            memory.peak_working_set_size as i64 / 1024
        } else {
            0
        };
        CloseHandle(process);
        // FILETIME counts 100 ns intervals.
        let time = |t: FILETIME| {
            Duration::from_nanos(
                ((u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime)) * 100,
            )
        };
        Usage {
            code: code as i32,
            max_rss_kb: peak,
            user: time(user),
            sys: time(kernel),
        }
    }
}
