//! `content-api verify URL`: the conformance checks against a deployed site. Each finding is a
//! line with its class (`FAIL`: a rule of the API contract; `warn`: a stricter policy of this
//! tool's, a failure with `--strict`; `note`: what the site chose), then the URL it requested,
//! who answered, and what to change. A summary ends it; exit 1 on any failure, or when the time
//! limit ran out before every check ran.

use super::args::VerifyArgs;
use super::flags::BuildArgs;
use super::status_line::StatusLine;
use super::{EXIT_USAGE, resolve};
use crate::verify::checks::{self, Class, OUT_OF_TIME, Outcome};
use crate::verify::{CHECKS, Options, Target, target};
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub fn run(build: &BuildArgs, args: &VerifyArgs) -> ExitCode {
    let settings = match resolve(build) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut ca_pem = Vec::new();
    for file in &args.ca_file {
        match std::fs::read(file) {
            Ok(pem) => ca_pem.push(pem),
            Err(err) => {
                eprintln!("error: cannot read --ca-file {}: {err}", file.display());
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let limit = Duration::from_secs(args.timeout);
    let options = Options {
        ca_pem,
        deadline: Some(Instant::now() + limit),
    };
    // The removed paths to check: those the site's own history names (when it is this site's).
    let history: Vec<String> = crate::deploy::HistoryFile::load(&settings.config)
        .map(|history| history.history().paths().map(str::to_string).collect())
        .unwrap_or_default();
    let url = args
        .url
        .clone()
        .unwrap_or_else(|| settings.config.base_url.clone());
    let progress = StatusLine::on_terminal();
    progress.show(&format!("reading {url}/api/index.json ..."));
    let target = match target(&url, &history, &options) {
        Ok(target) => target,
        Err(_) if options.deadline.is_some_and(|d| Instant::now() >= d) => {
            progress.clear();
            for (name, _) in CHECKS {
                println!("skip {name}: {OUT_OF_TIME}");
            }
            println!(
                "0 of 0 checks hold on {url} ({} not checked); time ran out after {} s \
                 (--timeout) while reading the site's API",
                CHECKS.len(),
                limit.as_secs()
            );
            return ExitCode::FAILURE;
        }
        Err(err) => {
            progress.clear();
            eprintln!("error: cannot verify {url}: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let outcomes = checks::run_with(&target, &mut |i, name| {
        progress.show(&format!("checking {}/{}: {name}", i + 1, CHECKS.len()));
    });
    progress.clear();
    let summary = report(&target, &outcomes, args.strict);
    let out_of_time = outcomes
        .iter()
        .any(|o| o.not_checked.as_deref() == Some(OUT_OF_TIME));
    let mut line = format!(
        "{} of {} checks hold on {url}",
        summary.held, summary.checked
    );
    let mut counts = Vec::new();
    for (count, word) in [
        (summary.warnings, "warning"),
        (summary.notes, "note"),
        (summary.not_checked, "not checked"),
    ] {
        if count > 0 {
            let plural = if count > 1 && word != "not checked" {
                "s"
            } else {
                ""
            };
            counts.push(format!("{count} {word}{plural}"));
        }
    }
    if !counts.is_empty() {
        line.push_str(&format!(" ({})", counts.join(", ")));
    }
    if out_of_time {
        line.push_str(&format!(
            "; time ran out after {} s (--timeout): the checks marked skip did not run",
            limit.as_secs()
        ));
    }
    println!("{line}");
    if summary.failed == 0 && !out_of_time {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What the report counted.
struct Summary {
    checked: usize,
    held: usize,
    failed: usize,
    warnings: usize,
    notes: usize,
    not_checked: usize,
}

/// Prints each finding (failures, then warnings, then notes, then the checks not run) and
/// counts them.
fn report(target: &Target, outcomes: &[Outcome], strict: bool) -> Summary {
    let fails = |o: &Outcome| o.has(Class::Contract) || (strict && o.has(Class::Policy));
    for class in [Class::Contract, Class::Policy, Class::Site] {
        for outcome in outcomes {
            for finding in outcome.findings.iter().filter(|f| f.class == class) {
                let word = if class == Class::Policy && strict {
                    "FAIL"
                } else {
                    class.word()
                };
                println!("{word} {}: {}", outcome.name, finding.why);
                if !finding.url.is_empty() {
                    match &finding.answered {
                        Some(answered) => println!(
                            "     {} (answered by {})",
                            finding.url,
                            target.layer(answered)
                        ),
                        None => println!("     {}", finding.url),
                    }
                }
                if let Some(fix) = &finding.fix {
                    println!("     change: {fix}");
                }
            }
        }
    }
    for outcome in outcomes {
        if let Some(why) = &outcome.not_checked {
            println!("skip {}: {why}", outcome.name);
        }
    }
    let checked = outcomes.iter().filter(|o| o.not_checked.is_none()).count();
    let failed = outcomes.iter().filter(|o| fails(o)).count();
    let count = |class: Class| {
        outcomes
            .iter()
            .flat_map(|o| &o.findings)
            .filter(|f| f.class == class)
            .count()
    };
    Summary {
        checked,
        held: checked - failed,
        failed,
        warnings: if strict { 0 } else { count(Class::Policy) },
        notes: count(Class::Site),
        not_checked: outcomes.len() - checked,
    }
}
