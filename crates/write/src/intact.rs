//! Whether the output folder still holds the last publish: what the daemon's tick asks, so
//! that a deleted file, folder or manifest, or a file edited by hand, is written again.

use super::dir::OutDir;

/// Files whose stamps one check looks at: at one check a second, the 20,750 outputs of a
/// 10,000-post site are all looked at every 11 s, a few hundred at every check.
pub(crate) const SWEEP_PER_CHECK: usize = 2_000;

/// What a hand edit of a file changes: its inode (a replacement), size or modification time.
/// Not its change time, which the rename that puts a written file in place sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OutputStamp {
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

impl OutputStamp {
    pub(super) fn of(stat: &crate::at::Stat) -> OutputStamp {
        OutputStamp {
            ino: stat.st_ino,
            size: stat.st_size as u64,
            mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
        }
    }
}

/// A folder's identity: device, inode and change time. Adding or removing an entry sets the
/// change time, and no tool can set it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FolderStamp {
    pub dev: u64,
    pub ino: u64,
    ctime_ns: i128,
}

impl FolderStamp {
    /// The stamp of a folder from its metadata.
    pub(crate) fn of(stat: &crate::at::Stat) -> FolderStamp {
        FolderStamp {
            dev: crate::source::stat_dev(stat),
            ino: stat.st_ino,
            ctime_ns: i128::from(stat.st_ctime) * 1_000_000_000 + i128::from(stat.st_ctime_nsec),
        }
    }

    /// Whether the folder changed after `since_ns`, or so close to it that the change could
    /// predate it: the kernel stamps changes with its clock tick, which lags the real clock.
    pub fn changed_after(&self, since_ns: i128) -> bool {
        self.ctime_ns > since_ns - RACY_FOLDER_NS
    }
}

/// Several kernel clock ticks (4 ms at 250 Hz, 10 ms at 100 Hz).
const RACY_FOLDER_NS: i128 = 100_000_000;

/// The stamp of `folder` to trust at the next check, or `None` when it proves nothing: the
/// folder changed after `since_ns` (or within a clock tick of it), by this tool or by someone
/// else, so the next [`Publisher::is_intact`] looks into it instead.
pub(crate) fn settled_stamp(dir: &OutDir, folder: &str, since_ns: i128) -> Option<FolderStamp> {
    let stamp = folder_stamp(dir, folder)?;
    (!stamp.changed_after(since_ns)).then_some(stamp)
}

/// The identity of the folder `relative` of `dir` ("" for the output folder), which changes
/// when an entry is added or removed. `None` when missing or not a folder.
pub(crate) fn folder_stamp(dir: &OutDir, relative: &str) -> Option<FolderStamp> {
    dir.folder_stat(relative).as_ref().map(FolderStamp::of)
}

/// Now, in nanoseconds since the Unix epoch, as file times count them.
pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128)
}
