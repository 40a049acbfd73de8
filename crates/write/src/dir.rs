//! The output folder as an open handle: every operation is relative to it and never follows a
//! symbolic link below it.
//!
//! Each path is walked part by part with `openat(O_DIRECTORY | O_NOFOLLOW)`, so a link
//! anywhere below the folder (planted by hand, or named by an edited manifest) stops the
//! operation instead of leading out of the folder, and a folder swapped for a link between a
//! check and a use cannot redirect a write or a removal. `rustix` gives these calls safe,
//! typed wrappers (it is already in the tree through `tempfile`); `cap-std` would do the same
//! one layer higher, with more API than the writer needs.
//!
//! Over 600 lines because it is one type: every operation of [`OutDir`] shares the walk and
//! the temporary-file rules above, which split files would each have to restate.

use super::WriteError;
use crate::at::Errno;
use crate::at::{AtFlags, FileType, Mode, OFlags, OwnedFd, RenameFlags};
use crate::state_file::{StateReadError, put, read_at};
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::HashSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};

/// Files at least this long are replaced without freeing the old one on the writer's path
/// (see [`OutDir::swap_in_large`]).
const FREE_LATER_FROM: usize = 1 << 20;

/// The longest file name the writer creates (Linux and macOS `NAME_MAX`).
pub const NAME_MAX: usize = 255;
/// The longest path, output folder included (Linux `PATH_MAX` less the terminating NUL).
pub const PATH_MAX: usize = 4095;
/// A temporary file's name keeps at most this much of its target's name (so it fits in
/// `NAME_MAX` whatever the target's length).
const TEMP_NAME_KEEP: usize = 100;

/// Where the writer's temporary files are made, then renamed into place: a folder of the
/// tool's state, so that no folder of the site's ever holds one, and removing what an
/// interrupted writer left never touches a file of the site's, whatever its name.
pub const TEMP_FOLDER: &str = ".content-api/tmp";

/// The output folder, open.
pub struct OutDir {
    path: Utf8PathBuf,
    fd: OwnedFd,
    /// The file system exchanges two names in one step (`RENAME_EXCHANGE`), until it says not.
    exchange: AtomicBool,
    /// [`TEMP_FOLDER`], opened (and created) at the first write that needs it, and again
    /// after someone removed it (`rm -rf out/.content-api`).
    temp: Mutex<Option<Arc<OwnedFd>>>,
}

/// What is at a path below the folder, without following a link.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    Missing,
    File,
    Folder,
    /// A symbolic link, FIFO, socket or device: never written through, read or removed.
    Other,
}

impl OutDir {
    /// Opens `path`, creating it (and its parents) when missing. The folder itself may be a
    /// symbolic link: the user named it.
    pub fn open(path: &Utf8Path) -> Result<OutDir, WriteError> {
        let io = |source: std::io::Error| WriteError::Io {
            path: path.to_owned(),
            source,
        };
        std::fs::create_dir_all(path).map_err(io)?;
        let fd = crate::at::open(
            path.as_std_path(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| io(errno.into()))?;
        Ok(OutDir {
            path: path.to_owned(),
            fd,
            exchange: AtomicBool::new(true),
            temp: Mutex::new(None),
        })
    }

    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    /// The folder of temporary files, created when missing; with `again`, opened anew (the
    /// one held was removed).
    fn temp_folder(&self, again: bool) -> Result<Arc<OwnedFd>, WriteError> {
        let mut held = self
            .temp
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(fd) = held.as_ref().filter(|_| !again) {
            return Ok(fd.clone());
        }
        let fd = Arc::new(
            self.folder(TEMP_FOLDER, true)?
                .expect("folders are created on the way"),
        );
        *held = Some(fd.clone());
        Ok(fd)
    }

    /// Creates the temporary file `temp` in the folder of temporary files. A folder removed
    /// since it was opened answers ENOENT: it is made again, once, so a daemon outlives
    /// someone deleting its state folder as it outlives the output folder's removal.
    fn create_temp(
        &self,
        temp: &str,
        relative: &str,
    ) -> Result<(Arc<OwnedFd>, OwnedFd), WriteError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let create =
            |dir: &OwnedFd| crate::at::openat(dir, temp, flags, Mode::from_raw_mode(0o644));
        let temp_dir = self.temp_folder(false)?;
        match create(&temp_dir) {
            Ok(fd) => Ok((temp_dir, fd)),
            Err(Errno::NOENT) => {
                let temp_dir = self.temp_folder(true)?;
                let fd = create(&temp_dir).map_err(|errno| self.io(relative, errno))?;
                Ok((temp_dir, fd))
            }
            Err(errno) => Err(self.io(relative, errno)),
        }
    }

    /// The folder's own metadata, from the handle this was opened as (no new descriptor: it
    /// answers when the process has none left to open).
    pub fn stat(&self) -> Result<crate::at::Stat, Errno> {
        crate::at::fstat(&self.fd)
    }

    /// A new handle (a new open file description) of the folder.
    pub fn open_again(&self) -> Result<OwnedFd, Errno> {
        open_dir(&self.fd, ".")
    }

    /// The folder holding `relative` (a checked path), and the file's name in it. Missing
    /// folders are created when `create`, else `Ok(None)`.
    pub fn parent<'a>(
        &self,
        relative: &'a str,
        create: bool,
    ) -> Result<Option<(OwnedFd, &'a str)>, WriteError> {
        let (folder, name) = relative.rsplit_once('/').unwrap_or(("", relative));
        Ok(self.folder(folder, create)?.map(|dir| (dir, name)))
    }

    /// The folder `folder` ("" for the output folder itself), walked part by part without
    /// following a link. Missing folders are created when `create`, else `Ok(None)`. A publish
    /// opens each folder it writes to once and writes every file of it through that handle.
    pub fn folder(&self, folder: &str, create: bool) -> Result<Option<OwnedFd>, WriteError> {
        let mut current = crate::at::dup(&self.fd).map_err(|errno| self.io(".", errno))?;
        if folder.is_empty() {
            return Ok(Some(current));
        }
        let mut walked = 0;
        for part in folder.split('/') {
            walked += part.len() + 1;
            let shown = &folder[..walked - 1];
            current = match open_dir(&current, part) {
                Ok(fd) => fd,
                Err(Errno::NOENT) if create => {
                    match crate::at::mkdirat(&current, part, Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(errno) => return Err(self.io(shown, errno)),
                    }
                    open_dir(&current, part)
                        .map_err(|errno| self.refusal(&current, part, shown, errno))?
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(errno) => return Err(self.refusal(&current, part, shown, errno)),
            };
        }
        Ok(Some(current))
    }

    /// The bytes of the regular file at `relative`, `None` when there is none (a link, a FIFO
    /// or a folder is not read).
    pub fn read(&self, relative: &str) -> Option<Vec<u8>> {
        let (dir, name) = self.parent(relative, false).ok()??;
        read_in(&dir, name)
    }

    /// The tool's state file `relative` (`.content-api/…`) by `state_file`'s rule: a regular
    /// file, at most `max_bytes`, no link followed on the way; `Ok(None)` when it is missing.
    pub fn read_state(
        &self,
        relative: &str,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, StateReadError> {
        let shown = crate::on_disk(&self.path, relative);
        match self.parent(relative, false) {
            Ok(Some((dir, name))) => read_at(&dir, name, shown.as_str(), max_bytes),
            Ok(None) => Ok(None),
            Err(err) => Err(StateReadError::Io {
                path: shown.to_string(),
                source: std::io::Error::other(err.to_string()),
            }),
        }
    }

    /// Puts the tool's state file `relative` (`.content-api/…`) in place by `state_file::put`:
    /// its temporary file in [`TEMP_FOLDER`], like every write into the folder, so one an
    /// interrupted writer left is removed with the others.
    pub fn write_state(&self, relative: &str, bytes: &[u8]) -> Result<(), WriteError> {
        let (dir, name) = self
            .parent(relative, true)?
            .expect("folders are created on the way");
        let temp = temp_name(name);
        let (temp_dir, fd) = self.create_temp(&temp, relative)?;
        put(fd, &temp_dir, &temp, &dir, name, bytes).map_err(|source| WriteError::Io {
            path: crate::on_disk(&self.path, relative),
            source,
        })
    }

    /// What is at `relative`, without following a link (`Missing` when a folder on the way is
    /// missing; an error when a folder on the way is a link or a file).
    pub fn entry(&self, relative: &str) -> Result<Entry, WriteError> {
        let Some((dir, name)) = self.parent(relative, false)? else {
            return Ok(Entry::Missing);
        };
        match crate::at::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(match FileType::from_raw_mode(stat.st_mode) {
                FileType::RegularFile => Entry::File,
                FileType::Directory => Entry::Folder,
                _ => Entry::Other,
            }),
            Err(Errno::NOENT) => Ok(Entry::Missing),
            Err(errno) => Err(self.io(relative, errno)),
        }
    }

    /// Writes `relative` through a temporary file in its folder and a rename, so a reader
    /// sees the old or the new content, never a mix.
    pub fn replace(
        &self,
        relative: &str,
        len: usize,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), WriteError> {
        let (dir, name) = self
            .parent(relative, true)?
            .expect("folders are created on the way");
        self.replace_in(&dir, name, relative, len, fill)
    }

    /// [`OutDir::replace`] for the file `name` of the open folder `dir` (`relative` is its
    /// path in the output folder, for errors), `len` bytes long.
    pub fn replace_in(
        &self,
        dir: &OwnedFd,
        name: &str,
        relative: &str,
        len: usize,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), WriteError> {
        let temp = temp_name(name);
        let (temp_dir, fd) = self.create_temp(&temp, relative)?;
        let temp_dir = &*temp_dir;
        let mut file = std::fs::File::from(fd);
        let fail = |source| WriteError::Io {
            path: crate::on_disk(&self.path, relative),
            source,
        };
        if let Err(source) = fill(&mut file).and_then(|()| file.flush()) {
            // The name goes now; a large file's pages are freed off this thread (a write
            // stopped for an edit must not make the edit wait for that).
            let _ = crate::at::unlinkat(temp_dir, &temp, AtFlags::empty());
            if len >= FREE_LATER_FROM {
                close_later(file);
            }
            return Err(fail(source));
        }
        drop(file);
        let placed = if len >= FREE_LATER_FROM {
            self.swap_in_large(temp_dir, dir, &temp, name)
        } else {
            crate::at::renameat(temp_dir, &temp, dir, name).map_err(Into::into)
        };
        placed.map_err(|source| {
            let _ = crate::at::unlinkat(temp_dir, &temp, AtFlags::empty());
            fail(source)
        })
    }

    /// Puts the filled temporary file `temp` at `name`, freeing the old file off the writer's
    /// path: a reader opening `name` sees the old or the new file, and no other name is left.
    ///
    /// Renaming over a file frees the old one inside `rename`, which takes milliseconds for a
    /// list of several megabytes. So the old file is held by a descriptor ([`hold`]: on Linux
    /// an `O_PATH` reference to the inode, never opened for reading) across the swap and closed
    /// by another thread. ext4 also takes a rename over an existing file for an application replacing a
    /// file without `fsync` (`auto_da_alloc`): it starts writing the new file to disk inside the
    /// rename, and freeing the old one then waits for that write. Exchanging the two names
    /// (`RENAME_EXCHANGE`) and removing the temporary name is no such rename; where the file
    /// system cannot exchange names, a plain rename does the job.
    fn swap_in_large(
        &self,
        temp_dir: &OwnedFd,
        dir: &OwnedFd,
        temp: &str,
        name: &str,
    ) -> std::io::Result<()> {
        let Some(old) = hold(dir, name) else {
            return crate::at::renameat(temp_dir, temp, dir, name).map_err(Into::into);
        };
        let is_file = crate::at::fstat(&old)
            .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile);
        if is_file && self.exchange.load(Ordering::Relaxed) {
            match crate::at::renameat_with(temp_dir, temp, dir, name, RenameFlags::EXCHANGE) {
                // The old file now has the temporary name; the held descriptor keeps it alive.
                Ok(()) => match crate::at::unlinkat(temp_dir, temp, AtFlags::empty()) {
                    Ok(()) => {
                        close_later(old);
                        return Ok(());
                    }
                    // Something else than the file looked at was swapped out (a folder put
                    // there meanwhile): put it back and let the plain rename refuse.
                    Err(_) => {
                        crate::at::renameat_with(temp_dir, temp, dir, name, RenameFlags::EXCHANGE)?;
                    }
                },
                Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
                    self.exchange.store(false, Ordering::Relaxed);
                }
                Err(_) => {}
            }
        }
        crate::at::renameat(temp_dir, temp, dir, name)?;
        close_later(old);
        Ok(())
    }

    /// Creates the file `name` in the open folder `dir` and fills it in place, without a
    /// temporary file. Only for a path nothing is published at (see `Publisher`'s cold
    /// publish): a reader could see the file half written. `Ok(false)`, with nothing written,
    /// when something is already there (`O_EXCL`: never truncates or follows what exists). A
    /// failed fill removes the file it created.
    pub fn create_in(
        &self,
        dir: &OwnedFd,
        name: &str,
        relative: &str,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<bool, WriteError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match crate::at::openat(dir, name, flags, Mode::from_raw_mode(0o644)) {
            Ok(fd) => fd,
            Err(Errno::EXIST) => return Ok(false),
            Err(errno) => return Err(self.io(relative, errno)),
        };
        let mut file = std::fs::File::from(fd);
        let filled = fill(&mut file).and_then(|()| file.flush());
        drop(file);
        match filled {
            Ok(()) => Ok(true),
            Err(source) => {
                let _ = crate::at::unlinkat(dir, name, AtFlags::empty());
                Err(WriteError::Io {
                    path: crate::on_disk(&self.path, relative),
                    source,
                })
            }
        }
    }

    /// Removes the regular file at `relative` and the folders it leaves empty. `Ok(false)` when
    /// there is no such file; a link or anything else but a file there is left alone.
    pub fn remove(&self, relative: &str) -> Result<bool, WriteError> {
        let Some((dir, name)) = self.parent(relative, false)? else {
            return Ok(false);
        };
        match crate::at::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
            Ok(_) | Err(Errno::NOENT) => return Ok(false),
            Err(errno) => return Err(self.io(relative, errno)),
        }
        match crate::at::unlinkat(&dir, name, AtFlags::empty()) {
            Ok(()) => {}
            Err(Errno::NOENT) => return Ok(false),
            Err(errno) => return Err(self.io(relative, errno)),
        }
        drop(dir);
        self.remove_empty_parents(relative);
        Ok(true)
    }

    /// Removes the folders of `relative` that are empty, deepest first, up to (not including)
    /// the output folder.
    fn remove_empty_parents(&self, relative: &str) {
        let mut folder = relative;
        while let Some((above, _)) = folder.rsplit_once('/') {
            let Ok(Some((dir, name))) = self.parent(above, false) else {
                return;
            };
            if crate::at::unlinkat(&dir, name, AtFlags::REMOVEDIR).is_err() {
                return; // Not empty (or not ours to remove): stop here.
            }
            folder = above;
        }
    }

    /// Removes the temporary files an interrupted writer left ([`TEMP_FOLDER`]: every regular
    /// file there is one; nothing outside it is looked at). Returns how many.
    pub fn remove_temp_files(&self) -> usize {
        let Ok(Some(dir)) = self.folder(TEMP_FOLDER, false) else {
            return 0;
        };
        let Ok(entries) = crate::at::Dir::read_from(&dir) else {
            return 0;
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if entry.file_type() == FileType::RegularFile
                && crate::at::unlinkat(&dir, name, AtFlags::empty()).is_ok()
            {
                removed += 1;
            }
        }
        removed
    }

    /// The metadata of the folder `relative` ("" for the output folder), whose change time
    /// moves when an entry is added or removed. `None` when missing or not a folder.
    pub(crate) fn folder_stat(&self, relative: &str) -> Option<crate::at::Stat> {
        let dir = self.folder(relative, false).ok()??;
        crate::at::fstat(&dir).ok()
    }

    /// The names of the regular files in `folder` (one directory read, no `stat` per file
    /// where the file system reports entry types). `None` when the folder cannot be opened.
    pub(crate) fn regular_files(&self, folder: &str) -> Option<HashSet<String>> {
        let dir = self.folder(folder, false).ok()??;
        let entries = crate::at::Dir::read_from(&dir).ok()?;
        let mut names = HashSet::new();
        for entry in entries {
            let entry = entry.ok()?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            let regular = match entry.file_type() {
                FileType::Unknown => crate::at::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|stat| {
                        FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
                    }),
                kind => kind == FileType::RegularFile,
            };
            if regular {
                names.insert(name.to_string());
            }
        }
        Some(names)
    }

    fn io(&self, relative: &str, errno: Errno) -> WriteError {
        WriteError::Io {
            path: crate::on_disk(&self.path, relative),
            source: errno.into(),
        }
    }

    /// The error for the folder `part` of `dir` (`relative` in the output folder) that cannot
    /// be entered: a link, a file, or an I/O error.
    fn refusal(&self, dir: &OwnedFd, part: &str, relative: &str, errno: Errno) -> WriteError {
        let path = crate::on_disk(&self.path, relative);
        match errno {
            Errno::LOOP | Errno::NOTDIR => {
                let is_link = crate::at::statat(dir, part, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink);
                if is_link {
                    WriteError::Symlink { path }
                } else {
                    WriteError::NotADirectory { path }
                }
            }
            errno => WriteError::Io {
                path,
                source: errno.into(),
            },
        }
    }
}

/// The bytes of the regular file `name` in the open folder `dir`, `None` when there is none (a
/// link, a FIFO or a folder is not read).
pub fn read_in(dir: &OwnedFd, name: &str) -> Option<Vec<u8>> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = crate::at::openat(dir, name, flags, Mode::empty()).ok()?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut &file, &mut bytes).ok()?;
    Some(bytes)
}

/// Whether nothing at all (no file, folder or link) is named `name` in the open folder `dir`.
pub fn is_missing_in(dir: &OwnedFd, name: &str) -> bool {
    matches!(
        crate::at::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW),
        Err(Errno::NOENT)
    )
}

fn open_dir(dir: &OwnedFd, part: &str) -> Result<OwnedFd, Errno> {
    let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC;
    crate::at::openat(dir, part, flags, Mode::empty())
}

/// `.{name}.{pid}-{n}.tmp`, with the target's name cut so the result fits in `NAME_MAX`.
fn temp_name(name: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // One `getpid` per process, not per file.
    static PID: OnceLock<u32> = OnceLock::new();
    let mut keep = name.len().min(TEMP_NAME_KEEP);
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!(
        ".{}.{}-{}.tmp",
        &name[..keep],
        PID.get_or_init(std::process::id),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A descriptor holding the file at `name` in `dir` (to free it later, see
/// [`OutDir::swap_in_large`]), or `None`, and the caller renames over it plainly. Either way
/// nothing is read, and no link is followed out of the output folder.
///
/// Linux (and Android) has `O_PATH`: a reference to the inode, opened without read permission
/// and without the open routine of what is there (a FIFO, a device); with `O_NOFOLLOW` a link
/// is held itself, which the caller's `fstat` then tells from a file.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn hold(dir: &OwnedFd, name: &str) -> Option<OwnedFd> {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    crate::at::openat(dir, name, flags, Mode::empty()).ok()
}

/// Elsewhere (macOS has no `O_PATH`): a read-only open, of a regular file only, as the type is
/// seen first without following a link: opening a FIFO would wait for a writer (`O_NONBLOCK`
/// guards the moment between the look and the open) and a device may act on being opened.
/// `O_NOFOLLOW` makes the open fail on a link put there meanwhile, so a link is replaced, never
/// its target. A file this process cannot read is not held: the plain rename frees it inside
/// the rename, which is slower but as correct.
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn hold(dir: &OwnedFd, name: &str) -> Option<OwnedFd> {
    let stat = crate::at::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return None;
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    crate::at::openat(dir, name, flags, Mode::empty()).ok()
}

/// Windows: nothing is held, and the caller renames plainly. A file held open refuses to be
/// renamed over there (see `at::windows`), and the old file is freed when its last handle
/// closes, not inside the rename.
#[cfg(windows)]
fn hold(_dir: &OwnedFd, _name: &str) -> Option<OwnedFd> {
    None
}

/// Closes `old` (a replaced file, or a descriptor holding one) on a thread of its own, so
/// that the kernel frees it off the writer's path; inline when that thread cannot be started.
fn close_later(old: impl Send + 'static) {
    static CLOSER: OnceLock<Option<Sender<Box<dyn Send>>>> = OnceLock::new();
    let closer = CLOSER.get_or_init(|| {
        let (send, receive) = mpsc::channel::<Box<dyn Send>>();
        std::thread::Builder::new()
            .name("close-replaced".into())
            .spawn(move || receive.into_iter().for_each(drop))
            .ok()
            .map(|_| send)
    });
    if let Some(closer) = closer {
        // A send that fails hands `old` back inside the error, which closes it here.
        let _ = closer.send(Box::new(old));
    }
}

pub(super) fn write_to(dir: &OutDir, relative: &str, bytes: &[u8]) -> Result<(), WriteError> {
    dir.replace(relative, bytes.len(), |file| file.write_all(bytes))
}

/// Writes `bytes` to `out_dir/relative` through a temporary file and a rename (without taking
/// the folder's lock: for tools and tests that stand in for a writer).
pub fn write_atomically(
    out_dir: &Utf8Path,
    relative: &str,
    bytes: &[u8],
) -> Result<(), WriteError> {
    write_to(&OutDir::open(out_dir)?, relative, bytes)
}

#[cfg(test)]
mod tests;
