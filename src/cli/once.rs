//! `content-api build` (or `--once`): the library's one-shot build
//! ([`session::one_shot::build`](crate::session::one_shot::build)), with the live site read over
//! HTTP, what it finds said on stderr, and its result mapped to a last message and an exit code.

use super::build_reporter::BuildReporter;
use super::machine::{Format, Report};
use super::status_line::StatusLine;
use super::{EXIT_CONTENT_ERRORS, EXIT_OUTPUT, EXIT_USAGE, Settings, plural, write_error_exit};
use crate::session::one_shot::{self, BuildError, Fetched, LiveSite};
use std::process::ExitCode;
use std::time::Duration;

pub fn run(settings: &Settings) -> ExitCode {
    let progress = StatusLine::for_build();
    let report = Report::new(Format::Text, settings.color);
    let reporter = BuildReporter {
        report: &report,
        progress: &progress,
    };
    match one_shot::build(&settings.request(), &LiveSiteOverHttp, &reporter) {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => exit_code(&err, settings),
    }
}

/// Prints why the build stopped, unless it was reported already, and picks the exit code.
fn exit_code(err: &BuildError, settings: &Settings) -> ExitCode {
    let code = match err {
        // The diagnostics said it.
        BuildError::Usage => return ExitCode::from(EXIT_USAGE),
        BuildError::ContentErrors(errors) => {
            eprintln!(
                "error: {errors} error{} in the content; nothing was written to {}",
                plural(*errors),
                settings.config.out_dir
            );
            return ExitCode::from(EXIT_CONTENT_ERRORS);
        }
        BuildError::Write(err) => return write_error_exit(err),
        BuildError::LiveRecord(_) | BuildError::History(_) | BuildError::HostLimits(_) => {
            EXIT_USAGE
        }
        BuildError::Record(_) => EXIT_OUTPUT,
    };
    eprintln!("error: {err}");
    ExitCode::from(code)
}

/// The live site over HTTPS (`verify`'s client), for the build's deploy record.
struct LiveSiteOverHttp;

impl LiveSite for LiveSiteOverHttp {
    fn fetch(&self, url: &str, limit: Duration, max_bytes: u64) -> Result<Fetched, String> {
        use crate::verify::live;
        live::fetch(url, limit, max_bytes).map(|fetched| match fetched {
            live::Fetched::Found(body) => Fetched::Found(body),
            live::Fetched::Absent(status) => Fetched::Absent(status),
        })
    }
}
