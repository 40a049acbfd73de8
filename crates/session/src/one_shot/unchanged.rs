//! `build` with nothing changed: the last build's fingerprint (`deploy::Probe`) is compared with
//! the inputs before anything is read, and when it matches, the build reports what a full build
//! that writes nothing would report, without parsing. After a full build,
//! `deploy::AfterPublish::save_fingerprint` saves it for the next one.

use super::{BuildError, Built, Request};
use crate::deploy::{BuildSettings, DeployError, Probe, Reused, write_purge_list};
use crate::write::Publisher;
use std::time::Instant;

/// The inputs' stamps, taken before the content is read and compared with the fingerprint in
/// the publisher's folder (`None`: this tree needs a full build).
pub fn probe(request: &Request<'_>, publisher: &Publisher) -> Option<Probe> {
    let build = BuildSettings {
        config: request.config,
        config_file: request.config_file,
        today: request.today,
        drafts: request.preview.drafts,
        future: request.preview.future,
    };
    Probe::take(&build, publisher)
}

/// The build's whole run when the fingerprint on disk matched: its purge list written empty,
/// its summary logged.
pub fn reuse(
    reused: &Reused,
    request: &Request<'_>,
    started: Instant,
) -> Result<Built, BuildError> {
    if let Some(file) = request.purge_list {
        write_purge_list(file, &[]).map_err(|source| DeployError::PurgeList {
            file: file.to_owned(),
            source,
        })?;
    }
    tracing::info!(
        "built {} files from {} sources in {} ms: 0 written, {} unchanged, 0 removed → {} \
         (nothing changed since the last build: its fingerprint matched, nothing was parsed)",
        reused.files,
        reused.sources,
        started.elapsed().as_millis(),
        reused.files,
        request.config.out_dir
    );
    Ok(Built {
        files: reused.files,
        sources: reused.sources,
        written: 0,
        unchanged: reused.files,
        removed: 0,
        reused: true,
    })
}
