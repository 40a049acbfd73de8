//! A content file's contents as the database sees them: text, the reason it is not text, gone,
//! or a post whose body was left on disk ([`DiskBody`]).

use super::body::DiskBody;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// A content file as the database sees it. A file that cannot be read is still an input, so
/// its error is reported where the file is, and fixing the file clears it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileContents {
    /// `Arc<String>` rather than `Arc<str>`: the read buffer is kept as is, where converting it
    /// to `Arc<str>` would copy every byte of the content once more.
    Text(Arc<String>),
    /// The file exists but is not usable text. `position` (1-based line and column) locates
    /// the problem when known.
    Unusable {
        /// What is wrong, as a sentence.
        problem: String,
        /// What to do about it.
        help: String,
        /// Line and column, when known.
        position: Option<(usize, usize)>,
    },
    /// The file is gone (watch mode keeps inputs for deleted paths; salsa cannot delete them).
    Missing,
    /// A post as a one-shot build holds it: the text up to its body (the front matter and its
    /// closing line), and where the body is on disk, read again as it is written. Only for a
    /// body that is published exactly as read (see `parse::body`).
    Detached {
        /// The text up to the body.
        head: Arc<String>,
        /// Where the body is, and its digest.
        body: Arc<DiskBody>,
        /// The xxh3-64 hash of the whole file as read (the fingerprint's check of racy files).
        file_digest: u64,
    },
}

impl FileContents {
    /// The text, when the file is usable text.
    pub fn text(&self) -> Option<&str> {
        match self {
            FileContents::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The text a parse reads: the whole file, or a detached post's head (its body is not
    /// parsed).
    pub fn parsed_text(&self) -> Option<&Arc<String>> {
        match self {
            FileContents::Text(text) | FileContents::Detached { head: text, .. } => Some(text),
            _ => None,
        }
    }

    /// The xxh3-64 hash of the whole file as read, when it was text.
    pub fn file_digest(&self) -> Option<u64> {
        match self {
            FileContents::Text(text) => Some(xxh3_64(text.as_bytes())),
            FileContents::Detached { file_digest, .. } => Some(*file_digest),
            _ => None,
        }
    }
}
