//! Content paths: relative, normalised, UTF-8.

use std::fmt;
use std::sync::Arc;

/// A path relative to the content folder, UTF-8, with `/` separators and no `.`/`..` parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentPath(Arc<str>);

impl ContentPath {
    /// Accepts a relative, normalised, `/`-separated path; anything else is not a content path.
    pub fn new(path: &str) -> Option<ContentPath> {
        let ok = !path.is_empty()
            && !path.starts_with('/')
            && !path.contains('\\')
            && path
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..");
        ok.then(|| ContentPath(Arc::from(path)))
    }

    /// The path, `/`-separated and relative to the content folder.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last part of the path.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for ContentPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
