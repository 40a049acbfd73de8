//! Everything about the content folder on disk: which paths are content, and reading them.
//!
//! This module owns every read of the content folder. It produces the plain values of
//! `model::content` (a [`ContentPath`](crate::content::ContentPath), its
//! [`FileContents`](crate::content::FileContents), a [`Scan`](crate::content::Scan)); it knows
//! nothing of salsa, so both `--once` and the watcher feed the database through the same
//! functions.

mod body;
mod changes;
mod contain;
mod links;
mod listing;
mod read;
mod stat;
mod unread;
mod walk;

/// The layout a walk follows, for the watcher (which depends on this crate alone).
pub use crate::content::Layout;
pub use body::{BODY_FILES, BodyFiles};
pub use changes::ChangeSet;
pub use links::Aliases;
pub use listing::list_folder;
pub use read::{kind_of, read_content};
#[cfg(unix)]
pub use stat::on_network_file_system;
pub use stat::{FileStamp, StampedFile, on_network, stamp_tree, stat_dev, stat_mode};
pub use unread::unread_markdown;
pub use walk::{Keep, problems_at, scan, scan_keeping, scan_listed, scan_under};
