//! One writer per output folder: a publisher holds an exclusive `flock` on the folder itself
//! for as long as it is open.
//!
//! The kernel releases a `flock` when its process dies, so the lock of a crashed or killed
//! process is stale by construction and the next writer takes it over. Locking the folder
//! (rather than a lock file in it) adds nothing to the folder, so a run that fails leaves it
//! exactly as it was. The holder is named from `/proc/locks` (Linux); elsewhere the message
//! says "another process".

use super::WriteError;
use super::dir::OutDir;
use rustix::fs::FlockOperation;
use std::os::fd::OwnedFd;

/// The held lock, released on drop (or when the process ends, however it ends).
pub struct Lock {
    _fd: OwnedFd,
}

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
