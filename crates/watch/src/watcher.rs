//! notify's watchers, configured for a content folder and a config file, feeding the debouncer
//! on a thread of its own.

use super::Signal;
use super::debounce;
use super::errors::is_limit;
use super::translate::Translator;
use crate::source::Layout;
use notify::{PollWatcher, RecommendedWatcher, RecursiveMode, Watcher as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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
    /// The system's limit on watched folders (inotify's) is reached.
    #[error(
        "the system limit on watched folders is reached, so {path} cannot be watched.\n  = help: raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288` (make it permanent in /etc/sysctl.d/), or run with --poll to scan for changes instead"
    )]
    Limit {
        /// The folder that could not be watched.
        path: PathBuf,
    },
    /// Any other refusal of the system's watcher.
    #[error("cannot watch {path}: {source}")]
    Watch {
        /// The folder that could not be watched.
        path: PathBuf,
        /// The watcher's own error.
        source: notify::Error,
    },
}

/// A notify watcher, shared with the debouncer's thread, which watches the targets of links
/// inside the content folder again (a link moved away and back takes its target's watch along).
pub(super) type SharedWatcher = Arc<Mutex<Box<dyn notify::Watcher + Send>>>;

/// Watching stops when this is dropped (after the debouncer has handed on what it holds).
pub struct Watcher {
    /// The notify watcher; dropping it closes the debouncer's channel.
    notify: Option<SharedWatcher>,
    debouncer: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        drop(self.notify.take());
        if let Some(thread) = self.debouncer.take() {
            let _ = thread.join();
        }
    }
}

/// Starts watching `content_dir` (recursively) and `config_file` (by name in its folder, since
/// editors replace files by renaming). `handler` receives one [`Signal`] per batch of events:
/// a batch ends `quiet` after its last event, or at once (a couple of milliseconds) when its
/// saves are all finished and the OS reports closes.
pub fn start(
    content_dir: &Path,
    layout: Layout,
    config_file: Option<&Path>,
    quiet: Duration,
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
    let watch = |watcher: &mut dyn notify::Watcher| -> Result<(), StartError> {
        watcher
            .watch(&content_root, RecursiveMode::Recursive)
            .map_err(|e| watch_error(&content_root, e))?;
        if let Some((folder, _)) = &config {
            watcher
                .watch(folder, RecursiveMode::NonRecursive)
                .map_err(|e| watch_error(folder, e))?;
        }
        Ok(())
    };
    let (sender, events) = std::sync::mpsc::channel();
    let notify: SharedWatcher = match mode {
        Mode::Native => {
            let mut watcher = RecommendedWatcher::new(sender, notify::Config::default())
                .map_err(|e| watch_error(&content_root, e))?;
            watch(&mut watcher)?;
            Arc::new(Mutex::new(Box::new(watcher)))
        }
        Mode::Poll(interval) => {
            let config = notify::Config::default().with_poll_interval(interval);
            let mut watcher =
                PollWatcher::new(sender, config).map_err(|e| watch_error(&content_root, e))?;
            watch(&mut watcher)?;
            Arc::new(Mutex::new(Box::new(watcher)))
        }
    };
    let translator = Translator {
        content_root: content_root.clone(),
        layout,
        config: config.clone(),
        // Walked by the debouncer's thread when it starts.
        aliases: Default::default(),
        unmatched: Default::default(),
        // Weak: the debouncer's thread ends once the watcher is dropped.
        watcher: Arc::downgrade(&notify),
    };
    let timing = debounce::Timing {
        quiet,
        // The poll watcher sees write times, never a close: it cannot tell a finished save.
        settle: (mode == Mode::Native).then_some(debounce::SETTLE),
    };
    let debouncer = std::thread::Builder::new()
        .name("debounce".into())
        .spawn(move || debounce::run(events, timing, translator, handler))
        .map_err(|e| watch_error(&content_root, notify::Error::io(e)))?;
    Ok(Watcher {
        notify: Some(notify),
        debouncer: Some(debouncer),
    })
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
