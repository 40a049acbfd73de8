//! The content folder's metadata without reading a file: what `build` compares with the last
//! build's fingerprint to see, without parsing, that nothing changed.

use super::path::ContentPath;
use super::walk::find;
use rayon::prelude::*;
use std::os::unix::fs::MetadataExt;
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

impl FileStamp {
    /// The stamp of what `meta` describes.
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    /// The stamp of `path` itself (a symbolic link is not followed).
    pub fn of_path(path: &Path) -> Option<FileStamp> {
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| FileStamp::of(&m))
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
    /// [`RACY_FINE_NS`] covers it; a whole second may come from one that keeps seconds (ext3,
    /// HFS+) or two (FAT), so [`RACY_COARSE_NS`]. The change time decides, because no tool can
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
    pub fn to_bytes(&self) -> [u8; 60] {
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
/// without any stamp changing) or a problem a scan would report, or a file vanished meanwhile.
/// Nothing is read, so this is cheap: one `readdir` per folder and one `stat` per file.
pub fn stamp_tree(root: &Path) -> Option<Vec<StampedFile>> {
    if !root.is_dir() {
        return None; // The build reports it.
    }
    let found = find(root);
    if found.saw_link || !found.problems.is_empty() {
        return None;
    }
    let mut files: Vec<StampedFile> = found
        .files
        .into_par_iter()
        .map(|(path, _, disk_path)| {
            let stamp = FileStamp::of_path(&disk_path)?;
            Some(StampedFile {
                path,
                disk_path,
                stamp,
            })
        })
        .collect::<Option<_>>()?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let stamped: Vec<String> = stamp_tree(root.path())
            .unwrap()
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        let scanned: Vec<String> = crate::source::scan(root.path())
            .files
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        assert_eq!(stamped, scanned);
        assert_eq!(stamped, ["blog/en/2024-01-01_a.md", "tags/rust.md"]);
    }

    #[test]
    fn a_symbolic_link_or_a_problem_means_no_stamps() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("blog/en");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("2024-01-01_a.md"), "x").unwrap();
        assert!(stamp_tree(root.path()).is_some());
        std::os::unix::fs::symlink(
            folder.join("2024-01-01_a.md"),
            folder.join("2024-01-02_b.md"),
        )
        .unwrap();
        assert!(stamp_tree(root.path()).is_none());
        std::fs::remove_file(folder.join("2024-01-02_b.md")).unwrap();
        std::fs::write(root.path().join("blog/misplaced.md"), "x").unwrap();
        assert!(stamp_tree(root.path()).is_none());
    }
}
