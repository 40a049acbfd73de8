//! What a notify error means for the author: a system limit on watched folders (with what to
//! do about it), or anything else, said as it is. Shared by starting the watcher and by the
//! debouncer, which reports errors that arrive while watching.

/// Whether `error` is the system's limit on watched folders (inotify's watch or instance limit).
pub(super) fn is_limit(error: &notify::Error) -> bool {
    match &error.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        // ENOSPC from inotify_add_watch, EMFILE from inotify_init: both are limits.
        notify::ErrorKind::Io(io) => matches!(io.raw_os_error(), Some(28 | 24)),
        _ => false,
    }
}

/// One line for the log about an error that arrived while watching.
pub(super) fn describe(error: &notify::Error) -> String {
    if is_limit(error) {
        "the system limit on watched folders is reached: new folders are not watched; raise fs.inotify.max_user_watches or restart with --poll".into()
    } else {
        format!("file watcher: {error}")
    }
}
