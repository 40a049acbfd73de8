//! The steps of a publish for the documents a site may replace (`crate::yielding_documents` keeps
//! their record): an output whose bytes are not known is read to tell the tool's from the
//! site's, and the record is updated around the writes.

use super::Publisher;
use super::plan::DiskState;
use crate::output::Output;
use crate::yielding_documents::{YIELDING_HASHES_PATH, YieldingHashes, is_recorded};
use crate::{WriteError, ownership};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_128;

impl Publisher {
    /// Part of step 2: settles an output that is a document the site may replace, whose bytes
    /// on disk are not known, by reading them: already right (nothing to write), the bytes this
    /// tool wrote before or no record of them (to write), or a file the site put in place of
    /// the tool's (the site's from now on: yielded, no longer owned). Whether it is still to be
    /// written.
    pub(crate) fn still_to_write(
        &mut self,
        (path, output): &(Arc<str>, Output),
        on_disk: DiskState,
    ) -> bool {
        if on_disk != DiskState::Unknown
            || !is_recorded(path)
            || !ownership::yields_to_site(path, output)
        {
            return true;
        }
        let Some(bytes) = self.dir().read(path) else {
            return true;
        };
        if output.eq_bytes(&bytes) {
            self.files.insert(path.clone(), Some(output.hash));
            self.digests.insert(path.clone(), xxh3_128(&bytes));
            return false;
        }
        if self.yielding_hashes.wrote(path, &bytes) != Some(false) {
            return true;
        }
        tracing::info!(
            "{}/{path} was replaced by the site's own: keeping it",
            self.out_dir
        );
        self.yielded.insert(path.clone());
        self.files.remove(path);
        false
    }

    /// Part of step 3: the documents this publish may replace leave the record first.
    pub(crate) fn record_documents_before(
        &mut self,
        stale: &[(&(Arc<str>, Output), DiskState)],
    ) -> Result<(), WriteError> {
        let mut documents = self.yielding_hashes.clone();
        for ((path, _), _) in stale {
            if is_recorded(path) {
                documents.0.remove(&**path);
            }
        }
        self.save_yielding_hashes(documents)
    }

    /// Part of step 6: once the build is committed, the record lists the hash of each recorded
    /// document this tool owns now (as this publisher wrote or found it, or as the record
    /// said), and nothing else.
    pub(crate) fn record_documents_after(&mut self) -> Result<(), WriteError> {
        let documents = self
            .files
            .keys()
            .filter(|path| is_recorded(path))
            .filter_map(|path| {
                let hash = self
                    .digests
                    .get(path)
                    .or_else(|| self.yielding_hashes.0.get(&**path))?;
                Some((path.to_string(), *hash))
            })
            .collect();
        self.save_yielding_hashes(YieldingHashes(documents))
    }

    fn save_yielding_hashes(&mut self, documents: YieldingHashes) -> Result<(), WriteError> {
        if documents == self.yielding_hashes {
            return Ok(());
        }
        if documents.0.is_empty() {
            self.dir().remove(YIELDING_HASHES_PATH)?;
        } else {
            self.dir()
                .write_state(YIELDING_HASHES_PATH, &documents.to_bytes())?;
        }
        self.yielding_hashes = documents;
        Ok(())
    }
}
