//! The command line: flags, the resolved settings, and the mapping to exit codes.
//!
//! Orchestration only: each mode wires `source`, `db`, `build`, `session`, `watch` and `write`
//! together.

mod check;
mod completions;
mod hosting;
mod init;
mod limits;
mod new;
mod once;
mod placeholders;
mod progress;
mod report;
mod serve;
mod settings;
mod site_files;
mod unchanged;
mod watch;

/// Whether diagnostics and logs on stderr may use colour (a terminal, and `NO_COLOR` unset).
pub use crate::diag::stderr_color;
pub use new::slugify;

use new::NewArgs;
use settings::{Settings, ci_is_set, resolve};
use watch::WatchArgs;

use camino::Utf8PathBuf;
use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Turns a content folder (Markdown posts, series, tags, slide decks in English and Spanish)
/// into a static, read-only JSON API with its OpenAPI description, ready for a CDN.
///
/// `content-api build` (or `--once`) builds the output folder and exits: the mode for CI.
/// `content-api` alone (or `content-api watch`) builds, then watches the content and
/// `watch.toml` and rebuilds only what each change affects, until Ctrl-C. `content-api serve`
/// does the same and serves the folder on localhost with the API's exact HTTP behaviour.
/// `content-api check` validates without writing; `init` and `new` create a site and its
/// content. Settings come from `watch.toml` (optional; see the README for every key) and are
/// overridden by the flags below.
///
/// Environment: NO_COLOR (any value) turns colours off; RUST_LOG overrides --quiet/--verbose;
/// CI (set, and not "false" or "0") makes a build with placeholder settings an error.
///
/// Exit status: 0 on success, 1 when the content has errors (with --once nothing is written
/// then), 2 for usage or configuration errors, 3 when the output folder cannot be written (a
/// disk or permission error, a link or file in the way, or another content-api process
/// writing it; each file then holds its old or its new version, and the next run completes
/// the build).
#[derive(Debug, Parser)]
#[command(name = "content-api", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    log: LogArgs,

    #[command(flatten)]
    build: BuildArgs,

    #[command(flatten)]
    watch: WatchArgs,
}

impl Cli {
    /// The log filter `--quiet` and `--verbose` ask for, for the binary's logger (RUST_LOG,
    /// when set, wins over it).
    pub fn log_filter(&self) -> &'static str {
        self.log.filter()
    }
}

/// The commands. One variant per command, each with its own flags struct where it has flags.
#[derive(Debug, Subcommand)]
enum Command {
    /// Build once, write the output folder and exit (the CI mode; the same as `--once`).
    ///
    /// Prints every error and warning. With errors nothing is written and the exit status is 1.
    /// Without `watch.toml` the build uses placeholders (a localhost base URL, a generic author
    /// and licence): that is a warning, and an error when the CI environment variable is set.
    /// Records the API paths it published in the publishing history (not with --drafts):
    /// commit that file.
    #[command(long_flag = "once")]
    Build,
    /// Build, then rebuild on every change until Ctrl-C (the default). A broken file is
    /// reported in full each time it is saved, its last good version stays published until it
    /// is fixed, and its fix is announced.
    Watch,
    /// Build, watch (as `watch` does), and serve the output folder on localhost as production
    /// answers.
    ///
    /// The API contract's HTTP behaviour exactly: GET and HEAD with strong ETags and 304, JSON
    /// error bodies (404, 405 with Allow, 410 for removed API paths, 500), CORS, and a
    /// Server-Sent Events stream of rebuilds at /__events. Prints `listening on URL` on stdout;
    /// Ctrl-C stops it.
    Serve(ServeArgs),
    /// Validate everything and write nothing (not even the output folder): every error and
    /// warning is printed; exit status 1 when there are errors, 0 otherwise. For pre-commit
    /// hooks and pull-request checks.
    Check,
    /// Create a new site: a `watch.toml` with every key explained (all commented out) and a
    /// minimal bilingual content folder (one post in English and Spanish, one tag) that builds.
    /// Refuses to overwrite any existing file.
    Init(init::InitArgs),
    /// Create a content file with today's date (in the site's time zone) and print its path:
    /// `content-api new post "My Title"`. The slug comes from the title (or --slug), as the
    /// build reads it from the file name. Refuses to overwrite an existing file.
    New(NewArgs),
    /// Print a shell completion script: `content-api completions bash > /etc/bash_completion.d/content-api`.
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff): `content-api man > content-api.1; man ./content-api.1`.
    Man,
    /// Print a host's configuration for the output folder (see the README, "Deploying: each host").
    #[command(subcommand)]
    Hosting(HostingCommand),
}

/// How much to print. Errors and warnings are always printed.
#[derive(Debug, Clone, Args)]
struct LogArgs {
    /// Print only errors and warnings: no progress, no line per rebuild.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more: the phases of each build and their timings (-vv: everything).
    #[arg(long, short, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

impl LogArgs {
    /// The log filter these flags ask for (RUST_LOG, when set, wins). notify logs every watch
    /// it cannot remove (a deleted folder) at info level: only its warnings are shown.
    fn filter(&self) -> &'static str {
        match (self.quiet, self.verbose) {
            (true, _) => "warn,salsa=warn,notify=warn",
            (false, 0) => "info,salsa=warn,notify=warn",
            (false, 1) => "debug,salsa=warn,notify=warn",
            (false, _) => "trace,salsa=warn,notify=warn",
        }
    }
}

/// The hosts `hosting` writes a configuration for.
#[derive(Debug, Subcommand)]
enum HostingCommand {
    /// Print an nginx `server` block (nginx 1.22 or later) that serves the output folder with
    /// the whole API contract. The removed paths live in `_nginx_gone.conf` inside the output
    /// folder, which every build rewrites and the block includes: reload nginx after a build.
    Nginx(NginxArgs),
}

/// Flags of `hosting nginx`.
#[derive(Debug, Clone, Args)]
struct NginxArgs {
    /// What nginx listens on (its `listen` directive), e.g. `80` or `127.0.0.1:8080`.
    #[arg(long, value_name = "ADDR")]
    pub listen: String,

    /// The host names the block answers for (its `server_name`, space-separated). Default: the
    /// host of `base_url`, so the block sits beside Debian's default site on the same port.
    #[arg(long, value_name = "NAMES")]
    pub server_name: Option<String>,
}

/// Flags of `serve`.
#[derive(Debug, Clone, Args)]
struct ServeArgs {
    /// Address to listen on. Default: 127.0.0.1:4321, or the next free port when 4321 is
    /// taken. Only the loopback address by default: give another one to share the preview on a
    /// network. A port given here is used or the command fails; port 0 picks a free port
    /// (printed at start).
    #[arg(long, value_name = "IP:PORT")]
    pub addr: Option<SocketAddr>,
}

/// Flags shared by every mode.
#[derive(Debug, Clone, Args)]
struct BuildArgs {
    /// Config file. Default: `watch.toml` in the current folder, if it exists. Relative paths
    /// inside it are resolved against the file's folder.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<Utf8PathBuf>,

    /// Content folder to read (overrides `content_dir`; default `content`).
    #[arg(long, global = true, value_name = "DIR")]
    pub content: Option<Utf8PathBuf>,

    /// Output folder to write (overrides `out_dir`; default `out`). Only files this tool wrote
    /// are ever changed or removed there: `_headers` and `_redirects` of the site are merged
    /// (the tool's rules in a marked block), the site's `404.html` is kept, and any other file
    /// of the site in the way stops the build before it writes.
    #[arg(long, global = true, value_name = "DIR")]
    pub out: Option<Utf8PathBuf>,

    /// Absolute base URL of the published site, used in every URL the API contains
    /// (overrides `base_url`; default http://localhost:4321).
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,

    /// Build as if today were this date: posts dated later are scheduled, not published.
    /// Default: today in the site's time zone (`timezone`, default UTC).
    #[arg(long, global = true, value_name = "YYYY-MM-DD")]
    pub today: Option<NaiveDate>,

    /// Preview mode: publish drafts too, marked `isDraft: true`. Never use it for production.
    /// A preview never records anything in the publishing history.
    #[arg(long, global = true)]
    pub drafts: bool,

    /// The publishing history file (overrides `history_file`; default `content-api.history`
    /// beside watch.toml): every API path a `--once` build published, so removed ones answer
    /// 410. Commit it. `--once` adds to it; watch, serve and `--drafts` only read it.
    #[arg(long, global = true, value_name = "FILE")]
    pub history: Option<Utf8PathBuf>,

    /// After each publish, write to FILE the full URLs whose bytes changed or that were removed
    /// (one a line, empty when nothing changed), for a CDN purge by URL.
    #[arg(long, global = true, value_name = "FILE")]
    pub purge_list: Option<Utf8PathBuf>,

    /// Replace the site's own file at this output path, or every file under a folder given with
    /// a trailing `/` (`--take-over api/`), instead of refusing to build (adds to `take_over`).
    /// For a site moving its own hand-written API to this tool. Repeat it for several paths.
    #[arg(long, global = true, value_name = "PATH")]
    pub take_over: Vec<String>,
}

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

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let command = match cli.command {
        None => {
            // A bare `content-api` never ends: say so first, for whoever typed it in a script.
            tracing::info!(
                "watching for changes (the default command); press Ctrl-C to stop. \
                 `content-api build` builds once and exits"
            );
            Command::Watch
        }
        Some(command) => command,
    };
    match command {
        Command::Build => with_settings(&cli.build, |settings| {
            if let Err(code) = placeholders::check(settings, &cli.build, Strictness::FailInCi) {
                return code;
            }
            once::run(settings)
        }),
        Command::Check => with_settings(&cli.build, |settings| {
            // The same rules as `build`: a pull request's check fails when its deploy would.
            if let Err(code) = placeholders::check(settings, &cli.build, Strictness::FailInCi) {
                return code;
            }
            check::run(settings)
        }),
        Command::Watch => {
            warn_placeholders(&cli.build);
            watch::run(&cli.build, &cli.watch)
        }
        Command::Serve(args) => {
            warn_placeholders(&cli.build);
            serve::run(&cli.build, &cli.watch, &args)
        }
        Command::Init(args) => init::run(&cli.build, &args),
        Command::New(args) => with_settings(&cli.build, |settings| new::run(settings, &args)),
        Command::Completions(args) => completions::print_completions(&args),
        Command::Man => completions::print_man_page(),
        Command::Hosting(HostingCommand::Nginx(args)) => hosting::nginx(&cli.build, &args),
    }
}

/// What to do about placeholder settings (see [`placeholders`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strictness {
    Warn,
    /// Warn, and fail when the CI environment variable is set.
    FailInCi,
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
    if let Ok(settings) = resolve(args) {
        let _ = placeholders::check(&settings, args, Strictness::Warn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn build_flags_work_before_and_after_the_mode() {
        let cli =
            Cli::try_parse_from(["content-api", "watch", "--content", "c", "--poll"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Watch)));
        assert_eq!(
            cli.build.content.as_deref(),
            Some(camino::Utf8Path::new("c"))
        );
        assert!(cli.watch.poll.is_some());
        let cli = Cli::try_parse_from(["content-api", "--once", "--today", "2026-11-22"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Build)));
        assert!(cli.build.today.is_some());
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
    fn build_is_a_command_and_once_stays() {
        let cli = Cli::try_parse_from(["content-api", "build", "--out", "o"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Build)));
        let cli = Cli::try_parse_from(["content-api", "--out", "o", "--once"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Build)));
        assert!(Cli::try_parse_from(["content-api", "--once", "build"]).is_err());
    }

    #[test]
    fn quiet_and_verbose_are_global_and_exclusive() {
        let cli = Cli::try_parse_from(["content-api", "check", "-q"]).unwrap();
        assert_eq!(cli.log.filter(), "warn,salsa=warn,notify=warn");
        let cli = Cli::try_parse_from(["content-api", "-vv", "build"]).unwrap();
        assert_eq!(cli.log.filter(), "trace,salsa=warn,notify=warn");
        let cli = Cli::try_parse_from(["content-api", "build", "--verbose"]).unwrap();
        assert_eq!(cli.log.filter(), "debug,salsa=warn,notify=warn");
        assert!(Cli::try_parse_from(["content-api", "-q", "-v", "build"]).is_err());
    }
}
