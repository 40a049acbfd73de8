//! What changed in the content folder, as the watcher hands it to the session: paths to read
//! again, folders to list again, or everything.

use std::collections::BTreeSet;

/// Paths below the content folder to compare with the disk again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeSet {
    /// `/`-separated paths below the content folder (files or folders, existing or not:
    /// created, modified, removed, or either end of a rename).
    pub paths: BTreeSet<String>,
    /// Folders whose listing may have changed (a create, a remove, a rename in them): the
    /// content files held in each are made to equal what the folder has on disk, so an event
    /// lost or misreported there cannot leave a ghost.
    pub folders: BTreeSet<String>,
    /// Events were lost (a queue overflow, or the OS says so): compare everything with disk.
    pub rescan: bool,
}

impl ChangeSet {
    /// Whether there is nothing to compare.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.folders.is_empty() && !self.rescan
    }

    /// Folds `other` (a later change set) into this one.
    pub fn merge(&mut self, other: ChangeSet) {
        self.paths.extend(other.paths);
        self.folders.extend(other.folders);
        self.rescan |= other.rescan;
    }
}
