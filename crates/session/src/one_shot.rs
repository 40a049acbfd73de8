//! The one-shot build (`content-api build`, `--once`): set every input, evaluate every output,
//! write, record, return. The command line only maps [`build`]'s result to an exit code.
//!
//! The one build that records into the publishing history (unless it is a preview): it is what
//! CI runs to deploy, so what it published is what production served. What it finds on the
//! way is said through the caller's [`Reporter`], in the order it is found; its logs go to
//! `tracing`; why it stopped is the [`BuildError`] it returns.

mod check;
mod folders;
mod live_record;
mod unchanged;

pub use check::{Checked, Failure, load_and_check};
pub use folders::{content_folder_problem, layout_not_read};
pub use live_record::{Fetched, LiveSite};

use crate::config::SiteConfig;
use crate::db::Preview;
use crate::deploy::{
    self, AfterPublish, DeployError, HistoryError, HistoryFile, add_deploy_record, pages_limits,
};
use crate::diag::Diagnostic;
use crate::output::Files;
use crate::write::{Publisher, WriteError};
use camino::Utf8Path;
use chrono::NaiveDate;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

/// A run's settings, resolved from the flags and `watch.toml`.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// `watch.toml` (or its defaults) with the flags applied.
    pub config: &'a Arc<SiteConfig>,
    /// The config file in use, if any.
    pub config_file: Option<&'a Utf8Path>,
    /// The site's date for this build.
    pub today: NaiveDate,
    /// What this build publishes beyond production (`--drafts`, `--future`).
    pub preview: Preview,
    /// `--purge-list`: where to write the URLs this publish changed or removed.
    pub purge_list: Option<&'a Utf8Path>,
    /// The site has a history to record into: a `watch.toml`, `--history`, or the file exists.
    /// Nothing is created in a folder that is not a site's.
    pub records_history: bool,
    /// The environment variable `CI` is set: an unreadable live record is an error.
    pub ci: bool,
}

impl Request<'_> {
    /// Whether this build may record into the publishing history: a site's (or `--history`'s)
    /// build that is no preview. The history file itself must also be this site's
    /// (`HistoryFile::records`).
    pub fn may_record(&self) -> bool {
        self.records_history && !self.preview.any()
    }
}

/// Where a one-shot build (and `check`) says what it finds, as it finds it.
pub trait Reporter {
    /// A diagnostic; `source` is its file's text, when at hand (the text shows the line).
    fn diagnostic(&self, diagnostic: &Diagnostic, source: Option<&str>);
    /// A warning said in one sentence, about the file `path`.
    fn warning(&self, path: &str, message: &str);
    /// An error said in one sentence, about the file `path`.
    fn error(&self, path: &str, message: &str);
    /// The number of content files read.
    fn files_read(&self, count: usize);
    /// The build entered `phase` (a status line may show it).
    fn phase(&self, phase: &str);
    /// The phases shown are over: the next message starts on a clean line.
    fn phase_done(&self);
}

/// What a finished build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The files the build's output holds.
    pub files: usize,
    /// The content files it was built from.
    pub sources: usize,
    /// The files written.
    pub written: usize,
    /// The files already as the build would write them.
    pub unchanged: usize,
    /// The files removed.
    pub removed: usize,
    /// Nothing changed since the last build: its fingerprint matched, nothing was parsed.
    pub reused: bool,
}

/// Why a one-shot build stopped. Diagnostics and warnings were reported already; the message
/// of each variant is the one line still to print (as `error: {message}`).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The content folder, the history or the hosting settings cannot be used (reported).
    #[error("the build cannot start (reported above)")]
    Usage,
    /// This many errors in the content (reported); nothing was written.
    #[error("{} error{} in the content", .0, plural(*.0))]
    ContentErrors(usize),
    /// The output folder cannot be written, or the content makes a path no file system holds.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The live site's deploy record is required and cannot be read.
    #[error("{0}")]
    LiveRecord(String),
    /// The publishing history would grow past its bound.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// Outputs a host refuses (the list of removed paths is too large), one message each.
    #[error("{}", .0.join("\nerror: "))]
    HostLimits(Vec<String>),
    /// Recording the history, writing the purge list or the Pages route failed (after the
    /// publish, or in place of one when nothing changed).
    #[error(transparent)]
    Record(#[from] DeployError),
}

/// Builds the site once: takes the output folder, reuses the last build when nothing changed,
/// reads the live site's record when the build records, loads and checks the content, renders,
/// publishes, records the history and writes the purge list.
pub fn build(
    request: &Request<'_>,
    live_site: &dyn LiveSite,
    reporter: &dyn Reporter,
) -> Result<Built, BuildError> {
    let started = Instant::now();
    let config = &**request.config;
    // Take the output folder first: another writer there is reported before any work.
    let mut publisher = Publisher::open(&config.out_dir)?
        .one_shot()
        .taking_over(&config.hosting.take_over);
    // Stamps taken before the content is read: nothing changed since the last build → done.
    // Not in a folder this tool owns nothing in: nothing there can match, and a build that
    // writes every output changes its folders as it ends, so the fingerprint would not be saved
    // (the next build, which writes nothing, saves it). The build then walks as it reads.
    let probe = if publisher.owns_nothing() {
        None
    } else {
        unchanged::probe(request, &publisher)
    };
    tracing::debug!("probed the inputs at {:?}", started.elapsed());
    if let Some(reused) = probe.as_ref().and_then(|probe| probe.unchanged()) {
        publisher.remove_temp_files();
        let built = unchanged::reuse(&reused, request, started)?;
        deploy::install_pages_route(config).map_err(DeployError::from)?;
        return Ok(built);
    }
    let walked = probe.as_ref().map(deploy::Probe::content_files);
    let live = live_record::read(request, live_site, reporter)?;
    let checked = match load_and_check(request, reporter, walked, live.record(), Some(&publisher)) {
        Ok(checked) => checked,
        Err(Failure::Usage) => return Err(BuildError::Usage),
        Err(Failure::ContentErrors(errors)) => return Err(BuildError::ContentErrors(errors)),
    };
    let Checked {
        workspace,
        file_count,
        mut history,
        clean,
    } = checked;
    reporter.phase("rendering");
    // The publisher holds the list as one shared slice: converted here, once, rather than
    // copied beside the list for the whole publish.
    let mut outputs = crate::build::outputs(workspace.db());
    let records = request.may_record() && history.records();
    if records {
        history.check_bound(outputs.iter().map(|(path, _)| &**path))?;
        let site_keeps: HashSet<String> = publisher
            .site_keeps(&outputs)
            .into_iter()
            .map(str::to_string)
            .collect();
        let site_keeps = site_keeps.iter().map(String::as_str).collect();
        add_deploy_record(&mut outputs, &history, &config.base_url, &site_keeps);
    }
    let gone = crate::render::gone_paths(workspace.db());
    announce_gone_from_record(&history, gone, live.record().is_some());
    let too_large = pages_limits::gone_list_errors(config, &outputs);
    if !too_large.is_empty() {
        return Err(BuildError::HostLimits(too_large));
    }
    let outputs: Files = outputs.into();
    tracing::debug!(
        "rendered {} outputs at {:?}",
        outputs.len(),
        started.elapsed()
    );
    let out_dir = config.out_dir.as_str();
    let limits = pages_limits::pages_warnings(config, &outputs);
    for warning in &limits {
        reporter.warning(out_dir, warning);
    }
    let clean = clean && limits.is_empty();
    reporter.phase(&format!("writing {} files", outputs.len()));
    let published = publisher.publish_groups(std::slice::from_ref(&outputs));
    reporter.phase_done();
    let report = published?;
    tracing::debug!("published at {:?}", started.elapsed());
    let after = AfterPublish {
        config,
        outputs: &outputs,
        publisher: &publisher,
        report: &report,
        preview: request.preview.any(),
        records_history: request.records_history,
        purge_list: request.purge_list,
    };
    after.record(&mut history, records, live.last_deploy(), gone)?;
    // In `check`'s words: a pull request's check says what its deploy will.
    for warning in deploy::site_files::warnings(config) {
        reporter.warning(out_dir, &warning);
    }
    after.save_fingerprint(probe, |path| workspace.file_digest(path), clean);
    // The process ends soon: skip freeing the database piece by piece.
    std::mem::forget(workspace);
    let built = Built {
        files: outputs.len(),
        sources: file_count,
        written: report.written.len(),
        unchanged: report.unchanged,
        removed: report.removed.len(),
        reused: false,
    };
    tracing::info!(
        "built {} files from {} sources in {} ms: {} written, {} unchanged, {} removed → {}",
        built.files,
        built.sources,
        started.elapsed().as_millis(),
        built.written,
        built.unchanged,
        built.removed,
        config.out_dir
    );
    Ok(built)
}

/// Names every API path that answers 410 only because the live site's deploy record lists it
/// (the committed history does not): what a record may change is said, path by path.
fn announce_gone_from_record(history: &HistoryFile, gone: &[Arc<str>], read: bool) {
    if !read {
        return;
    }
    let only_there: HashSet<&str> = history.from_record().collect();
    let named: Vec<String> = gone
        .iter()
        .filter(|path| only_there.contains(&***path))
        .map(|path| format!("\n  /{path}"))
        .collect();
    if !named.is_empty() {
        tracing::info!(
            "{} API path{} answer{} 410 Gone because the live site's deploy record lists {} (not {}):{}",
            named.len(),
            plural(named.len()),
            if named.len() == 1 { "s" } else { "" },
            if named.len() == 1 { "it" } else { "them" },
            history.path(),
            named.concat()
        );
    }
}

/// The plural ending of a count's noun: "" for 1, "s" otherwise.
fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests;
