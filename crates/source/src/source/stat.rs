//! The content folder's metadata without reading a file: what `build` compares with the last
//! build's fingerprint to see, without parsing, that nothing changed. [`FileStamp`] is the
//! workspace's one type for what the file system says about a file or folder: the writer's
//! edit and folder checks, `serve`'s cache and `watch`'s content folder use it too.

use super::walk::find;
use crate::at::{AtFlags, Mode, OFlags, OwnedFd};
use crate::config::SiteConfig;
use crate::content::ContentPath;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How close to a moment a fine-grained timestamp is still racy (see [`FileStamp::is_racy`]).
pub const RACY_FINE_NS: i128 = 100_000_000;
/// How close to a moment a whole-second timestamp is still racy.
pub const RACY_COARSE_NS: i128 = 3_000_000_000;

/// What the file system says about one file: enough to see that it changed. `ctime` is set by
/// the kernel on every change (a tool that restores `mtime` cannot restore it), and `dev`/`ino`
/// tell a file replaced by another (an atomic save, a rename) from the same file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// The device holding it.
    pub dev: u64,
    /// Its inode on that device.
    pub ino: u64,
    /// File type and permissions.
    pub mode: u32,
    /// Its length in bytes.
    pub size: u64,
    /// Nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Nanoseconds since the Unix epoch.
    pub ctime_ns: i128,
}

/// `st_dev` as `std::os::unix::fs::MetadataExt::dev` gives it, so a stamp from `stat` and one
/// from `std::fs::metadata` compare equal: `dev_t` is a `u64` on Linux and an `i32` on Apple,
/// which std widens with `as` (sign-extending), as here.
#[allow(
    clippy::unnecessary_cast,
    reason = "a no-op on Linux, a widening on Apple"
)]
pub fn stat_dev(stat: &crate::at::Stat) -> u64 {
    stat.st_dev as u64
}

/// `st_mode` as `MetadataExt::mode` gives it: `mode_t` is a `u32` on Linux and a `u16` on
/// Apple; either fits a `u32`.
#[allow(
    clippy::unnecessary_cast,
    reason = "a no-op on Linux, a widening on Apple"
)]
pub fn stat_mode(stat: &crate::at::Stat) -> u32 {
    stat.st_mode as u32
}

impl FileStamp {
    /// The stamp of the file at `path` (a link followed), `None` when it cannot be looked at.
    pub fn of_path(path: &Path) -> Option<FileStamp> {
        FileStamp::try_of_path(path).ok()
    }

    /// The stamp of the file at `path` (a link followed), or why it cannot be looked at.
    #[cfg(unix)]
    pub fn try_of_path(path: &Path) -> std::io::Result<FileStamp> {
        Ok(FileStamp::of(&std::fs::metadata(path)?))
    }

    /// The stamp of the file at `path` (a link followed), or why it cannot be looked at: std's
    /// metadata has no file index or change time on Windows, an open handle has.
    #[cfg(windows)]
    pub fn try_of_path(path: &Path) -> std::io::Result<FileStamp> {
        let stat = crate::at::stat(path)?;
        Ok(FileStamp::of_stat(&stat))
    }

    /// The stamp of what `meta` describes.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    /// The stamp `stat` (or `statat`) returned.
    pub fn of_stat(stat: &crate::at::Stat) -> FileStamp {
        const NS: i128 = 1_000_000_000;
        FileStamp {
            dev: stat_dev(stat),
            ino: stat.st_ino,
            mode: stat_mode(stat),
            size: stat.st_size as u64,
            mtime_ns: i128::from(stat.st_mtime) * NS + i128::from(stat.st_mtime_nsec),
            ctime_ns: i128::from(stat.st_ctime) * NS + i128::from(stat.st_ctime_nsec),
        }
    }

    /// Whether `other` stamps the same file (device and inode), whatever it holds now: a
    /// folder replaced under the same name is another file.
    pub fn same_file(&self, other: &FileStamp) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }

    /// Whether the file stamped `earlier` is unedited: the same inode (not a replacement),
    /// size and modification time, which a hand edit changes. Not the change time: the rename
    /// that puts a written file in place sets it, after the writer stamped the file.
    pub fn unedited_since(&self, earlier: &FileStamp) -> bool {
        self.ino == earlier.ino && self.size == earlier.size && self.mtime_ns == earlier.mtime_ns
    }

    /// Whether the folder stamped `earlier` holds the same entries: the same folder (device
    /// and inode) and change time. Adding or removing an entry sets the change time, and no
    /// tool can set it back.
    pub fn same_entries(&self, earlier: &FileStamp) -> bool {
        self.same_file(earlier) && self.ctime_ns == earlier.ctime_ns
    }

    /// Whether it stamps a folder.
    pub fn is_dir(&self) -> bool {
        // `S_IFMT` and `S_IFDIR`, the same on every platform (`at::windows` uses them too).
        self.mode & 0o170_000 == 0o040_000
    }

    /// The later of the modification and change times.
    pub fn last_change_ns(&self) -> i128 {
        self.mtime_ns.max(self.ctime_ns)
    }

    /// Whether a change right after `taken_ns` (nanoseconds since the epoch, the real clock)
    /// could leave this stamp as it is: its times are within the file system's timestamp
    /// granularity of that moment (git's "racy" entries). A change time with a sub-second part
    /// comes from a file system with fine timestamps (ext4, xfs, btrfs, tmpfs: the kernel's
    /// clock tick, which also lags the real clock by up to a tick; exFAT: 10 ms), so
    /// `RACY_FINE_NS` covers it; a whole second may come from one that keeps seconds (ext3,
    /// HFS+) or two (FAT), so `RACY_COARSE_NS`. The change time decides, because no tool can
    /// set it.
    pub fn is_racy(&self, taken_ns: i128) -> bool {
        let margin = if self.ctime_ns % 1_000_000_000 != 0 {
            RACY_FINE_NS
        } else {
            RACY_COARSE_NS
        };
        self.last_change_ns() > taken_ns - margin
    }

    /// The stamp as bytes, for hashing.
    pub fn to_bytes(self) -> [u8; 60] {
        let mut out = [0u8; 60];
        out[..8].copy_from_slice(&self.dev.to_le_bytes());
        out[8..16].copy_from_slice(&self.ino.to_le_bytes());
        out[16..20].copy_from_slice(&self.mode.to_le_bytes());
        out[20..28].copy_from_slice(&self.size.to_le_bytes());
        out[28..44].copy_from_slice(&self.mtime_ns.to_le_bytes());
        out[44..60].copy_from_slice(&self.ctime_ns.to_le_bytes());
        out
    }
}

/// One content file's stamp.
#[derive(Clone, Debug)]
pub struct StampedFile {
    /// Its content path.
    pub path: ContentPath,
    /// Where it is on disk (for reading it again).
    pub disk_path: PathBuf,
    /// What the file system said about it.
    pub stamp: FileStamp,
}

/// Every content file a scan would read, with its stamp, sorted by path; `None` when the tree
/// cannot be described by stamps alone: the walk met a symbolic link (a link can change target
/// without any stamp changing) or a problem a scan would report, a file vanished meanwhile, or
/// a file is on a network file system (see [`on_network_file_system`]).
/// Nothing is read, so this is cheap: one `readdir` per folder and one `stat` per file.
pub fn stamp_tree(root: &Path, site: &SiteConfig) -> Option<Vec<StampedFile>> {
    if !root.is_dir() {
        return None; // The build reports it.
    }
    let found = find(root, site);
    if found.saw_link || !found.problems.is_empty() {
        return None;
    }
    // Each folder is opened once and its files stamped relative to it: no path lookup from the
    // root per file. There is no link on the way (checked above).
    let mut folders: HashMap<&Path, Option<OwnedFd>> = HashMap::new();
    for (_, _, disk_path) in &found.files {
        let folder = disk_path.parent()?;
        folders.entry(folder).or_insert_with(|| {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            crate::at::open(folder, flags, Mode::empty()).ok()
        });
    }
    let stamps: Vec<Option<FileStamp>> = found
        .files
        .par_iter()
        .with_min_len(256)
        .map(|(_, _, disk_path)| {
            let fd = folders.get(disk_path.parent()?)?.as_ref()?;
            let stat = crate::at::statat(fd, disk_path.file_name()?, AtFlags::SYMLINK_NOFOLLOW);
            stat.ok().map(|stat| FileStamp::of_stat(&stat))
        })
        .collect();
    drop(folders);
    let mut files: Vec<StampedFile> = found
        .files
        .into_iter()
        .zip(stamps)
        .map(|((path, _, disk_path), stamp)| {
            let stamp = stamp?;
            Some(StampedFile {
                path,
                disk_path,
                stamp,
            })
        })
        .collect::<Option<_>>()?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut devices: Vec<(u64, &Path)> = files
        .iter()
        .map(|f| (f.stamp.dev, f.disk_path.as_path()))
        .collect();
    devices.sort_by_key(|(dev, _)| *dev);
    devices.dedup_by_key(|(dev, _)| *dev);
    if devices.iter().any(|(_, path)| on_network(path)) {
        return None;
    }
    Some(files)
}

/// Whether `path` is on a network file system (or that cannot be told).
#[cfg(unix)]
pub fn on_network(path: &Path) -> bool {
    on_network_file_system(rustix::fs::statfs(path).ok())
}

/// Whether `path` is on a network drive (a mapped drive or a UNC share), or that cannot be
/// told: Windows says so of the drive (`GetDriveTypeW`), not of the file system.
#[cfg(windows)]
pub fn on_network(path: &Path) -> bool {
    crate::at::on_network_drive(path)
}

/// Whether `statfs` says a network file system (or cannot say). Its timestamps come from the
/// server's clock, which may run behind this machine's, so whether a stamp is racy cannot be
/// told from here: such a tree is always built in full.
#[cfg(unix)]
pub fn on_network_file_system(statfs: Option<rustix::fs::StatFs>) -> bool {
    const NETWORK: [i64; 12] = [
        0x6969,      // NFS
        0x517B,      // SMB
        0xFE53_4D42, // SMB2
        0xFF53_4D42, // CIFS
        0x6573_5546, // FUSE (sshfs, rclone, virtiofs...)
        0x7375_7245, // Coda
        0x5346_414F, // AFS
        0x6B41_4653, // kAFS
        0x00C3_6400, // Ceph
        0x0102_1997, // 9P
        0x0BD0_0BD0, // Lustre
        0x0116_1970, // GFS2
    ];
    #[allow(clippy::unnecessary_cast)] // `f_type`'s type differs between platforms
    statfs.is_none_or(|fs| NETWORK.contains(&(fs.f_type as i64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> SiteConfig {
        SiteConfig::defaults(camino::Utf8Path::new("."))
    }

    #[test]
    fn recent_stamps_are_racy_by_their_granularity() {
        let second = 1_000_000_000;
        let fine = FileStamp {
            dev: 1,
            ino: 2,
            mode: 0o100644,
            size: 3,
            mtime_ns: 100 * second + 5,
            ctime_ns: 100 * second + 5,
        };
        assert!(fine.is_racy(100 * second + 5));
        assert!(fine.is_racy(100 * second + RACY_FINE_NS));
        assert!(!fine.is_racy(100 * second + 5 + RACY_FINE_NS));
        let coarse = FileStamp {
            ctime_ns: 100 * second,
            mtime_ns: 100 * second,
            ..fine
        };
        assert!(coarse.is_racy(100 * second + RACY_FINE_NS + 1));
        assert!(coarse.is_racy(102 * second));
        assert!(!coarse.is_racy(100 * second + RACY_COARSE_NS));
        // A modification time in the future (a clock ahead, or set by hand) is never trusted.
        let future = FileStamp {
            mtime_ns: 200 * second,
            ..fine
        };
        assert!(future.is_racy(150 * second));
    }

    #[test]
    fn each_comparison_looks_at_what_it_names() {
        let written = FileStamp {
            dev: 1,
            ino: 2,
            mode: 0o100644,
            size: 3,
            mtime_ns: 40,
            ctime_ns: 50,
        };
        // The rename that puts a written file in place sets only its change time.
        let renamed = FileStamp {
            ctime_ns: 60,
            ..written
        };
        assert!(renamed.unedited_since(&written));
        assert!(renamed.same_file(&written));
        assert!(!renamed.same_entries(&written));
        for edited in [
            FileStamp { size: 4, ..written },
            FileStamp {
                mtime_ns: 41,
                ..written
            },
            FileStamp { ino: 9, ..written },
        ] {
            assert!(!edited.unedited_since(&written), "{edited:?}");
        }
        let replaced = FileStamp { dev: 7, ..written };
        assert!(!replaced.same_file(&written));
        assert!(!replaced.same_entries(&written));
        // A folder's size and times move with its entries; only the change time is trusted.
        let folder = FileStamp {
            mode: 0o040755,
            ..written
        };
        assert!(folder.is_dir() && !written.is_dir());
        assert!(FileStamp { size: 8, ..folder }.same_entries(&folder));
    }

    #[test]
    fn a_stamp_from_a_path_tells_a_folder_from_a_file() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("file"), "x").unwrap();
        assert!(FileStamp::of_path(root.path()).unwrap().is_dir());
        assert!(
            !FileStamp::of_path(&root.path().join("file"))
                .unwrap()
                .is_dir()
        );
        let missing = FileStamp::try_of_path(&root.path().join("missing")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn stamps_exactly_the_files_a_scan_reads() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("blog/en");
        std::fs::create_dir_all(folder.join("_drafts")).unwrap();
        for name in [
            "2024-01-01_a.md",
            ".hidden.md",
            "_draft.md",
            "notes.txt",
            "_drafts/x.md",
        ] {
            std::fs::write(folder.join(name), "x").unwrap();
        }
        std::fs::create_dir_all(root.path().join("tags")).unwrap();
        std::fs::write(root.path().join("tags/rust.md"), "y").unwrap();
        let tree = stamp_tree(root.path(), &seed()).unwrap();
        let stamped: Vec<String> = tree.iter().map(|f| f.path.to_string()).collect();
        let scanned: Vec<String> = crate::source::scan(root.path(), &seed())
            .files
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        assert_eq!(stamped, scanned);
        assert_eq!(stamped, ["blog/en/2024-01-01_a.md", "tags/rust.md"]);
        // A build reads the probe's list instead of walking again: the same files, roles, text.
        let described = |scan: crate::content::Scan| -> Vec<String> {
            scan.files
                .into_iter()
                .map(|f| format!("{} {:?} {:?}", f.path, f.role, f.contents))
                .collect()
        };
        let listed = crate::source::scan_listed(
            tree.iter().map(|f| (&f.path, f.disk_path.as_path())),
            &seed(),
            &|_, _, _, contents| contents,
        );
        assert!(listed.problems.is_empty());
        assert_eq!(
            described(listed),
            described(crate::source::scan(root.path(), &seed()))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_or_a_problem_means_no_stamps() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("blog/en");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("2024-01-01_a.md"), "x").unwrap();
        assert!(stamp_tree(root.path(), &seed()).is_some());
        std::os::unix::fs::symlink(
            folder.join("2024-01-01_a.md"),
            folder.join("2024-01-02_b.md"),
        )
        .unwrap();
        assert!(stamp_tree(root.path(), &seed()).is_none());
        std::fs::remove_file(folder.join("2024-01-02_b.md")).unwrap();
        std::fs::write(root.path().join("blog/misplaced.md"), "x").unwrap();
        assert!(stamp_tree(root.path(), &seed()).is_none());
    }
}
