//! The flags' building blocks: small groups of flags (`--config`, `--content`, `--out` with
//! `--base-url`...), each command flattening the groups it uses, and [`Given`], what the flags of
//! one run say whichever command took them. A leaf module: the commands' own flag structs (in
//! `args`, `init`, `list`, `new`) use it.

use camino::Utf8PathBuf;
use chrono::NaiveDate;
use clap::Args;

/// Everything the flags of one run say, whichever command took them.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub build: BuildArgs,
    pub watch: WatchArgs,
    pub log: LogArgs,
}

/// The flags that shape a build (each `None`, `false` or empty when not given).
#[derive(Debug, Clone, Default)]
pub struct BuildArgs {
    pub config: Option<Utf8PathBuf>,
    pub content: Option<Utf8PathBuf>,
    pub out: Option<Utf8PathBuf>,
    pub base_url: Option<String>,
    pub today: Option<NaiveDate>,
    pub drafts: bool,
    pub future: bool,
    pub history: Option<Utf8PathBuf>,
    pub purge_list: Option<Utf8PathBuf>,
    pub take_over: Vec<String>,
}

/// The flags of the watching modes.
#[derive(Debug, Clone, Default)]
pub struct WatchArgs {
    /// `--poll`: scan every interval instead of file notifications.
    pub poll: Option<humantime::Duration>,
}

/// How much to print. Errors and warnings are always printed.
#[derive(Debug, Clone, Default)]
pub struct LogArgs {
    pub quiet: bool,
    pub verbose: u8,
}

impl LogArgs {
    /// The log filter these flags ask for (RUST_LOG, when set, wins). notify logs every watch
    /// it cannot remove (a deleted folder) at info level, and rmcp each client's whole
    /// `InitializeRequestParams`: only their warnings are shown.
    pub fn filter(&self) -> &'static str {
        match (self.quiet, self.verbose) {
            (true, _) => "warn,salsa=warn,notify=warn,rmcp=warn",
            (false, 0) => "info,salsa=warn,notify=warn,rmcp=warn",
            (false, 1) => "debug,salsa=warn,notify=warn,rmcp=warn",
            (false, _) => "trace,salsa=warn,notify=warn,rmcp=warn",
        }
    }
}

/// A group of flags: puts what it was given into a [`Given`].
pub trait Flags {
    fn give(&self, to: &mut Given);
}

/// `--config`: every command that reads the site.
#[derive(Debug, Clone, Args)]
pub struct ConfigFlag {
    /// Config file. Default: `watch.toml` in the current folder, if it exists. Relative paths
    /// inside it are resolved against the file's folder.
    #[arg(long, value_name = "PATH")]
    pub config: Option<Utf8PathBuf>,
}

impl Flags for ConfigFlag {
    fn give(&self, to: &mut Given) {
        to.build.config.clone_from(&self.config);
    }
}

/// `--content`.
#[derive(Debug, Clone, Args)]
pub struct ContentFlag {
    /// Content folder to read (overrides `content_dir`; default `content`).
    #[arg(long, value_name = "DIR")]
    pub content: Option<Utf8PathBuf>,
}

impl Flags for ContentFlag {
    fn give(&self, to: &mut Given) {
        to.build.content.clone_from(&self.content);
    }
}

/// `--out` and `--base-url`: what the output folder is, and the address it is published at.
#[derive(Debug, Clone, Args)]
pub struct OutFlags {
    /// Output folder (overrides `out_dir`; default `out`). Only files this tool wrote are ever
    /// changed or removed there: the site's `_headers` is merged (the tool's rules in a marked
    /// block at its end), `_redirects` is never written unless `netlify = true` (then merged
    /// the same way), the site's own `404.html`, `llms.txt`, `llms-full.txt` and `auth.md` are
    /// kept, and any other file of the site in the way stops the build before it writes.
    #[arg(long, value_name = "DIR")]
    pub out: Option<Utf8PathBuf>,

    /// Absolute base URL of the published site, used in every URL the API contains
    /// (overrides `base_url`; default http://localhost:4321).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
}

impl Flags for OutFlags {
    fn give(&self, to: &mut Given) {
        to.build.out.clone_from(&self.out);
        to.build.base_url.clone_from(&self.base_url);
    }
}

/// `--today`.
#[derive(Debug, Clone, Args)]
pub struct TodayFlag {
    /// Act as if today were this date: posts dated later are scheduled, not published.
    /// Default: today in the site's time zone (`timezone`, default UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub today: Option<NaiveDate>,
}

impl Flags for TodayFlag {
    fn give(&self, to: &mut Given) {
        to.build.today = self.today;
    }
}

/// `--drafts` and `--future`: what a preview publishes beyond production.
#[derive(Debug, Clone, Args)]
pub struct PreviewFlags {
    /// Preview: publish drafts too, marked `isDraft: true`. Never use it for production. A
    /// preview never records anything in the publishing history.
    #[arg(long)]
    pub drafts: bool,

    /// Preview: publish scheduled posts and decks (dated after today) too. Never use it for
    /// production. A preview never records anything in the publishing history.
    #[arg(long)]
    pub future: bool,
}

impl Flags for PreviewFlags {
    fn give(&self, to: &mut Given) {
        to.build.drafts = self.drafts;
        to.build.future = self.future;
    }
}

/// `--history`.
#[derive(Debug, Clone, Args)]
pub struct HistoryFlag {
    /// The publishing history file (overrides `history_file`; default `content-api.history`
    /// beside watch.toml): every API path a `build` published, so removed ones answer 410.
    /// Commit it. `build` adds to it; watch, serve and previews only read it.
    #[arg(long, value_name = "FILE")]
    pub history: Option<Utf8PathBuf>,
}

impl Flags for HistoryFlag {
    fn give(&self, to: &mut Given) {
        to.build.history.clone_from(&self.history);
    }
}

/// `--purge-list` and `--take-over`: what only the commands that write need.
#[derive(Debug, Clone, Args)]
pub struct WriteFlags {
    /// After each publish, write to FILE the full URLs whose bytes changed or that were removed
    /// (one a line, empty when nothing changed), for a CDN purge by URL.
    #[arg(long, value_name = "FILE")]
    pub purge_list: Option<Utf8PathBuf>,

    /// Replace the site's own file at this output path, or every file under a folder given with
    /// a trailing `/` (`--take-over api/`), instead of refusing to build (adds to `take_over`).
    /// For a site moving its own hand-written API to this tool. Repeat it for several paths.
    #[arg(long, value_name = "PATH")]
    pub take_over: Vec<String>,
}

impl Flags for WriteFlags {
    fn give(&self, to: &mut Given) {
        to.build.purge_list.clone_from(&self.purge_list);
        to.build.take_over.clone_from(&self.take_over);
    }
}

/// `--quiet` and `--verbose`.
#[derive(Debug, Clone, Args)]
pub struct LogFlags {
    /// Print only errors and warnings: no progress, no line per rebuild.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more: the phases of each build and their timings (-vv: everything).
    #[arg(long, short, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

impl Flags for LogFlags {
    fn give(&self, to: &mut Given) {
        to.log.quiet = self.quiet;
        to.log.verbose = self.verbose;
    }
}
