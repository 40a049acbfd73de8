//! Unix: rustix's calls themselves (`openat(O_NOFOLLOW)` and friends, relative to a
//! descriptor), re-exported so that callers name one module on every platform.

pub use rustix::fs::{
    AtFlags, Dir, FileType, Mode, OFlags, RenameFlags, Stat, fstat, mkdirat, open, openat,
    renameat, renameat_with, statat, unlinkat,
};
pub use rustix::io::{Errno, dup};
pub use std::os::fd::OwnedFd;

/// Whether this process runs under wine: never, on Unix.
pub fn under_wine() -> bool {
    false
}

/// Opens a file for reading as untrusted input: without blocking (`O_NONBLOCK`: a FIFO answers
/// at once), not inherited by child processes.
pub fn read_options() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    options
}

/// Fills `buf` from `offset` of `file` (`pread`).
pub fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Opens the file at `path` for reading as untrusted input ([`read_options`]), without
/// following a link at the path itself unless `follow_link` (`ELOOP` then, see
/// [`is_link_refused`]).
pub fn open_read(path: &std::path::Path, follow_link: bool) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if !follow_link {
        flags |= libc::O_NOFOLLOW;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
}

/// Whether `err` is [`open_read`]'s refusal of a link.
pub fn is_link_refused(err: &std::io::Error) -> bool {
    err.raw_os_error() == Some(libc::ELOOP)
}

/// The metadata of an open file.
pub fn fstat_file(file: &std::fs::File) -> Result<Stat, Errno> {
    fstat(file)
}
