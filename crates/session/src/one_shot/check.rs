//! Loading and checking the content for a one-shot build and for `check`: the content folder,
//! the publishing history and the hosting settings first, then every file, each diagnostic
//! reported. Reads only: nothing is created or written, not even the output folder.

use super::folders::{content_folder_problem, layout_not_read};
use super::{Reporter, Request, plural};
use crate::deploy::{DeployRecord, HistoryFile, pages_functions};
use crate::diag::{Diagnostic, Severity};
use crate::load::{BODY_BUDGET, scan_for_build, scan_listed_for_build};
use crate::source::StampedFile;
use crate::workspace::{Lifetime, Workspace};
use crate::write::Publisher;
use std::collections::HashSet;
use std::time::Instant;

/// The content, loaded and free of errors.
pub struct Checked {
    /// The loaded content, its outputs ready to evaluate.
    pub workspace: Workspace,
    /// The content files read.
    pub file_count: usize,
    /// The publishing history the workspace was built with (recorded into after a publish).
    pub history: HistoryFile,
    /// Nothing at all was reported: no warning about the content or the history.
    pub clean: bool,
}

/// Why a build stopped before writing (the messages are reported already).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The content folder cannot be used.
    Usage,
    /// This many errors in the content.
    ContentErrors(usize),
}

/// Reads the content folder, parses and checks everything, and reports every diagnostic
/// (warnings too) to `reporter`. `walked`: the content files a probe found walking the folder
/// just before (read without walking it again). `live`: the live site's deploy record, whose
/// history is added to the committed one. `publisher`: the output folder, when this build
/// writes it (a history entry naming a file of the site's there is set aside).
pub fn load_and_check(
    request: &Request<'_>,
    reporter: &dyn Reporter,
    walked: Option<&[StampedFile]>,
    live: Option<&DeployRecord>,
    publisher: Option<&Publisher>,
) -> Result<Checked, Failure> {
    let started = Instant::now();
    let config = &**request.config;
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        reporter.diagnostic(&problem, None);
        return Err(Failure::Usage);
    }
    let mut history = match HistoryFile::load(config) {
        Ok(history) => history,
        Err(err) => {
            reporter.error(config.history_file.as_str(), &err.to_string());
            return Err(Failure::Usage);
        }
    };
    if let Some(record) = live {
        let added = history.absorb(record.history.iter().map(String::as_str));
        if added > 0 {
            tracing::info!(
                "{added} API path{} published by earlier deploys, not in {}: carried forward from the live site's record",
                plural(added),
                history.path()
            );
        }
    }
    if let Some(publisher) = publisher {
        let owned: HashSet<&str> = publisher.owned_paths().collect();
        history.set_aside_site_files(&config.out_dir, |path| owned.contains(path));
    }
    if let Err(err) = history.check_bound([]) {
        reporter.error(history.path().as_str(), &err.to_string());
        return Err(Failure::Usage);
    }
    for warning in history.warnings.iter().chain(&history.not_recorded) {
        reporter.warning(history.path().as_str(), warning);
    }
    let hosting_warnings = match pages_functions::check(config) {
        Ok(warnings) => warnings,
        Err(err) => {
            reporter.error(config.out_dir.as_str(), &err.to_string());
            return Err(Failure::Usage);
        }
    };
    for warning in &hosting_warnings {
        reporter.warning(config.out_dir.as_str(), warning);
    }
    reporter.phase("reading the content");
    let scan = match walked {
        Some(files) => scan_listed_for_build(files, config, BODY_BUDGET),
        None => scan_for_build(config.content_dir.as_std_path(), config, BODY_BUDGET),
    };
    let file_count = scan.files.len();
    reporter.files_read(file_count);
    tracing::debug!("scanned {file_count} files in {:?}", started.elapsed());
    reporter.phase(&format!("checking {file_count} files"));
    let workspace = Workspace::new(
        request.config.clone(),
        request.today,
        request.preview,
        scan,
        Lifetime::Once,
        history.history_paths(),
    );
    tracing::debug!("loaded the database at {:?}", started.elapsed());
    let diagnostics = crate::build::diagnostics(workspace.db());
    tracing::debug!("parsed and checked at {:?}", started.elapsed());
    reporter.phase_done();
    let errors = report_diagnostics(&workspace, &diagnostics, reporter);
    if errors > 0 {
        return Err(Failure::ContentErrors(errors));
    }
    if let Some(problem) = layout_not_read(config, request.config_file, &workspace) {
        reporter.diagnostic(&problem, None);
        return Err(Failure::Usage);
    }
    let clean = diagnostics.iter().all(|d| d.severity == Severity::Note)
        && history.warnings.is_empty()
        && history.not_recorded.is_none()
        && hosting_warnings.is_empty();
    Ok(Checked {
        workspace,
        file_count,
        history,
        clean,
    })
}

/// Reports every diagnostic (warnings too) and returns the number of errors.
fn report_diagnostics(
    workspace: &Workspace,
    diagnostics: &[Diagnostic],
    reporter: &dyn Reporter,
) -> usize {
    for diagnostic in diagnostics {
        reporter.diagnostic(diagnostic, workspace.text_of(&diagnostic.path));
    }
    diagnostics.iter().filter(|d| d.is_error()).count()
}
