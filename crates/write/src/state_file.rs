//! The one reader and the one writer of the files this tool keeps (the manifest, the intent
//! record, the documents' hashes, the fingerprint, the publishing history, what the last build
//! published, the purge list, the Pages route) and of the site's few that it looks at.
//!
//! Reading: untrusted input, so each is opened by [`open_untrusted`] without blocking (a FIFO in
//! its place is an error, not a hang), must be a regular file, and is read up to a bound (a
//! link to `/dev/zero` or a huge file is an error naming it, not a read until memory runs out):
//! [`read_state`] by path, [`Folder::read`] in a folder held open, `dir::OutDir::read_state` in
//! the output folder; [`read_head`] for a site's own file, read for what it says at its start.
//!
//! Writing: `put` is the one rule, for those outside the output folder ([`Folder::write`])
//! and those in its `.content-api` (`dir::OutDir::write_state`): the bytes go into a new
//! temporary file that is created, never opened (`O_CREAT | O_EXCL | O_NOFOLLOW`: a link or
//! file planted at its name is not written through), synced, then renamed, all relative to
//! folders held open (the tool's own state folder may not be a link).

use crate::at::Errno;
use crate::at::OwnedFd;
use crate::at::{AtFlags, Mode, OFlags};
use camino::{Utf8Path, Utf8PathBuf};
use std::io::{Read, Write};

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

/// Opens the file at `path` for reading as untrusted input: without blocking (`O_NONBLOCK`: a
/// FIFO answers at once), not inherited by child processes, and without following a link at
/// the path itself when `links` refuses it (`ELOOP` then). The caller checks it is a regular
/// file.
pub fn open_untrusted(path: &std::path::Path, links: Links) -> std::io::Result<std::fs::File> {
    crate::at::open_read(path, links == Links::Follow)
}

/// The bytes of the regular file at `path`, at most `max_bytes`; `Ok(None)` when nothing is
/// there.
pub fn read_state(
    path: &Utf8Path,
    max_bytes: u64,
    links: Links,
) -> Result<Option<Vec<u8>>, StateReadError> {
    let opened = open_untrusted(path.as_std_path(), links);
    read_opened(opened, path.as_str(), max_bytes)
}

/// The first `max_bytes` of a site's own file (`file`, opened by [`open_untrusted`]): a site's
/// file is read for what it says at its start, so a longer one is cut, not refused.
pub fn read_head(file: std::fs::File, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(max_bytes).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The bytes of a state file just opened (`opened`, without following a link at its name where
/// that is refused), at most `max_bytes`; `Ok(None)` when nothing was there. Only a regular
/// file is read. `path` names it in errors.
fn read_opened(
    opened: std::io::Result<std::fs::File>,
    path: &str,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, StateReadError> {
    let io = |source: std::io::Error| StateReadError::Io {
        path: path.to_string(),
        source,
    };
    let file = match opened {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) if crate::at::is_link_refused(&err) => {
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
    read_bounded(file, &meta, path, max_bytes).map(Some)
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

/// A folder held open, that state files are read from and written into by name.
pub struct Folder {
    path: Utf8PathBuf,
    fd: OwnedFd,
}

impl Folder {
    /// A folder the user chose (the history's, the purge list's, the Pages Functions'),
    /// created when missing; it may be a link to a folder.
    pub fn named(path: &Utf8Path) -> std::io::Result<Folder> {
        std::fs::create_dir_all(path)?;
        Folder::open(path, Links::Follow)
    }

    /// The tool's own state folder (`.content-api` beside the history), created when `create`;
    /// `Ok(None)` when missing and not created. A link there is an error naming it: the state
    /// is the tool's, so it is never written through a link that someone else could point
    /// anywhere (the same rule as the output folder's `.content-api`).
    pub fn own(path: &Utf8Path, create: bool) -> std::io::Result<Option<Folder>> {
        if create {
            if let Some(parent) = path.parent().filter(|p| !p.as_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            match std::fs::create_dir(path) {
                Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => return Err(err),
                _ => {}
            }
        }
        match Folder::open(path, Links::Refuse) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            opened => opened.map(Some),
        }
    }

    fn open(path: &Utf8Path, links: Links) -> std::io::Result<Folder> {
        let mut flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        if links == Links::Refuse {
            flags |= OFlags::NOFOLLOW;
        }
        match crate::at::open(path.as_std_path(), flags, Mode::empty()) {
            Ok(fd) => Ok(Folder {
                path: path.to_owned(),
                fd,
            }),
            Err(Errno::LOOP | Errno::NOTDIR) => Err(std::io::Error::other(not_a_folder(path))),
            Err(errno) => Err(errno.into()),
        }
    }

    /// The folder's path, as it was opened.
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    /// [`read_state`] of the file `name` in this folder (a link at `name` is an error).
    pub fn read(&self, name: &str, max_bytes: u64) -> Result<Option<Vec<u8>>, StateReadError> {
        read_at(&self.fd, name, self.path.join(name).as_str(), max_bytes)
    }

    /// Puts `bytes` at `name` in this folder by `put`, the temporary file beside it.
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let (temp, fd) = self.create_temp(name)?;
        put(fd, &self.fd, &temp, &self.fd, name, bytes)
    }

    /// A new temporary file beside `name`: created, never opened (`O_EXCL | O_NOFOLLOW`), under
    /// a name no one can guess (a random part: files planted at every predictable name cannot
    /// stop the write), tried again under a new one when something holds it; past
    /// [`TEMP_TRIES`] taken names, an error that names the file and what to do.
    fn create_temp(&self, name: &str) -> std::io::Result<(String, OwnedFd)> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        // Cut so the temporary name fits in a file name whatever the target's length.
        let mut keep = name.len().min(100);
        while !name.is_char_boundary(keep) {
            keep -= 1;
        }
        let mut last = String::new();
        for _ in 0..TEMP_TRIES {
            let temp = format!(
                ".{}.{}-{:016x}.tmp",
                &name[..keep],
                std::process::id(),
                unguessable()
            );
            match crate::at::openat(&self.fd, &temp, flags, Mode::from_raw_mode(0o644)) {
                Ok(fd) => return Ok((temp, fd)),
                Err(Errno::EXIST) => last = temp,
                Err(errno) => return Err(errno.into()),
            }
        }
        Err(std::io::Error::other(format!(
            "cannot create a temporary file to write {}: {TEMP_TRIES} random names beside it were taken (the last: {last})\n  = help: remove the files named .{}.*.tmp in {}, then build again",
            self.path.join(name),
            &name[..keep],
            self.path
        )))
    }
}

/// How many temporary names are tried before a write gives up.
const TEMP_TRIES: usize = 16;

/// 64 bits no other process can predict: std's per-process random hash keys, with a counter so
/// two names of one process differ.
fn unguessable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    hasher.finish()
}

/// [`read_state`] of the file `name` in the open folder `dir` (a link at `name` is an error);
/// `shown` names it in errors.
pub(crate) fn read_at(
    dir: &OwnedFd,
    name: &str,
    shown: &str,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, StateReadError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let opened = crate::at::openat(dir, name, flags, Mode::empty())
        .map(std::fs::File::from)
        .map_err(std::io::Error::from);
    read_opened(opened, shown, max_bytes)
}

/// The one way a state file is put in place: `bytes` are written into `temp_file` (the new
/// temporary file `temp` of the folder `temp_dir`, created with `O_EXCL | O_NOFOLLOW`), the
/// file is synced, then renamed over `name` in `dir` (a link at `name` is replaced, not
/// followed); on failure the temporary name is removed.
///
/// Synced before the rename, every time: a state file is small and written once a publish (in
/// watch mode, once a save that changes the output), and after a crash the rename may reach
/// the disk before the data (ext4 without `auto_da_alloc`, XFS, btrfs), which would leave an
/// empty manifest or history where the old one was. A reader then sees the old or the new
/// file, never an empty or half-written one.
pub(crate) fn put(
    temp_file: OwnedFd,
    temp_dir: &OwnedFd,
    temp: &str,
    dir: &OwnedFd,
    name: &str,
    bytes: &[u8],
) -> std::io::Result<()> {
    let mut file = std::fs::File::from(temp_file);
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| crate::at::renameat(temp_dir, temp, dir, name).map_err(Into::into));
    if written.is_err() {
        let _ = crate::at::unlinkat(temp_dir, temp, AtFlags::empty());
    }
    written
}

/// Writes `bytes` to `path` through [`Folder::write`] in its folder (created when missing), a
/// folder the user chose.
pub fn write_beside(path: &Utf8Path, bytes: &[u8]) -> std::io::Result<()> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_str().is_empty() => folder,
        _ => Utf8Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other(format!("{path} names no file")))?;
    Folder::named(folder)?.write(name, bytes)
}

fn not_a_folder(path: &Utf8Path) -> String {
    let what = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => "a symbolic link",
        _ => "not a folder",
    };
    format!(
        "{path} is {what}: content-api keeps its state only in a folder of its own, never through a link (remove it; the next recorded build makes the folder)"
    )
}

#[cfg(all(test, unix))]
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

    #[test]
    fn a_write_never_goes_through_a_link_at_its_temporary_name_or_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let victim = root.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        // Links planted at every predictable temporary name (the names of older versions).
        let folder = Folder::named(&root.join("site")).unwrap();
        for n in 0..=100 {
            let temp = root.join(format!("site/.state.{}-{n}.tmp", std::process::id()));
            std::os::unix::fs::symlink(&victim, temp).unwrap();
        }
        folder.write("state", b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            std::fs::read_to_string(root.join("site/state")).unwrap(),
            "new"
        );
        // The tool's own state folder may not be a link.
        std::fs::create_dir(root.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("site/.content-api")).unwrap();
        let err = Folder::own(&root.join("site/.content-api"), true)
            .err()
            .expect("a link is refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(
            Folder::own(&root.join("site/none"), false)
                .unwrap()
                .is_none()
        );
    }
}
