//! Telling a content folder replaced under the same name from the one being watched.

use crate::source::FileStamp;

/// The stamp of the folder `path` names now, `None` when it is not a folder (gone, or a file
/// now). Follows a symlinked folder. Two stamps of the same folder are `FileStamp::same_file`:
/// a folder replaced under the same name (`rm -rf content && git restore`) is another file.
pub(super) fn folder_stamp(path: &std::path::Path) -> Option<FileStamp> {
    FileStamp::of_path(path).filter(FileStamp::is_dir)
}

/// Whether `now` and `before` name the same folder (or both no folder).
pub(super) fn same_folder(now: Option<FileStamp>, before: Option<FileStamp>) -> bool {
    match (now, before) {
        (Some(now), Some(before)) => now.same_file(&before),
        (None, None) => true,
        _ => false,
    }
}
