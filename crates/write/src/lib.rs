//! The output folder: making it equal to a set of (path, bytes), and reading it back.
//!
//! The only crate that writes into the output folder ([`Publisher`], in `publisher`; what a
//! build records beside the site, and what follows its publish, is `deploy`'s). Rules:
//! - one writer per folder: a publisher holds an exclusive `flock` on the folder while it is
//!   open (`lock`);
//! - every file is written to a temporary file in the folder's `.content-api/tmp`, then renamed
//!   over the target, so a reader sees the old or the new bytes, never a mix; the one exception
//!   is a path nothing is at in a build's first publish into a folder holding nothing of this
//!   tool (a *cold* publish, see [`Publisher::one_shot`]): it is created and written in place;
//! - a file whose bytes are already right is not touched (its mtime stays);
//! - a build is all or nothing as far as it can be known: every path of a publish is checked
//!   (parts, name lengths, the folders on the way) before the first write;
//! - a crash at any point converges on the next start: the paths a build may write are
//!   recorded (the intent record) before the first write, and leftover temporary files (only
//!   ever in `.content-api/tmp`) are removed by the first publish, or by a build that finds
//!   nothing changed;
//! - files this tool wrote earlier (listed in its manifest) that are no longer outputs are
//!   removed; nothing else in the folder is touched;
//! - a file of another owner is never replaced: host files are merged, the site's documents
//!   win, `take_over` replaces on purpose, any other collision stops the build (`ownership`);
//! - the manifest is written last: it is the commit point of a build;
//! - no path can leave the output folder: state files are validated as untrusted input, every
//!   path is checked part by part, and every operation goes through the open folder without
//!   following a symbolic link (`dir`).
//!
//! Also: [`state_file`], the one bounded reader and the one synced writer of every state file
//! (the folder's own, and `deploy`'s beside the site); [`out_file`], a published file read
//! back for `serve` and `mcp`; `publisher::intact`, whether the folder still holds the last
//! publish; `output_stamps`, the folder's side of a build's fingerprint.

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{documents, http};
use content_api_model::output;
use content_api_source::{at, source};

mod dir;
mod headers;
mod lock;
mod manifest;
pub mod out_file;
mod output_stamps;
mod ownership;
mod publisher;
mod report;
mod safe_path;
pub mod shutdown;
pub mod site_source;
pub mod state_file;
mod yielding_documents;

pub use manifest::{MANIFEST_PATH, MAX_STATE_BYTES};
pub use output_stamps::{OutputDigest, Racy};
pub use ownership::{
    BEGIN as OWNED_BLOCK_BEGIN, END as OWNED_BLOCK_END, OwnershipError, as_written,
    headers_warnings,
};
pub use publisher::{Publisher, now_ns};
pub use report::Report;
pub use safe_path::{MAX_RECORDED_FILES, SafePathError, check_output_path};

pub use manifest::Manifest;

use dir::PATH_MAX;

use crate::output::Files;
use camino::Utf8PathBuf;
pub use dir::write_atomically;
use std::sync::Arc;

/// Where `relative` (a path in the output folder, `/`-separated) is on disk, for messages and
/// path-based opens: `out_dir` joined with it, its separators the platform's (`\` on Windows,
/// as Windows users read paths).
pub(crate) fn on_disk(out_dir: &camino::Utf8Path, relative: &str) -> Utf8PathBuf {
    if std::path::MAIN_SEPARATOR == '/' {
        out_dir.join(relative)
    } else {
        out_dir.join(relative.replace('/', std::path::MAIN_SEPARATOR_STR))
    }
}

/// Asked by [`Publisher::publish_groups_until`] between writes: `true` stops the publish.
pub type Stop<'a> = dyn Fn() -> bool + Sync + 'a;

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
    /// The caller's stop check said to stop (a newer change is waiting): the files not written
    /// yet are as they were, and calling again with newer groups finishes the work. Only
    /// [`Publisher::publish_groups_until`] stops so.
    #[error("stopped for a newer change before every file was written")]
    Stopped,
    /// Another process holds the output folder's lock.
    #[error(
        "{out_dir} is being written by another process (pid {pid}: {command}); stop it first \
         (Ctrl-C in its terminal), or write into another folder: add --out DIR to this command, \
         for example --out {}-2 (a folder beside it)",
        out_dir.as_str().trim_end_matches(std::path::is_separator)
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

pub(crate) fn all_paths(groups: &[Files]) -> impl Iterator<Item = &Arc<str>> {
    groups
        .iter()
        .flat_map(|group| group.iter().map(|(path, _)| path))
}

/// The folder of a relative path ("" for a file at the top).
fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The file name of a relative path (its last part).
fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}
