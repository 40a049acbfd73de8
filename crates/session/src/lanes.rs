//! The two lanes: the API lane published by every rebuild, the documents lane
//! (`render::DOCUMENTS_LANE_FILES`) when the caller says.

use crate::render::Lane;
use crate::write::{Report, Stop, WriteError};
use crate::{DocumentsDue, Outcome, Session, build};
use std::time::Instant;

impl Session {
    /// From now on, a rebuild publishes the API lane only, and the documents lane waits for
    /// [`Session::publish_documents`]. Without this call every publish holds both lanes.
    pub fn use_lanes(&mut self) {
        self.lanes = true;
    }

    /// Whether the documents lane is behind, since when, and since the latest API publish.
    pub fn documents_due(&self) -> Option<DocumentsDue> {
        self.documents_due
    }

    /// Publishes the documents lane (and the API lane with it, which salsa returns unchanged
    /// when nothing was applied since it was published). The output then equals a fresh build
    /// of the content the session holds. A failed write keeps the lane due.
    pub fn publish_documents(&mut self) -> Result<Outcome, WriteError> {
        self.publish_documents_until(&|| false)
    }

    /// [`Session::publish_documents`], giving way to a newer change: once `stop` says so (asked
    /// before each file and each block written), it ends with [`WriteError::Stopped`], the
    /// lane still due and the API lane's next publish holding the documents as they are on
    /// disk. The daemon stops it for an edit that arrives meanwhile, so the edit does not wait
    /// for `llms-full.txt` to be written.
    pub fn publish_documents_until(&mut self, stop: &Stop<'_>) -> Result<Outcome, WriteError> {
        let started = Instant::now();
        let Some(due) = self.documents_due.take() else {
            return Ok(Outcome {
                lane: Some(Lane::Documents),
                ..Outcome::unchanged(self.has_published)
            });
        };
        self.freed_since_trim = true;
        let report = self.publish_both(stop).inspect_err(|_| {
            self.documents_due = Some(due);
        })?;
        Ok(Outcome {
            report: Some(report),
            took: started.elapsed(),
            lane: Some(Lane::Documents),
            ..Outcome::default()
        })
    }

    /// Publishes the API lane with the documents lane as it was last published, or both lanes
    /// when there are no lanes (or no documents lane was published yet). Says which.
    pub(crate) fn publish(&mut self) -> Result<(Report, Option<Lane>), WriteError> {
        let Some(documents) = self.documents.as_ref().filter(|_| self.lanes) else {
            return Ok((self.publish_both(&|| false)?, None));
        };
        let started = Instant::now();
        // Files removed behind the publisher's back are written again by this publish.
        self.publisher.notice_damage();
        let mut groups = build::refresh_lane(self.workspace.db(), Lane::Api);
        let api_groups = groups.len();
        groups.extend(documents.iter().cloned());
        groups.extend(self.kept.clone());
        let rendered = started.elapsed();
        // Due even when the write fails: the retry publishes the API lane again, then this one.
        let now = Instant::now();
        let due = self.documents_due.get_or_insert(DocumentsDue {
            since: now,
            latest: now,
        });
        due.latest = now;
        let report = self.publisher.publish_groups(&groups);
        tracing::debug!(
            "rendered {api_groups} output groups of the api lane in {rendered:?}, published in {:?}",
            started.elapsed() - rendered
        );
        Ok((report?, Some(Lane::Api)))
    }

    /// Renders and publishes every group of both lanes, until `stop` says so.
    fn publish_both(&mut self, stop: &Stop<'_>) -> Result<Report, WriteError> {
        let started = Instant::now();
        self.publisher.notice_damage();
        let db = self.workspace.db();
        let mut groups = build::refresh_lane(db, Lane::Api);
        let documents = build::refresh_lane(db, Lane::Documents);
        groups.extend(documents.iter().cloned());
        let rendered = started.elapsed();
        // Remembered even when the write fails: the retry hands them again, and the publisher
        // compares them with what it managed to write. Not when it stopped for an edit: the
        // API lane's publish then holds the documents last published, so that it writes none
        // of the files this one did not reach (`llms-full.txt` stays off the edit's path).
        groups.extend(self.kept.clone());
        let published = self.documents.replace(documents);
        self.documents_due = None;
        let report = self.publisher.publish_groups_until(&groups, stop);
        if matches!(report, Err(WriteError::Stopped)) {
            self.documents = published;
        }
        tracing::debug!(
            "rendered {} output groups in {rendered:?}, published in {:?}",
            groups.len(),
            started.elapsed() - rendered
        );
        report
    }
}
