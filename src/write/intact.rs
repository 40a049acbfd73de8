//! Whether the output folder still holds the last publish: what the daemon's tick asks, so
//! that a deleted file, folder or manifest is written again.

use super::dir::{Entry, FolderStamp, OutDir};
use super::manifest::MANIFEST_PATH;
use super::{Publisher, parent_of};

impl Publisher {
    /// False when the folder does not hold the last publish: that publish failed (a full
    /// disk, a permission), the folder or its manifest was deleted, or a folder holding our
    /// files changed behind our back and lost one of them. The next publish then checks what
    /// it would otherwise skip, so calling it again (the daemon does, every second) retries
    /// until the folder is whole. Costs one `stat` per output folder.
    pub fn is_intact(&mut self) -> bool {
        if self.failed {
            return false;
        }
        if self.opened.is_none() {
            return true; // Nothing was published.
        }
        if self.dir_replaced() {
            return false;
        }
        let published = self.files.values().any(Option::is_some);
        if published && self.dir().entry(MANIFEST_PATH).ok() != Some(Entry::File) {
            return false;
        }
        let mut damaged = false;
        let changed: Vec<String> = self
            .folders
            .iter()
            .filter(|(folder, stamp)| stamp.is_none() || self.dir().folder_stamp(folder) != **stamp)
            .map(|(folder, _)| folder.clone())
            .collect();
        let Some((dir, _)) = &self.opened else {
            return true;
        };
        for folder in changed {
            for (path, hash) in self.files.iter_mut() {
                if parent_of(path) == folder
                    && hash.is_some()
                    && dir.entry(path).ok() != Some(Entry::File)
                {
                    *hash = None;
                    damaged = true;
                }
            }
            self.folders
                .insert(folder.clone(), settled_stamp(dir, &folder, now_ns()));
        }
        if damaged {
            // The groups holding those files must be looked at again.
            self.last_groups.clear();
        }
        !damaged
    }

    /// Whether the output folder's path no longer leads to the folder this publisher opened.
    pub(super) fn dir_replaced(&self) -> bool {
        let at_path = std::fs::metadata(&self.out_dir);
        let opened = self.dir().folder_stamp("");
        match (at_path, opened) {
            (Ok(meta), Some(stamp)) => {
                use std::os::unix::fs::MetadataExt;
                meta.dev() != stamp.dev || meta.ino() != stamp.ino
            }
            _ => true,
        }
    }
}

/// The stamp of `folder` to compare with at the next check, or `None` when it proves nothing:
/// the folder changed after `since_ns` (or within a clock tick of it), by this tool or by
/// someone else, so the next check looks at its files instead of trusting the stamp.
pub(super) fn settled_stamp(dir: &OutDir, folder: &str, since_ns: i128) -> Option<FolderStamp> {
    let stamp = dir.folder_stamp(folder)?;
    (!stamp.changed_after(since_ns)).then_some(stamp)
}

/// Now, in nanoseconds since the Unix epoch, as file times count them.
pub(super) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128)
}
