//! The command line: flags, the resolved settings, and the mapping to exit codes.
//!
//! Orchestration only: each mode wires `source`, `db`, `build` and `write` together.

mod once;
mod serve;
mod settings;

pub use settings::{Settings, resolve};

use camino::Utf8PathBuf;
use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Turns a content folder (Markdown posts, series, tags, slide decks in English and Spanish)
/// into a static, read-only JSON API with its OpenAPI description, ready for a CDN.
///
/// `content-api --once` builds the output folder and exits: the mode for CI. `content-api serve`
/// builds it and serves it on localhost with the API's exact HTTP behaviour. Settings come from
/// `watch.toml` (optional; see the README for every key) and are overridden by the flags below.
///
/// Exit status: 0 on success, 1 when the content has errors (nothing is written then),
/// 2 for usage or configuration errors.
#[derive(Debug, Parser)]
#[command(name = "content-api", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// Build once, write the output folder and exit (the CI mode).
    #[arg(long)]
    pub once: bool,

    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub build: BuildArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build, then serve the output folder on localhost as production answers.
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
    #[arg(long, value_name = "PATH", global = true)]
    pub config: Option<Utf8PathBuf>,

    /// Content folder to read (overrides `content_dir`; default `content`).
    #[arg(long, value_name = "DIR", global = true)]
    pub content: Option<Utf8PathBuf>,

    /// Output folder to write (overrides `out_dir`; default `out`). Only files this tool wrote
    /// are ever changed or removed there.
    #[arg(long, value_name = "DIR", global = true)]
    pub out: Option<Utf8PathBuf>,

    /// Absolute base URL of the published site, used in every URL the API contains
    /// (overrides `base_url`; default http://localhost:4321).
    #[arg(long, value_name = "URL", global = true)]
    pub base_url: Option<String>,

    /// Build as if today were this date: posts dated later are scheduled, not published.
    /// Default: today in the site's time zone (`timezone`, default UTC).
    #[arg(long, value_name = "YYYY-MM-DD", global = true)]
    pub today: Option<NaiveDate>,

    /// Preview mode: publish drafts too, marked `isDraft: true`. Never use it for production.
    #[arg(long, global = true)]
    pub drafts: bool,
}

/// Exit codes.
pub const EXIT_CONTENT_ERRORS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let settings = match resolve(&cli.build) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match (&cli.command, cli.once) {
        (Some(Command::Serve(_)), true) => {
            eprintln!(
                "error: --once and serve cannot be used together\n\nFor more information, try '--help'."
            );
            return ExitCode::from(EXIT_USAGE);
        }
        (Some(Command::Serve(args)), false) => return serve::run(&settings, args),
        (None, true) => return once::run(&settings),
        (None, false) => {}
    }
    eprintln!(
        "error: watch mode is not available in this version; run `content-api --once` to build, or `content-api serve` to build and preview\n\nFor more information, try '--help'."
    );
    ExitCode::from(EXIT_USAGE)
}
