//! A post body left on disk by a one-shot build: where it is, and its digest, so that the writer
//! can read it again when it writes the files that publish it, and know it is the text the build
//! read.
//!
//! A 50,000-post site's bodies are 300 MB: held from the scan to the last write, they were 40%
//! of a build's peak memory, for text the build only copies out.

use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;
use xxhash_rust::xxh3::xxh3_64;

/// A range of a content file's bytes, as they were when the build read them.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DiskBody {
    /// The file, as the scan read it.
    disk_path: PathBuf,
    /// Where the range starts, in bytes.
    start: u64,
    len: u32,
    /// The xxh3-64 hash of the range's bytes when the build read them.
    digest: u64,
}

impl DiskBody {
    /// `text[range]` of the file at `disk_path`; `None` when the range is not a `str` range of
    /// `text` or is longer than 4 GB.
    pub fn new(disk_path: PathBuf, text: &str, range: std::ops::Range<usize>) -> Option<DiskBody> {
        let bytes = text.get(range.clone())?.as_bytes();
        Some(DiskBody {
            disk_path,
            start: range.start as u64,
            len: u32::try_from(bytes.len()).ok()?,
            digest: xxh3_64(bytes),
        })
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

    /// Reads the range again into `buf`. An error when the file cannot be read, is no longer a
    /// regular file, or its bytes differ from what the build read: the file changed while the
    /// build ran, and what it would publish would not be what it checked.
    pub fn read<'b>(&self, buf: &'b mut Vec<u8>) -> io::Result<&'b str> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(&self.disk_path)
            .map_err(|err| self.unreadable(err))?;
        let meta = file.metadata().map_err(|err| self.unreadable(err))?;
        if !meta.is_file() {
            return Err(self.changed("it is no longer a regular file"));
        }
        buf.clear();
        buf.resize(self.len(), 0);
        match file.read_exact_at(buf, self.start) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(self.changed("it is shorter now"));
            }
            Err(err) => return Err(self.unreadable(err)),
        }
        if xxh3_64(buf) != self.digest {
            return Err(self.changed("its text differs"));
        }
        std::str::from_utf8(buf).map_err(|_| self.changed("its text differs"))
    }

    fn changed(&self, how: &str) -> io::Error {
        io::Error::other(format!(
            "{} changed while the build was running ({how}): run the build again",
            self.disk_path.display()
        ))
    }

    fn unreadable(&self, err: io::Error) -> io::Error {
        io::Error::new(
            err.kind(),
            format!(
                "cannot read {} again for its body: {err}",
                self.disk_path.display()
            ),
        )
    }
}
