//! Reading back one file of a published build, by its path in the output folder, for the
//! tool's readers (`serve`, `mcp`): the folder is untrusted by then (anyone may have put a
//! link or a FIFO in it), so a file is read only if it is inside the folder once every
//! symbolic link is resolved (a link leading out of it is no file), opened without waiting
//! (`O_NONBLOCK`: a FIFO is refused at once, never waited on), and a regular file.

use crate::state_file::{StateReadError, read_bounded};
use std::io;
use std::path::{Path, PathBuf};

/// What is at a path of the output folder.
#[derive(Debug)]
pub enum Opened {
    /// A regular file inside the folder, open for reading.
    File {
        /// Its canonical path.
        path: PathBuf,
        /// The open handle (every read of this version goes through it).
        file: std::fs::File,
        /// Its metadata, from the handle.
        meta: std::fs::Metadata,
    },
    /// Nothing there, or a symbolic link leading out of the folder.
    Absent,
    /// Something else than a regular file (`source::kind_of`'s words: "a FIFO (named pipe)").
    NotAFile(&'static str),
}

/// Opens `relative` (a path that passed `SafePath`, or a tool's path) in the output folder
/// `root`, which must be canonical (`std::fs::canonicalize`'s). `Err` for a failure that is not
/// an absence: a symbolic link loop, a file that cannot be read.
pub fn open_out_file(root: &Path, relative: &str) -> io::Result<Opened> {
    // A canonical root on Windows is a `\\?\` path, in which `/` separates nothing.
    let relative_on_disk = relative.replace('/', std::path::MAIN_SEPARATOR_STR);
    let canonical = match std::fs::canonicalize(root.join(relative_on_disk)) {
        Ok(path) => path,
        Err(err) if is_absent(&err) => return Ok(Opened::Absent),
        Err(err) => return Err(err),
    };
    if !canonical.starts_with(root) {
        tracing::debug!("refusing {relative}: it resolves outside the output folder");
        return Ok(Opened::Absent);
    }
    let file = match crate::at::open_read(&canonical, false) {
        Ok(file) => file,
        // ELOOP here: the last part became a symbolic link after it was resolved.
        Err(err) if is_absent(&err) || crate::at::is_link_refused(&err) => {
            return Ok(Opened::Absent);
        }
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Opened::NotAFile(crate::source::kind_of(meta.file_type())));
    }
    Ok(Opened::File {
        path: canonical,
        file,
        meta,
    })
}

/// The bytes of `relative` in the output folder `root` (canonical), as [`open_out_file`]
/// opens it, at most `max_bytes`; `Ok(None)` when there is no such file inside the folder.
pub fn read_out_file(
    root: &Path,
    relative: &str,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, StateReadError> {
    let named = || format!("/{relative}");
    match open_out_file(root, relative) {
        Ok(Opened::File { file, meta, .. }) => {
            read_bounded(file, &meta, &named(), max_bytes).map(Some)
        }
        Ok(Opened::Absent) => Ok(None),
        Ok(Opened::NotAFile(kind)) => Err(StateReadError::NotAFile {
            path: named(),
            kind,
        }),
        Err(source) => Err(StateReadError::Io {
            path: named(),
            source,
        }),
    }
}

pub use crate::at::{read_exact_at, under_wine};
/// What the file system says about a published file (`serve` keys its cache by it).
pub use crate::source::FileStamp;

/// What the handle of an open file says about it (`fstat`; on Windows its volume serial
/// number, file index and change time, which std's metadata does not give there).
pub fn stat_open(file: &std::fs::File) -> io::Result<crate::at::Stat> {
    crate::at::fstat_file(file).map_err(io::Error::from)
}

/// Errors that mean "there is no such file", as opposed to a failure.
#[cfg(windows)]
use crate::at::is_absent;

/// Errors that mean "there is no such file", as opposed to a failure.
#[cfg(unix)]
fn is_absent(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::ENOENT | libc::ENOTDIR | libc::ENAMETOOLONG | libc::EISDIR)
    ) || err.kind() == io::ErrorKind::NotFound
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A canonical output folder holding `api/a.json`, and a file outside it.
    fn folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("out");
        std::fs::create_dir_all(root.join("api")).unwrap();
        std::fs::write(root.join("api/a.json"), "[1]").unwrap();
        std::fs::write(root.parent().unwrap().join("secret"), "secret").unwrap();
        (dir, root)
    }

    #[test]
    fn a_file_inside_is_read_and_a_link_out_of_the_folder_is_no_file() {
        let (_dir, root) = folder();
        assert_eq!(
            read_out_file(&root, "api/a.json", 10).unwrap().unwrap(),
            b"[1]"
        );
        assert!(read_out_file(&root, "api/none.json", 10).unwrap().is_none());
        std::os::unix::fs::symlink("../../secret", root.join("api/out.json")).unwrap();
        assert!(read_out_file(&root, "api/out.json", 10).unwrap().is_none());
        // A link that stays inside is read.
        std::os::unix::fs::symlink("a.json", root.join("api/in.json")).unwrap();
        assert_eq!(
            read_out_file(&root, "api/in.json", 10).unwrap().unwrap(),
            b"[1]"
        );
    }

    #[test]
    fn a_fifo_a_device_or_a_large_file_is_refused_at_once() {
        let (_dir, root) = folder();
        let fifo = std::ffi::CString::new(root.join("api/fifo.json").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a path of this test's folder.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let err = read_out_file(&root, "api/fifo.json", 10).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        // /dev/zero is outside the folder: no file, never a read without end.
        std::os::unix::fs::symlink("/dev/zero", root.join("api/zero.json")).unwrap();
        assert!(read_out_file(&root, "api/zero.json", 10).unwrap().is_none());
        std::fs::write(root.join("api/big.json"), vec![b'x'; 3 << 20]).unwrap();
        let err = read_out_file(&root, "api/big.json", 1 << 20).unwrap_err();
        assert!(err.to_string().contains("larger than 1 MiB"), "{err}");
    }
}
