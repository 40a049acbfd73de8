//! `content-api check`: every check of a build, and no write at all. With `--format json`, the
//! same run as one object on stdout ([`CheckJson`]) and nothing on stderr.

use super::build_reporter::BuildReporter;
use super::machine::{CheckJson, Format, Report};
use super::settings::Unresolved;
use super::status_line::StatusLine;
use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, Settings, plural};
use crate::diag::Diagnostic;
use crate::session::one_shot::{Failure, load_and_check};
use std::process::ExitCode;

pub fn run(settings: &Settings, report: &Report) -> ExitCode {
    let progress = if report.is_json() {
        StatusLine::hidden()
    } else {
        StatusLine::for_build()
    };
    let reporter = BuildReporter {
        report,
        progress: &progress,
    };
    match load_and_check(&settings.request(), &reporter, None, None, None) {
        Ok(checked) => {
            // What the host would refuse: the outputs rendered, nothing written.
            progress.phase("rendering");
            let outputs = crate::build::outputs(checked.workspace.db());
            progress.clear();
            let out_dir = settings.config.out_dir.as_str();
            for warning in crate::deploy::pages_limits::pages_warnings(&settings.config, &outputs) {
                report.warning(out_dir, &warning);
            }
            for warning in crate::deploy::site_files::warnings(&settings.config) {
                report.warning(out_dir, &warning);
            }
            // As the build's publish says them.
            if let Some((_, ours)) = outputs.iter().find(|(path, _)| &**path == "_headers") {
                for warning in crate::write::headers_warnings(&settings.config.out_dir, ours) {
                    match report {
                        Report::Text { .. } => tracing::warn!("{warning}"),
                        Report::Json(_) => report
                            .warning(settings.config.out_dir.join("_headers").as_str(), &warning),
                    }
                }
            }
            if report.is_json() {
                let (summary, _) = super::summary::counts(&checked.workspace);
                std::mem::forget(checked.workspace);
                finish_json(report, true, summary);
                return ExitCode::SUCCESS;
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
        Err(Failure::Usage) => {
            finish_json(report, false, Vec::new());
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::ContentErrors(errors)) => {
            if report.is_json() {
                finish_json(report, false, Vec::new());
            } else {
                eprintln!(
                    "error: {errors} error{} in {} (nothing was written)",
                    plural(errors),
                    settings.config.content_dir
                );
            }
            ExitCode::from(EXIT_CONTENT_ERRORS)
        }
    }
}

/// Prints the JSON object of a run that ends here (nothing, in text).
pub fn finish_json(report: &Report, ok: bool, summary: Vec<super::summary::LangSummary>) {
    if let Report::Json(gathered) = report {
        super::machine::print(&CheckJson::new(ok, gathered.take(), summary));
    }
}

/// Why the settings cannot be resolved: on stderr, or as the one error of the JSON object.
pub fn settings_failed(format: Format, why: Unresolved) {
    let diagnostic = match (format, why) {
        (Format::Json, Unresolved::Config(diagnostic)) => diagnostic,
        (Format::Json, Unresolved::Flag(message)) => {
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            match message.split_once("\n  = help: ") {
                Some((message, help)) => Diagnostic::error("", message).help(help),
                None => Diagnostic::error("", message),
            }
        }
        (Format::Text, Unresolved::Config(diagnostic)) => {
            let text = std::fs::read_to_string(&diagnostic.path).ok();
            eprintln!(
                "{}",
                diagnostic.render(text.as_deref(), super::color::stderr_color())
            );
            return;
        }
        (Format::Text, Unresolved::Flag(message)) => {
            eprintln!("{message}");
            return;
        }
    };
    let report = Report::new(format, false);
    report.diagnostic(&diagnostic, None);
    finish_json(&report, false, Vec::new());
}
