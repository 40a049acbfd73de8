//! Everything about the content folder on disk: which paths are content, and reading them.
//!
//! This module owns every read of the content folder. It produces plain values (a relative
//! [`ContentPath`], its [`FileRole`], its [`FileContents`]); it knows nothing of salsa, so both
//! `--once` and the watcher feed the database through the same functions.

mod listing;
mod path;
mod read;
mod stat;
mod walk;

pub use listing::list_folder;
pub use path::{ContentPath, FileRole, classify};
pub use read::{FileContents, MAX_FILE_BYTES, read_content, read_file};
pub use stat::{
    FileStamp, RACY_COARSE_NS, RACY_FINE_NS, StampedFile, on_network_file_system, stamp_tree,
};
pub use walk::{Scan, ScanProblem, ScannedFile, in_content_folder, scan, scan_under};
