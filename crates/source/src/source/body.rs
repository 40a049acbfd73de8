//! A post body left on disk by a one-shot build: where it is, and its digest, so that the writer
//! can read it again when it writes the files that publish it, and know it is the text the build
//! read.
//!
//! On a large site the bodies are a large share of a build's peak memory when held from the
//! scan to the last write, for text the build only copies out (docs/performance.md).

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

    /// Reads the range again into `buf`. An error when the file cannot be read or its bytes
    /// differ from what the build read: the file changed while the build ran, and what it would
    /// publish would not be what it checked. (Opened without waiting, as every content read is;
    /// no `fstat`: whatever replaced the file, its bytes must match the digest or the read fails.)
    pub fn read<'b>(&self, buf: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(&self.disk_path)
            .map_err(|err| self.unreadable(err))?;
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
        // The bytes the scan read and checked as UTF-8, as the digest says; the writer takes
        // bytes, so they are not decoded a second time.
        Ok(buf)
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

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "---\ntitle: a\n---\nThe body.\n";
    const BODY: std::ops::Range<usize> = 17..27;

    fn body_of(dir: &tempfile::TempDir) -> (PathBuf, DiskBody) {
        let path = dir.path().join("post.md");
        std::fs::write(&path, TEXT).unwrap();
        let body = DiskBody::new(path.clone(), TEXT, BODY).unwrap();
        (path, body)
    }

    #[test]
    fn the_range_is_read_again_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (_, body) = body_of(&dir);
        let mut buf = Vec::new();
        assert_eq!(body.read(&mut buf).unwrap(), b"The body.\n");
        assert_eq!(body.len(), 10);
    }

    #[test]
    fn a_file_changed_since_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let (path, body) = body_of(&dir);
        let mut buf = Vec::new();
        for (now, says) in [
            ("---\ntitle: a\n---\nThe BODY.\n", "its text differs"),
            ("---\ntitle: a\n---\nThe", "it is shorter now"),
        ] {
            std::fs::write(&path, now).unwrap();
            let err = body.read(&mut buf).unwrap_err().to_string();
            assert!(
                err.contains(&path.display().to_string())
                    && err.contains(says)
                    && err.contains("run the build again"),
                "{err}"
            );
        }
        std::fs::remove_file(&path).unwrap();
        let err = body.read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().contains("cannot read"), "{err}");
    }

    #[test]
    fn a_fifo_in_its_place_is_an_error_not_a_wait() {
        let dir = tempfile::tempdir().unwrap();
        let (path, body) = body_of(&dir);
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|status| status.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        assert!(body.read(&mut Vec::new()).is_err());
    }
}
