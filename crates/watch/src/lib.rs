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

use crate::source::ChangeSet;
use std::time::Instant;

/// Everything that changed during one batch of events.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// What changed below the content folder: what the session reads again.
    pub content: ChangeSet,
    /// The content folder itself was removed, moved or replaced: its watch is gone.
    pub root: bool,
    /// The config file changed (or was created, replaced or removed).
    pub config: bool,
    /// When the first event of the period happened (for "event to last write" timings).
    pub first_event: Option<Instant>,
}

impl Changes {
    /// Whether nothing changed: no content path, no config file, the content folder still there.
    pub fn is_empty(&self) -> bool {
        self.content.is_empty() && !self.config && !self.root
    }

    /// Folds `other` (a later period) into this one.
    pub fn merge(&mut self, other: Changes) {
        self.content.merge(other.content);
        self.root |= other.root;
        self.config |= other.config;
        self.first_event = match (self.first_event, other.first_event) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// What the watcher reports to its handler.
#[derive(Debug)]
pub enum Signal {
    /// The changes of one quiet period, to build from.
    Changes(Changes),
    /// A watcher error that does not stop watching (it is logged).
    Error(String),
}
