//! `content-api` (and `content-api watch`): build, then rebuild on every change until Ctrl-C.
//!
//! Everything that can wake the daemon is a [`Message`]; a one-second tick checks the things
//! that change without a file event (the date, a deleted output folder).

use super::once::content_folder_problem;
use super::{BuildArgs, EXIT_USAGE, Settings, resolve, write_error_exit};
use crate::session::{Batch, Outcome, Session};
use crate::watch::{self, Changes, Mode, Signal};
use crate::write::Report;
use clap::Args;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Flags of the watching modes.
#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// Scan for changes every INTERVAL (for example 500ms or 2s) instead of using the OS's file
    /// notifications: for network, container and WSL file systems, where notifications do not
    /// arrive. Without a value: every second.
    #[arg(long, global = true, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "1s")]
    pub poll: Option<humantime::Duration>,
}

/// How often the loop wakes up without an event.
const TICK: Duration = Duration::from_secs(1);

/// Everything that can wake the daemon.
enum Message {
    Changes(Changes),
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

/// What the watch loop tells its caller (`serve` starts answering, and announces rebuilds).
pub enum Progress<'a> {
    /// The first build of a session is done (published, or reported as broken).
    Ready,
    /// A publish wrote or removed files.
    Published(&'a Report),
}

/// Like [`run`], telling `on_progress` about the first build and every publish.
pub fn run_with(
    args: &BuildArgs,
    watch_args: &WatchArgs,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> ExitCode {
    let mut settings = match resolve(args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (tx, rx) = mpsc::channel::<Message>();
    let interrupt = tx.clone();
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    if let Err(err) = ctrlc::set_handler(move || {
        // A second Ctrl-C while a rebuild is still writing stops at once.
        if interrupted.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(130);
        }
        let _ = interrupt.send(Message::Shutdown);
    }) {
        tracing::warn!("cannot handle Ctrl-C: {err}");
    }
    let mode = match watch_args.poll {
        Some(interval) => Mode::Poll(interval.into()),
        None => Mode::Native,
    };
    loop {
        match watch_session(&settings, args, mode, &tx, &rx, on_progress) {
            Ok(End::Shutdown) => return ExitCode::SUCCESS,
            Ok(End::Restart(next)) => settings = *next,
            Err(code) => return code,
        }
    }
}

/// One session on one content and output folder.
fn watch_session(
    settings: &Settings,
    args: &BuildArgs,
    mode: Mode,
    tx: &mpsc::Sender<Message>,
    rx: &mpsc::Receiver<Message>,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<End, ExitCode> {
    let config = settings.config.clone();
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        eprintln!("{}", problem.render(None, settings.color));
        return Err(ExitCode::from(EXIT_USAGE));
    }
    // Watch before the first read, so that an edit made during the first build is not lost.
    let config_file = args.config.clone().unwrap_or_else(|| "watch.toml".into());
    let sender = tx.clone();
    let _watcher = watch::start(
        config.content_dir.as_std_path(),
        Some(config_file.as_std_path()),
        Duration::from_millis(config.watch.debounce_ms),
        mode,
        move |signal| {
            let _ = sender.send(match signal {
                Signal::Changes(changes) => Message::Changes(changes),
                Signal::Error(error) => Message::WatcherError(error),
            });
        },
    )
    .map_err(|err| {
        eprintln!("error: {err}");
        ExitCode::from(EXIT_USAGE)
    })?;
    let (mut session, outcome) = Session::start(config.clone(), settings.today(), settings.drafts)
        .map_err(|err| write_error_exit(&err))?;
    let mut reporter = Reporter {
        color: settings.color,
        on_progress,
    };
    reporter.report(&session, &outcome, None, "initial build");
    (reporter.on_progress)(Progress::Ready);
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
    let mut queued: Option<Message> = None;
    // Polling sees modification times at one-second resolution: a second save within the same
    // second would go unnoticed. Paths of each change are read again a second later.
    let mut recheck: Option<(Instant, std::collections::BTreeSet<String>)> = None;
    loop {
        if let Some((due, paths)) = recheck.take_if(|(due, _)| *due <= Instant::now()) {
            let _ = due;
            let batch = Batch {
                paths,
                rescan: false,
            };
            let outcome = session.apply(&batch);
            reporter.finish(&session, outcome, None, "re-read after polling");
        }
        let wait = recheck.as_ref().map_or(TICK, |(due, _)| {
            due.saturating_duration_since(Instant::now()).min(TICK)
        });
        let message = match queued.take() {
            Some(message) => Ok(message),
            None => rx.recv_timeout(wait),
        };
        match message {
            Ok(Message::Changes(mut changes)) => {
                // Take everything already waiting: one rebuild for a burst (a git checkout).
                loop {
                    match rx.try_recv() {
                        Ok(Message::Changes(more)) => changes.merge(more),
                        Ok(other) => {
                            queued = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                if changes.config {
                    match reload(args, settings) {
                        Reload::Unchanged => {}
                        Reload::Restart(next) => return Ok(End::Restart(next)),
                        Reload::Apply(next) => {
                            let outcome = session.set_config(next.config.clone());
                            reporter.finish(
                                &session,
                                outcome,
                                changes.first_event,
                                "config reloaded",
                            );
                        }
                    }
                }
                if matches!(mode, Mode::Poll(_)) && !changes.content.is_empty() {
                    let mut paths = recheck.take().map(|(_, paths)| paths).unwrap_or_default();
                    paths.extend(changes.content.iter().cloned());
                    recheck = Some((Instant::now() + Duration::from_millis(1100), paths));
                }
                if !changes.content.is_empty() || changes.rescan {
                    let batch = Batch {
                        paths: changes.content.clone(),
                        rescan: changes.rescan,
                    };
                    let what = describe_changes(&changes);
                    let outcome = session.apply(&batch);
                    reporter.finish(&session, outcome, changes.first_event, &what);
                }
            }
            Ok(Message::WatcherError(error)) => tracing::warn!("{error}"),
            Ok(Message::Shutdown) | Err(RecvTimeoutError::Disconnected) => {
                tracing::info!("stopped");
                return Ok(End::Shutdown);
            }
            Err(RecvTimeoutError::Timeout) => {
                let today = settings.today();
                if today != session.workspace().site().today(session.database()) {
                    let outcome = session.set_today(today);
                    reporter.finish(&session, outcome, None, &format!("the date is now {today}"));
                }
                match session.repair_output() {
                    Ok(Some(outcome)) => {
                        reporter.report(&session, &outcome, None, "output folder repaired")
                    }
                    Ok(None) => {}
                    Err(err) => tracing::error!("{err}"),
                }
                session.release_memory();
            }
        }
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
    {
        tracing::info!("the content or output folder changed: starting over");
        Reload::Restart(Box::new(next))
    } else {
        Reload::Apply(Box::new(next))
    }
}

/// Prints what rebuilds did, and tells `on_progress` about every publish that changed files.
struct Reporter<'a> {
    color: bool,
    on_progress: &'a mut dyn FnMut(Progress<'_>),
}

impl Reporter<'_> {
    fn finish(
        &mut self,
        session: &Session,
        outcome: Result<Outcome, crate::write::WriteError>,
        first_event: Option<Instant>,
        what: &str,
    ) {
        match outcome {
            Ok(outcome) => self.report(session, &outcome, first_event, what),
            // The daemon keeps running: the next change retries the writes.
            Err(err) => tracing::error!("{err}"),
        }
    }

    /// Prints new diagnostics and one line for the rebuild.
    fn report(
        &mut self,
        session: &Session,
        outcome: &Outcome,
        first_event: Option<Instant>,
        what: &str,
    ) {
        if outcome.is_noop() {
            return;
        }
        for diagnostic in &outcome.new_diagnostics {
            eprintln!("{}", session.render(diagnostic, self.color));
        }
        for path in &outcome.held_back {
            tracing::warn!(
                "{path} has errors: its last good version stays published until it is fixed"
            );
        }
        let since_event = first_event
            .map(|t| {
                format!(
                    ", {:.1} ms after the first event",
                    t.elapsed().as_secs_f64() * 1000.0
                )
            })
            .unwrap_or_default();
        let took = format!("{:.1} ms", outcome.took.as_secs_f64() * 1000.0);
        match &outcome.report {
            None => tracing::error!(
                "{what}: {} error{} in the content; nothing is published until it builds (fix and save)",
                outcome.errors,
                if outcome.errors == 1 { "" } else { "s" }
            ),
            Some(report) if report.is_empty() => {
                tracing::info!("{what}: nothing to write ({took}{since_event})")
            }
            Some(report) => {
                tracing::info!(
                    "{what}: wrote {}{} in {took}{since_event}",
                    list(report.written.iter().map(|p| &**p)),
                    if report.removed.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", removed {}",
                            list(report.removed.iter().map(String::as_str))
                        )
                    },
                );
                (self.on_progress)(Progress::Published(report));
            }
        }
    }
}

fn describe_changes(changes: &Changes) -> String {
    if changes.rescan {
        return "rescan".into();
    }
    format!(
        "{} changed",
        list(changes.content.iter().map(String::as_str))
    )
}

/// "a, b, c and 4 more".
fn list<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = items.len();
    let shown: Vec<&str> = items.take(3).collect();
    match count {
        0 => "nothing".into(),
        1..=3 => shown.join(", "),
        _ => format!("{} and {} more", shown.join(", "), count - 3),
    }
}
