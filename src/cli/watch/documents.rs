//! The documents lane of the daemon: when it is due, publishing it, and draining it before the
//! daemon stops or starts over.

use super::{Daemon, TICK};
use crate::write::WriteError;
use std::sync::atomic::Ordering;
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
    ///
    /// With `give_way`, until the lane has waited its longest, it gives way to content changes
    /// that arrive while it writes: it stops (the files it did not reach stay as they were, and
    /// it stays due), so the edit is published at once instead of after `llms-full.txt`. Past
    /// its longest wait it runs to the end, so a steady stream of edits never starves it.
    pub(super) fn publish_documents(&mut self, give_way: bool) {
        let first_event = self.documents_first_event.take();
        let may_stop = give_way && self.documents_may_give_way();
        let changes_waiting = self.inbox.changes_waiting;
        let stop = || may_stop && changes_waiting.load(Ordering::SeqCst);
        match self.session.publish_documents_until(&stop) {
            Ok(outcome) => {
                self.documents_retry = None;
                self.reporter
                    .report(&self.session, &outcome, first_event, "documents lane");
            }
            Err(WriteError::Stopped) => {
                self.documents_first_event = first_event;
                tracing::debug!("the documents lane gave way to a change");
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

    /// Whether the documents lane, due, gives way to content changes: until it has waited its
    /// longest ([`DOCUMENTS_MAX_WAIT`] after the first API publish it has not followed).
    pub(super) fn documents_may_give_way(&self) -> bool {
        self.session
            .documents_due()
            .is_some_and(|due| Instant::now() < due.since + DOCUMENTS_MAX_WAIT)
    }

    /// Whether content changes are waiting and the documents lane gives way to them: they are
    /// taken first.
    pub(super) fn documents_wait_for_changes(&self) -> bool {
        self.inbox.changes_waiting.load(Ordering::SeqCst) && self.documents_may_give_way()
    }

    /// Publishes the documents lane now if it is behind (before stopping or starting over).
    pub(super) fn drain_documents(&mut self) {
        if self.session.documents_due().is_some() {
            self.publish_documents(false);
        }
    }
}
