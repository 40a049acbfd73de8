//! What a scan of the content folder found: every content file, read, and the problems of the
//! walk itself.

use super::contents::FileContents;
use super::path::ContentPath;
use super::role::FileRole;

/// One content file found by a scan.
#[derive(Debug)]
pub struct ScannedFile {
    /// Where it is.
    pub path: ContentPath,
    /// What it is, from its path.
    pub role: FileRole,
    /// What was read.
    pub contents: FileContents,
}

/// A problem found while walking that is not about a file's contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScanProblem {
    /// The path as it can be shown (lossy when the name is not UTF-8).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: String,
    /// Errors fail the build; the others are warnings.
    pub is_error: bool,
}

/// The result of scanning the content folder, sorted by path.
#[derive(Debug, Default)]
pub struct Scan {
    /// The content files, read.
    pub files: Vec<ScannedFile>,
    /// Problems of the walk itself (link loops, unreadable folders, misplaced Markdown, names
    /// that are not UTF-8).
    pub problems: Vec<ScanProblem>,
}
