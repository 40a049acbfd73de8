//! The quiet period: notify's raw events are gathered until none has arrived for the debounce
//! time, then handed on as one [`Changes`].
//!
//! notify-debouncer-full was used before. It stitches renames together and rewrites the paths
//! of earlier events to follow them, and in doing so it can drop a path: `mv A.md B.md` then an
//! atomic save of `B.md` (`B.md.tmp` renamed over it) in one window replaces `B.md`'s queue,
//! rename included, with the save's, so `A.md` was never reported and its post stayed
//! published. The session re-reads every path it is told about, so it needs the set of touched
//! paths, never a story of what moved where: a set cannot lose a half.

use super::translate::Translator;
use super::{Changes, Signal};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A continuous stream of events (a tool writing for minutes) still gets a rebuild this often.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// Runs until every sender of `events` is gone (the watcher was dropped), calling `handler`
/// once per quiet period of `quiet` that saw something relevant.
pub(super) fn run(
    events: Receiver<notify::Result<notify::Event>>,
    quiet: Duration,
    translator: Translator,
    mut handler: impl FnMut(Signal),
) {
    while let Ok(first) = events.recv() {
        let started = Instant::now();
        let mut changes = Changes::default();
        let mut errors = Vec::new();
        let mut next = Some(first);
        let mut open = true;
        while let Some(event) = next.take() {
            match event {
                Ok(event) => translator.add(&event, Instant::now(), &mut changes),
                Err(error) => {
                    translator.add_error(&error, &mut changes);
                    errors.push(error);
                }
            }
            if started.elapsed() >= MAX_WAIT {
                break;
            }
            match events.recv_timeout(quiet) {
                Ok(event) => next = Some(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => open = false,
            }
        }
        for error in errors {
            handler(Signal::Error(super::errors::describe(&error)));
        }
        if !changes.is_empty() {
            handler(Signal::Changes(changes));
        }
        if !open {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, EventKind, ModifyKind, RenameMode};
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
            config: None,
        };
        let mut batches = Vec::new();
        run(rx, Duration::from_millis(5), translator, |signal| {
            if let Signal::Changes(changes) = signal {
                batches.push(changes);
            }
        });
        assert_eq!(batches.len(), 1);
        let paths: Vec<&str> = batches[0].content.iter().map(String::as_str).collect();
        assert_eq!(paths, ["blog/es/a.md", "blog/es/b.md"]);
        assert!(batches[0].folders.contains("blog/es"));
    }
}
