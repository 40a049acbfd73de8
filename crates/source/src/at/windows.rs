//! Windows: the calls of `unix` over paths, kept as safe by holding folders open.
//!
//! Windows has no `openat`. A folder opened here keeps its handle, and those of the folders it
//! was opened through, for as long as anything opened from it lives, in a share mode without
//! `FILE_SHARE_DELETE`: while held, none of them can be renamed, removed or replaced by a link
//! or a junction, so a path made of a held folder's full path and one name reaches what the
//! Unix call reaches. Every open passes `FILE_FLAG_OPEN_REPARSE_POINT` when a link must not be
//! followed (the link or junction itself is opened, never its target), and a reparse point met
//! there is refused with `Errno::LOOP`, as `O_NOFOLLOW` does. A name is one part: a separator,
//! a drive or `..` is refused.
//!
//! Replacing a file is `std::fs::rename` (`MoveFileExW` with `MOVEFILE_REPLACE_EXISTING`, then
//! a POSIX-semantics rename by handle when that is refused). Both are refused for a moment
//! while another program holds the target open without `FILE_SHARE_DELETE` (a viewer, an
//! antivirus scan, wine's readers), so a refused rename is tried again for up to
//! [`RENAME_PATIENCE`] before its error is returned.
//!
//! Metadata comes from `GetFileInformationByHandle` (volume serial number and file index: a
//! file's identity) and `FILE_BASIC_INFO` (its change time), through `windows-sys`,
//! Microsoft's own bindings: std keeps both behind unstable features.
//!
//! Over 600 lines because it is one interface (the calls `unix` re-exports from rustix), each
//! call sharing the held-folder handles and the error mapping of the others.

use std::ffi::{CStr, CString};
use std::fs::{File, OpenOptions};
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::{Component, Path, PathBuf, Prefix};
use std::sync::Arc;
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_ALREADY_EXISTS, ERROR_CALL_NOT_IMPLEMENTED, ERROR_DIRECTORY,
    ERROR_FILE_EXISTS, ERROR_FILE_NOT_FOUND, ERROR_FILENAME_EXCED_RANGE, ERROR_GEN_FAILURE,
    ERROR_INVALID_NAME, ERROR_INVALID_PARAMETER, ERROR_LOCK_VIOLATION, ERROR_NOT_SUPPORTED,
    ERROR_PATH_NOT_FOUND, ERROR_SHARING_VIOLATION, ERROR_STOPPED_ON_SYMLINK,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_READONLY,
    FILE_ATTRIBUTE_REPARSE_POINT, FILE_BASIC_INFO, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES, FILE_SHARE_DELETE, FILE_SHARE_READ,
    FILE_SHARE_WRITE, FileBasicInfo, GetDriveTypeW, GetFileInformationByHandle,
    GetFileInformationByHandleEx,
};
use windows_sys::Win32::System::WindowsProgramming::{
    DRIVE_CDROM, DRIVE_FIXED, DRIVE_RAMDISK, DRIVE_REMOVABLE,
};

/// How long a rename refused because the target is held open is tried again.
pub const RENAME_PATIENCE: Duration = Duration::from_secs(2);

/// A Windows error code, named by the `errno` it stands for where callers match on one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(u32);

impl Errno {
    /// No file or folder at the path.
    pub const NOENT: Errno = Errno(ERROR_FILE_NOT_FOUND);
    /// A file or folder is already at the path.
    pub const EXIST: Errno = Errno(ERROR_FILE_EXISTS);
    /// A link or junction where none may be followed.
    pub const LOOP: Errno = Errno(ERROR_STOPPED_ON_SYMLINK);
    /// A file where a folder was expected.
    pub const NOTDIR: Errno = Errno(ERROR_DIRECTORY);
    /// An argument Windows refuses.
    pub const INVAL: Errno = Errno(ERROR_INVALID_PARAMETER);
    /// A call Windows does not have (exchanging two names).
    pub const NOSYS: Errno = Errno(ERROR_CALL_NOT_IMPLEMENTED);
    /// An operation the file system does not support.
    pub const OPNOTSUPP: Errno = Errno(ERROR_NOT_SUPPORTED);
    /// Held by another (a lock, or a share mode).
    pub const WOULDBLOCK: Errno = Errno(ERROR_LOCK_VIOLATION);
    /// Access denied: a permission, or (for a rename) a file another process holds open.
    pub const ACCESS: Errno = Errno(ERROR_ACCESS_DENIED);

    /// The code of `err`, with the codes that mean the same to a caller made one.
    pub fn of(err: &std::io::Error) -> Errno {
        match err.raw_os_error() {
            Some(code) => match code as u32 {
                ERROR_PATH_NOT_FOUND => Errno::NOENT,
                ERROR_ALREADY_EXISTS => Errno::EXIST,
                ERROR_SHARING_VIOLATION => Errno::WOULDBLOCK,
                code => Errno(code),
            },
            None => match err.kind() {
                std::io::ErrorKind::NotFound => Errno::NOENT,
                std::io::ErrorKind::AlreadyExists => Errno::EXIST,
                _ => Errno(ERROR_GEN_FAILURE),
            },
        }
    }
}

impl From<Errno> for std::io::Error {
    fn from(errno: Errno) -> std::io::Error {
        std::io::Error::from_raw_os_error(errno.0 as i32)
    }
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::io::Error::from(*self).fmt(f)
    }
}

/// The `O_*` flags an open takes; those without a Windows meaning (`CLOEXEC`: std's handles
/// are never inherited; `NONBLOCK`: no FIFO can be opened by name) change nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OFlags(u32);

impl OFlags {
    /// Open for reading only (no bit set).
    pub const RDONLY: OFlags = OFlags(0);
    /// Open for writing.
    pub const WRONLY: OFlags = OFlags(1);
    /// Create the file when it is missing.
    pub const CREATE: OFlags = OFlags(2);
    /// With `CREATE`: fail when the file exists.
    pub const EXCL: OFlags = OFlags(4);
    /// Refuse a link or junction at the path instead of following it.
    pub const NOFOLLOW: OFlags = OFlags(8);
    /// The path must be a folder.
    pub const DIRECTORY: OFlags = OFlags(16);
    /// Kept for Unix's sake: std's handles are never inherited.
    pub const CLOEXEC: OFlags = OFlags(32);
    /// Kept for Unix's sake: no FIFO can be opened by name.
    pub const NONBLOCK: OFlags = OFlags(64);

    /// Whether every flag of `other` is set.
    pub fn contains(self, other: OFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for OFlags {
    type Output = OFlags;
    fn bitor(self, other: OFlags) -> OFlags {
        OFlags(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for OFlags {
    fn bitor_assign(&mut self, other: OFlags) {
        self.0 |= other.0;
    }
}

/// Unix permissions: Windows has none to give a new file or folder (it inherits its folder's).
#[derive(Clone, Copy, Debug)]
pub struct Mode;

impl Mode {
    /// No permissions: a new file takes its folder's.
    pub fn empty() -> Mode {
        Mode
    }
    /// No permissions, whatever `mode` asks: a new file takes its folder's.
    pub fn from_raw_mode(_mode: u32) -> Mode {
        Mode
    }
}

/// `AT_*` flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtFlags(u32);

impl AtFlags {
    /// Act on a link itself, never on its target.
    pub const SYMLINK_NOFOLLOW: AtFlags = AtFlags(1);
    /// Remove a folder, not a file.
    pub const REMOVEDIR: AtFlags = AtFlags(2);

    /// No flag.
    pub fn empty() -> AtFlags {
        AtFlags(0)
    }
    /// Whether every flag of `other` is set.
    pub fn contains(self, other: AtFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// `renameat2`'s flags: Windows cannot exchange two names.
#[derive(Clone, Copy, Debug)]
pub struct RenameFlags;

impl RenameFlags {
    /// Exchange two names: always refused (`NOSYS`) on Windows.
    pub const EXCHANGE: RenameFlags = RenameFlags;
}

const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

/// What an entry is. A reparse point (a symbolic link, a junction, a mount point) is a
/// `Symlink`: never followed, read or written through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    /// A plain file.
    RegularFile,
    /// A folder.
    Directory,
    /// A reparse point: a symbolic link, a junction or a mount point.
    Symlink,
    /// Anything else a `st_mode` can say.
    Unknown,
}

impl FileType {
    /// The type a `st_mode` value says.
    pub fn from_raw_mode(mode: u32) -> FileType {
        match mode & S_IFMT {
            S_IFREG => FileType::RegularFile,
            S_IFDIR => FileType::Directory,
            S_IFLNK => FileType::Symlink,
            _ => FileType::Unknown,
        }
    }

    fn of_attributes(attributes: u32) -> FileType {
        if attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
            FileType::Symlink
        } else if attributes & FILE_ATTRIBUTE_DIRECTORY != 0 {
            FileType::Directory
        } else {
            FileType::RegularFile
        }
    }
}

/// A file's metadata under `stat`'s names: `st_dev` is the volume's serial number, `st_ino`
/// the file index, `st_mode` the type (and read-only as `0o444`), times since the Unix epoch.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    /// The volume's serial number.
    pub st_dev: u64,
    /// The file index within the volume.
    pub st_ino: u64,
    /// The type (`S_IF*`) and permissions: `0o755` a folder, `0o444` a read-only file, `0o644`
    /// any other.
    pub st_mode: u32,
    /// The size in bytes.
    pub st_size: i64,
    /// The number of names the file has.
    pub st_nlink: u64,
    /// The last write, in seconds since the Unix epoch.
    pub st_mtime: i64,
    /// The nanoseconds of the last write.
    pub st_mtime_nsec: i64,
    /// The last change of the file's data or attributes, in seconds since the Unix epoch.
    pub st_ctime: i64,
    /// The nanoseconds of the last change.
    pub st_ctime_nsec: i64,
}

/// 100-nanosecond intervals from 1601-01-01 (Windows' epoch) to 1970-01-01.
const EPOCH_DIFFERENCE: i64 = 116_444_736_000_000_000;

/// Seconds and nanoseconds since the Unix epoch of a Windows time.
fn unix_time(filetime: i64) -> (i64, i64) {
    let ns = i128::from(filetime - EPOCH_DIFFERENCE) * 100;
    (
        ns.div_euclid(1_000_000_000) as i64,
        ns.rem_euclid(1_000_000_000) as i64,
    )
}

fn stat_of(file: &File) -> Result<Stat, Errno> {
    let handle = file.as_raw_handle();
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: `handle` is open for as long as `file` lives; `info` is the size asked.
    if unsafe { GetFileInformationByHandle(handle, &mut info) } == 0 {
        return Err(Errno::of(&std::io::Error::last_os_error()));
    }
    let mut basic: FILE_BASIC_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: as above, with the buffer's own size.
    let got = unsafe {
        GetFileInformationByHandleEx(
            handle,
            FileBasicInfo,
            (&raw mut basic).cast(),
            size_of::<FILE_BASIC_INFO>() as u32,
        )
    };
    if got == 0 {
        return Err(Errno::of(&std::io::Error::last_os_error()));
    }
    let kind = match FileType::of_attributes(info.dwFileAttributes) {
        FileType::RegularFile => S_IFREG,
        FileType::Directory => S_IFDIR,
        _ => S_IFLNK,
    };
    let permissions = match (kind, info.dwFileAttributes & FILE_ATTRIBUTE_READONLY != 0) {
        (S_IFDIR, _) => 0o755,
        (_, true) => 0o444,
        (_, false) => 0o644,
    };
    let (st_mtime, st_mtime_nsec) = unix_time(basic.LastWriteTime);
    let (st_ctime, st_ctime_nsec) = unix_time(basic.ChangeTime);
    Ok(Stat {
        st_dev: u64::from(info.dwVolumeSerialNumber),
        st_ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        st_mode: kind | permissions,
        st_size: ((u64::from(info.nFileSizeHigh) << 32) | u64::from(info.nFileSizeLow)) as i64,
        st_nlink: u64::from(info.nNumberOfLinks),
        st_mtime,
        st_mtime_nsec,
        st_ctime,
        st_ctime_nsec,
    })
}

/// An open file or folder, with its full path; a folder also holds the folders it was opened
/// through (see the module's header).
#[derive(Debug)]
pub struct OwnedFd {
    path: PathBuf,
    handle: File,
    _above: Option<Arc<OwnedFd>>,
}

impl OwnedFd {
    /// Its full path (`\\?\` form, so long paths work).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl From<OwnedFd> for File {
    fn from(fd: OwnedFd) -> File {
        fd.handle
    }
}

/// Folders are held without `FILE_SHARE_DELETE` (nobody renames or removes them meanwhile);
/// files with it, so that holding one never stops another program's rename or removal.
fn share_mode(folder: bool) -> u32 {
    if folder {
        FILE_SHARE_READ | FILE_SHARE_WRITE
    } else {
        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE
    }
}

/// `name` as one part of a path: a separator, a drive, `.` or `..` is refused.
fn one_part(name: &Path) -> Result<&Path, Errno> {
    let mut parts = name.components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(part)), None)
            if !part.as_encoded_bytes().contains(&b'/')
                && !part.as_encoded_bytes().contains(&b':') =>
        {
            Ok(name)
        }
        _ => Err(Errno(ERROR_INVALID_NAME)),
    }
}

/// Opens `path` by `flags`, checks it is what was asked, and holds `above` (the folder it is
/// in) when it is a folder.
fn open_path(path: PathBuf, flags: OFlags, above: Option<&OwnedFd>) -> Result<OwnedFd, Errno> {
    let folder = flags.contains(OFlags::DIRECTORY);
    let mut options = OpenOptions::new();
    if flags.contains(OFlags::WRONLY) {
        options.write(true);
    } else {
        options.read(true);
    }
    if flags.contains(OFlags::CREATE | OFlags::EXCL) {
        options.create_new(true);
    } else if flags.contains(OFlags::CREATE) {
        options.create(true);
    }
    let mut custom = FILE_FLAG_BACKUP_SEMANTICS; // what lets a folder be opened at all
    if flags.contains(OFlags::NOFOLLOW) {
        custom |= FILE_FLAG_OPEN_REPARSE_POINT;
    }
    options.custom_flags(custom).share_mode(share_mode(folder));
    let handle = options.open(&path).map_err(|err| Errno::of(&err))?;
    let attributes = handle
        .metadata()
        .map_err(|err| Errno::of(&err))?
        .file_attributes();
    match FileType::of_attributes(attributes) {
        FileType::Symlink if flags.contains(OFlags::NOFOLLOW) => return Err(Errno::LOOP),
        FileType::Directory | FileType::Symlink => {}
        _ if folder => return Err(Errno::NOTDIR),
        _ => {}
    }
    let above = match above.filter(|_| folder) {
        Some(dir) => Some(Arc::new(dup(dir)?)),
        None => None,
    };
    Ok(OwnedFd {
        path,
        handle,
        _above: above,
    })
}

/// Opens the file or folder at `path`, by its full path with links resolved (`\\?\C:\...`).
pub fn open(path: &Path, flags: OFlags, _mode: Mode) -> Result<OwnedFd, Errno> {
    if flags.contains(OFlags::NOFOLLOW) {
        // The link check of the path itself, before it is resolved.
        drop(open_path(path.to_path_buf(), flags, None)?);
    }
    let full = std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .map_err(|err| Errno::of(&err))?;
    open_path(full, flags, None)
}

/// Whether this process runs under wine (its ntdll exports `wine_get_version`), which is not
/// Windows: the tests skip what only Windows does (a rename over a file held open).
pub fn under_wine() -> bool {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleA, GetProcAddress};
    // SAFETY: NUL-terminated names; ntdll is loaded in every Windows process.
    unsafe {
        let ntdll = GetModuleHandleA(c"ntdll.dll".as_ptr().cast());
        !ntdll.is_null() && GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// Opens a file for reading as untrusted input. On Unix without blocking (a FIFO answers at
/// once); Windows cannot open a pipe by a file's name, and std's handles are never inherited.
/// A folder opens too (`FILE_FLAG_BACKUP_SEMANTICS`), as on Unix: the caller's look at what
/// it opened says "a folder", where Windows would say "access denied".
pub fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    options
}

/// Fills `buf` from `offset` of `file` (`pread`'s counterpart: `seek_read`, which moves the
/// handle's position, unused by every reader here).
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Opens the file at `path` for reading as untrusted input, without following a link or
/// junction at the path itself unless `follow_link` ([`Errno::LOOP`] then, see
/// [`is_link_refused`]).
pub fn open_read(path: &Path, follow_link: bool) -> std::io::Result<File> {
    if follow_link {
        return read_options().open(path);
    }
    let file = read_options()
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)?;
    if file.metadata()?.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        return Err(Errno::LOOP.into());
    }
    Ok(file)
}

/// Whether `err` is [`open_read`]'s refusal of a link.
pub fn is_link_refused(err: &std::io::Error) -> bool {
    Errno::of(err) == Errno::LOOP
}

/// Whether `err` says nothing is at a path: missing, a file where a folder was expected, a
/// name Windows cannot hold (`ERROR_INVALID_NAME`, `ERROR_FILENAME_EXCED_RANGE`).
pub fn is_absent(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::NotFound
        || matches!(
            Errno::of(err),
            Errno::NOENT | Errno::NOTDIR | Errno(ERROR_INVALID_NAME | ERROR_FILENAME_EXCED_RANGE)
        )
}

/// The metadata of what `path` leads to (links followed).
pub fn stat(path: &Path) -> Result<Stat, Errno> {
    let file = OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
        .map_err(|err| Errno::of(&err))?;
    stat_of(&file)
}

/// Whether `path` is on a network drive (a mapped drive, a UNC share), or its drive cannot
/// be told.
pub fn on_network_drive(path: &Path) -> bool {
    let Ok(full) = std::path::absolute(path) else {
        return true;
    };
    let root: PathBuf = match full.components().next() {
        Some(Component::Prefix(prefix)) => match prefix.kind() {
            Prefix::UNC(..) | Prefix::VerbatimUNC(..) => return true,
            Prefix::Disk(drive) | Prefix::VerbatimDisk(drive) => {
                format!("{}:\\", char::from(drive)).into()
            }
            _ => return true,
        },
        _ => return true,
    };
    let wide: Vec<u16> = root.as_os_str().encode_wide().chain([0]).collect();
    // SAFETY: `wide` is a NUL-terminated UTF-16 string that outlives the call.
    let kind = unsafe { GetDriveTypeW(wide.as_ptr()) };
    !matches!(
        kind,
        DRIVE_FIXED | DRIVE_REMOVABLE | DRIVE_RAMDISK | DRIVE_CDROM
    )
}

/// Opens `name` in the open folder `dir`.
pub fn openat(
    dir: &OwnedFd,
    name: impl AsRef<Path>,
    flags: OFlags,
    _mode: Mode,
) -> Result<OwnedFd, Errno> {
    let name = name.as_ref();
    if name == Path::new(".") {
        // A new handle of `dir` itself, holding what it holds.
        let mut again = open_path(dir.path.clone(), flags, None)?;
        again._above = dir._above.clone();
        return Ok(again);
    }
    open_path(dir.path.join(one_part(name)?), flags, Some(dir))
}

/// A second handle of `fd`, holding what it holds.
pub fn dup(fd: &OwnedFd) -> Result<OwnedFd, Errno> {
    Ok(OwnedFd {
        path: fd.path.clone(),
        handle: fd.handle.try_clone().map_err(|err| Errno::of(&err))?,
        _above: fd._above.clone(),
    })
}

/// Creates the folder `name` in `dir`.
pub fn mkdirat(dir: &OwnedFd, name: impl AsRef<Path>, _mode: Mode) -> Result<(), Errno> {
    let name = one_part(name.as_ref())?;
    std::fs::create_dir(dir.path.join(name)).map_err(|err| Errno::of(&err))
}

/// The metadata of an open file.
pub fn fstat_file(file: &File) -> Result<Stat, Errno> {
    stat_of(file)
}

/// The metadata of the open `fd`.
pub fn fstat(fd: &OwnedFd) -> Result<Stat, Errno> {
    stat_of(&fd.handle)
}

/// The metadata of `name` in `dir`; with `SYMLINK_NOFOLLOW`, of a link itself. The open asks
/// only to read attributes, which no share mode refuses.
pub fn statat(dir: &OwnedFd, name: impl AsRef<Path>, flags: AtFlags) -> Result<Stat, Errno> {
    let name = one_part(name.as_ref())?;
    let mut custom = FILE_FLAG_BACKUP_SEMANTICS;
    if flags.contains(AtFlags::SYMLINK_NOFOLLOW) {
        custom |= FILE_FLAG_OPEN_REPARSE_POINT;
    }
    let file = OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(custom)
        .open(dir.path.join(name))
        .map_err(|err| Errno::of(&err))?;
    stat_of(&file)
}

/// Removes the file (or, with `REMOVEDIR`, the empty folder) `name` in `dir`; a link or a
/// junction is removed itself, never what it points to.
pub fn unlinkat(dir: &OwnedFd, name: impl AsRef<Path>, flags: AtFlags) -> Result<(), Errno> {
    let path = dir.path.join(one_part(name.as_ref())?);
    let removed = if flags.contains(AtFlags::REMOVEDIR) {
        std::fs::remove_dir(path)
    } else {
        std::fs::remove_file(path)
    };
    removed.map_err(|err| Errno::of(&err))
}

/// Renames `old` in `old_dir` to `new` in `new_dir`, replacing what is there (a link is
/// replaced, not followed), tried again while the target is held open (see the header).
pub fn renameat(
    old_dir: &OwnedFd,
    old: impl AsRef<Path>,
    new_dir: &OwnedFd,
    new: impl AsRef<Path>,
) -> Result<(), Errno> {
    let from = old_dir.path.join(one_part(old.as_ref())?);
    let new = one_part(new.as_ref())?;
    let to = new_dir.path.join(new);
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let errno = match std::fs::rename(&from, &to) {
            Ok(()) => return Ok(()),
            Err(err) => Errno::of(&err),
        };
        let held = errno == Errno::ACCESS || errno == Errno::WOULDBLOCK;
        // A folder there refuses with the same code, and always will.
        let folder_there = || {
            statat(new_dir, new, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory)
        };
        if !held || started.elapsed() >= RENAME_PATIENCE || folder_there() {
            return Err(errno);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// `renameat2`: Windows cannot exchange two names in one step, which the caller learns as
/// `NOSYS` and then renames plainly.
pub fn renameat_with(
    _old_dir: &OwnedFd,
    _old: impl AsRef<Path>,
    _new_dir: &OwnedFd,
    _new: impl AsRef<Path>,
    _flags: RenameFlags,
) -> Result<(), Errno> {
    Err(Errno::NOSYS)
}

/// The entries of a folder, `.` and `..` left out.
pub struct Dir {
    entries: std::fs::ReadDir,
}

impl Dir {
    /// The entries of the open folder `fd`.
    pub fn read_from(fd: &OwnedFd) -> Result<Dir, Errno> {
        let entries = std::fs::read_dir(&fd.path).map_err(|err| Errno::of(&err))?;
        Ok(Dir { entries })
    }
}

/// One entry of a [`Dir`]. Its name is UTF-8 when Windows' name is valid Unicode; otherwise
/// (an unpaired surrogate) `to_str` of it fails, as for a non-UTF-8 name on Unix.
pub struct DirEntry {
    name: CString,
    kind: FileType,
}

impl DirEntry {
    /// The entry's name, without its folder.
    pub fn file_name(&self) -> &CStr {
        &self.name
    }
    /// What the entry is, without following a link.
    pub fn file_type(&self) -> FileType {
        self.kind
    }
}

impl Iterator for Dir {
    type Item = Result<DirEntry, Errno>;

    fn next(&mut self) -> Option<Self::Item> {
        let entry = match self.entries.next()? {
            Ok(entry) => entry,
            Err(err) => return Some(Err(Errno::of(&err))),
        };
        // From the folder listing itself: no open of the entry, no link followed.
        let kind = entry.metadata().map_or(FileType::Unknown, |meta| {
            FileType::of_attributes(meta.file_attributes())
        });
        let name = CString::new(entry.file_name().as_encoded_bytes())
            .map_err(|_| Errno(ERROR_INVALID_NAME));
        Some(name.map(|name| DirEntry { name, kind }))
    }
}
