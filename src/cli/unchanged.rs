//! `build` with nothing changed: the last build's fingerprint (`deploy::Probe`) is compared with
//! the inputs before anything is read, and when it matches, the build reports what a full build
//! that writes nothing would report, without parsing. After a full build,
//! `deploy::AfterPublish::save_fingerprint` saves it for the next one.

use super::{EXIT_OUTPUT, Settings};
use crate::deploy::{BuildSettings, Probe, write_purge_list};
use crate::write::Publisher;
use std::process::ExitCode;
use std::time::Instant;

/// The inputs' stamps, taken before the content is read and compared with the fingerprint in
/// the publisher's folder (`None`: this tree needs a full build).
pub fn probe(settings: &Settings, publisher: &Publisher) -> Option<Probe> {
    let build = BuildSettings {
        config: &settings.config,
        config_file: settings.config_path.as_deref(),
        today: settings.today(),
        drafts: settings.drafts,
        future: settings.future,
    };
    Probe::take(&build, publisher)
}

/// When the fingerprint on disk matched `probe`: the build's whole run (its purge list written
/// empty, its summary printed), with the exit code. `None`: build.
pub fn reuse(probe: &Probe, settings: &Settings, started: Instant) -> Option<ExitCode> {
    let reused = probe.unchanged()?;
    if let Some(file) = &settings.purge_list
        && let Err(err) = write_purge_list(file, &[])
    {
        eprintln!("error: cannot write the purge list {file}: {err}");
        return Some(ExitCode::from(EXIT_OUTPUT));
    }
    tracing::info!(
        "built {} files from {} sources in {} ms: 0 written, {} unchanged, 0 removed → {} \
         (nothing changed since the last build: its fingerprint matched, nothing was parsed)",
        reused.files,
        reused.sources,
        started.elapsed().as_millis(),
        reused.files,
        settings.config.out_dir
    );
    Some(ExitCode::SUCCESS)
}
