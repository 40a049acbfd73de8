//! What a one-shot `build` does once its files are published: records the publishing history,
//! measures what changed since the last deploy (the purge list, and the line of API paths now
//! answering 410), saves what it published for the next build, joins the edge layer to the
//! site's Pages Functions, and saves the fingerprint. Also what it adds before the publish: its
//! deploy record.
//!
//! The command line decides which steps apply (flags) and turns a [`DeployError`] into its
//! message and exit code; the steps and their order are here.

use crate::config::SiteConfig;
use crate::deploy_record::{DEPLOY_RECORD_PATH, DeployRecord};
use crate::fingerprint::Probe;
use crate::history::{HistoryError, HistoryFile};
use crate::last_build::{LastBuild, state_dir};
use crate::output::Output;
use crate::pages_functions::{self, FunctionsError};
use crate::purge::{purge_urls, write_purge_list};
use crate::write::{Publisher, Report};
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::HashSet;
use std::sync::Arc;

/// Why a step after the publish failed (the files are published; the deploy is not complete).
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// The publishing history could not be recorded into.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The purge list could not be written.
    #[error("cannot write the purge list {file}: {source}")]
    PurgeList {
        /// The file `--purge-list` names.
        file: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The route that joins the edge layer to the site's Pages Functions could not be written.
    #[error(transparent)]
    PagesRoute(#[from] FunctionsError),
}

/// A publish that just succeeded, and what the build was asked to do after it.
pub struct AfterPublish<'a> {
    /// The site's settings: its output folder, base URL and history file.
    pub config: &'a SiteConfig,
    /// Every output of the build, sorted by path (its deploy record included).
    pub outputs: &'a [(Arc<str>, Output)],
    /// The publisher that wrote the folder: which of its files are the tool's.
    pub publisher: &'a Publisher,
    /// What the publish wrote and removed in the folder.
    pub report: &'a Report,
    /// `--drafts` or `--future`: a preview, which records nothing.
    pub preview: bool,
    /// The build records into the publishing history (a site, or `--history`).
    pub records_history: bool,
    /// `--purge-list FILE`.
    pub purge_list: Option<&'a Utf8Path>,
}

impl AfterPublish<'_> {
    /// When this build `records` (the caller decides it, once), records the history and saves
    /// what this build published; writes the purge list (measured against `last_deploy`, what
    /// the live site or this machine says the last deploy published, else
    /// `.content-api/outputs.json`, else the folder), says which API paths of `gone` now answer
    /// 410, and installs the Pages route.
    pub fn record(
        &self,
        history: &mut HistoryFile,
        records: bool,
        last_deploy: Option<LastBuild>,
        gone: &[Arc<str>],
    ) -> Result<(), DeployError> {
        let config = self.config;
        if !self.preview && !self.records_history {
            tracing::info!(
                "no watch.toml here and no --history: this build records no publishing history (removed API paths will answer 404, not 410); `content-api init` makes a site, --history FILE names one"
            );
        }
        if records {
            match history.record(self.outputs.iter().map(|(path, _)| &**path))? {
                0 => {}
                added => tracing::info!(
                    "recorded {added} new API path{} in {}",
                    plural(added),
                    history.path()
                ),
            }
        }
        // What the last recorded build published: the purge list's baseline when the site's
        // own build emptied the folder, and this build's record for the next one.
        let state = state_dir(&config.history_file);
        let owned: HashSet<&str> = self.publisher.owned_paths().collect();
        let now = LastBuild::of(
            self.outputs
                .iter()
                .filter(|(path, _)| owned.contains(&**path)),
        );
        let baseline = last_deploy
            .or_else(|| {
                (!self.preview)
                    .then(|| LastBuild::load(&state, &config.out_dir, &config.base_url))
                    .flatten()
            })
            .map(|baseline| without_site_files(baseline, self.outputs, &owned));
        // What changed since the last deploy, when it is known: the purge list and the line of
        // paths now gone read it.
        let measured = baseline.as_ref().map(|baseline| {
            let (written, removed) = baseline.changes(&now);
            Report {
                written,
                removed,
                unchanged: 0,
            }
        });
        if let Some(file) = self.purge_list {
            let urls = purge_urls(
                measured.as_ref().unwrap_or(self.report),
                &config.base_url,
                self.publisher.owned_paths(),
            );
            write_purge_list(file, &urls).map_err(|source| DeployError::PurgeList {
                file: file.to_owned(),
                source,
            })?;
        }
        if records && let Err(err) = now.save(&state, &config.out_dir, &config.base_url) {
            tracing::warn!(
                "cannot save what this build published in {state}: {err}; the next purge list is measured against the output folder"
            );
        }
        let removed_since = measured.as_ref().map(|since| since.removed.as_slice());
        announce_gone(gone, removed_since);
        install_pages_route(config)?;
        Ok(())
    }

    /// Saves the fingerprint of this build's inputs and output for the next build (or removes
    /// the old one when this build cannot be vouched for: not `clean`). `digest_of` gives the
    /// hash of the text the build read for a content path. A failure only costs the next build
    /// its shortcut, so it is a warning.
    pub fn save_fingerprint(
        &self,
        probe: Option<Probe>,
        digest_of: impl Fn(&str) -> Option<u64>,
        clean: bool,
    ) {
        let Some(probe) = probe else { return };
        match probe.save(
            self.publisher,
            self.outputs,
            digest_of,
            clean,
            !self.preview,
        ) {
            Ok(true) => tracing::debug!("saved the build's fingerprint"),
            Ok(false) => tracing::debug!("no fingerprint for this build"),
            Err(err) => tracing::warn!("cannot save the build's fingerprint: {err}"),
        }
    }
}

/// Writes the route file that joins the edge layer to the site's Pages Functions, when the site
/// has them (`pages_functions`), and says so.
pub fn install_pages_route(config: &SiteConfig) -> Result<(), FunctionsError> {
    if let Some(path) = pages_functions::install(config)? {
        tracing::info!(
            "wrote {path}: the site's Pages Functions import the API's edge layer from {}",
            config.out_dir
        );
    }
    Ok(())
}

/// Adds this build's deploy record to `outputs` (sorted by path): the whole history with what
/// this build publishes, and the hash of every file it deploys, for the next build to read from
/// the live site. The outputs left to the site's own files (`site_keeps`:
/// `Publisher::site_keeps`) are not the tool's to record: the bytes deployed there are the
/// site's, so a hash of the tool's unwritten version would make the next build purge them as
/// changed or removed, and `verify` take them for the tool's.
pub fn add_deploy_record(
    outputs: &mut Vec<(Arc<str>, Output)>,
    history: &HistoryFile,
    base_url: &str,
    site_keeps: &HashSet<&str>,
) {
    let published = history
        .history()
        .with_outputs(outputs.iter().map(|(path, _)| &**path));
    let deployed = outputs
        .iter()
        .filter(|(path, _)| !site_keeps.contains(&**path));
    let record = DeployRecord::new(&published, LastBuild::of(deployed));
    let at = outputs.partition_point(|(path, _)| &**path < DEPLOY_RECORD_PATH);
    outputs.insert(
        at,
        (Arc::from(DEPLOY_RECORD_PATH), record.to_output(base_url)),
    );
}

/// `baseline` without the outputs of this build that the site's own files stand in for (not
/// owned after the publish): a record of an earlier version listed them with the hash of the
/// tool's unwritten bytes, and the site's file, not the tool's, is what its URL serves, so
/// they are neither changed nor removed by this deploy.
fn without_site_files(
    mut baseline: LastBuild,
    outputs: &[(Arc<str>, Output)],
    owned: &HashSet<&str>,
) -> LastBuild {
    for (path, _) in outputs {
        if !owned.contains(&**path) {
            baseline.files.remove(&**path);
        }
    }
    baseline
}

/// One line for the API paths that answer 410 Gone from this deploy on: those the last deploy
/// served (`removed_since`, when it is known), else every removed path the history names.
fn announce_gone(gone: &[Arc<str>], removed_since: Option<&[String]>) {
    /// Paths named on the line; the rest are counted.
    const SHOWN: usize = 8;
    let newly: Vec<&str> = match removed_since {
        Some(removed) => {
            let removed: HashSet<&str> = removed.iter().map(String::as_str).collect();
            gone.iter()
                .map(|path| &**path)
                .filter(|path| removed.contains(path))
                .collect()
        }
        None => gone.iter().map(|path| &**path).collect(),
    };
    if newly.is_empty() {
        return;
    }
    let mut shown: Vec<String> = newly.iter().take(SHOWN).map(|p| format!("/{p}")).collect();
    if newly.len() > SHOWN {
        shown.push(format!("and {} more", newly.len() - SHOWN));
    }
    let since = if removed_since.is_some() {
        " from this deploy on"
    } else {
        ""
    };
    tracing::info!(
        "{} removed API path{} answer{} 410 Gone{since}: {}",
        newly.len(),
        plural(newly.len()),
        if newly.len() == 1 { "s" } else { "" },
        shown.join(", ")
    );
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}
