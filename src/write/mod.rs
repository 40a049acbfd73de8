//! Publishing: making the output folder equal to a set of (path, bytes).
//!
//! The only module that writes to the output folder. Rules:
//! - every file is written to a temporary file in its own folder, then renamed over the target,
//!   so a reader sees the old or the new bytes, never a mix;
//! - a file whose bytes are already right is not touched (its mtime stays);
//! - files this tool wrote earlier (listed in its manifest) that are no longer outputs are
//!   removed; nothing else in the folder is touched;
//! - the history of published API paths grows by this build's API paths (so a later build can
//!   answer 410 for the ones it removes);
//! - the manifest is written last: it is the commit point of a build;
//! - no path can leave the output folder: every path is checked part by part, and the writer
//!   refuses to go through a symbolic link inside the folder.

mod history;
mod manifest;
mod safe_path;

pub use history::{HISTORY_PATH, History, is_api_path};
pub use manifest::{MANIFEST_PATH, Manifest};
pub use safe_path::{SafePathError, check_relative};

use crate::db::Published;
use crate::render::Output;
use camino::{Utf8Path, Utf8PathBuf};
use rayon::prelude::*;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How to decide that a file on disk is already right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Read the file and compare bytes (`--once`: the folder may have been edited by hand).
    Disk,
    /// Trust the manifest's hash when the file exists with the right size (watch mode, where
    /// this process wrote the previous version).
    Manifest,
}

/// What a publish did.
#[derive(Debug, Default)]
pub struct Report {
    pub written: Vec<Arc<str>>,
    pub removed: Vec<String>,
    pub unchanged: usize,
    /// Every API path published so far, this build's included: the next build's
    /// `Site.published` input (`Workspace::set_published`).
    pub published: Published,
}

/// An I/O failure, with the path it happened on.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: Utf8PathBuf,
        source: std::io::Error,
    },
    #[error("refusing to write {path}: {reason}")]
    Unsafe { path: String, reason: SafePathError },
    #[error(
        "refusing to write through the symbolic link {path} inside the output folder; remove the link"
    )]
    Symlink { path: Utf8PathBuf },
    #[error("{path} is in the way: a file exists where a folder is needed; remove it")]
    NotADirectory { path: Utf8PathBuf },
}

/// Makes `out_dir` hold exactly `outputs` (plus whatever files this tool never wrote).
pub fn publish(
    out_dir: &Utf8Path,
    outputs: &[(Arc<str>, Output)],
    verify: Verify,
) -> Result<Report, WriteError> {
    std::fs::create_dir_all(out_dir).map_err(|source| WriteError::Io {
        path: out_dir.to_owned(),
        source,
    })?;
    let previous = Manifest::load(out_dir);
    for (path, _) in outputs {
        check_relative(path).map_err(|reason| WriteError::Unsafe {
            path: path.to_string(),
            reason,
        })?;
    }
    let results: Vec<Result<Option<Arc<str>>, WriteError>> = outputs
        .par_iter()
        .map(|(path, output)| {
            let target = out_dir.join(&**path);
            let fresh = match verify {
                Verify::Disk => std::fs::read(&target).is_ok_and(|bytes| bytes == *output.bytes),
                Verify::Manifest => {
                    previous.hash(path) == Some(output.hash)
                        && std::fs::metadata(&target)
                            .is_ok_and(|m| m.len() == output.bytes.len() as u64)
                }
            };
            if fresh {
                return Ok(None);
            }
            write_atomically(out_dir, path, &output.bytes)?;
            Ok(Some(path.clone()))
        })
        .collect();
    let mut report = Report::default();
    for result in results {
        match result? {
            Some(path) => report.written.push(path),
            None => report.unchanged += 1,
        }
    }
    let manifest = Manifest::from_outputs(outputs);
    for stale in previous.paths().filter(|path| !manifest.contains(path)) {
        if check_relative(stale).is_err() {
            continue; // A manifest edited by hand cannot make us delete outside the folder.
        }
        let target = out_dir.join(stale);
        match std::fs::remove_file(&target) {
            Ok(()) => {
                remove_empty_parents(out_dir, &target);
                report.removed.push(stale.to_string());
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(WriteError::Io {
                    path: target,
                    source,
                });
            }
        }
    }
    let history = History::load(out_dir).with_outputs(outputs);
    write_if_changed(out_dir, HISTORY_PATH, &history.to_bytes())?;
    report.published = history.published();
    write_if_changed(out_dir, MANIFEST_PATH, &manifest.to_bytes())?;
    report.written.sort();
    report.removed.sort();
    Ok(report)
}

/// Writes a state file of the tool unless it already holds `bytes`.
fn write_if_changed(out_dir: &Utf8Path, relative: &str, bytes: &[u8]) -> Result<(), WriteError> {
    if std::fs::read(out_dir.join(relative)).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    write_atomically(out_dir, relative, bytes)
}

/// Writes `bytes` to `out_dir/relative` through a temporary file and a rename.
pub fn write_atomically(
    out_dir: &Utf8Path,
    relative: &str,
    bytes: &[u8],
) -> Result<(), WriteError> {
    let target = out_dir.join(relative);
    let parent = target.parent().unwrap_or(out_dir);
    ensure_dir(out_dir, parent)?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target.file_name().unwrap_or("output");
    let temp = parent.join(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let io = |source| WriteError::Io {
        path: target.clone(),
        source,
    };
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        drop(file);
        std::fs::rename(&temp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(io)
}

/// Creates `dir` (inside `out_dir`) part by part, refusing symbolic links and files in the way.
fn ensure_dir(out_dir: &Utf8Path, dir: &Utf8Path) -> Result<(), WriteError> {
    let Ok(relative) = dir.strip_prefix(out_dir) else {
        return Ok(());
    };
    let mut current = out_dir.to_owned();
    for part in relative.components() {
        current.push(part);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(WriteError::Symlink { path: current });
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(WriteError::NotADirectory { path: current }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&current) {
                    Ok(()) => {}
                    // Another writer thread created it first.
                    Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(source) => {
                        return Err(WriteError::Io {
                            path: current,
                            source,
                        });
                    }
                }
            }
            Err(source) => {
                return Err(WriteError::Io {
                    path: current,
                    source,
                });
            }
        }
    }
    Ok(())
}

/// Removes folders left empty by a removal, up to (not including) the output folder.
fn remove_empty_parents(out_dir: &Utf8Path, removed: &Utf8Path) {
    let mut dir = removed.parent();
    while let Some(current) = dir {
        if current == out_dir || !current.starts_with(out_dir) {
            break;
        }
        if std::fs::remove_dir(current).is_err() {
            break; // Not empty (or not ours to remove): stop here.
        }
        dir = current.parent();
    }
}
