//! Settings that must not be published as they are (`session::placeholders` finds them), said
//! the same way by `build` and `check`: always a warning, and an error in CI.

use super::machine::Report;
use super::{BuildArgs, EXIT_USAGE, Settings, Strictness, ci_is_set};
use crate::diag::Diagnostic;
use crate::session::placeholders::{find, licence_problems};
use std::process::ExitCode;

/// Reports the warnings (or, under `FailInCi` with CI set, the errors) to `report`. `Err`
/// carries the exit code when the run must stop. `build` and `check` call it alike, so they
/// fail together.
pub fn check(
    settings: &Settings,
    args: &BuildArgs,
    strictness: Strictness,
    report: &Report,
) -> Result<(), ExitCode> {
    let found = find(
        &settings.config,
        settings.file_sets,
        args.base_url.is_some(),
    );
    let licence = licence_problems(&settings.config.licence);
    if found.is_empty() && licence.is_empty() {
        return Ok(());
    }
    let fail = strictness == Strictness::FailInCi && ci_is_set();
    let level = if fail { "error" } else { "warning" };
    let in_ci =
        "\n  = note: the environment variable CI is set, so this is an error; nothing was written";
    let config_file = settings
        .config_path
        .as_ref()
        .map_or("watch.toml", |path| path.as_str());
    if !found.is_empty() {
        let mut list =
            String::from("this build uses placeholder settings, which must not be published:");
        for placeholder in &found {
            list.push_str(&format!(
                "\n  - {} (using {})",
                placeholder.how_to_set, placeholder.used
            ));
        }
        let help = match settings.config_path {
            None => {
                "create watch.toml (`content-api init` writes one with every key explained) and set them"
            }
            Some(_) => "set them in watch.toml",
        };
        if report.is_json() {
            let diagnostic = if fail {
                Diagnostic::error(config_file, list)
            } else {
                Diagnostic::warning(config_file, list)
            };
            report.diagnostic(&diagnostic.help(help), None);
        } else {
            eprintln!(
                "{level}: {list}\n  = help: {help}{}",
                if fail { in_ci } else { "" }
            );
        }
    }
    for problem in licence {
        if report.is_json() {
            let (message, help) = match problem.split_once("\n  = help: ") {
                Some((message, help)) => (message.to_string(), Some(help)),
                None => (problem.clone(), None),
            };
            let mut diagnostic = if fail {
                Diagnostic::error(config_file, message)
            } else {
                Diagnostic::warning(config_file, message)
            };
            if let Some(help) = help {
                diagnostic = diagnostic.help(help);
            }
            report.diagnostic(&diagnostic, None);
        } else {
            eprintln!("{level}: {problem}{}", if fail { in_ci } else { "" });
        }
    }
    if fail {
        Err(ExitCode::from(EXIT_USAGE))
    } else {
        Ok(())
    }
}
