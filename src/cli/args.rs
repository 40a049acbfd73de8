//! The command line's definition: the commands, and for each one the flags it uses, so that
//! `content-api COMMAND --help` lists exactly those. The flags are small groups shared by the
//! commands that take them (`--config` and `--content` by every command that reads the site,
//! `--drafts` and `--future` by the ones that publish...), each gathered into [`Given`].
//!
//! Flags before the command (`content-api --out o build`) belong to the default command
//! (`watch`, what a bare `content-api` runs); they apply to the command named after them when it
//! takes them (the command's own value wins), and are an error when it does not.

use super::completions::CompletionsArgs;
use super::flags::{
    ConfigFlag, ContentFlag, Flags, Given, HistoryFlag, LogFlags, OutFlags, PreviewFlags,
    TodayFlag, WriteFlags,
};
use super::init::InitArgs;
use super::list::ListArgs;
use super::machine::Format;
use super::new::NewCommand;
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::net::SocketAddr;

/// Turns a content folder (Markdown posts, series, tags, slide decks in English and Spanish)
/// into a static, read-only JSON API with its OpenAPI description, ready for a CDN.
///
/// `content-api build` (or `--once`) builds the output folder and exits: the mode for CI.
/// `content-api` alone (or `content-api watch`) builds, then watches the content and
/// `watch.toml` and rebuilds only what each change affects, until Ctrl-C. `content-api serve`
/// does the same and serves the folder on localhost with the API's exact HTTP behaviour.
/// `content-api check` validates without writing; `init` and `new` create a site and its
/// content; `list` shows what is published, scheduled and drafted. Settings come from
/// `watch.toml` (optional; see the README for every key) and are overridden by flags. The flags
/// below are those of the default command (`watch`); `content-api COMMAND --help` lists each
/// command's own.
///
/// Environment: NO_COLOR (any value) turns colours off; RUST_LOG overrides --quiet/--verbose;
/// CI (set, and not "false" or "0") makes placeholder settings and a licence without its URL
/// an error for `build` and `check` alike.
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
    pub(super) command: Option<Command>,

    /// The default command's flags (a bare `content-api` watches).
    #[command(flatten)]
    pub(super) default: WatchFlags,
}

/// The commands. One variant per command, each with the flags it uses.
#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Build once, write the output folder and exit (the CI mode; the same as `--once`).
    ///
    /// Prints every error and warning. With errors nothing is written and the exit status is 1.
    /// Without `watch.toml` the build uses placeholders (a localhost base URL, a generic author
    /// and licence): that is a warning, and an error when the CI environment variable is set.
    /// Records the API paths it published in the publishing history (not with --drafts or
    /// --future): commit that file.
    #[command(long_flag = "once")]
    Build(BuildFlags),
    /// Build, then rebuild on every change until Ctrl-C (the default). A broken file is
    /// reported in full each time it is saved, its last good version stays published until it
    /// is fixed, and its fix is announced.
    Watch(WatchFlags),
    /// Build, watch (as `watch` does), and serve the output folder on localhost as production
    /// answers.
    ///
    /// The API contract's HTTP behaviour exactly: GET and HEAD with strong ETags and 304, JSON
    /// error bodies (404, 405 with Allow, 410 for removed API paths, 500), CORS, and a
    /// Server-Sent Events stream of rebuilds at /__events. The landing page at / shows the
    /// content's errors, its drafts and scheduled posts, and the latest rebuilds. Prints
    /// `listening on URL` on stdout once the first build is done; Ctrl-C stops it.
    Serve(ServeFlags),
    /// Validate everything and write nothing (not even the output folder): every error and
    /// warning is printed; exit status 1 when there are errors, 0 otherwise. The settings
    /// rules are build's: placeholder settings and a licence without its URL are an error in
    /// CI (exit 2), so a pull request's check fails when its deploy would. For pre-commit hooks
    /// and pull-request checks.
    Check(CheckFlags),
    /// List the posts and decks that are drafts, scheduled for a later date, or published, with
    /// their dates and paths.
    List(ListArgs),
    /// Create a new site, or configure an existing one.
    ///
    /// In a new or empty folder: a `watch.toml` with every key explained (all commented out)
    /// and a minimal bilingual content folder (one post in English and Spanish, one tag) that
    /// builds. In an existing site (Hugo, Zola, Jekyll, Astro or Eleventy files, or Markdown
    /// content): only a `watch.toml` mapping what it finds there (the generator, the content
    /// folder, the posts' patterns, languages, front-matter keys), each choice commented, and
    /// a summary of it; no sample content. Refuses to overwrite any existing file.
    Init(InitArgs),
    /// Create a content file (a post, series, deck or tag) and print its path. Refuses to
    /// overwrite an existing file.
    #[command(subcommand)]
    New(NewCommand),
    /// Print a shell completion script: `content-api completions bash > /etc/bash_completion.d/content-api`.
    Completions(CompletionsArgs),
    /// Print the man page (roff): `content-api man > content-api.1; man ./content-api.1`.
    Man,
    /// Print a host's configuration for the output folder (see the README, "Deploying: each host").
    #[command(subcommand)]
    Hosting(HostingCommand),
    /// Print a JSON Schema of content-api's files: `content-api schema watch-toml` for
    /// `watch.toml` (for editors that check TOML against a schema, such as Taplo; see the
    /// README).
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Serve the site's read-only tools (the ones its MCP server card lists) to an MCP client
    /// over stdio: `search_posts`, `list_series`, `get_series`, `get_tag_timeline`,
    /// `list_talks`, `get_api_index`.
    ///
    /// Reads the built output folder (--out, default from watch.toml), or a live site with
    /// --site https://example.com (through its /api/index.json). Each result is the API's JSON,
    /// as the browser tools (/.well-known/mcp/tools.js) answer; a bad input is an error result
    /// naming it. Logs go to stderr; stdout is the protocol. Exit status 2 when the folder holds
    /// no build or the site does not answer as a content-api API.
    ///
    /// Every read is bounded: a file of the API at most 64 MiB; a request to the site at most
    /// 30 s in all, following redirects only within the site's origin (give --site the address
    /// a site redirects to); in the folder, only regular files inside it (a link leading out is
    /// no file, a FIFO is refused at once).
    Mcp(McpArgs),
    /// Check a deployed site against the API contract: every operation and document (GET and
    /// HEAD), a missing path, the other methods, the removed paths the publishing history
    /// names, the headers, media types and Markdown negotiation. Read-only, but for one request
    /// per method the 405 check sends to /api/posts.json.
    ///
    /// Each finding is one of three: FAIL, a rule of the API contract (its endpoints, their
    /// errors and headers, the discovery documents answering at their paths); warn, a stricter
    /// policy of content-api's own (negotiation by quality values, the headers and media types
    /// of documents, ETags), a failure only with --strict; note, what the site chose (a
    /// document it keeps as its own, its own Markdown negotiation). Each names the URL
    /// requested, who answered it (content-api's edge layer, nginx block or `serve`, by the
    /// Content-Api-Layer header they set; else the host's static files when the body is the
    /// bytes the site's deploy record lists; else the site's own file or code), and what to
    /// change. A check whose subject the site does not have (no series, no tag, nothing removed
    /// yet) is not checked, with the reason. Exit status 1 on any failure, or when the time
    /// limit runs out (the checks not run are listed); 2 when the site does not answer as a
    /// content-api API.
    ///
    /// Each request may take 20 s in all (connecting, headers and body) and read at most 64 MiB;
    /// no redirect is followed (a check sees the 3xx, and no request leaves the URL's origin).
    /// HTTPS trusts the system's certificate authorities (SSL_CERT_FILE or SSL_CERT_DIR replace
    /// them); --ca-file adds a private one.
    Verify(VerifyArgs),
}

/// Flags of `mcp`.
#[derive(Debug, Clone, Args)]
pub(super) struct McpArgs {
    /// Read this live site's API (its root URL, e.g. https://example.com) instead of the output
    /// folder.
    #[arg(long, value_name = "URL", conflicts_with = "out")]
    pub site: Option<String>,

    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub out: OutFlags,
}

/// Flags of `verify`.
#[derive(Debug, Clone, Args)]
pub(super) struct VerifyArgs {
    /// The site's address, as deployed (a preview deployment's works too). Default: `base_url`.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub out: OutFlags,
    #[command(flatten)]
    pub history: HistoryFlag,

    /// Fail on the warnings too (content-api's stricter policies, not the contract's rules).
    #[arg(long)]
    pub strict: bool,

    /// Stop after SECONDS in all; the checks not run by then are listed, and the exit status
    /// is 1.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub timeout: u64,

    /// Trust the certificate authorities in this PEM file too (a site whose certificate a
    /// private authority signed). Repeatable.
    #[arg(long, value_name = "PEM")]
    pub ca_file: Vec<std::path::PathBuf>,

    /// `json`: the run as one JSON object on stdout (ok, the URL, each check with its findings,
    /// the counts) and nothing on stderr; the exit status is unchanged. The schema:
    /// docs/machine-output.md.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,
}

impl Command {
    /// The command's words, as typed (`["new", "post"]`).
    pub(super) fn words(&self) -> Vec<&'static str> {
        match self {
            Command::Build(_) => vec!["build"],
            Command::Watch(_) => vec!["watch"],
            Command::Serve(_) => vec!["serve"],
            Command::Check(_) => vec!["check"],
            Command::List(_) => vec!["list"],
            Command::Init(_) => vec!["init"],
            Command::New(new) => vec!["new", new.word()],
            Command::Completions(_) => vec!["completions"],
            Command::Man => vec!["man"],
            Command::Hosting(HostingCommand::Nginx(_)) => vec!["hosting", "nginx"],
            Command::Schema(SchemaCommand::WatchToml) => vec!["schema", "watch-toml"],
            Command::Mcp(_) => vec!["mcp"],
            Command::Verify(_) => vec!["verify"],
        }
    }
}

/// The hosts `hosting` writes a configuration for.
#[derive(Debug, Subcommand)]
pub(super) enum HostingCommand {
    /// Print an nginx `server` block (nginx 1.22 or later) that serves the output folder with
    /// the whole API contract. The removed paths live in `_nginx_gone.conf` inside the output
    /// folder, which every build rewrites and the block includes: reload nginx after a build.
    Nginx(NginxArgs),
}

/// The files `schema` prints a JSON Schema of.
#[derive(Debug, Subcommand)]
pub(super) enum SchemaCommand {
    /// Print the JSON Schema (draft 2020-12) of `watch.toml`, generated from the types its
    /// parser reads it with: every key, its type and its default, and no other key. The
    /// repository keeps a copy as docs/watch-toml.schema.json.
    WatchToml,
}

/// Flags of `hosting nginx`.
#[derive(Debug, Clone, Args)]
pub(super) struct NginxArgs {
    /// What nginx listens on (its `listen` directive): an address, e.g. `80` or
    /// `127.0.0.1:8080`, then any of nginx's parameters, e.g. `443 ssl` or `[::]:443 ssl http2`.
    #[arg(long, value_name = "ADDR")]
    pub listen: String,

    /// The host names the block answers for (its `server_name`, space-separated). Default: the
    /// host of `base_url`, so the block sits beside Debian's default site on the same port.
    #[arg(long, value_name = "NAMES")]
    pub server_name: Option<String>,

    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub out: OutFlags,
}

/// Flags of `build`.
#[derive(Debug, Clone, Args)]
pub(super) struct BuildFlags {
    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub out: OutFlags,
    #[command(flatten)]
    pub today: TodayFlag,
    #[command(flatten)]
    pub preview: PreviewFlags,
    #[command(flatten)]
    pub history: HistoryFlag,
    #[command(flatten)]
    pub write: WriteFlags,
    #[command(flatten)]
    pub log: LogFlags,
}

impl Flags for BuildFlags {
    fn give(&self, to: &mut Given) {
        self.config.give(to);
        self.content.give(to);
        self.out.give(to);
        self.today.give(to);
        self.preview.give(to);
        self.history.give(to);
        self.write.give(to);
        self.log.give(to);
    }
}

/// Flags of `watch` (and of a bare `content-api`).
#[derive(Debug, Clone, Args)]
pub(super) struct WatchFlags {
    #[command(flatten)]
    pub build: BuildFlags,

    /// Scan for changes every INTERVAL (for example 500ms or 2s) instead of using the OS's file
    /// notifications: for network, container and WSL file systems, where notifications do not
    /// arrive. Without a value: every second.
    #[arg(long, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "1s")]
    pub poll: Option<humantime::Duration>,
}

impl Flags for WatchFlags {
    fn give(&self, to: &mut Given) {
        self.build.give(to);
        to.watch.poll = self.poll;
    }
}

/// Flags of `serve`.
#[derive(Debug, Clone, Args)]
pub(super) struct ServeFlags {
    #[command(flatten)]
    pub watch: WatchFlags,

    /// Address to listen on. Default: 127.0.0.1:8421, or the next free port when 8421 is
    /// taken (the port taken is said). Only the loopback address by default: give another one
    /// to share the preview on a network. A port given here is used or the command fails; port
    /// 0 picks a free port (printed at start).
    #[arg(long, value_name = "IP:PORT")]
    pub addr: Option<SocketAddr>,

    /// The site's own dev server (`hugo server`, `astro dev`, `zola serve`...): this server
    /// answers the API, its documents and the Markdown twins, and passes every other request to
    /// that server (method, headers and body as they came, redirects and websocket upgrades for
    /// its hot reload), so one address shows the site as it will be deployed. The landing page
    /// moves to /__content-api/.
    #[arg(long, value_name = "URL", conflicts_with = "behind_dev_server")]
    pub site: Option<String>,

    /// For a dev server in front of this one that forwards every request here first and answers
    /// itself the ones declined (what the Astro integration, `@content-api/astro`, does): a
    /// request that is not the tool's gets an empty 404 with a `content-api-declined` header.
    /// The landing page moves to /__content-api/.
    #[arg(long)]
    pub behind_dev_server: bool,

    /// The address the author opens, when it is not this server's own (behind a dev server):
    /// the served documents' links point there instead of the production base URL.
    #[arg(long, value_name = "URL")]
    pub origin: Option<String>,
}

/// Flags of `check`.
#[derive(Debug, Clone, Args)]
pub(super) struct CheckFlags {
    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub out: OutFlags,
    #[command(flatten)]
    pub today: TodayFlag,
    #[command(flatten)]
    pub history: HistoryFlag,
    #[command(flatten)]
    pub log: LogFlags,

    /// `json`: the whole check as one JSON object on stdout (ok, counts, every diagnostic with
    /// its file, line and column, the summary per language) and nothing on stderr; the exit
    /// status is unchanged. The schema: docs/machine-output.md.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,
}

impl Flags for CheckFlags {
    fn give(&self, to: &mut Given) {
        self.config.give(to);
        self.content.give(to);
        self.out.give(to);
        self.today.give(to);
        self.history.give(to);
        self.log.give(to);
    }
}

impl Cli {
    /// The log filter `--quiet` and `--verbose` ask for, for the binary's logger (RUST_LOG,
    /// when set, wins over it).
    pub fn log_filter(&self) -> &'static str {
        // JSON on stdout: `list` and `verify` say nothing else (but a warning); `check` logs
        // through `capture_json_logs` instead.
        if self.format() == Format::Json {
            return "warn,salsa=warn,notify=warn,rmcp=warn";
        }
        // A flag the command does not take is reported by `run`; log as the default meanwhile.
        self.given().unwrap_or_default().log.filter()
    }

    /// `check --format json`: the warnings logged go into its object, nothing is printed.
    /// `true` when this run's logging is set so (the binary then sets no logger of its own).
    pub fn capture_json_logs(&self) -> bool {
        let capture =
            matches!(&self.command, Some(Command::Check(flags)) if flags.format == Format::Json);
        if capture {
            super::machine::capture_warnings();
        }
        capture
    }

    /// The output format the command was asked for (`--format`; text for commands without it).
    pub(super) fn format(&self) -> Format {
        match &self.command {
            Some(Command::Check(flags)) => flags.format,
            Some(Command::List(args)) => args.format,
            Some(Command::Verify(args)) => args.format,
            _ => Format::Text,
        }
    }

    /// The flags given before the command, merged into the command's: `Err` names a flag the
    /// command does not take.
    pub(super) fn given(&self) -> Result<Given, String> {
        let mut before = Given::default();
        self.default.give(&mut before);
        let Some(command) = &self.command else {
            return Ok(before);
        };
        let mut given = Given::default();
        command.give(&mut given);
        let words = command.words();
        let takes = flags_of(&words);
        for flag in given_flags(&before) {
            if !takes.contains(&flag) {
                let command = words.join(" ");
                return Err(format!(
                    "error: `--{}` does not apply to `content-api {command}`\n  = help: `content-api {command} --help` lists the flags it takes",
                    flag.replace('_', "-")
                ));
            }
        }
        Ok(merge(before, given))
    }
}

impl Flags for Command {
    fn give(&self, to: &mut Given) {
        match self {
            Command::Build(flags) => flags.give(to),
            Command::Watch(flags) => flags.give(to),
            Command::Serve(flags) => flags.watch.give(to),
            Command::Check(flags) => flags.give(to),
            Command::List(args) => args.give(to),
            Command::Init(args) => args.give(to),
            Command::New(new) => new.give(to),
            Command::Hosting(HostingCommand::Nginx(args)) => {
                args.config.give(to);
                args.out.give(to);
            }
            Command::Mcp(args) => {
                args.config.give(to);
                args.out.give(to);
            }
            Command::Verify(args) => {
                args.config.give(to);
                args.content.give(to);
                args.out.give(to);
                args.history.give(to);
            }
            Command::Completions(_) | Command::Man | Command::Schema(_) => {}
        }
    }
}

/// The ids of the flags a command (by its words) takes, from the clap definition itself.
fn flags_of(words: &[&str]) -> Vec<String> {
    let mut command = Cli::command();
    for word in words {
        command = command
            .find_subcommand(word)
            .expect("every command's words name a subcommand")
            .clone();
    }
    command
        .get_arguments()
        .map(|arg| arg.get_id().to_string())
        .collect()
}

/// The ids of the flags set in `given` (all of them default to "not given").
fn given_flags(given: &Given) -> Vec<String> {
    let b = &given.build;
    [
        ("config", b.config.is_some()),
        ("content", b.content.is_some()),
        ("out", b.out.is_some()),
        ("base_url", b.base_url.is_some()),
        ("today", b.today.is_some()),
        ("drafts", b.drafts),
        ("future", b.future),
        ("history", b.history.is_some()),
        ("purge_list", b.purge_list.is_some()),
        ("take_over", !b.take_over.is_empty()),
        ("poll", given.watch.poll.is_some()),
        ("quiet", given.log.quiet),
        ("verbose", given.log.verbose > 0),
    ]
    .into_iter()
    .filter(|(_, set)| *set)
    .map(|(id, _)| id.to_string())
    .collect()
}

/// The command's values, with the flags given before it where it has none.
fn merge(before: Given, mut after: Given) -> Given {
    let (b, a) = (before.build, &mut after.build);
    a.config = a.config.take().or(b.config);
    a.content = a.content.take().or(b.content);
    a.out = a.out.take().or(b.out);
    a.base_url = a.base_url.take().or(b.base_url);
    a.today = a.today.or(b.today);
    a.drafts |= b.drafts;
    a.future |= b.future;
    a.history = a.history.take().or(b.history);
    a.purge_list = a.purge_list.take().or(b.purge_list);
    a.take_over.splice(0..0, b.take_over);
    after.watch.poll = after.watch.poll.or(before.watch.poll);
    after.log.quiet |= before.log.quiet;
    after.log.verbose = after.log.verbose.max(before.log.verbose);
    after
}
