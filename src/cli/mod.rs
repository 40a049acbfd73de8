//! The command line: flags, the resolved settings, and the mapping to exit codes.
//!
//! Orchestration only: each mode wires `source`, `db`, `build`, `session`, `watch` and `write`
//! together.

mod once;
mod serve;
mod settings;
mod watch;

pub use settings::{Settings, resolve};
pub use watch::WatchArgs;

use camino::Utf8PathBuf;
use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Turns a content folder (Markdown posts, series, tags, slide decks in English and Spanish)
/// into a static, read-only JSON API with its OpenAPI description, ready for a CDN.
///
/// `content-api` builds the output folder, then watches the content and `watch.toml` and
/// rebuilds only what each change affects, until Ctrl-C. `content-api serve` does the same and
/// serves the folder on localhost with the API's exact HTTP behaviour. `content-api --once`
/// builds and exits: the mode for CI. Settings come from `watch.toml` (optional; see the README
/// for every key) and are overridden by the flags below.
///
/// Exit status: 0 on success, 1 when the content has errors (with --once nothing is written
/// then), 2 for usage or configuration errors, 3 when the output folder cannot be written (a
/// disk or permission error, a link or file in the way, or another content-api process
/// writing it; each file then holds its old or its new version, and the next run completes
/// the build).
#[derive(Debug, Parser)]
#[command(
    name = "content-api",
    version,
    about,
    long_about,
    max_term_width = 100,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Build once, write the output folder and exit (the CI mode).
    #[arg(long)]
    pub once: bool,

    #[command(flatten)]
    pub build: BuildArgs,

    #[command(flatten)]
    pub watch: WatchArgs,
}

/// The modes besides `--once`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build, then rebuild on every change until Ctrl-C (the default). A broken file is
    /// reported once and its last good version stays published until it is fixed.
    Watch,
    /// Build, watch (as `watch` does), and serve the output folder on localhost as production
    /// answers.
    ///
    /// The API contract's HTTP behaviour exactly: GET and HEAD with strong ETags and 304, JSON
    /// error bodies (404, 405 with Allow, 410 for removed API paths, 500), CORS, and a
    /// Server-Sent Events stream of rebuilds at /__events. Prints `listening on URL` on stdout;
    /// Ctrl-C stops it.
    Serve(ServeArgs),
}

/// Flags of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on. Only the loopback address by default: give another one to share
    /// the preview on a network. Port 0 picks a free port (printed at start).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:4321")]
    pub addr: SocketAddr,
}

/// Flags shared by every mode.
#[derive(Debug, Clone, Args)]
pub struct BuildArgs {
    /// Config file. Default: `watch.toml` in the current folder, if it exists. Relative paths
    /// inside it are resolved against the file's folder.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<Utf8PathBuf>,

    /// Content folder to read (overrides `content_dir`; default `content`).
    #[arg(long, global = true, value_name = "DIR")]
    pub content: Option<Utf8PathBuf>,

    /// Output folder to write (overrides `out_dir`; default `out`). Only files this tool wrote
    /// are ever changed or removed there.
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
    #[arg(long, global = true)]
    pub drafts: bool,
}

/// Exit codes.
pub const EXIT_CONTENT_ERRORS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_OUTPUT: u8 = 3;

/// Prints a publish failure and picks its exit code: 1 when the content produces a path no
/// file system can hold (nothing was written), 3 for the output folder or the disk.
pub fn write_error_exit(err: &crate::write::WriteError) -> ExitCode {
    eprintln!("error: {err}");
    ExitCode::from(if err.is_content_problem() {
        EXIT_CONTENT_ERRORS
    } else {
        EXIT_OUTPUT
    })
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    if cli.once {
        return match resolve(&cli.build) {
            Ok(settings) => once::run(&settings),
            Err(message) => {
                eprintln!("{message}");
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    match &cli.command {
        None | Some(Command::Watch) => watch::run(&cli.build, &cli.watch),
        Some(Command::Serve(args)) => serve::run(&cli.build, &cli.watch, args),
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
        assert!(cli.once && cli.command.is_none());
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
    }
}
