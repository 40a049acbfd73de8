//! A post body left on disk by a one-shot build: where it is and its digest, so that the writer
//! can read it again when it writes the files that publish it, and know it is the text the build
//! read.
//!
//! On a large site the bodies are a large share of a build's peak memory when held from the
//! scan to the last write, for text the build only copies out (docs/performance.md). The value
//! carries the reader its maker handed it ([`BodyReader`]): whoever consumes the value (the
//! engine's output chunks) reads through it and knows no file system.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// Reads a body's bytes again, checked against its digest. `source` implements it on the disk.
pub trait BodyReader: Sync {
    /// Reads `body`'s range into `buf`: an error when it cannot be read or its bytes differ
    /// from what the build read.
    fn read<'b>(&self, body: &DiskBody, buf: &'b mut Vec<u8>) -> io::Result<&'b [u8]>;
}

/// A range of a content file's bytes, as they were when the build read them.
pub struct DiskBody {
    /// The file, as the scan read it.
    disk_path: PathBuf,
    /// Where the range starts, in bytes.
    start: u64,
    len: u32,
    /// The xxh3-64 hash of the range's bytes when the build read them.
    digest: u64,
    /// How to read it again.
    reader: &'static dyn BodyReader,
}

impl DiskBody {
    /// `text[range]` of the file at `disk_path`, read again through `reader`; `None` when the
    /// range is not a `str` range of `text` or is longer than 4 GB.
    pub fn new(
        reader: &'static dyn BodyReader,
        disk_path: PathBuf,
        text: &str,
        range: std::ops::Range<usize>,
    ) -> Option<DiskBody> {
        let bytes = text.get(range.clone())?.as_bytes();
        Some(DiskBody {
            disk_path,
            start: range.start as u64,
            len: u32::try_from(bytes.len()).ok()?,
            digest: xxh3_64(bytes),
            reader,
        })
    }

    /// The file, as the scan read it.
    pub fn disk_path(&self) -> &Path {
        &self.disk_path
    }

    /// Where the range starts, in bytes.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The xxh3-64 hash of the bytes: what a hash over an output's pieces takes for this one.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// Reads the range again into `buf`, through the reader the body was made with.
    pub fn read<'b>(&self, buf: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
        self.reader.read(self, buf)
    }

    fn identity(&self) -> (&Path, u64, u32, u64) {
        (&self.disk_path, self.start, self.len, self.digest)
    }
}

// A body is its place and bytes; the reader is how, not what.
impl PartialEq for DiskBody {
    fn eq(&self, other: &DiskBody) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for DiskBody {}

impl Hash for DiskBody {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.identity().hash(state);
    }
}

impl fmt::Debug for DiskBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiskBody")
            .field("disk_path", &self.disk_path)
            .field("start", &self.start)
            .field("len", &self.len)
            .field("digest", &self.digest)
            .finish()
    }
}
