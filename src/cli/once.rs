//! `content-api build` (or `--once`): set every input, evaluate every output, write, exit.
//!
//! The one mode that records into the publishing history (unless `--drafts` or `--future`): `build` is
//! what CI runs to deploy, so what it published is what production served.

use super::live_record::{self, Live};
use super::machine::{Format, Report};
use super::status_line::StatusLine;
use super::unchanged;
use super::{EXIT_CONTENT_ERRORS, EXIT_OUTPUT, EXIT_USAGE, Settings, write_error_exit};
use crate::build;
use crate::deploy::{
    self, AfterPublish, DeployRecord, HistoryFile, Probe, add_deploy_record, pages_functions,
    pages_limits,
};
use crate::diag::Diagnostic;
use crate::output::Files;
use crate::session::load::{scan_for_build, scan_listed_for_build};
use crate::source::StampedFile;
use crate::workspace::{Lifetime, Workspace};
use crate::write::Publisher;
use std::process::ExitCode;
use std::time::Instant;

pub fn run(settings: &Settings) -> ExitCode {
    let started = Instant::now();
    let config = &settings.config;
    let progress = StatusLine::for_build();
    // Take the output folder first: another writer there is reported before any work.
    let mut publisher = match Publisher::open(&config.out_dir) {
        Ok(publisher) => publisher.one_shot().taking_over(&config.hosting.take_over),
        Err(err) => return write_error_exit(&err),
    };
    // Stamps taken before the content is read: nothing changed since the last build → done.
    // Not in a folder this tool owns nothing in: nothing there can match, and a build that
    // writes every output changes its folders as it ends, so the fingerprint would not be saved
    // (the next build, which writes nothing, saves it). The build then walks as it reads.
    let probe = if publisher.owns_nothing() {
        None
    } else {
        unchanged::probe(settings, &publisher)
    };
    tracing::debug!("probed the inputs at {:?}", started.elapsed());
    if let Some(exit) = probe
        .as_ref()
        .and_then(|probe| unchanged::reuse(probe, settings, started))
    {
        publisher.remove_temp_files();
        return install_pages_route(config).err().unwrap_or(exit);
    }
    let walked = probe.as_ref().map(Probe::content_files);
    let live = match live_record::read(settings) {
        Ok(live) => live,
        Err(exit) => return exit,
    };
    let report = Report::new(Format::Text, settings.color);
    let checked = match load_and_check(
        settings,
        &report,
        &progress,
        walked,
        live.record(),
        Some(&publisher),
    ) {
        Ok(checked) => checked,
        Err(Failure::Usage) => return ExitCode::from(EXIT_USAGE),
        Err(Failure::ContentErrors(errors)) => {
            eprintln!(
                "error: {errors} error{} in the content; nothing was written to {}",
                plural(errors),
                config.out_dir
            );
            return ExitCode::from(EXIT_CONTENT_ERRORS);
        }
    };
    let Checked {
        workspace,
        file_count,
        mut history,
        clean,
    } = checked;
    progress.phase("rendering");
    // The publisher holds the list as one shared slice: converted here, once, rather than
    // copied beside the list for the whole publish.
    let mut outputs = build::outputs(workspace.db());
    let records = settings.may_record() && history.records();
    if records {
        if let Err(err) = history.check_bound(outputs.iter().map(|(path, _)| &**path)) {
            eprintln!("error: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
        let site_keeps: std::collections::HashSet<String> = publisher
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
    for error in &too_large {
        eprintln!("error: {error}");
    }
    if !too_large.is_empty() {
        return ExitCode::from(EXIT_USAGE);
    }
    let outputs: Files = outputs.into();
    tracing::debug!(
        "rendered {} outputs at {:?}",
        outputs.len(),
        started.elapsed()
    );
    let limits = pages_limits::pages_warnings(config, &outputs);
    for warning in &limits {
        eprintln!("warning: {warning}");
    }
    let clean = clean && limits.is_empty();
    progress.phase(&format!("writing {} files", outputs.len()));
    let published = publisher.publish_groups(std::slice::from_ref(&outputs));
    progress.clear();
    let report = match published {
        Ok(report) => report,
        Err(err) => return write_error_exit(&err),
    };
    tracing::debug!("published at {:?}", started.elapsed());
    let after = AfterPublish {
        config,
        outputs: &outputs,
        publisher: &publisher,
        report: &report,
        preview: settings.preview().any(),
        records_history: settings.records_history,
        purge_list: settings.purge_list.as_deref(),
    };
    // The live site's record, when read, is what the CDN serves now.
    let last_deploy = match live {
        Live::Read(record) => Some(record.files),
        Live::Local(last) => Some(last),
        Live::NotRead | Live::FirstDeploy => None,
    };
    if let Err(err) = after.record(&mut history, records, last_deploy, gone) {
        eprintln!("error: {err}");
        return ExitCode::from(EXIT_OUTPUT);
    }
    // In `check`'s words: a pull request's check says what its deploy will.
    for warning in deploy::site_files::warnings(config) {
        eprintln!("warning: {warning}");
    }
    after.save_fingerprint(probe, |path| workspace.file_digest(path), clean);
    // The process ends here: skip freeing the database piece by piece.
    std::mem::forget(workspace);
    tracing::info!(
        "built {} files from {file_count} sources in {} ms: {} written, {} unchanged, {} removed → {}",
        outputs.len(),
        started.elapsed().as_millis(),
        report.written.len(),
        report.unchanged,
        report.removed.len(),
        config.out_dir
    );
    ExitCode::SUCCESS
}

/// Names every API path that answers 410 only because the live site's deploy record lists it
/// (the committed history does not): what a record may change is said, path by path.
fn announce_gone_from_record(history: &HistoryFile, gone: &[std::sync::Arc<str>], read: bool) {
    if !read {
        return;
    }
    let only_there: std::collections::HashSet<&str> = history.from_record().collect();
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

/// Writes the route file that joins the edge layer to the site's Pages Functions, when the site
/// has them (`deploy::install_pages_route`); the exit code of a failure, printed.
pub fn install_pages_route(config: &crate::config::SiteConfig) -> Result<(), ExitCode> {
    deploy::install_pages_route(config).map_err(|err| {
        eprintln!("error: {err}");
        ExitCode::from(EXIT_OUTPUT)
    })
}

/// How many bytes of posts a one-shot build holds as read, from the scan to the last write. The
/// bodies of the posts past it stay on disk, and the writer reads each again (checked against
/// what the build read) when it writes the post's Markdown variant and `llms-full.txt`, so a
/// very large site's peak memory does not grow with its text. A site of 10,000 posts per
/// language (about 67 MB of content) fits the budget and is read once and held.
pub const BODY_BUDGET: usize = 128 << 20;

/// The content, loaded and free of errors.
pub struct Checked {
    pub workspace: Workspace,
    pub file_count: usize,
    /// The publishing history the workspace was built with (recorded into after a publish).
    pub history: HistoryFile,
    /// Nothing at all was printed: no warning about the content or the history.
    pub clean: bool,
}

/// Why a build stopped before writing (the messages are printed already).
pub enum Failure {
    /// The content folder cannot be used.
    Usage,
    /// This many errors in the content.
    ContentErrors(usize),
}

/// Reads the content folder, parses and checks everything, and reports every diagnostic
/// (warnings too) to `report`. Reads only: nothing is created or written, not even the output folder.
/// `walked`: the content files a probe found walking the folder just before (read without
/// walking it again). `live`: the live site's deploy record, whose history is added to the
/// committed one. `publisher`: the output folder, when this build writes it (a history entry
/// naming a file of the site's there is set aside).
pub fn load_and_check(
    settings: &Settings,
    report: &Report,
    progress: &StatusLine,
    walked: Option<&[StampedFile]>,
    live: Option<&DeployRecord>,
    publisher: Option<&Publisher>,
) -> Result<Checked, Failure> {
    let started = Instant::now();
    let config = &settings.config;
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        report.diagnostic(&problem, None);
        return Err(Failure::Usage);
    }
    let mut history = match HistoryFile::load(config) {
        Ok(history) => history,
        Err(err) => {
            report.error(config.history_file.as_str(), &err.to_string());
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
        let owned: std::collections::HashSet<&str> = publisher.owned_paths().collect();
        history.set_aside_site_files(&config.out_dir, |path| owned.contains(path));
    }
    if let Err(err) = history.check_bound([]) {
        report.error(history.path().as_str(), &err.to_string());
        return Err(Failure::Usage);
    }
    for warning in history.warnings.iter().chain(&history.not_recorded) {
        report.warning(history.path().as_str(), warning);
    }
    let hosting_warnings = match pages_functions::check(config) {
        Ok(warnings) => warnings,
        Err(err) => {
            report.error(config.out_dir.as_str(), &err.to_string());
            return Err(Failure::Usage);
        }
    };
    for warning in &hosting_warnings {
        report.warning(config.out_dir.as_str(), warning);
    }
    progress.phase("reading the content");
    let scan = match walked {
        Some(files) => scan_listed_for_build(files, config, BODY_BUDGET),
        None => scan_for_build(config.content_dir.as_std_path(), config, BODY_BUDGET),
    };
    let file_count = scan.files.len();
    report.files(file_count);
    tracing::debug!("scanned {file_count} files in {:?}", started.elapsed());
    progress.phase(&format!("checking {file_count} files"));
    let workspace = Workspace::new(
        config.clone(),
        settings.today(),
        settings.preview(),
        scan,
        Lifetime::Once,
        history.history_paths(),
    );
    tracing::debug!("loaded the database at {:?}", started.elapsed());
    let diagnostics = build::diagnostics(workspace.db());
    tracing::debug!("parsed and checked at {:?}", started.elapsed());
    progress.clear();
    let errors = print_diagnostics(&workspace, &diagnostics, report);
    if errors > 0 {
        return Err(Failure::ContentErrors(errors));
    }
    if let Some(problem) = layout_not_read(settings, &workspace) {
        report.diagnostic(&problem, None);
        return Err(Failure::Usage);
    }
    let clean = diagnostics
        .iter()
        .all(|d| d.severity == crate::diag::Severity::Note)
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

pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// A site whose content this build read no post or deck of, while Markdown lies elsewhere in
/// the site (another generator's layout: `src/content/blog/`, `_posts/`, `content/posts/`):
/// an error naming what was seen, so such a site never publishes an empty API. A new site
/// with no Markdown at all builds as before.
pub fn layout_not_read(settings: &Settings, workspace: &Workspace) -> Option<Diagnostic> {
    let db = workspace.db();
    let read = workspace
        .globals()
        .trees(db)
        .iter()
        .any(|tree| !tree.posts(db).is_empty() || !tree.decks(db).is_empty());
    if read {
        return None;
    }
    let config = &settings.config;
    let root = settings
        .config_path
        .as_deref()
        .and_then(|path| path.parent())
        .or_else(|| config.content_dir.parent())
        .unwrap_or(&config.content_dir);
    let root = if root.as_str().is_empty() {
        camino::Utf8Path::new(".")
    } else {
        root
    };
    let layout = &config.layout;
    let own: Vec<camino::Utf8PathBuf> = [layout.tags(), layout.series(), Some("agent-skills")]
        .into_iter()
        .flatten()
        .map(|folder| config.content_dir.join(folder))
        .collect();
    let mut skip: Vec<&std::path::Path> = own.iter().map(|dir| dir.as_std_path()).collect();
    skip.push(config.out_dir.as_std_path());
    let (count, examples) = crate::source::unread_markdown(root.as_std_path(), &skip, 3);
    if count == 0 {
        return None;
    }
    let patterns = layout
        .posts()
        .iter()
        .map(|pattern| format!("`{pattern}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let files = if count == 1 { "file" } else { "files" };
    Some(
        Diagnostic::error(
            config.content_dir.as_str(),
            format!(
                "no posts found under {}/ by the layout {patterns} (in {}): the layout does not match this site, which has {count} Markdown {files} elsewhere, such as {}",
                config.content_dir,
                config.languages.quoted(),
                examples.join(", ")
            ),
        )
        .help(
            "run `content-api init` in the site's root to detect its layout and write it to watch.toml, or set `content_dir`, `languages` and `[layout] posts` yourself (docs/content-format.md, \"Folder layout\")",
        ),
    )
}

/// Why `dir` cannot be used as the content folder, if it cannot.
pub fn content_folder_problem(dir: &camino::Utf8Path) -> Option<Diagnostic> {
    let help = "create it (`content-api init` makes a new site in the current folder), or point to the content with --content DIR or `content_dir` in watch.toml";
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => None,
        Ok(_) => Some(
            Diagnostic::error(dir.as_str(), "the content folder is a file, not a folder")
                .help(help),
        ),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            Some(Diagnostic::error(dir.as_str(), "the content folder does not exist").help(help))
        }
        Err(err) => Some(
            Diagnostic::error(
                dir.as_str(),
                format!("cannot open the content folder: {err}"),
            )
            .help(help),
        ),
    }
}

/// Reports every diagnostic (warnings too) and returns the number of errors.
pub fn print_diagnostics(
    workspace: &Workspace,
    diagnostics: &[Diagnostic],
    report: &Report,
) -> usize {
    for diagnostic in diagnostics {
        report.diagnostic(diagnostic, workspace.text_of(&diagnostic.path));
    }
    diagnostics.iter().filter(|d| d.is_error()).count()
}
