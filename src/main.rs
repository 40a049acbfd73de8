//! The `content-api` binary: the allocator's settings, logging to stderr (`RUST_LOG` filters
//! it), the command line, and the exit code. Everything else is in the library
//! ([`content_api::cli::run`]).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = content_api::cli::Cli::parse();
    if cli.is_one_shot() {
        grow_heaps_in_large_steps();
    }
    // RUST_LOG, when set, wins over --quiet and --verbose (for debugging one module).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(cli.log_filter()));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(content_api::cli::stderr_color())
        .without_time()
        .with_env_filter(filter)
        .init();
    content_api::cli::run(cli)
}

/// glibc grows each worker thread's heap a few pages at a time, one `mprotect` call per step,
/// and each call on a multi-threaded process flushes every core's TLB: a cold build of 10,000
/// posts per language made 39,000 of them (`strace -c`), about 100 ms of system time. With a
/// 64 MB pad the heaps grow in steps of address space that size (pages become resident only
/// when touched, so the peak resident size does not change) and the build makes 14. Only for
/// one-shot commands: each worker heap then keeps up to the pad of freed memory at its top,
/// which `malloc_trim` does not hand back, and a watch session held 12 MB more over 1,000 edits.
fn grow_heaps_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation parameters; no other thread runs yet.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}
