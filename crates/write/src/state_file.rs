//! Reading the files this tool keeps (the manifest, the intent record, the fingerprint, the
//! publishing history, what the last build published) and the site's few that it looks at:
//! untrusted input, so each is opened without blocking (a FIFO in its place is an error, not a
//! hang), must be a regular file, and is read up to a bound (a link to `/dev/zero` or a huge
//! file is an error naming it, not a read until memory runs out).

use camino::Utf8Path;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;

/// Why a state file was not read.
#[derive(Debug, thiserror::Error)]
pub enum StateReadError {
    /// Something else than a regular file is at the path.
    #[error("{path} is {kind}, not a file")]
    NotAFile {
        /// The path read.
        path: String,
        /// What is there.
        kind: &'static str,
    },
    /// Larger than the bound.
    #[error("{path} is larger than {limit} MiB")]
    TooLarge {
        /// The path read.
        path: String,
        /// The bound, in mebibytes.
        limit: u64,
    },
    /// The file system refused.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path read.
        path: String,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// Whether a symbolic link at the path itself is followed: yes for a file the user names (a
/// history kept elsewhere), no for the tool's own state in the output folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// The path may be a link to a file.
    Follow,
    /// A link at the path is an error.
    Refuse,
}

/// The bytes of the regular file at `path`, at most `max_bytes`; `Ok(None)` when nothing is
/// there.
pub fn read_state(
    path: &Utf8Path,
    max_bytes: u64,
    links: Links,
) -> Result<Option<Vec<u8>>, StateReadError> {
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let io = |source: std::io::Error| StateReadError::Io {
        path: path.to_string(),
        source,
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
    {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(StateReadError::NotAFile {
                path: path.to_string(),
                kind: "a symbolic link",
            });
        }
        Err(err) => return Err(io(err)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(StateReadError::NotAFile {
            path: path.to_string(),
            kind: crate::source::kind_of(meta.file_type()),
        });
    }
    read_bounded(file, &meta, path.as_str(), max_bytes).map(Some)
}

/// The bytes of `file`, an open regular file (`meta` its metadata), at most `max_bytes`: a
/// file larger than its metadata said (growing as it is read) is refused too. `path` names
/// it in errors.
pub fn read_bounded(
    file: std::fs::File,
    meta: &std::fs::Metadata,
    path: &str,
    max_bytes: u64,
) -> Result<Vec<u8>, StateReadError> {
    let too_large = || StateReadError::TooLarge {
        path: path.to_string(),
        limit: max_bytes >> 20,
    };
    if meta.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| StateReadError::Io {
            path: path.to_string(),
            source,
        })?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(path: &Utf8Path) {
        let name = std::ffi::CString::new(path.as_str()).unwrap();
        // SAFETY: mkfifo(3) on a path of this test's folder.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_fifo_a_device_a_link_or_a_huge_file_is_an_error_never_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        assert!(
            read_state(&root.join("none"), 10, Links::Refuse)
                .unwrap()
                .is_none()
        );
        fifo(&root.join("fifo"));
        let err = read_state(&root.join("fifo"), 10, Links::Follow).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        std::os::unix::fs::symlink("/dev/zero", root.join("zero")).unwrap();
        let err = read_state(&root.join("zero"), 10, Links::Follow).unwrap_err();
        assert!(err.to_string().contains("device"), "{err}");
        let err = read_state(&root.join("zero"), 10, Links::Refuse).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        std::fs::write(root.join("big"), vec![b'x'; 3 << 20]).unwrap();
        let err = read_state(&root.join("big"), 1 << 20, Links::Refuse).unwrap_err();
        assert!(err.to_string().contains("larger than 1 MiB"), "{err}");
        std::fs::write(root.join("ok"), "fine").unwrap();
        assert_eq!(
            read_state(&root.join("ok"), 10, Links::Refuse)
                .unwrap()
                .unwrap(),
            b"fine"
        );
    }
}
