//! What writing an output needs (`Publisher::write_files`): what became of each output
//! (`Written`), a writer that hashes what it writes (`Hashing`), one that stops between blocks
//! when asked (`UntilStopped`), and the folders of a publish opened once each.

use super::dir::OutDir;
use super::intact::OutputStamp;
use super::plan::Plan;
use super::{Stop, WriteError, ownership, parent_of};
use crate::at::OwnedFd;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use xxhash_rust::xxh3::Xxh3;

/// What became of one output: written or found right on disk, with the xxh3-128 of its bytes
/// when it is a document the site may replace (`yielding_documents`), and its stamp on disk when
/// a daemon wrote it (`intact`).
pub(crate) struct Written {
    pub(crate) written: bool,
    pub(crate) digest: Option<u128>,
    pub(crate) stamp: Option<OutputStamp>,
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
