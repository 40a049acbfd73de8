//! What a publish did: the paths it wrote and removed, for the daemon's line, the change
//! stream and the purge list.

use std::sync::Arc;

/// What a publish did.
#[derive(Debug, Default)]
pub struct Report {
    /// Output paths written (new or changed bytes), relative to the output folder.
    pub written: Vec<Arc<str>>,
    /// Output paths removed: no longer outputs.
    pub removed: Vec<String>,
    /// How many outputs already held their bytes and were not touched.
    pub unchanged: usize,
}

impl Report {
    /// True when the publish wrote and removed nothing.
    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && self.removed.is_empty()
    }
}
