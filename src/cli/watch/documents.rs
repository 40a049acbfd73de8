//! The documents lane of the daemon: when it is due, publishing it, and draining it before the
//! daemon stops or starts over.

use super::{Daemon, TICK};
use std::time::{Duration, Instant};

/// The documents lane runs once no API publish happened for this long, so a burst of saves
/// rewrites the large documents once, after the burst.
const DOCUMENTS_QUIET: Duration = Duration::from_millis(200);

/// ... and at the latest this long after the first API publish it has not followed, so a
/// steady stream of edits never starves it (as the watcher's quiet period has its maximum).
const DOCUMENTS_MAX_WAIT: Duration = Duration::from_secs(2);

impl Daemon<'_> {
    /// When the documents lane is due: once edits paused for [`DOCUMENTS_QUIET`], at the
    /// latest [`DOCUMENTS_MAX_WAIT`] after the first API publish it has not followed (and not
    /// before a retry's time after a failed write).
    pub(super) fn documents_deadline(&self) -> Option<Instant> {
        let due = self.session.documents_due()?;
        let deadline = (due.latest + DOCUMENTS_QUIET).min(due.since + DOCUMENTS_MAX_WAIT);
        Some(
            self.documents_retry
                .map_or(deadline, |retry| retry.max(deadline)),
        )
    }

    /// Publishes the documents lane: the output folder then equals a fresh build. One line
    /// says so (also when nothing needed writing), and `serve` announces it.
    pub(super) fn publish_documents(&mut self) {
        let first_event = self.documents_first_event.take();
        match self.session.publish_documents() {
            Ok(outcome) => {
                self.documents_retry = None;
                self.reporter
                    .report(&self.session, &outcome, first_event, "documents lane");
            }
            Err(err) => {
                self.documents_first_event = first_event;
                self.documents_retry = Some(Instant::now() + TICK);
                tracing::error!(
                    "the documents lane could not be written: {err}; retrying in a second"
                );
            }
        }
    }

    /// Publishes the documents lane now if it is behind (before stopping or starting over).
    pub(super) fn drain_documents(&mut self) {
        if self.session.documents_due().is_some() {
            self.publish_documents();
        }
    }
}
