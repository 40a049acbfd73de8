//! `content-api verify URL`: the conformance checks against a deployed site, one line per
//! failed check and a summary; exit 1 on any failure.

use super::args::VerifyArgs;
use super::flags::BuildArgs;
use super::{EXIT_USAGE, resolve};
use crate::verify::{CHECKS, NOT_CHECKED, checks, target};
use std::process::ExitCode;

pub fn run(build: &BuildArgs, args: &VerifyArgs) -> ExitCode {
    let settings = match resolve(build) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // The removed paths to check: those the site's own history names (when it is this site's).
    let history: Vec<String> = crate::write::HistoryFile::load(&settings.config)
        .map(|history| history.history().paths().map(str::to_string).collect())
        .unwrap_or_default();
    let url = args
        .url
        .clone()
        .unwrap_or_else(|| settings.config.base_url.clone());
    let target = match target(&url, &history) {
        Ok(target) => target,
        Err(err) => {
            eprintln!("error: cannot verify {url}: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let failures = checks::run(&target);
    let mismatches = checks::negotiation(&target);
    let not_checked: Vec<&str> = failures
        .iter()
        .filter(|(_, why)| why == NOT_CHECKED)
        .map(|(name, _)| *name)
        .collect();
    let mut failed = 0;
    for (name, why) in failures.iter().filter(|(_, why)| why != NOT_CHECKED) {
        failed += 1;
        println!("FAIL {name}: {why}");
    }
    for mismatch in &mismatches {
        println!("FAIL 4.3 negotiation by quality values: {mismatch}");
    }
    // One check, however many of its cases disagree.
    failed += usize::from(!mismatches.is_empty());
    for name in &not_checked {
        println!("skip {name}: {NOT_CHECKED}");
    }
    let total = CHECKS.len() + 1;
    let checked = total - not_checked.len();
    println!(
        "{} of {checked} checks hold on {}{}",
        checked - failed.min(checked),
        url,
        if not_checked.is_empty() {
            String::new()
        } else {
            format!(" ({} not checked)", not_checked.len())
        }
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
