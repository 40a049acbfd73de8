//! Publishing: making the output folder equal to a set of (path, bytes).
//!
//! The only module that writes to the output folder. Rules:
//! - every file is written to a temporary file in its own folder, then renamed over the target,
//!   so a reader sees the old or the new bytes, never a mix;
//! - a file whose bytes are already right is not touched (its mtime stays);
//! - files this tool wrote earlier (listed in its manifest) that are no longer outputs are
//!   removed; nothing else in the folder is touched;
//! - a file of another owner is never replaced: `_headers` and `_redirects` are merged, the
//!   site's `404.html` wins, any other collision stops the build before it writes (`ownership`);
//! - the manifest is written last: it is the commit point of a build;
//! - no path can leave the output folder: every path is checked part by part, and the writer
//!   refuses to go through a symbolic link inside the folder.

mod history;
mod manifest;
mod ownership;
mod purge;
mod safe_path;

pub use history::{
    History, HistoryError, HistoryFile, LEGACY_HISTORY_PATH, is_api_path, is_history_entry,
};
pub use manifest::{MANIFEST_PATH, Manifest};
pub use ownership::{BEGIN as OWNED_BLOCK_BEGIN, END as OWNED_BLOCK_END, OwnershipError};
pub use purge::{purge_urls, write_purge_list};
pub use safe_path::{SafePathError, check_relative};

use crate::render::{Files, Output};
use camino::{Utf8Path, Utf8PathBuf};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a publish did.
#[derive(Debug, Default)]
pub struct Report {
    pub written: Vec<Arc<str>>,
    pub removed: Vec<String>,
    pub unchanged: usize,
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && self.removed.is_empty()
    }
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
    #[error(transparent)]
    Ownership(#[from] OwnershipError),
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// Keeps an output folder equal to the latest outputs, remembering what it holds so that a
/// rebuild touches only the files that changed.
///
/// A file whose content is not known (the first publish, or after the folder was deleted) is
/// read and compared, so an unchanged file is never rewritten, even across restarts.
pub struct Publisher {
    out_dir: Utf8PathBuf,
    /// Every file this tool owns in the folder, with the hash of its bytes when known.
    files: HashMap<Arc<str>, Option<u128>>,
    /// The owned paths as the manifest on disk lists them.
    manifest: Manifest,
    /// Outputs left to the site's own file (`ownership::YIELDS_TO_SITE`): never written.
    yielded: HashSet<Arc<str>>,
    /// The groups of the last successful publish. Holding them keeps their allocations alive,
    /// so an address seen again is the same list, not a new one at a reused address.
    last_groups: Vec<Files>,
}

impl Publisher {
    /// A publisher for `out_dir`, knowing which files an earlier build wrote (its manifest).
    pub fn open(out_dir: &Utf8Path) -> Publisher {
        let manifest = Manifest::load(out_dir);
        Publisher {
            out_dir: out_dir.to_owned(),
            files: manifest
                .paths()
                .map(|path| (Arc::from(path), None))
                .collect(),
            manifest,
            yielded: HashSet::new(),
            last_groups: Vec::new(),
        }
    }

    /// Every file this tool owns in the folder (after a publish: the outputs it wrote).
    pub fn owned_paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(|path| &**path)
    }

    /// False when files were published and the manifest has since disappeared (the output
    /// folder was deleted): the next publish must write everything again.
    pub fn is_intact(&self) -> bool {
        !self.files.values().any(Option::is_some) || self.out_dir.join(MANIFEST_PATH).is_file()
    }

    /// Makes the folder hold exactly `outputs` (plus files this tool never wrote), as one group.
    pub fn publish(&mut self, outputs: &[(Arc<str>, Output)]) -> Result<Report, WriteError> {
        self.publish_groups(&[Files::from(outputs)])
    }

    /// Makes the folder hold exactly the files of `groups` (plus files this tool never wrote).
    /// A group that is the very list (same allocation) published last time is skipped without
    /// looking inside: its files are on disk as they were. Writes run in parallel; the manifest
    /// is written last, and only when the set of files changed. Paths must be unique across
    /// groups.
    pub fn publish_groups(&mut self, groups: &[Files]) -> Result<Report, WriteError> {
        if !self.is_intact() {
            // The folder (or its manifest) was deleted behind our back: trust nothing we knew.
            tracing::info!("{} was removed; writing it again", self.out_dir);
            self.files.values_mut().for_each(|hash| *hash = None);
            self.yielded.clear();
            self.last_groups.clear();
        }
        std::fs::create_dir_all(&self.out_dir).map_err(|source| WriteError::Io {
            path: self.out_dir.clone(),
            source,
        })?;
        let published_before: HashSet<*const (Arc<str>, Output)> = self
            .last_groups
            .iter()
            .map(|group| group.as_ptr())
            .collect();
        let mut changed: Vec<&(Arc<str>, Output)> = groups
            .iter()
            .filter(|group| !published_before.contains(&group.as_ptr()))
            .flat_map(|group| group.iter())
            .filter(|(path, _)| !self.yielded.contains(path))
            .collect();
        // Paths seen before were checked then; only new ones need the check.
        let mut new_outputs = Vec::new();
        for entry in changed.iter().copied() {
            if !self.files.contains_key(&entry.0) {
                check_relative(&entry.0).map_err(|reason| WriteError::Unsafe {
                    path: entry.0.to_string(),
                    reason,
                })?;
                new_outputs.push(entry);
            }
        }
        // Before anything is written: a file of another owner in the way stops the build.
        let claims = ownership::claim(&self.out_dir, new_outputs.iter().copied())?;
        let new_paths = new_outputs.len() - claims.yielded.len();
        if !claims.yielded.is_empty() {
            self.yielded.extend(claims.yielded);
            changed.retain(|(path, _)| !self.yielded.contains(path));
        }
        // Every path of an unchanged group is owned already; with no new path among the others
        // and as many outputs as owned files, the set of files is the same: nothing to remove,
        // and the manifest stays as it is. Yielded paths are outputs, not owned files.
        let mut total: usize = groups.iter().map(|group| group.len()).sum();
        if !self.yielded.is_empty() {
            total -= groups
                .iter()
                .flat_map(|group| group.iter())
                .filter(|(path, _)| self.yielded.contains(path))
                .count();
        }
        let same_paths = new_paths == 0 && total == self.files.len();
        let out_dir = &self.out_dir;
        let manifest = &self.manifest;
        // A known hash that differs means the file differs; only a file whose content is not
        // known (first publish, folder deleted) is read and compared before writing.
        let stale: Vec<(&(Arc<str>, Output), bool)> = changed
            .into_iter()
            .filter_map(|entry| match self.files.get(&entry.0).copied().flatten() {
                Some(hash) if hash == entry.1.hash => None,
                Some(_) => Some((entry, false)),
                None => Some((entry, true)),
            })
            .collect();
        let written: Vec<Result<Option<Arc<str>>, WriteError>> = stale
            .par_iter()
            .with_max_len(8)
            .map(|((path, output), unknown)| {
                if ownership::is_merged(path) {
                    let wrote =
                        ownership::write_merged(out_dir, path, output, manifest.contains(path))?;
                    return Ok(wrote.then(|| path.clone()));
                }
                let target = out_dir.join(&**path);
                if *unknown && std::fs::read(&target).is_ok_and(|bytes| output.eq_bytes(&bytes)) {
                    return Ok(None);
                }
                write_output(out_dir, path, output)?;
                Ok(Some(path.clone()))
            })
            .collect();
        let mut report = Report::default();
        for result in written {
            if let Some(path) = result? {
                report.written.push(path);
            }
        }
        report.unchanged = total - report.written.len();
        for ((path, output), _) in &stale {
            self.files.insert(path.clone(), Some(output.hash));
        }
        let yielded = self.yielded.clone();
        let all_paths = || {
            groups
                .iter()
                .flat_map(|group| group.iter().map(|(path, _)| path))
                .filter(|path| !yielded.contains(*path))
        };
        if !same_paths {
            self.remove_stale(all_paths().map(|path| &**path).collect(), &mut report)?;
        }
        let manifest_missing = !self.out_dir.join(MANIFEST_PATH).is_file();
        if !same_paths || manifest_missing {
            let manifest = Manifest::from_paths(all_paths().map(|path| &**path));
            if manifest != self.manifest || manifest_missing {
                write_atomically(&self.out_dir, MANIFEST_PATH, &manifest.to_bytes())?;
                self.manifest = manifest;
            }
        }
        // Only now is every file of every group on disk: the next publish may skip them.
        self.last_groups = groups.to_vec();
        report.written.sort();
        Ok(report)
    }

    /// Removes the owned files that are no longer outputs, with the folders they leave empty.
    fn remove_stale(
        &mut self,
        current: HashSet<&str>,
        report: &mut Report,
    ) -> Result<(), WriteError> {
        let mut gone: Vec<Arc<str>> = self
            .files
            .keys()
            .filter(|path| !current.contains(&***path))
            .cloned()
            .collect();
        gone.sort();
        for path in gone {
            self.files.remove(&path);
            if check_relative(&path).is_err() {
                continue; // A manifest edited by hand cannot make us delete outside the folder.
            }
            if ownership::is_merged(&path) {
                // Shared with the site: only the tool's block goes.
                if ownership::release_merged(&self.out_dir, &path)? {
                    report.removed.push(path.to_string());
                }
                continue;
            }
            let target = self.out_dir.join(&*path);
            match std::fs::remove_file(&target) {
                Ok(()) => {
                    remove_empty_parents(&self.out_dir, &target);
                    report.removed.push(path.to_string());
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
        Ok(())
    }
}

/// The bytes an output has in a folder where the site has no files of its own: a merged host
/// file (`_headers`, `_redirects`) is wrapped in the tool's marked block; others are as they are.
pub fn as_written(path: &str, bytes: Vec<u8>) -> Vec<u8> {
    if ownership::is_merged(path) {
        ownership::merge(&bytes, "")
    } else {
        bytes
    }
}

/// Writes `bytes` to `out_dir/relative` through a temporary file and a rename.
pub fn write_atomically(
    out_dir: &Utf8Path,
    relative: &str,
    bytes: &[u8],
) -> Result<(), WriteError> {
    replace_atomically(out_dir, relative, |file| file.write_all(bytes))
}

/// Writes an output's chunks to `out_dir/relative` through a temporary file and a rename.
pub fn write_output(out_dir: &Utf8Path, relative: &str, output: &Output) -> Result<(), WriteError> {
    replace_atomically(out_dir, relative, |file| output.write_to(file))
}

/// Creates a temporary file next to the target, lets `fill` write it, and renames it over the
/// target, so that a reader sees the old or the new content, never a mix.
fn replace_atomically(
    out_dir: &Utf8Path,
    relative: &str,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
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
        fill(&mut file)?;
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
