//! `content-api verify URL`: the conformance checks against a deployed site. Each finding is a
//! line with its class (`FAIL`: a rule of the API contract; `warn`: a stricter policy of this
//! tool's, a failure with `--strict`; `note`: what the site chose), then the URL it requested,
//! who answered, and what to change. A summary ends it; exit 1 on any failure, or when the time
//! limit ran out before every check ran. With `--format json`, the same run as one object on
//! stdout ([`VerifyJson`]: each check, held, failed or not checked, with its findings) and
//! nothing on stderr.

use super::args::VerifyArgs;
use super::flags::BuildArgs;
use super::machine::{FindingJson, Format, VerifyCheckJson, VerifyCountsJson, VerifyJson};
use super::status_line::StatusLine;
use super::{EXIT_USAGE, resolve};
use crate::verify::checks::{self, Class, OUT_OF_TIME, Outcome};
use crate::verify::{CHECKS, Options, Target, target};
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub fn run(build: &BuildArgs, args: &VerifyArgs) -> ExitCode {
    let json = args.format == Format::Json;
    // A run that cannot verify: the message on stderr, or the JSON object that says it.
    let stop = |target: &str, error: String, code: u8| {
        if json {
            super::machine::print(&VerifyJson {
                ok: false,
                target: target.to_string(),
                strict: args.strict,
                error: Some(error.strip_prefix("error: ").unwrap_or(&error).to_string()),
                out_of_time: false,
                checks: Vec::new(),
                counts: VerifyCountsJson::default(),
            });
        } else {
            eprintln!("{error}");
        }
        ExitCode::from(code)
    };
    let given_url = args.url.clone().unwrap_or_default();
    let settings = match resolve(build) {
        Ok(settings) => settings,
        Err(message) => return stop(&given_url, message, EXIT_USAGE),
    };
    let mut ca_pem = Vec::new();
    for file in &args.ca_file {
        match std::fs::read(file) {
            Ok(pem) => ca_pem.push(pem),
            Err(err) => {
                return stop(
                    &given_url,
                    format!("error: cannot read --ca-file {}: {err}", file.display()),
                    EXIT_USAGE,
                );
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
    let progress = if json {
        StatusLine::hidden()
    } else {
        StatusLine::on_terminal()
    };
    progress.show(&format!("reading {url}/api/index.json ..."));
    let target = match target(&url, &history, &options) {
        Ok(target) => target,
        Err(_) if options.deadline.is_some_and(|d| Instant::now() >= d) => {
            progress.clear();
            let why = format!(
                "time ran out after {} s (--timeout) while reading the site's API",
                limit.as_secs()
            );
            if json {
                super::machine::print(&VerifyJson {
                    ok: false,
                    target: url.clone(),
                    strict: args.strict,
                    error: Some(why),
                    out_of_time: true,
                    checks: CHECKS
                        .iter()
                        .map(|(name, _)| VerifyCheckJson {
                            name,
                            ok: None,
                            skipped: Some(OUT_OF_TIME.to_string()),
                            findings: Vec::new(),
                        })
                        .collect(),
                    counts: VerifyCountsJson {
                        not_checked: CHECKS.len(),
                        ..VerifyCountsJson::default()
                    },
                });
                return ExitCode::FAILURE;
            }
            for (name, _) in CHECKS {
                println!("skip {name}: {OUT_OF_TIME}");
            }
            println!(
                "0 of 0 checks hold on {url} ({} not checked); {why}",
                CHECKS.len(),
            );
            return ExitCode::FAILURE;
        }
        Err(err) => {
            progress.clear();
            return stop(
                &url,
                format!("error: cannot verify {url}: {err}"),
                EXIT_USAGE,
            );
        }
    };
    let outcomes = checks::run_with(&target, &mut |i, name| {
        progress.show(&format!("checking {}/{}: {name}", i + 1, CHECKS.len()));
    });
    progress.clear();
    let summary = count(&outcomes, args.strict);
    let out_of_time = outcomes
        .iter()
        .any(|o| o.not_checked.as_deref() == Some(OUT_OF_TIME));
    let ok = summary.failed == 0 && !out_of_time;
    if json {
        super::machine::print(&as_json(
            &target,
            &url,
            &outcomes,
            args.strict,
            ok,
            out_of_time,
            summary,
        ));
    } else {
        report(&target, &outcomes, args.strict);
        println!("{}", last_line(&url, &summary, out_of_time, limit));
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The text's last line: how many checks hold, and what else was found.
fn last_line(url: &str, summary: &VerifyCountsJson, out_of_time: bool, limit: Duration) -> String {
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
    line
}

/// Whether an outcome fails the run.
fn fails(outcome: &Outcome, strict: bool) -> bool {
    outcome.has(Class::Contract) || (strict && outcome.has(Class::Policy))
}

/// The word of a finding's class, as the text prints it.
fn word(class: Class, strict: bool) -> &'static str {
    if class == Class::Policy && strict {
        "FAIL"
    } else {
        class.word()
    }
}

/// Prints each finding (failures, then warnings, then notes, then the checks not run).
fn report(target: &Target, outcomes: &[Outcome], strict: bool) {
    for class in [Class::Contract, Class::Policy, Class::Site] {
        for outcome in outcomes {
            for finding in outcome.findings.iter().filter(|f| f.class == class) {
                println!("{} {}: {}", word(class, strict), outcome.name, finding.why);
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
}

/// What the report counts.
fn count(outcomes: &[Outcome], strict: bool) -> VerifyCountsJson {
    let checked = outcomes.iter().filter(|o| o.not_checked.is_none()).count();
    let failed = outcomes.iter().filter(|o| fails(o, strict)).count();
    let count = |class: Class| {
        outcomes
            .iter()
            .flat_map(|o| &o.findings)
            .filter(|f| f.class == class)
            .count()
    };
    VerifyCountsJson {
        checked,
        held: checked - failed,
        failed,
        warnings: if strict { 0 } else { count(Class::Policy) },
        notes: count(Class::Site),
        not_checked: outcomes.len() - checked,
    }
}

/// The run as `--format json` gives it: every check in the order run, each finding with the
/// text's class word (lower case), URL, status, who answered, why and what to change.
fn as_json(
    target: &Target,
    url: &str,
    outcomes: &[Outcome],
    strict: bool,
    ok: bool,
    out_of_time: bool,
    counts: VerifyCountsJson,
) -> VerifyJson {
    let checks = outcomes
        .iter()
        .map(|outcome| VerifyCheckJson {
            name: outcome.name,
            ok: outcome
                .not_checked
                .is_none()
                .then(|| !fails(outcome, strict)),
            skipped: outcome.not_checked.clone(),
            findings: outcome
                .findings
                .iter()
                .map(|finding| FindingJson {
                    class: match word(finding.class, strict) {
                        "FAIL" => "fail",
                        other => other,
                    },
                    url: finding.url.clone(),
                    status: finding.answered.as_ref().map(|a| a.status),
                    answered_by: finding.answered.as_ref().map(|a| target.layer(a)),
                    why: finding.why.clone(),
                    fix: finding.fix.clone(),
                })
                .collect(),
        })
        .collect();
    VerifyJson {
        ok,
        target: url.to_string(),
        strict,
        error: None,
        out_of_time,
        checks,
        counts,
    }
}
