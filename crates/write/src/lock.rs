//! One writer per output folder: a publisher holds an exclusive `flock` on the folder itself
//! for as long as it is open.
//!
//! The kernel releases a `flock` when its process dies, so the lock of a crashed or killed
//! process is stale by construction and the next writer takes it over. Locking the folder
//! (rather than a lock file in it) adds nothing to the folder, so a run that fails leaves it
//! exactly as it was. The holder is named from `/proc/locks` (Linux); elsewhere the message
//! says "another process".
//!
//! Windows cannot lock a folder: the lock there is an exclusive `LockFileEx` (std's
//! `File::try_lock`) on the empty file `.content-api/lock`, which stays in the folder (the
//! tool's state folder, which nothing else reads). Windows releases it too when its process
//! dies.

use super::WriteError;
use super::dir::OutDir;
#[cfg(unix)]
use rustix::fs::FlockOperation;
#[cfg(unix)]
use std::os::fd::OwnedFd;

/// The held lock, released on drop (or when the process ends, however it ends).
#[cfg(unix)]
pub struct Lock {
    _fd: OwnedFd,
}

/// The held lock (an open, locked `.content-api/lock`), released on drop (or when the process
/// ends, however it ends).
#[cfg(windows)]
pub struct Lock {
    _file: std::fs::File,
}

/// The lock file of an output folder on Windows.
#[cfg(windows)]
pub const LOCK_PATH: &str = ".content-api/lock";

#[cfg(windows)]
impl Lock {
    /// Takes the lock of `out`, or says that another process holds it.
    pub fn acquire(out: &OutDir) -> Result<Lock, WriteError> {
        use crate::at::{Mode, OFlags};
        let (dir, name) = out
            .parent(LOCK_PATH, true)?
            .expect("folders are created on the way");
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW;
        let io = |source: std::io::Error| WriteError::Io {
            path: out.path().join(LOCK_PATH),
            source,
        };
        let fd = crate::at::openat(&dir, name, flags, Mode::from_raw_mode(0o644))
            .map_err(|errno| io(errno.into()))?;
        let file = std::fs::File::from(fd);
        match file.try_lock() {
            Ok(()) => Ok(Lock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(WriteError::Locked {
                out_dir: out.path().to_owned(),
                pid: "unknown".into(),
                command: "another content-api process".into(),
            }),
            Err(std::fs::TryLockError::Error(err)) => Err(io(err)),
        }
    }
}

#[cfg(unix)]
impl Lock {
    /// Takes the lock of `out`, or says which process holds it.
    pub fn acquire(out: &OutDir) -> Result<Lock, WriteError> {
        let io = |errno: rustix::io::Errno| WriteError::Io {
            path: out.path().to_owned(),
            source: errno.into(),
        };
        // A description of its own: the lock belongs to this publisher, not to every handle
        // of the folder.
        let fd = out.open_again().map_err(io)?;
        match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Lock { _fd: fd }),
            Err(rustix::io::Errno::WOULDBLOCK) => {
                let (pid, command) = holder(&fd)
                    .unwrap_or_else(|| ("unknown".into(), "another content-api process".into()));
                Err(WriteError::Locked {
                    out_dir: out.path().to_owned(),
                    pid,
                    command,
                })
            }
            Err(errno) => Err(io(errno)),
        }
    }
}

#[cfg(unix)]
/// The pid and command line of the process holding a `flock` on `fd`'s file, from
/// `/proc/locks` (`1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF`).
fn holder(fd: &OwnedFd) -> Option<(String, String)> {
    let stat = rustix::fs::fstat(fd).ok()?;
    let device = format!(
        "{:02x}:{:02x}:{}",
        rustix::fs::major(stat.st_dev),
        rustix::fs::minor(stat.st_dev),
        stat.st_ino
    );
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let pid = locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.get(1) == Some(&"FLOCK") && fields.get(5) == Some(&device.as_str()))
            .then(|| fields[4].to_string())
    })?;
    let command = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .split('\0')
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    Some((pid, command))
}

/// Opens (creating it when missing) and locks the output folder.
pub(super) fn open_locked(out_dir: &camino::Utf8Path) -> Result<(OutDir, Lock), WriteError> {
    let dir = OutDir::open(out_dir)?;
    let lock = Lock::acquire(&dir)?;
    Ok((dir, lock))
}
