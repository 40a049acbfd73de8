//! Why a publish failed, naming the path it failed on.

use super::dir::PATH_MAX;
use super::{HistoryError, OwnershipError, SafePathError};
use camino::Utf8PathBuf;

/// Why a publish failed, with the path it failed on.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file system refused an operation.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// An output path that could leave the folder or cannot be a file name.
    #[error("refusing to write {path}: {reason}")]
    Unsafe {
        /// The output path, relative to the output folder.
        path: String,
        /// What is wrong with it.
        reason: SafePathError,
    },
    /// An output path longer than `PATH_MAX` once joined to the output folder.
    #[error(
        "refusing to write {path}: the path is {len} bytes long with the output folder, over the \
         {PATH_MAX}-byte limit of file systems; use a shorter output folder or shorter names"
    )]
    PathTooLong {
        /// The output path, relative to the output folder.
        path: String,
        /// Its length in bytes with the output folder.
        len: usize,
    },
    /// A symbolic link on the way to an output inside the folder.
    #[error(
        "refusing to write through the symbolic link {path} inside the output folder; remove the link"
    )]
    Symlink {
        /// The link.
        path: Utf8PathBuf,
    },
    /// A file where an output needs a folder.
    #[error("{path} is in the way: a file exists where a folder is needed; remove it")]
    NotADirectory {
        /// The file in the way.
        path: Utf8PathBuf,
    },
    /// A file of another owner is in the way, or a merged host file is unreadable.
    #[error(transparent)]
    Ownership(#[from] OwnershipError),
    /// The publishing history could not be read or written.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// Another process holds the output folder's lock.
    #[error(
        "{out_dir} is being written by another process (pid {pid}: {command}); stop it first \
         (Ctrl-C), or give this one another output folder with --out DIR"
    )]
    Locked {
        /// The output folder.
        out_dir: Utf8PathBuf,
        /// The holder's process id, from `/proc/locks` (or `unknown`).
        pid: String,
        /// The holder's command line, when it can be read.
        command: String,
    },
}

impl WriteError {
    /// True when the content itself cannot be published (a name it produces is too long for
    /// a file system): fixing the content fixes it. Everything else is about the output
    /// folder or the disk.
    pub fn is_content_problem(&self) -> bool {
        matches!(
            self,
            WriteError::Unsafe { .. } | WriteError::PathTooLong { .. }
        )
    }
}
