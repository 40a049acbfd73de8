//! notify and notify-debouncer-full, configured for a content folder and a config file.
//!
//! The debouncer waits for a quiet period, merges the events of each path, pairs renames, and
//! passes on the `need_rescan` flag (a queue overflow), which notify-debouncer-mini would drop.
//! Paths are translated here into content-relative paths and a "config changed" flag.

use super::filter::is_editor_debris;
use super::{Changes, Signal};
use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{PollWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, NoCache, new_debouncer, new_debouncer_opt,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to learn about changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The OS's notifications (inotify, FSEvents, ReadDirectoryChangesW).
    Native,
    /// Scan modification times every interval: for network, container and WSL file systems,
    /// where native notifications do not arrive.
    Poll(Duration),
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "the system limit on watched folders is reached, so {path} cannot be watched.\n  = help: raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288` (make it permanent in /etc/sysctl.d/), or run with --poll to scan for changes instead"
    )]
    Limit { path: PathBuf },
    #[error("cannot watch {path}: {source}")]
    Watch {
        path: PathBuf,
        source: notify::Error,
    },
}

/// Watching stops when this is dropped.
pub struct Watcher {
    _debouncer: Box<dyn std::any::Any + Send>,
}

/// Starts watching `content_dir` (recursively) and `config_file` (by name in its folder, since
/// editors replace files by renaming). `handler` receives one [`Signal`] per quiet period of
/// `debounce`.
pub fn start(
    content_dir: &Path,
    config_file: Option<&Path>,
    debounce: Duration,
    mode: Mode,
    handler: impl FnMut(Signal) + Send + 'static,
) -> Result<Watcher, StartError> {
    let content_root = content_dir
        .canonicalize()
        .map_err(|source| watch_error(content_dir, notify::Error::io(source)))?;
    let config = config_file.and_then(|file| {
        let folder = file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some((folder.canonicalize().ok()?, file.file_name()?.to_owned()))
    });
    let translator = Translator {
        content_root: content_root.clone(),
        config: config.clone(),
    };
    let mut handler = handler;
    let on_events = move |result: DebounceEventResult| match result {
        Ok(events) => {
            let changes = translator.changes(&events);
            if !changes.is_empty() {
                handler(Signal::Changes(changes));
            }
        }
        Err(errors) => {
            for error in errors {
                handler(Signal::Error(describe(&error)));
            }
        }
    };
    let watch = |watcher: &mut dyn FnMut(&Path, RecursiveMode) -> notify::Result<()>| -> Result<(), StartError> {
        watcher(&content_root, RecursiveMode::Recursive).map_err(|e| watch_error(&content_root, e))?;
        if let Some((folder, _)) = &config {
            watcher(folder, RecursiveMode::NonRecursive).map_err(|e| watch_error(folder, e))?;
        }
        Ok(())
    };
    let debouncer: Box<dyn std::any::Any + Send> = match mode {
        Mode::Native => {
            let mut debouncer = new_debouncer(debounce, None, on_events)
                .map_err(|e| watch_error(&content_root, e))?;
            watch(&mut |path, recursive| debouncer.watch(path, recursive))?;
            Box::new(debouncer)
        }
        Mode::Poll(interval) => {
            let config = notify::Config::default().with_poll_interval(interval);
            let mut debouncer = new_debouncer_opt::<_, PollWatcher, NoCache>(
                debounce, None, on_events, NoCache, config,
            )
            .map_err(|e| watch_error(&content_root, e))?;
            watch(&mut |path, recursive| debouncer.watch(path, recursive))?;
            Box::new(debouncer)
        }
    };
    Ok(Watcher {
        _debouncer: debouncer,
    })
}

fn is_limit(error: &notify::Error) -> bool {
    match &error.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        // ENOSPC from inotify_add_watch, EMFILE from inotify_init: both are limits.
        notify::ErrorKind::Io(io) => matches!(io.raw_os_error(), Some(28 | 24)),
        _ => false,
    }
}

fn watch_error(path: &Path, source: notify::Error) -> StartError {
    if is_limit(&source) {
        StartError::Limit {
            path: path.to_owned(),
        }
    } else {
        StartError::Watch {
            path: path.to_owned(),
            source,
        }
    }
}

fn describe(error: &notify::Error) -> String {
    if is_limit(error) {
        "the system limit on watched folders is reached: new folders are not watched; raise fs.inotify.max_user_watches or restart with --poll".into()
    } else {
        format!("file watcher: {error}")
    }
}

/// Turns notify's absolute paths into content-relative ones.
struct Translator {
    content_root: PathBuf,
    /// The config file's (canonical) folder and its name.
    config: Option<(PathBuf, std::ffi::OsString)>,
}

impl Translator {
    fn changes(&self, events: &[DebouncedEvent]) -> Changes {
        let mut changes = Changes::default();
        for event in events {
            if event.need_rescan() {
                changes.rescan = true;
            }
            // Reads and attribute-only changes (chmod, Spotlight) cannot change content. A new
            // write time can: it is how the poll watcher reports a modification.
            let attribute_only = matches!(
                event.kind,
                EventKind::Modify(ModifyKind::Metadata(
                    MetadataKind::AccessTime
                        | MetadataKind::Permissions
                        | MetadataKind::Ownership
                        | MetadataKind::Extended
                ))
            );
            if matches!(event.kind, EventKind::Access(_)) || attribute_only {
                continue;
            }
            changes.first_event = Some(
                changes
                    .first_event
                    .map_or(event.time, |t| t.min(event.time)),
            );
            for path in &event.paths {
                self.classify(path, &mut changes);
            }
        }
        changes
    }

    fn classify(&self, path: &Path, changes: &mut Changes) {
        if let Some((folder, name)) = &self.config
            && path.parent() == Some(folder.as_path())
            && path.file_name() == Some(name.as_os_str())
        {
            changes.config = true;
            return;
        }
        let Ok(relative) = path.strip_prefix(&self.content_root) else {
            return;
        };
        if relative.as_os_str().is_empty() {
            changes.rescan = true; // The content folder itself moved or was replaced.
            return;
        }
        if relative
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_editor_debris)
        {
            return;
        }
        match relative.to_str() {
            Some(text) => {
                changes
                    .content
                    .insert(text.replace(std::path::MAIN_SEPARATOR, "/"));
            }
            // A name that is not UTF-8: a full scan reports it properly.
            None => changes.rescan = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, Event, Flag, ModifyKind, RenameMode};
    use std::time::Instant;

    fn event(kind: EventKind, paths: &[&str]) -> DebouncedEvent {
        let mut event = Event::new(kind);
        for path in paths {
            event = event.add_path(PathBuf::from(path));
        }
        DebouncedEvent::new(event, Instant::now())
    }

    fn translator() -> Translator {
        Translator {
            content_root: PathBuf::from("/site/content"),
            config: Some((PathBuf::from("/site"), "watch.toml".into())),
        }
    }

    #[test]
    fn paths_become_content_relative_and_debris_is_dropped() {
        let changes = translator().changes(&[
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/blog/en/.x.md.swp"],
            ),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                &["/site/content/blog/en/a.md", "/site/content/blog/es/a.md"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/blog/en/4913"],
            ),
        ]);
        assert_eq!(
            changes.content.into_iter().collect::<Vec<_>>(),
            ["blog/en/a.md", "blog/es/a.md"]
        );
        assert!(!changes.config && !changes.rescan);
    }

    #[test]
    fn the_config_file_is_recognised_by_name_in_its_folder() {
        let changes = translator().changes(&[event(
            EventKind::Create(CreateKind::File),
            &["/site/watch.toml"],
        )]);
        assert!(changes.config);
        let changes = translator().changes(&[event(
            EventKind::Create(CreateKind::File),
            &["/site/other.toml"],
        )]);
        assert!(changes.is_empty());
    }

    #[test]
    fn a_rescan_flag_with_or_without_paths_asks_for_a_rescan() {
        let mut overflow = Event::new(EventKind::Other).set_flag(Flag::Rescan);
        let changes =
            translator().changes(&[DebouncedEvent::new(overflow.clone(), Instant::now())]);
        assert!(changes.rescan);
        overflow = overflow.add_path(PathBuf::from("/site/content/blog"));
        assert!(
            translator()
                .changes(&[DebouncedEvent::new(overflow, Instant::now())])
                .rescan
        );
    }

    #[test]
    fn a_new_write_time_counts_as_a_change() {
        let changes = translator().changes(&[event(
            EventKind::Modify(ModifyKind::Metadata(notify::event::MetadataKind::WriteTime)),
            &["/site/content/blog/en/a.md"],
        )]);
        assert_eq!(changes.content.len(), 1);
    }

    #[test]
    fn metadata_only_changes_are_ignored() {
        let changes = translator().changes(&[event(
            EventKind::Modify(ModifyKind::Metadata(
                notify::event::MetadataKind::Permissions,
            )),
            &["/site/content/blog/en/a.md"],
        )]);
        assert!(changes.is_empty());
    }
}
