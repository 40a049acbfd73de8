//! Whether the output folder still holds the last publish ([`Publisher::is_intact`]): what the
//! daemon's tick asks, so that a deleted file, folder or manifest, or a file edited by hand, is
//! written again.

use super::Publisher;
use crate::at::{AtFlags, OwnedFd};
use crate::dir::{Entry, OutDir};
use crate::manifest::MANIFEST_PATH;
use crate::source::FileStamp;
use crate::yielding_documents::is_recorded;
use crate::{file_name, parent_of};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

impl Publisher {
    /// False when the folder does not hold the last publish: that publish failed (a full
    /// disk, a permission), the folder or its manifest was deleted, or a folder holding our
    /// files lost one of them behind our back, or a file of ours was edited by hand (looked
    /// for a slice at a time). The next publish then checks what it would otherwise skip, so
    /// calling it again (the daemon does, every second) retries until the folder is whole.
    /// Costs one `stat` per output folder, one read of each folder whose stamp proves nothing
    /// (changed since it was last looked into, by anyone), and up to `SWEEP_PER_CHECK` `stat`s
    /// of files.
    pub fn is_intact(&mut self) -> bool {
        let whole = self.check(true);
        // All run: a folder's removals and a file's edits are repaired by the same publish.
        let unedited = !self.find_edits();
        let kept = self.yielding_documents_kept();
        whole && unedited && kept
    }

    /// Whether every document the site put in place of the tool's is still there. One the
    /// site (or the author) deleted is the tool's again: the next publish writes it. A few
    /// `stat`s: only the documents a site may replace are ever yielded this way.
    fn yielding_documents_kept(&mut self) -> bool {
        let gone: Vec<Arc<str>> = self
            .yielded
            .iter()
            .filter(|path| is_recorded(path))
            .filter(|path| {
                self.dir()
                    .entry(path)
                    .is_ok_and(|entry| entry == Entry::Missing)
            })
            .cloned()
            .collect();
        for path in &gone {
            self.yielded.remove(path);
        }
        if !gone.is_empty() {
            self.last_groups.clear();
        }
        gone.is_empty()
    }

    /// Looks at the stamps of the next [`SWEEP_PER_CHECK`] files this daemon wrote: a file
    /// whose inode, size or modification time changed since was edited (or replaced) by
    /// someone else, and its content is no longer known, so the next publish compares it and
    /// writes it again. True when one was found.
    fn find_edits(&mut self) -> bool {
        if self.stamps.is_empty() || self.opened.is_none() {
            return false;
        }
        let (order, next) = &mut self.sweep;
        if order.len() != self.stamps.len() {
            // The set of files changed: a new order (sorted, so each folder is opened once).
            *order = self.stamps.keys().cloned().collect();
            order.sort_unstable();
            *next = 0;
        }
        let count = SWEEP_PER_CHECK.min(order.len());
        let slice: Vec<Arc<str>> = (0..count)
            .map(|i| order[(*next + i) % order.len()].clone())
            .collect();
        *next = (*next + count) % order.len();
        let dir = self.dir();
        let mut folder: Option<(&str, Option<OwnedFd>)> = None;
        let mut edited = Vec::new();
        for path in &slice {
            let parent = parent_of(path);
            if folder.as_ref().is_none_or(|(open, _)| *open != parent) {
                folder = Some((parent, dir.folder(parent, false).ok().flatten()));
            }
            let Some((_, Some(fd))) = &folder else {
                continue;
            };
            // Gone: what the folder check is for.
            let Ok(stat) = crate::at::statat(fd, file_name(path), AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            let unedited = self
                .stamps
                .get(path)
                .is_some_and(|earlier| FileStamp::of_stat(&stat).unedited_since(earlier));
            if !unedited {
                edited.push(path.clone());
            }
        }
        for path in &edited {
            tracing::info!(
                "{}/{path} was changed by someone else: writing it again",
                self.out_dir
            );
            self.files.insert(path.clone(), None);
            self.stamps.remove(path);
        }
        if !edited.is_empty() {
            // The groups holding those files must be looked at again.
            self.last_groups.clear();
        }
        !edited.is_empty()
    }

    /// Before a publish: what [`Publisher::is_intact`] does, but only for the folders someone
    /// else changed since they were last looked into (one `stat` per output folder), so that
    /// this publish rewrites what they lost. The folders the last publish wrote to are left
    /// to the next `is_intact`: reading them would put a directory read of each on every edit.
    pub fn notice_damage(&mut self) {
        let _ = self.check(false);
    }

    fn check(&mut self, thorough: bool) -> bool {
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
        let Some((dir, _)) = &self.opened else {
            return true;
        };
        // Each folder to look into, with the regular files it holds now.
        let mut looked: HashMap<String, Option<HashSet<String>>> = HashMap::new();
        for (folder, stamp) in &self.folders {
            let look = match stamp {
                None => thorough,
                Some(stamp) => !same_entries(dir, folder, stamp),
            };
            if look {
                // Stamped before the read: a removal during the read changes it again.
                looked.insert(folder.clone(), None);
            }
        }
        if looked.is_empty() {
            return true;
        }
        let checked_at = now_ns();
        let stamps: Vec<(String, Option<FileStamp>)> = looked
            .keys()
            .map(|folder| (folder.clone(), settled_stamp(dir, folder, checked_at)))
            .collect();
        for (folder, names) in looked.iter_mut() {
            *names = dir.regular_files(folder);
        }
        let mut damaged = false;
        for (path, hash) in self.files.iter_mut() {
            let folder = parent_of(path);
            let Some(names) = looked.get(folder) else {
                continue;
            };
            let present = names
                .as_ref()
                .is_some_and(|names| names.contains(file_name(path)));
            if hash.is_some() && !present {
                *hash = None;
                damaged = true;
            }
        }
        self.folders.extend(stamps);
        if damaged {
            // The groups holding those files must be looked at again.
            self.last_groups.clear();
        }
        !damaged
    }

    /// Whether the output folder's path no longer leads to the folder this publisher opened.
    pub(crate) fn dir_replaced(&self) -> bool {
        // The open handle's own metadata: no new descriptor, so a process out of descriptors
        // is not taken for a folder that went away.
        let opened = match self.dir().stat() {
            Ok(stat) => stat,
            Err(errno) => {
                tracing::warn!(
                    "cannot look at {}: {}",
                    self.out_dir,
                    std::io::Error::from(errno)
                );
                return false;
            }
        };
        match FileStamp::try_of_path(self.out_dir.as_std_path()) {
            Ok(now) => !now.same_file(&FileStamp::of_stat(&opened)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => true,
            Err(err) => {
                tracing::warn!("cannot look at {}: {err}", self.out_dir);
                false
            }
        }
    }
}

/// Files whose stamps one check looks at: at one check a second, the 20,750 outputs of a
/// 10,000-post site are all looked at every 11 s, a few hundred at every check.
pub(crate) const SWEEP_PER_CHECK: usize = 2_000;

/// Several kernel clock ticks (4 ms at 250 Hz, 10 ms at 100 Hz).
const RACY_FOLDER_NS: i128 = 100_000_000;

/// The stamp of `folder` to trust at the next check, or `None` when it proves nothing: the
/// folder changed after `since_ns`, or so close to it that the change could predate it (the
/// kernel stamps changes with its clock tick, which lags the real clock), by this tool or by
/// someone else, so the next [`Publisher::is_intact`] looks into it instead.
pub(crate) fn settled_stamp(dir: &OutDir, folder: &str, since_ns: i128) -> Option<FileStamp> {
    let stamp = folder_stamp(dir, folder)?;
    (stamp.ctime_ns <= since_ns - RACY_FOLDER_NS).then_some(stamp)
}

/// The stamp of the folder `relative` of `dir` ("" for the output folder), whose change time
/// moves when an entry is added or removed (`FileStamp::same_entries`). `None` when missing or
/// not a folder.
pub(crate) fn folder_stamp(dir: &OutDir, relative: &str) -> Option<FileStamp> {
    dir.folder_stat(relative).as_ref().map(FileStamp::of_stat)
}

/// Whether the folder `relative` of `dir` holds the entries it held when stamped `earlier`.
pub(crate) fn same_entries(dir: &OutDir, relative: &str, earlier: &FileStamp) -> bool {
    folder_stamp(dir, relative).is_some_and(|now| now.same_entries(earlier))
}

/// Now, in nanoseconds since the Unix epoch, as file times count them.
pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128)
}
