//! `content-api check`: every check of a build, and no write at all.

use super::once::{Failure, load_and_check, plural};
use super::status_line::StatusLine;
use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, Settings};
use std::process::ExitCode;

pub fn run(settings: &Settings) -> ExitCode {
    let progress = StatusLine::for_build();
    match load_and_check(settings, &progress, None, None, None) {
        Ok(checked) => {
            // What the host would refuse: the outputs rendered, nothing written.
            progress.phase("rendering");
            let outputs = crate::build::outputs(checked.workspace.db());
            progress.clear();
            for warning in crate::deploy::pages_limits::pages_warnings(&settings.config, &outputs) {
                eprintln!("warning: {warning}");
            }
            for warning in crate::deploy::site_files::warnings(&settings.config) {
                eprintln!("warning: {warning}");
            }
            // As the build's publish says them.
            if let Some((_, ours)) = outputs.iter().find(|(path, _)| &**path == "_headers") {
                for warning in crate::write::headers_warnings(&settings.config.out_dir, ours) {
                    tracing::warn!("{warning}");
                }
            }
            for line in super::summary::lines(&checked.workspace) {
                tracing::info!("{line}");
            }
            // The process ends here: skip freeing the database piece by piece.
            std::mem::forget(checked.workspace);
            tracing::info!(
                "checked {} file{} in {}: no errors (nothing was written)",
                checked.file_count,
                plural(checked.file_count),
                settings.config.content_dir
            );
            ExitCode::SUCCESS
        }
        Err(Failure::Usage) => ExitCode::from(EXIT_USAGE),
        Err(Failure::ContentErrors(errors)) => {
            eprintln!(
                "error: {errors} error{} in {} (nothing was written)",
                plural(errors),
                settings.config.content_dir
            );
            ExitCode::from(EXIT_CONTENT_ERRORS)
        }
    }
}
