//! The content folder as values: a file's path and role ([`ContentPath`], [`FileRole`],
//! by the site's [`Layout`]), what was read of it ([`FileContents`], a body left on disk as [`DiskBody`]),
//! and what a scan found ([`Scan`]). `source` makes them from the disk; the engine reads only
//! these.

mod body;
mod contents;
mod layout;
mod path;
mod role;
mod scan;

pub use body::{BodyReader, DiskBody};
pub use contents::FileContents;
pub use layout::{Layout, Pattern};
pub use path::ContentPath;
pub use role::{FileRole, NameShape, PostName};
pub use scan::{Scan, ScanProblem, ScannedFile};
