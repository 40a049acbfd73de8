//! `content-api --once`: set every input, evaluate every output, write, exit.

use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, Settings, write_error_exit};
use crate::diag::Diagnostic;
use crate::workspace::{Lifetime, Workspace};
use crate::write::Publisher;
use crate::{build, source};
use std::process::ExitCode;
use std::time::Instant;

pub fn run(settings: &Settings) -> ExitCode {
    let started = Instant::now();
    let config = &settings.config;
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        eprintln!("{}", problem.render(None, settings.color));
        return ExitCode::from(EXIT_USAGE);
    }
    // Take the output folder first: another writer there is reported before any work.
    let mut publisher = match Publisher::open(&config.out_dir) {
        Ok(publisher) => publisher,
        Err(err) => return write_error_exit(&err),
    };
    let scan = source::scan(config.content_dir.as_std_path());
    let file_count = scan.files.len();
    tracing::debug!("scanned {file_count} files in {:?}", started.elapsed());
    let workspace = Workspace::new(
        config.clone(),
        settings.today(),
        settings.drafts,
        scan,
        Lifetime::Once,
        publisher.published(),
    );
    tracing::debug!("loaded the database at {:?}", started.elapsed());
    let diagnostics = build::diagnostics(workspace.db());
    tracing::debug!("parsed and checked at {:?}", started.elapsed());
    let errors = print_diagnostics(&workspace, &diagnostics, settings.color);
    if errors > 0 {
        eprintln!(
            "error: {errors} error{} in the content; nothing was written to {}",
            if errors == 1 { "" } else { "s" },
            config.out_dir
        );
        return ExitCode::from(EXIT_CONTENT_ERRORS);
    }
    let outputs = build::outputs(workspace.db());
    tracing::debug!(
        "rendered {} outputs at {:?}",
        outputs.len(),
        started.elapsed()
    );
    match publisher.publish(&outputs) {
        Ok(report) => {
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
        Err(err) => write_error_exit(&err),
    }
}

/// Why `dir` cannot be used as the content folder, if it cannot.
pub fn content_folder_problem(dir: &camino::Utf8Path) -> Option<Diagnostic> {
    let help =
        "create it, or point to the content with --content DIR or `content_dir` in watch.toml";
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

/// Prints every diagnostic (warnings too) and returns the number of errors.
pub fn print_diagnostics(workspace: &Workspace, diagnostics: &[Diagnostic], color: bool) -> usize {
    for diagnostic in diagnostics {
        eprintln!(
            "{}",
            diagnostic.render(workspace.text_of(&diagnostic.path), color)
        );
    }
    diagnostics.iter().filter(|d| d.is_error()).count()
}
