//! Steps 4 and 5 of a publish: [`Publisher::write_files`] writes the outputs that differ (in
//! parallel, each folder opened once) and [`Publisher::remove_stale`] removes the owned files
//! no longer published. Here too what a write needs: what became of each output (`Written`), a
//! writer that hashes what it writes (`Hashing`), one that stops between blocks when asked
//! (`UntilStopped`), and the folders of a publish opened once each.

use super::Publisher;
use super::plan::{DiskState, Plan};
use crate::at::{AtFlags, OwnedFd};
use crate::dir::{OutDir, read_in};
use crate::output::Files;
use crate::source::FileStamp;
use crate::yielding_documents::is_recorded;
use crate::{Report, Stop, WriteError, file_name, ownership, parent_of};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

impl Publisher {
    /// Step 4. Writes the outputs that differ, in parallel. What was written is remembered even
    /// when another write fails, so a retry does not write it again. Each folder is opened
    /// (created when missing) once, and its files are written through that handle. Once `stop`
    /// says so, no file is started and the one being written is abandoned.
    pub(crate) fn write_files(
        &mut self,
        plan: &Plan<'_>,
        cold: bool,
        stop: &Stop<'_>,
    ) -> Result<Report, WriteError> {
        let dir = self.dir();
        let (out_dir, manifest, yielded) = (&self.out_dir, &self.manifest, &self.yielded);
        // A daemon's files are looked at again for hand edits (`intact`); a build's never.
        let stamped = !self.one_shot;
        let folders = open_folders(dir, plan)?;
        // Largest first, and one file per task when there are few: an edit's two post indexes,
        // the largest files it changes, are then written by two cores at once.
        let mut stale: Vec<_> = plan.stale.iter().collect();
        stale.sort_by_key(|((_, output), _)| std::cmp::Reverse(output.len()));
        let max_len = if stale.len() <= 64 { 1 } else { 8 };
        let results: Vec<Result<Written, WriteError>> = stale
            .par_iter()
            .with_max_len(max_len)
            .map(|((path, output), on_disk)| {
                if stop() {
                    return Err(WriteError::Stopped);
                }
                if ownership::is_merged(path) {
                    // Shared with the site: its lines are kept around the tool's block.
                    let written = ownership::write_merged(
                        out_dir,
                        path,
                        output,
                        manifest.contains(path),
                        yielded,
                    )?;
                    return Ok(Written::unstamped(written, None));
                }
                let folder = &folders[parent_of(path)];
                let name = file_name(path);
                let mut hasher = is_recorded(path).then(Xxh3::new);
                let mut compare = *on_disk == DiskState::Unknown;
                if cold && *on_disk == DiskState::Missing {
                    let created = dir.create_in(folder, name, path, |file| {
                        output.write_to(&mut Hashing::new(file, hasher.as_mut()))
                    })?;
                    if created {
                        return Ok(Written::unstamped(true, hasher));
                    }
                    // Something appeared there since the plan looked: the safe way.
                    compare = true;
                    hasher = is_recorded(path).then(Xxh3::new);
                }
                if compare
                    && let Some(bytes) = read_in(folder, name)
                    && output.eq_bytes(&bytes)
                {
                    let stat = crate::at::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW);
                    return Ok(Written {
                        written: false,
                        digest: hasher.map(|_| xxh3_128(&bytes)),
                        stamp: stat
                            .ok()
                            .filter(|_| stamped)
                            .map(|s| FileStamp::of_stat(&s)),
                    });
                }
                let mut stamp = None;
                dir.replace_in(folder, name, path, output.len(), |file| {
                    let until_stopped = UntilStopped {
                        file: &mut *file,
                        stop,
                    };
                    output.write_to(&mut Hashing::new(until_stopped, hasher.as_mut()))?;
                    // The temporary file is renamed into place: same inode, size and mtime.
                    if stamped {
                        stamp = crate::at::fstat_file(file)
                            .ok()
                            .map(|s| FileStamp::of_stat(&s));
                    }
                    Ok(())
                })
                .map_err(stopped_or_failed)?;
                Ok(Written {
                    written: true,
                    digest: hasher.map(|hasher| hasher.digest128()),
                    stamp,
                })
            })
            .collect();
        let mut report = Report::default();
        let mut first_error = None;
        let mut stopped = false;
        for (((path, output), _), result) in stale.into_iter().zip(results) {
            match result {
                Ok(Written {
                    written,
                    digest,
                    stamp,
                }) => {
                    self.files.insert(path.clone(), Some(output.hash));
                    match stamp {
                        Some(stamp) => self.stamps.insert(path.clone(), stamp),
                        None => self.stamps.remove(path),
                    };
                    if let Some(digest) = digest {
                        self.digests.insert(path.clone(), digest);
                    }
                    if written {
                        report.written.push(path.clone());
                    }
                }
                // Not written, and the old file is whole: what is known of it stays true.
                Err(WriteError::Stopped) => stopped = true,
                Err(err) => {
                    self.files.insert(path.clone(), None);
                    self.stamps.remove(path);
                    self.digests.remove(path);
                    first_error.get_or_insert(err);
                }
            }
        }
        if first_error.is_some() || stopped {
            // Reported by the next publish that succeeds: a CDN's purge list must name every
            // URL whose bytes changed.
            self.unreported.append(&mut report.written);
        }
        match first_error {
            Some(err) => Err(err),
            None if stopped => Err(WriteError::Stopped),
            None => Ok(report),
        }
    }

    /// Step 5. Removes the owned files that are no longer outputs, with the folders they leave
    /// empty. A path that goes through a link or a file is not ours to follow: it is dropped
    /// with a warning.
    pub(crate) fn remove_stale(
        &mut self,
        groups: &[Files],
        report: &mut Report,
    ) -> Result<(), WriteError> {
        let current: HashSet<&str> = self.owned_outputs(groups).map(|path| &**path).collect();
        let mut gone: Vec<Arc<str>> = self
            .files
            .keys()
            .filter(|path| !current.contains(&***path))
            .cloned()
            .collect();
        gone.sort();
        for path in gone {
            if ownership::is_merged(&path) {
                // Shared with the site: only the tool's block goes.
                if ownership::release_merged(&self.out_dir, &path)? {
                    report.removed.push(path.to_string());
                }
                self.files.remove(&path);
                continue;
            }
            match self.dir().remove(&path) {
                Ok(true) => report.removed.push(path.to_string()),
                Ok(false) => {}
                Err(err @ (WriteError::Symlink { .. } | WriteError::NotADirectory { .. })) => {
                    tracing::warn!("not removing {path}: {err}");
                }
                Err(err) => return Err(err),
            }
            self.files.remove(&path);
        }
        Ok(())
    }
}

/// What became of one output: written or found right on disk, with the xxh3-128 of its bytes
/// when it is a document the site may replace (`yielding_documents`), and its stamp on disk when
/// a daemon wrote it (`intact`).
pub(crate) struct Written {
    pub(crate) written: bool,
    pub(crate) digest: Option<u128>,
    pub(crate) stamp: Option<FileStamp>,
}

impl Written {
    pub(crate) fn unstamped(written: bool, hasher: Option<Xxh3>) -> Written {
        Written {
            written,
            digest: hasher.map(|hasher| hasher.digest128()),
            stamp: None,
        }
    }
}

/// A writer that hashes the bytes it hands on, when given a hasher: the digest of a file
/// comes from the same pass that writes it.
pub(crate) struct Hashing<'a, W> {
    inner: W,
    hasher: Option<&'a mut Xxh3>,
}

impl<'a, W: Write> Hashing<'a, W> {
    pub(crate) fn new(inner: W, hasher: Option<&'a mut Xxh3>) -> Self {
        Hashing { inner, hasher }
    }
}

impl<W: Write> Write for Hashing<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        if let Some(hasher) = self.hasher.as_mut() {
            hasher.update(&bytes[..written]);
        }
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// At most this many bytes go to one `write` of [`UntilStopped`]: a stop waits for no more.
const ASK_EVERY: usize = 1 << 20;

/// A file that takes no more bytes once `stop` says so: asked before each block of an output.
pub(crate) struct UntilStopped<'a, 'b> {
    pub(crate) file: &'a mut std::fs::File,
    pub(crate) stop: &'a Stop<'b>,
}

/// The error [`UntilStopped`] gives, told apart from the file system's by its type.
#[derive(Debug, thiserror::Error)]
#[error("stopped for a newer change")]
struct StoppedWriting;

impl Write for UntilStopped<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if (self.stop)() {
            return Err(std::io::Error::other(StoppedWriting));
        }
        // A single long chunk is written a mebibyte at a time too, asking in between.
        self.file.write(&bytes[..bytes.len().min(ASK_EVERY)])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// [`WriteError::Stopped`] for a write that [`UntilStopped`] ended (its temporary file is
/// removed, the old file stays), the error itself otherwise.
pub(crate) fn stopped_or_failed(err: WriteError) -> WriteError {
    match &err {
        WriteError::Io { source, .. }
            if source
                .get_ref()
                .is_some_and(|inner| inner.is::<StoppedWriting>()) =>
        {
            WriteError::Stopped
        }
        _ => err,
    }
}

/// Opens (creating it when missing) every folder the plan writes a file to, parents first.
pub(crate) fn open_folders<'a>(
    dir: &OutDir,
    plan: &Plan<'a>,
) -> Result<HashMap<&'a str, OwnedFd>, WriteError> {
    let folders: BTreeSet<&'a str> = plan
        .stale
        .iter()
        .map(|((path, _), _)| &**path)
        .filter(|path| !ownership::is_merged(path))
        .map(parent_of)
        .collect();
    folders
        .into_iter()
        .map(|folder| {
            let fd = dir.folder(folder, true)?;
            Ok((folder, fd.expect("a folder is created when missing")))
        })
        .collect()
}
