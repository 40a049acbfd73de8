//! The command line: flags, the resolved settings, and the mapping to exit codes.
//!
//! Orchestration only: each mode wires `source`, `db`, `build`, `session`, `watch` and `write`
//! together.

mod announce;
mod args;
mod build_reporter;
mod check;
mod color;
mod completions;
mod flags;
mod hosting;
mod init;
mod launcher;
mod list;
mod machine;
mod mcp;
mod new;
mod once;
mod placeholders;
mod serve;
mod settings;
mod status_line;
mod summary;
mod verify;
mod watch;

pub use args::Cli;
/// Whether diagnostics and logs on stderr may use colour (a terminal, and `NO_COLOR` unset).
pub use color::stderr_color;
pub use new::slugify;

use args::{Command, HostingCommand, SchemaCommand};
use flags::BuildArgs;
use machine::{Format, Report};
use settings::{Settings, ci_is_set, resolve};

use clap::CommandFactory;
use std::process::ExitCode;

/// Exit code: the content has errors (or produces a path no file system can hold).
const EXIT_CONTENT_ERRORS: u8 = 1;
/// Exit code: the command line or the configuration is wrong.
const EXIT_USAGE: u8 = 2;
/// Exit code: the output folder cannot be written.
const EXIT_OUTPUT: u8 = 3;

/// Prints a publish failure and picks its exit code: 1 when the content produces a path no
/// file system can hold (nothing was written), 3 for the output folder or the disk.
fn write_error_exit(err: &crate::write::WriteError) -> ExitCode {
    eprintln!("error: {err}");
    ExitCode::from(if err.is_content_problem() {
        EXIT_CONTENT_ERRORS
    } else {
        EXIT_OUTPUT
    })
}

/// The plural ending of a count's noun: "" for 1, "s" otherwise.
fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    launcher::stop_with_launcher();
    let given = match cli.given() {
        Ok(given) => given,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let build = &given.build;
    let Some(command) = cli.command else {
        // A bare `content-api` never ends: say so first, for whoever typed it in a script.
        tracing::info!(
            "watching for changes (the default command); press Ctrl-C to stop. \
             `content-api build` builds once and exits"
        );
        warn_placeholders(build);
        return watch::run(build, &given.watch);
    };
    match command {
        Command::Build(_) => with_settings(build, |settings| {
            let report = Report::new(Format::Text, settings.color);
            if let Err(code) = placeholders::check(settings, build, Strictness::FailInCi, &report) {
                return code;
            }
            once::run(&strict_in_ci(settings))
        }),
        Command::Check(flags) => {
            let settings = match settings::resolve_or_why(build) {
                Ok(settings) => settings,
                Err(why) => {
                    check::settings_failed(flags.format, why);
                    return ExitCode::from(EXIT_USAGE);
                }
            };
            let report = Report::new(flags.format, settings.color);
            // The same rules as `build`: a pull request's check fails when its deploy would.
            if let Err(code) = placeholders::check(&settings, build, Strictness::FailInCi, &report)
            {
                check::finish_json(&report, false, Vec::new());
                return code;
            }
            check::run(&strict_in_ci(&settings), &report)
        }
        Command::Watch(_) => {
            warn_placeholders(build);
            watch::run(build, &given.watch)
        }
        Command::Serve(flags) => {
            warn_placeholders(build);
            serve::run(
                build,
                &given.watch,
                &serve::Listen {
                    addr: flags.addr,
                    site: flags.site.clone(),
                    behind_dev_server: flags.behind_dev_server,
                    origin: flags.origin.clone(),
                },
            )
        }
        Command::List(args) => with_settings(build, |settings| list::run(settings, &args)),
        Command::Init(args) => init::run(build, &args),
        Command::New(new) => with_settings(build, |settings| new::run(settings, &new)),
        Command::Completions(args) => completions::print_completions(&args, Cli::command()),
        Command::Man => completions::print_man_page(Cli::command()),
        Command::Hosting(HostingCommand::Nginx(args)) => hosting::nginx(build, &args),
        Command::Schema(SchemaCommand::WatchToml) => {
            print!("{}", crate::watch_toml::schema());
            ExitCode::SUCCESS
        }
        Command::Mcp(args) => mcp::mcp(build, &args),
        Command::Verify(args) => verify::run(build, &args),
    }
}

/// What to do about placeholder settings (see [`placeholders`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strictness {
    Warn,
    /// Warn, and fail when the CI environment variable is set.
    FailInCi,
}

/// The settings of `build` and `check` (the commands CI runs): where `CI` is set, a front-matter
/// key or tag that is only suspicious fails them, so a deploy never publishes a typo.
fn strict_in_ci(settings: &Settings) -> Settings {
    let mut strict = settings.clone();
    if ci_is_set() {
        std::sync::Arc::make_mut(&mut strict.config)
            .front_matter
            .strict = true;
    }
    strict
}

/// Resolves the settings (printing why not, with exit status 2) and runs `f` with them.
fn with_settings(args: &BuildArgs, f: impl FnOnce(&Settings) -> ExitCode) -> ExitCode {
    match resolve(args) {
        Ok(settings) => f(&settings),
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Watch and serve resolve their settings themselves (and again on every reload); the warning
/// is given once, at start. A config error is left to them to report.
fn warn_placeholders(args: &BuildArgs) {
    if let Ok(settings) = resolve(args)
        // A folder that is no site is reported as that, alone.
        && crate::session::one_shot::content_folder_problem(&settings.config.content_dir).is_none()
    {
        let report = Report::new(Format::Text, settings.color);
        let _ = placeholders::check(&settings, args, Strictness::Warn, &report);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    fn given(args: &[&str]) -> Result<flags::Given, String> {
        Cli::try_parse_from(args)
            .map_err(|e| e.to_string())?
            .given()
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn build_flags_work_before_and_after_the_mode() {
        let cli =
            Cli::try_parse_from(["content-api", "watch", "--content", "c", "--poll"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Watch(_))));
        let flags = cli.given().unwrap();
        assert_eq!(
            flags.build.content.as_deref(),
            Some(camino::Utf8Path::new("c"))
        );
        assert!(flags.watch.poll.is_some());
        let flags = given(&["content-api", "--once", "--today", "2026-11-22"]).unwrap();
        assert!(flags.build.today.is_some());
        // Before the command: applied when the command takes the flag, its own value first.
        let flags = given(&[
            "content-api",
            "--out",
            "o",
            "--today",
            "2026-11-22",
            "build",
        ])
        .unwrap();
        assert_eq!(flags.build.out.as_deref(), Some(camino::Utf8Path::new("o")));
        let flags = given(&["content-api", "--out", "o", "build", "--out", "p"]).unwrap();
        assert_eq!(flags.build.out.as_deref(), Some(camino::Utf8Path::new("p")));
        let flags = given(&["content-api", "--content", "c", "new", "post", "T"]).unwrap();
        assert_eq!(
            flags.build.content.as_deref(),
            Some(camino::Utf8Path::new("c"))
        );
        // ...and an error naming the flag when it does not.
        let refused = given(&["content-api", "--poll", "1s", "build"]).unwrap_err();
        assert!(
            refused.contains("`--poll` does not apply to `content-api build`"),
            "{refused}"
        );
        let refused = given(&["content-api", "--purge-list", "p", "check"]).unwrap_err();
        assert!(
            refused.contains("`--purge-list` does not apply"),
            "{refused}"
        );
        assert!(Cli::try_parse_from(["content-api", "--once", "watch"]).is_err());
        assert!(Cli::try_parse_from(["content-api", "--once", "serve"]).is_err());
        assert!(Cli::try_parse_from(["content-api", "--poll", "soon"]).is_err());
        let cli = Cli::try_parse_from([
            "content-api",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--out",
            "o",
        ])
        .unwrap();
        assert!(matches!(cli.command, Some(Command::Serve(_))));
        let cli = Cli::try_parse_from([
            "content-api",
            "hosting",
            "nginx",
            "--listen",
            "127.0.0.1:8080",
            "--out",
            "o",
        ])
        .unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Hosting(HostingCommand::Nginx(ref args))) if args.listen == "127.0.0.1:8080"
        ));
        assert!(Cli::try_parse_from(["content-api", "hosting", "nginx"]).is_err());
    }

    #[test]
    fn each_command_takes_only_the_flags_it_uses() {
        for (args, flag) in [
            (&["content-api", "check", "--poll"][..], "--poll"),
            (&["content-api", "check", "--drafts"][..], "--drafts"),
            (
                &["content-api", "build", "--addr", "127.0.0.1:1"][..],
                "--addr",
            ),
            (
                &["content-api", "new", "series", "T", "--today", "2026-01-01"][..],
                "--today",
            ),
            (
                &["content-api", "new", "tag", "t", "--lang", "es"][..],
                "--lang",
            ),
            (
                &["content-api", "list", "drafts", "--out", "o"][..],
                "--out",
            ),
            (
                &["content-api", "completions", "bash", "--content", "c"][..],
                "--content",
            ),
            (&["content-api", "init", "--out", "o"][..], "--out"),
        ] {
            let refused = Cli::try_parse_from(args).unwrap_err().to_string();
            assert!(refused.contains(flag), "{args:?}: {refused}");
        }
    }

    #[test]
    fn build_is_a_command_and_once_stays() {
        let cli = Cli::try_parse_from(["content-api", "build", "--out", "o"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Build(_))));
        let cli = Cli::try_parse_from(["content-api", "--out", "o", "--once"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Build(_))));
        assert_eq!(
            cli.given().unwrap().build.out.as_deref(),
            Some(camino::Utf8Path::new("o"))
        );
        assert!(Cli::try_parse_from(["content-api", "--once", "build"]).is_err());
    }

    #[test]
    fn quiet_and_verbose_are_everywhere_logs_are_and_exclusive() {
        let cli = Cli::try_parse_from(["content-api", "check", "-q"]).unwrap();
        assert_eq!(cli.log_filter(), "warn,salsa=warn,notify=warn,rmcp=warn");
        let cli = Cli::try_parse_from(["content-api", "-vv", "build"]).unwrap();
        assert_eq!(cli.log_filter(), "trace,salsa=warn,notify=warn,rmcp=warn");
        let cli = Cli::try_parse_from(["content-api", "build", "--verbose"]).unwrap();
        assert_eq!(cli.log_filter(), "debug,salsa=warn,notify=warn,rmcp=warn");
        assert!(Cli::try_parse_from(["content-api", "-q", "-v", "build"]).is_err());
    }
}
