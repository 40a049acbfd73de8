//! Reading a post body left on disk again ([`BodyFiles`], the [`BodyReader`] a one-shot build's
//! scan hands the engine with each [`DiskBody`]), checked against the digest the build read.

use crate::content::{BodyReader, DiskBody};
use std::io;
use xxhash_rust::xxh3::xxh3_64;

/// The content files on disk, as a one-shot build's bodies are read again from them.
pub struct BodyFiles;

/// The reader every [`DiskBody`] made by a scan carries.
pub static BODY_FILES: BodyFiles = BodyFiles;

impl BodyReader for BodyFiles {
    /// Reads the range again into `buf`. An error when the file cannot be read or its bytes
    /// differ from what the build read: the file changed while the build ran, and what it would
    /// publish would not be what it checked. (Opened without waiting, as every content read is;
    /// no `fstat`: whatever replaced the file, its bytes must match the digest or the read fails.)
    fn read<'b>(&self, body: &DiskBody, buf: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
        let file = crate::at::read_options()
            .open(body.disk_path())
            .map_err(|err| unreadable(body, err))?;
        buf.clear();
        buf.resize(body.len(), 0);
        match crate::at::read_exact_at(&file, buf, body.start()) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(changed(body, "it is shorter now"));
            }
            Err(err) => return Err(unreadable(body, err)),
        }
        if xxh3_64(buf) != body.digest() {
            return Err(changed(body, "its text differs"));
        }
        // The bytes the scan read and checked as UTF-8, as the digest says; the writer takes
        // bytes, so they are not decoded a second time.
        Ok(buf)
    }
}

fn changed(body: &DiskBody, how: &str) -> io::Error {
    io::Error::other(format!(
        "{} changed while the build was running ({how}): run the build again",
        body.disk_path().display()
    ))
}

fn unreadable(body: &DiskBody, err: io::Error) -> io::Error {
    io::Error::new(
        err.kind(),
        format!(
            "cannot read {} again for its body: {err}",
            body.disk_path().display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const TEXT: &str = "---\ntitle: a\n---\nThe body.\n";
    const BODY: std::ops::Range<usize> = 17..27;

    fn body_of(dir: &tempfile::TempDir) -> (PathBuf, DiskBody) {
        let path = dir.path().join("post.md");
        std::fs::write(&path, TEXT).unwrap();
        let body = DiskBody::new(&BODY_FILES, path.clone(), TEXT, BODY).unwrap();
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
