//! Batches: notify's raw events are gathered until none has arrived for a while, then handed
//! on as one [`Changes`]. The while is the debounce time (`debounce_ms`) when an event left a
//! save unfinished, and a couple of milliseconds when every save of the batch is finished
//! (closed after writing, renamed into place, removed: [`super::saves`]), so a finished save
//! starts its rebuild at once and a burst written back to back is still one batch.
//!
//! notify-debouncer-full was used before. It stitches renames together and rewrites the paths
//! of earlier events to follow them, and in doing so it can drop a path: `mv A.md B.md` then an
//! atomic save of `B.md` (`B.md.tmp` renamed over it) in one window replaces `B.md`'s queue,
//! rename included, with the save's, so `A.md` was never reported and its post stayed
//! published. The session re-reads every path it is told about, so it needs the set of touched
//! paths, never a story of what moved where: a set cannot lose a half.

use super::saves::Saves;
use super::translate::Translator;
use super::{Changes, Signal};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

/// A continuous stream of events (a tool writing for minutes) still gets a rebuild this often.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// How long a batch whose saves are all finished waits for another event: long enough that
/// a tool writing files back to back (`git checkout`, `cp -r`, a vim save's close, chmod and
/// backup removal) stays one batch, short against a rebuild.
pub(super) const SETTLE: Duration = Duration::from_millis(2);

/// How long to wait for more events.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timing {
    /// After an event that leaves a save unfinished (or when saves cannot be told apart).
    pub(super) quiet: Duration,
    /// After an event that leaves every save of the batch finished; `None` where the watcher
    /// reports no closes (the poll watcher), so that every batch waits `quiet`.
    pub(super) settle: Option<Duration>,
}

/// The events gathered since the first one of a quiet period.
struct Gathered {
    changes: Changes,
    saves: Saves,
    errors: Vec<notify::Error>,
    started: Instant,
    last_event: Instant,
}

impl Gathered {
    fn new(now: Instant) -> Gathered {
        Gathered {
            changes: Changes::default(),
            saves: Saves::default(),
            errors: Vec::new(),
            started: now,
            last_event: now,
        }
    }

    fn add(&mut self, event: notify::Result<notify::Event>, now: Instant, translator: &Translator) {
        self.last_event = now;
        match event {
            Ok(event) => {
                translator.add(&event, now, &mut self.changes);
                self.saves.add(&event, translator);
            }
            Err(error) => {
                translator.add_error(&error, &mut self.changes);
                self.errors.push(error);
            }
        }
    }

    /// When the batch is handed on if no other event arrives before.
    fn deadline(&self, timing: Timing) -> Instant {
        let finished =
            self.saves.all_finished() && !self.changes.content.rescan && self.errors.is_empty();
        let wait = match timing.settle {
            Some(settle) if finished => settle.min(timing.quiet),
            _ => timing.quiet,
        };
        (self.last_event + wait).min(self.started + MAX_WAIT)
    }
}

/// Runs until every sender of `events` is gone (the watcher was dropped), calling `handler`
/// once per batch that saw something relevant. A batch ends when no event has arrived for
/// `timing`'s settle time (every save finished) or quiet period (otherwise).
pub(super) fn run(
    events: Receiver<notify::Result<notify::Event>>,
    timing: Timing,
    mut translator: Translator,
    mut handler: impl FnMut(Signal),
) {
    // Here rather than before watching starts: the first build runs meanwhile.
    translator.refresh_aliases();
    while let Ok(first) = events.recv() {
        let mut batch = Gathered::new(Instant::now());
        batch.add(first, Instant::now(), &translator);
        let mut open = true;
        while Instant::now() < batch.started + MAX_WAIT {
            // Past the deadline, events already queued still join: they came before this
            // thread looked (it may have been descheduled longer than the settle time).
            let wait = batch
                .deadline(timing)
                .saturating_duration_since(Instant::now());
            let next = if wait.is_zero() {
                events.try_recv().map_err(|error| match error {
                    TryRecvError::Empty => RecvTimeoutError::Timeout,
                    TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                })
            } else {
                events.recv_timeout(wait)
            };
            match next {
                Ok(event) => batch.add(event, Instant::now(), &translator),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        for error in batch.errors {
            handler(Signal::Error(super::errors::describe(&error)));
        }
        translator.finish_batch(&mut batch.changes);
        if !batch.changes.is_empty() {
            handler(Signal::Changes(batch.changes));
        }
        if !open {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{
        AccessKind, AccessMode, CreateKind, DataChange, EventKind, ModifyKind, RenameMode,
    };
    use std::path::PathBuf;
    use std::sync::mpsc;

    fn event(kind: EventKind, path: &str) -> notify::Result<notify::Event> {
        Ok(notify::Event::new(kind).add_path(PathBuf::from(path)))
    }

    /// The events of `mv A.md B.md` and an atomic save of `B.md`, as inotify reports them.
    #[test]
    fn a_rename_then_an_atomic_save_reports_both_names() {
        let (tx, rx) = mpsc::channel();
        let name = |mode| EventKind::Modify(ModifyKind::Name(mode));
        for (kind, path) in [
            (name(RenameMode::From), "/c/blog/es/a.md"),
            (name(RenameMode::To), "/c/blog/es/b.md"),
            (EventKind::Create(CreateKind::File), "/c/blog/es/b.md.tmp"),
            (name(RenameMode::From), "/c/blog/es/b.md.tmp"),
            (name(RenameMode::To), "/c/blog/es/b.md"),
        ] {
            tx.send(event(kind, path)).unwrap();
        }
        drop(tx);
        let translator = Translator {
            content_root: PathBuf::from("/c"),
            layout: crate::source::Layout::seed(),
            config: None,
            aliases: Default::default(),
            unmatched: Default::default(),
            watcher: std::sync::Weak::new(),
        };
        let mut batches = Vec::new();
        let timing = Timing {
            quiet: Duration::from_millis(5),
            settle: Some(SETTLE),
        };
        run(rx, timing, translator, |signal| {
            if let Signal::Changes(changes) = signal {
                batches.push(changes);
            }
        });
        assert_eq!(batches.len(), 1);
        let paths: Vec<&str> = batches[0]
            .content
            .paths
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(paths, ["blog/es/a.md", "blog/es/b.md"]);
        assert!(batches[0].content.folders.contains("blog/es"));
    }

    const QUIET: Duration = Duration::from_millis(30);
    const NATIVE: Timing = Timing {
        quiet: QUIET,
        settle: Some(SETTLE),
    };

    fn translator() -> Translator {
        Translator {
            content_root: PathBuf::from("/c"),
            layout: crate::source::Layout::seed(),
            config: None,
            aliases: Default::default(),
            unmatched: Default::default(),
            watcher: std::sync::Weak::new(),
        }
    }

    /// How long after its last event `batch` would be handed on.
    fn wait(batch: &Gathered, timing: Timing) -> Duration {
        batch.deadline(timing) - batch.last_event
    }

    fn close_write() -> EventKind {
        EventKind::Access(AccessKind::Close(AccessMode::Write))
    }

    #[test]
    fn a_finished_save_is_handed_on_without_waiting_the_quiet_period() {
        let start = Instant::now();
        let mut batch = Gathered::new(start);
        let post = "/c/blog/en/2024-01-01_a.md";
        let data = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        batch.add(event(data, post), start, &translator());
        assert_eq!(wait(&batch, NATIVE), QUIET, "a write without its close");
        batch.add(event(close_write(), post), start, &translator());
        assert_eq!(wait(&batch, NATIVE), SETTLE, "the close after writing");
        // The poll watcher reports no closes: the quiet period stays.
        let poll = Timing {
            quiet: QUIET,
            settle: None,
        };
        assert_eq!(wait(&batch, poll), QUIET);
        // A debounce time shorter than the settle time wins.
        let short = Timing {
            quiet: Duration::from_millis(1),
            settle: Some(SETTLE),
        };
        assert_eq!(wait(&batch, short), Duration::from_millis(1));
    }

    #[test]
    fn an_unfinished_save_or_lost_events_wait_the_quiet_period() {
        let start = Instant::now();
        let name = |mode| EventKind::Modify(ModifyKind::Name(mode));
        let post = "/c/blog/en/2024-01-01_a.md";
        // vim: the post renamed to its backup and created anew, not yet closed.
        let mut batch = Gathered::new(start);
        for (kind, path) in [
            (name(RenameMode::From), post),
            (name(RenameMode::To), "/c/blog/en/2024-01-01_a.md~"),
            (EventKind::Create(CreateKind::File), post),
        ] {
            batch.add(event(kind, path), start, &translator());
            assert_eq!(wait(&batch, NATIVE), QUIET);
        }
        // A queue overflow: what is being written is unknown.
        let mut batch = Gathered::new(start);
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        batch.add(Ok(overflow), start, &translator());
        assert_eq!(wait(&batch, NATIVE), QUIET);
        // MAX_WAIT still bounds a save that never finishes.
        let mut batch = Gathered::new(start);
        let later = start + MAX_WAIT - Duration::from_millis(1);
        batch.add(
            event(EventKind::Create(CreateKind::File), post),
            later,
            &translator(),
        );
        assert_eq!(batch.deadline(NATIVE), start + MAX_WAIT);
    }

    #[test]
    fn a_burst_of_closes_within_the_settle_time_is_one_batch() {
        let start = Instant::now();
        let mut batch = Gathered::new(start);
        let mut now = start;
        for i in 0..300 {
            let path = format!("/c/blog/en/2025-01-01_post-{i}.md");
            if i > 0 {
                now += SETTLE - Duration::from_micros(100);
                assert!(now < batch.deadline(NATIVE), "event {i} starts a new batch");
            }
            batch.add(
                event(EventKind::Create(CreateKind::File), &path),
                now,
                &translator(),
            );
            batch.add(event(close_write(), &path), now, &translator());
        }
        assert_eq!(batch.changes.content.paths.len(), 300);
        assert_eq!(batch.deadline(NATIVE), now + SETTLE);

        // Through the loop: 300 closes queued back to back are handed on once.
        let (tx, rx) = mpsc::channel();
        for i in 0..300 {
            let path = format!("/c/blog/en/2025-01-01_post-{i}.md");
            tx.send(event(close_write(), &path)).unwrap();
        }
        drop(tx);
        let mut batches = Vec::new();
        run(rx, NATIVE, translator(), |signal| {
            if let Signal::Changes(changes) = signal {
                batches.push(changes.content.paths.len());
            }
        });
        assert_eq!(batches, [300]);
    }
}
