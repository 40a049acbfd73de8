//! Everything about the content folder on disk: which paths are content, and reading them.
//!
//! This module owns every read of the content folder. It produces plain values (a relative
//! [`ContentPath`], its `FileRole`, its [`FileContents`]); it knows nothing of salsa, so both
//! `--once` and the watcher feed the database through the same functions.

mod body;
mod contain;
mod links;
mod listing;
mod path;
mod read;
mod stat;
mod walk;

pub use body::DiskBody;
pub use links::Aliases;
pub use path::ContentPath;
pub use read::FileContents;
pub use walk::{Scan, scan};

pub use walk::{scan_keeping, scan_listed};

pub use listing::list_folder;
pub use path::{FileRole, classify};
pub use read::{kind_of, read_content};
pub use stat::{FileStamp, StampedFile, on_network_file_system, stamp_tree};
pub use walk::{ScanProblem, in_content_folder, problems_at, scan_under};
