//! Which paths answer 410: API paths published by an earlier build that are not outputs now.
//!
//! Read from the publishing history (the site's history file, plus a legacy one still in the
//! output folder) and the manifest of current outputs, the same facts `_redirects` is rendered
//! from. Loaded at start and again after every rebuild. An unreadable history is reported by
//! the build; here it means no 410s.

use crate::write::{HistoryFile, Manifest};
use camino::Utf8PathBuf;
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

pub struct Gone {
    out_dir: Utf8PathBuf,
    history_file: Utf8PathBuf,
    paths: RwLock<Arc<HashSet<String>>>,
}

impl Gone {
    pub fn load(out_dir: Utf8PathBuf, history_file: Utf8PathBuf) -> Gone {
        let paths = RwLock::new(Arc::new(read(&out_dir, &history_file)));
        Gone {
            out_dir,
            history_file,
            paths,
        }
    }

    /// Reads the output folder's state again.
    pub fn refresh(&self) {
        let fresh = Arc::new(read(&self.out_dir, &self.history_file));
        *self.paths.write().unwrap_or_else(|p| p.into_inner()) = fresh;
    }

    /// Whether `path` (relative to the output folder) was removed.
    pub fn contains(&self, path: &str) -> bool {
        self.paths
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(path)
    }
}

fn read(out_dir: &camino::Utf8Path, history_file: &camino::Utf8Path) -> HashSet<String> {
    let current = Manifest::load(out_dir);
    let Ok(history) = HistoryFile::load(history_file, out_dir) else {
        return HashSet::new();
    };
    history
        .history()
        .paths()
        .filter(|path| !current.contains(path))
        .map(str::to_string)
        .collect()
}
