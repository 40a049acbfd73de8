//! `content-api` (and `content-api watch`): build, then rebuild on every change until Ctrl-C.
//!
//! Everything that can wake the daemon is a [`Message`], and [`Daemon::run`] is one loop over
//! them: file changes, the config file, a re-read of polled paths, the one-second tick (the
//! date, a deleted output folder, the content folder vanishing or coming back), the documents
//! lane falling due, shutdown.
//!
//! A rebuild publishes the API lane (the API, what must agree with it, the edited posts' own
//! outputs); the documents lane (the large aggregates: `llms-full.txt`, `llms.txt`, the
//! portal) follows once edits pause, and at the latest a moment after the first API publish
//! it has not followed (`documents`).

pub use super::announce::DaemonEvent;
use super::announce::{Reporter, describe_changes};
pub use super::flags::WatchArgs;
use super::status_line::StatusLine;
use super::{BuildArgs, EXIT_OUTPUT, EXIT_USAGE, Settings, resolve, write_error_exit};
use crate::deploy::pages_functions;
use crate::render::Lane;
use crate::session::one_shot::{content_folder_problem, layout_not_read};
use crate::session::{RebuildError, Session, StartError};
use crate::source::{ChangeSet, FileStamp};
use crate::watch::{Changes, Mode, Watcher};
use crate::write::shutdown;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

mod documents;
mod folder;
mod inbox;

use folder::{folder_stamp, same_folder};
use inbox::{Inbox, start_watcher};

/// How often the daemon checks what changes without a file event.
const TICK: Duration = Duration::from_secs(1);

/// After Ctrl-C or SIGTERM: how long the publish under way may go on before it stops between
/// two files, and when the process ends whatever it is doing.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(700);
const SHUTDOWN_LIMIT: Duration = Duration::from_millis(900);

/// Two interrupts closer than this are one Ctrl-C delivered twice (see `run_with`); a person's
/// second Ctrl-C comes later.
const SAME_INTERRUPT: Duration = Duration::from_millis(250);

/// Polling sees modification times at one-second resolution: a second save within the same
/// second would go unnoticed, so the paths of each change are read again this much later.
const RECHECK_AFTER: Duration = Duration::from_millis(1100);

/// Everything that can wake the daemon.
enum Message {
    /// Content changed (one quiet period of the watcher, or several that were waiting).
    Changes(Changes),
    /// The config file changed: read it again.
    ReloadConfig,
    /// Paths and folders the poll watcher reported a second ago, to read once more.
    Recheck(Changes),
    /// A second passed: the date, the output folder and the content folder are checked.
    Tick,
    /// The documents lane is due (edits paused, or it waited its longest).
    PublishDocuments,
    WatcherError(String),
    Shutdown,
}

/// Why a session ended.
enum End {
    Shutdown,
    /// The content or output folder moved (a config change): start over there.
    Restart(Box<Settings>),
}

pub fn run(args: &BuildArgs, watch_args: &WatchArgs) -> ExitCode {
    run_with(args, watch_args, &mut |_| {})
}

/// Like [`run`], telling `on_event` about the first build and every publish.
pub fn run_with(
    args: &BuildArgs,
    watch_args: &WatchArgs,
    on_event: &mut dyn FnMut(DaemonEvent<'_>),
) -> ExitCode {
    let mut settings = match resolve(args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (tx, rx) = mpsc::channel::<Message>();
    let changes_waiting = Arc::new(AtomicBool::new(false));
    let interrupt = tx.clone();
    let interrupted = std::sync::OnceLock::<std::time::Instant>::new();
    if let Err(err) = ctrlc::set_handler(move || {
        // A second Ctrl-C while a rebuild is still writing stops at once; one within a moment
        // of the first is the same Ctrl-C twice (the terminal's, to the whole process group,
        // and the npm launcher's, which passes on every signal it gets).
        if let Some(first) = interrupted.get() {
            if first.elapsed() < SAME_INTERRUPT {
                return;
            }
            std::process::exit(130);
        }
        let _ = interrupted.set(std::time::Instant::now());
        shutdown::request(SHUTDOWN_GRACE);
        let _ = interrupt.send(Message::Shutdown);
        // Reading and rendering cannot stop halfway; they write nothing, so the process may
        // end in the middle of them.
        std::thread::spawn(|| {
            std::thread::sleep(SHUTDOWN_LIMIT);
            tracing::info!("stopped (the next start finishes what was under way)");
            std::process::exit(0);
        });
    }) {
        tracing::warn!("cannot handle Ctrl-C: {err}");
    }
    let mode = match watch_args.poll {
        Some(interval) => Mode::Poll(interval.into()),
        None => Mode::Native,
    };
    loop {
        let inbox = Inbox {
            tx: &tx,
            changes_waiting: &changes_waiting,
        };
        let daemon = match Daemon::start(&settings, args, mode, inbox, on_event) {
            Ok(daemon) => daemon,
            Err(code) => return code,
        };
        match daemon.run(&rx) {
            End::Shutdown => return ExitCode::SUCCESS,
            End::Restart(next) => settings = *next,
        }
    }
}

/// One session on one content and output folder, and what the loop remembers between
/// messages.
struct Daemon<'a> {
    settings: &'a Settings,
    args: &'a BuildArgs,
    mode: Mode,
    inbox: Inbox<'a>,
    session: Session,
    reporter: Reporter<'a>,
    /// `None` while the content folder is gone (its watch went with it).
    watcher: Option<Watcher>,
    /// Which folder is watched: a content folder replaced under the same name needs a new
    /// watch.
    content_identity: Option<FileStamp>,
    /// Polled changes to read once more, and when.
    recheck: Option<(Instant, Changes)>,
    next_tick: Instant,
    /// The first file event of the edits the documents lane has not followed yet.
    documents_first_event: Option<Instant>,
    /// After a failed documents publish: not before this.
    documents_retry: Option<Instant>,
}

impl<'a> Daemon<'a> {
    /// Watches, then makes the first build.
    fn start(
        settings: &'a Settings,
        args: &'a BuildArgs,
        mode: Mode,
        inbox: Inbox<'a>,
        on_event: &'a mut dyn FnMut(DaemonEvent<'_>),
    ) -> Result<Daemon<'a>, ExitCode> {
        let config = settings.config.clone();
        if let Some(problem) = content_folder_problem(&config.content_dir) {
            eprintln!("{}", problem.render(None, settings.color));
            return Err(ExitCode::from(EXIT_USAGE));
        }
        // Watch before the first read, so that an edit made during the first build is not lost.
        let content_identity = folder_stamp(config.content_dir.as_std_path());
        let watcher = start_watcher(settings, args, mode, inbox).map_err(|err| {
            eprintln!("error: {err}");
            ExitCode::from(EXIT_USAGE)
        })?;
        // The first build reads, checks and writes everything: on a large site that takes
        // seconds, so a terminal shows a status line meanwhile (never CI logs or pipes).
        let status = StatusLine::for_build();
        status.phase("first build: reading, checking and writing the content");
        let started = Session::start(config.clone(), settings.today(), settings.preview());
        status.clear();
        if shutdown::is_requested() {
            tracing::info!("stopped (the next start finishes the first build)");
            return Err(ExitCode::SUCCESS);
        }
        let (mut session, outcome) = started.map_err(|err| match err {
            StartError::Write(err) => write_error_exit(&err),
            StartError::History(err) => {
                eprintln!("error: {err}");
                ExitCode::from(EXIT_OUTPUT)
            }
        })?;
        session.use_lanes();
        // A layout this tool does not read: said at once (a warning, since the author may be
        // about to add posts; `build` and `check` stop on it).
        if let Some(mut problem) = layout_not_read(
            &settings.config,
            settings.config_path.as_deref(),
            session.workspace(),
        ) {
            problem.severity = crate::diag::Severity::Warning;
            eprintln!("{}", problem.render(None, settings.color));
        }
        match pages_functions::check(&config) {
            Ok(warnings) => warnings.iter().for_each(|w| tracing::warn!("{w}")),
            Err(err) => {
                eprintln!("error: {err}");
                return Err(ExitCode::from(EXIT_USAGE));
            }
        }
        // The route file in the site's Pages Functions is `build`'s to write, never a watch or
        // serve session's: it is the site's folder (`astro dev` must leave it as it was), and
        // its import names the output folder of the build that deploys, not a dev server's.
        let mut reporter = Reporter {
            color: settings.color,
            purge_list: settings.purge_list.clone(),
            purge_pending: Default::default(),
            on_event,
        };
        reporter.report(&session, &outcome, None, "initial build");
        (reporter.on_event)(DaemonEvent::Ready);
        tracing::info!(
            "watching {} ({}); writing to {}; Ctrl-C to stop",
            config.content_dir,
            match mode {
                Mode::Native => "file notifications".to_string(),
                Mode::Poll(interval) =>
                    format!("polling every {}", humantime::format_duration(interval)),
            },
            config.out_dir
        );
        Ok(Daemon {
            settings,
            args,
            mode,
            inbox,
            session,
            reporter,
            watcher: Some(watcher),
            content_identity,
            recheck: None,
            next_tick: Instant::now() + TICK,
            documents_first_event: None,
            documents_retry: None,
        })
    }

    /// The loop: one message at a time until shutdown or a restart elsewhere.
    fn run(mut self, rx: &mpsc::Receiver<Message>) -> End {
        let mut waiting: Option<Message> = None;
        loop {
            let message = match waiting.take() {
                Some(message) => message,
                None => self.next_message(rx, &mut waiting),
            };
            match message {
                Message::Changes(changes) => self.changes(changes),
                Message::ReloadConfig => {
                    if let Some(end) = self.reload_config() {
                        // The output folder may change: leave this one whole.
                        self.drain_documents();
                        return end;
                    }
                }
                Message::Recheck(changes) => self.rebuild(&changes, "re-read after polling"),
                Message::Tick => self.tick(),
                Message::PublishDocuments => self.publish_documents(true),
                Message::WatcherError(error) => tracing::warn!("{error}"),
                Message::Shutdown => {
                    // What is deployed after Ctrl-C is a fresh build, documents included.
                    self.drain_documents();
                    tracing::info!("stopped");
                    return End::Shutdown;
                }
            }
        }
    }

    /// Waits for the next message. Changes already waiting are merged into one (one rebuild
    /// for a burst such as a git checkout); a message of another kind found meanwhile is put
    /// in `waiting`.
    fn next_message(
        &mut self,
        rx: &mpsc::Receiver<Message>,
        waiting: &mut Option<Message>,
    ) -> Message {
        let now = Instant::now();
        if let Some((due, _)) = &self.recheck
            && *due <= now
        {
            let (_, changes) = self.recheck.take().expect("checked above");
            return Message::Recheck(changes);
        }
        if self.next_tick <= now {
            self.next_tick = now + TICK;
            return Message::Tick;
        }
        let documents = self.documents_deadline();
        if documents.is_some_and(|due| due <= now) && !self.documents_wait_for_changes() {
            return Message::PublishDocuments;
        }
        let deadline = [
            Some(self.next_tick),
            self.recheck.as_ref().map(|(due, _)| *due),
            documents,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(self.next_tick);
        match rx.recv_timeout(deadline.saturating_duration_since(now)) {
            Ok(Message::Changes(mut changes)) => {
                // Before the others are taken: one sent after this sets it again.
                self.inbox.changes_waiting.store(false, Ordering::SeqCst);
                while let Ok(more) = rx.try_recv() {
                    match more {
                        Message::Changes(more) => changes.merge(more),
                        other => {
                            *waiting = Some(other);
                            break;
                        }
                    }
                }
                Message::Changes(changes)
            }
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => self.next_message(rx, waiting),
            Err(RecvTimeoutError::Disconnected) => Message::Shutdown,
        }
    }

    fn changes(&mut self, changes: Changes) {
        if changes.root {
            // The watch on the folder itself is gone. A new folder may even have the old one's
            // inode number (freed inodes are reused at once), so do not compare: watch again.
            self.check_content_folder(true);
        }
        if matches!(self.mode, Mode::Poll(_)) {
            let mut again = self.recheck.take().map(|(_, c)| c).unwrap_or_default();
            again
                .content
                .paths
                .extend(changes.content.paths.iter().cloned());
            again
                .content
                .folders
                .extend(changes.content.folders.iter().cloned());
            self.recheck = Some((Instant::now() + RECHECK_AFTER, again));
        }
        let what = describe_changes(&changes, self.session.config());
        self.rebuild(&changes, &what);
    }

    /// Re-reads what `changes` names and publishes, unless the content folder is gone.
    fn rebuild(&mut self, changes: &Changes, what: &str) {
        if self.watcher.is_none() {
            return; // The content folder is gone; the tick notices its return.
        }
        if changes.content.is_empty()
            && changes.content.folders.is_empty()
            && !changes.content.rescan
        {
            return;
        }
        match self.session.apply(&changes.content) {
            Ok(outcome) => {
                if outcome.lane == Some(Lane::Api)
                    && let Some(first) = changes.first_event
                {
                    let earliest = self.documents_first_event.map_or(first, |t| t.min(first));
                    self.documents_first_event = Some(earliest);
                }
                self.reporter
                    .report(&self.session, &outcome, changes.first_event, what)
            }
            // What the batch read was dropped: if the folder is already back, read all of it.
            Err(RebuildError::ContentFolderGone(_)) => self.check_content_folder(true),
            Err(err) => tracing::error!("{err}"),
        }
    }

    /// Compares the content folder with the one being watched. Gone: say so once, stop
    /// watching, publish nothing. Back, or replaced by another folder of the same name (or
    /// `rewatch`): watch the new one and read all of it.
    fn check_content_folder(&mut self, rewatch: bool) {
        let content_dir = self.settings.config.content_dir.as_std_path();
        let now = folder_stamp(content_dir);
        if now.is_none() {
            if self.watcher.take().is_some() {
                self.content_identity = None;
                tracing::error!(
                    "the content folder {} is gone: the last good output stays published; \
                     watching for it to come back",
                    self.settings.config.content_dir
                );
            }
            return;
        }
        if same_folder(now, self.content_identity) && self.watcher.is_some() && !rewatch {
            return;
        }
        // Drop the old watch first: its debouncer hands on what it holds.
        self.watcher = None;
        match start_watcher(self.settings, self.args, self.mode, self.inbox) {
            Ok(watcher) => {
                self.watcher = Some(watcher);
                self.content_identity = now;
                tracing::info!(
                    "the content folder {} was replaced or is back: reading all of it",
                    self.settings.config.content_dir
                );
                let rescan = ChangeSet {
                    rescan: true,
                    ..ChangeSet::default()
                };
                match self.session.apply(&rescan) {
                    Ok(outcome) => self
                        .reporter
                        .report(&self.session, &outcome, None, "rescan"),
                    // Gone again already: unwatched, so the next tick looks once more.
                    Err(RebuildError::ContentFolderGone(_)) => {
                        self.watcher = None;
                        self.content_identity = None;
                    }
                    Err(err) => tracing::error!("{err}"),
                }
            }
            // Left unwatched; the next tick tries again.
            Err(err) => tracing::error!("{err}"),
        }
    }

    /// Reads the config file again (flags still override it). A broken file is reported and
    /// the previous configuration stays in force.
    fn reload_config(&mut self) -> Option<End> {
        match reload(self.args, self.settings) {
            Reload::Unchanged => None,
            Reload::Restart(next) => Some(End::Restart(next)),
            Reload::Apply(next) => {
                let outcome = self.session.set_config(next.config.clone());
                self.reporter
                    .finish(&self.session, outcome, None, "config reloaded");
                None
            }
        }
    }

    /// What changes without a file event: the date, a deleted output folder, the content
    /// folder. Then memory freed by rebuilds goes back to the OS.
    fn tick(&mut self) {
        self.check_content_folder(false);
        if self.watcher.is_none() {
            return;
        }
        let today = self.settings.today();
        if today
            != self
                .session
                .workspace()
                .globals()
                .today(self.session.database())
        {
            let outcome = self.session.set_today(today);
            self.reporter.finish(
                &self.session,
                outcome,
                None,
                &format!("the date is now {today}"),
            );
        }
        // A hook for the publisher's own repairs (a deleted output folder today).
        match self.session.repair_output() {
            Ok(Some(outcome)) => {
                self.reporter
                    .report(&self.session, &outcome, None, "output folder repaired")
            }
            Ok(None) => {}
            Err(err) => tracing::error!("{err}"),
        }
        self.session.release_memory();
    }
}

enum Reload {
    Unchanged,
    Apply(Box<Settings>),
    Restart(Box<Settings>),
}

/// Reads the config file again (flags still override it). A broken file is reported and the
/// previous configuration stays in force.
fn reload(args: &BuildArgs, current: &Settings) -> Reload {
    let next = match resolve(args) {
        Ok(next) => next,
        Err(message) => {
            eprintln!("{message}");
            tracing::warn!("the configuration was not reloaded; the previous one stays in force");
            return Reload::Unchanged;
        }
    };
    if next.config == current.config {
        Reload::Unchanged
    } else if next.config.content_dir != current.config.content_dir
        || next.config.out_dir != current.config.out_dir
        || next.config.history_file != current.config.history_file
        || next.config.layout != current.config.layout
    {
        // A new layout walks and watches other folders: read everything again, as a build.
        tracing::info!(
            "the content folder, its layout, the output folder or the history file changed: starting over"
        );
        Reload::Restart(Box::new(next))
    } else {
        Reload::Apply(Box::new(next))
    }
}
