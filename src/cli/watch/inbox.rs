//! The sending side of the daemon's messages: the watcher's signals become [`Message`]s, and
//! a flag says whether content changes are among those not received yet.

use super::{BuildArgs, Message, Settings};
use crate::watch::{self, Mode, Signal, Watcher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Where the watcher sends its messages, and whether content changes are among those not
/// received yet: the documents lane gives way to them (see `documents`).
#[derive(Clone, Copy)]
pub(super) struct Inbox<'a> {
    pub(super) tx: &'a mpsc::Sender<Message>,
    /// Set before a [`Message::Changes`] is sent, cleared when one is received: never true
    /// for long without a change on its way.
    pub(super) changes_waiting: &'a Arc<AtomicBool>,
}

/// Starts the watcher, whose signals become messages (a config change its own message).
pub(super) fn start_watcher(
    settings: &Settings,
    args: &BuildArgs,
    mode: Mode,
    inbox: Inbox<'_>,
) -> Result<Watcher, watch::StartError> {
    let config = &settings.config;
    let config_file = args.config.clone().unwrap_or_else(|| "watch.toml".into());
    let sender = inbox.tx.clone();
    let changes_waiting = Arc::clone(inbox.changes_waiting);
    watch::start(
        config.content_dir.as_std_path(),
        config.layout.clone(),
        Some(config_file.as_std_path()),
        Duration::from_millis(config.watch.debounce_ms),
        mode,
        move |signal| match signal {
            Signal::Changes(mut changes) => {
                if std::mem::take(&mut changes.config) {
                    let _ = sender.send(Message::ReloadConfig);
                }
                if !changes.is_empty() {
                    changes_waiting.store(true, Ordering::SeqCst);
                    let _ = sender.send(Message::Changes(changes));
                }
            }
            Signal::Error(error) => {
                let _ = sender.send(Message::WatcherError(error));
            }
        },
    )
}
