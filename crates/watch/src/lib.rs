//! Watching the content folder and the config file: notify's events, reduced to one
//! [`Changes`] value per batch.
//!
//! This crate produces changes and nothing else: it does not read files, and knows nothing of
//! the database. `filter` says which file names editors use as scratch space; `translate`
//! turns events into content paths and folders; `saves` says whether the saves they touch
//! are finished; `debounce` batches events, waiting the quiet period only while a save is
//! unfinished; `watcher` starts notify. What to do with a change is `session`'s job.

// The layers below, under the names they have in every crate of the workspace.
use content_api_source::source;

mod debounce;
mod errors;
pub mod filter;
mod saves;
mod translate;
mod watcher;

pub use watcher::{Mode, StartError, Watcher, start};

use std::collections::BTreeSet;
use std::time::Instant;

/// Everything that changed during one batch of events.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Changed paths below the content folder, `/`-separated (files or folders; created,
    /// modified, removed, or either end of a rename).
    pub content: BTreeSet<String>,
    /// Folders whose listing may have changed (a create, a remove, a rename in them): the
    /// session lists them again, so an event lost or misreported there cannot leave a ghost.
    pub folders: BTreeSet<String>,
    /// The content folder itself was removed, moved or replaced: its watch is gone.
    pub root: bool,
    /// The config file changed (or was created, replaced or removed).
    pub config: bool,
    /// Events were lost (a queue overflow, or the OS says so): compare everything with disk.
    pub rescan: bool,
    /// When the first event of the period happened (for "event to last write" timings).
    pub first_event: Option<Instant>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.content.is_empty()
            && self.folders.is_empty()
            && !self.config
            && !self.rescan
            && !self.root
    }

    /// Folds `other` (a later period) into this one.
    pub fn merge(&mut self, other: Changes) {
        self.content.extend(other.content);
        self.folders.extend(other.folders);
        self.root |= other.root;
        self.config |= other.config;
        self.rescan |= other.rescan;
        self.first_event = match (self.first_event, other.first_event) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// What the watcher reports to its handler.
#[derive(Debug)]
pub enum Signal {
    Changes(Changes),
    /// A watcher error that does not stop watching (it is logged).
    Error(String),
}
