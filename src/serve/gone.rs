//! Which paths answer 410: API paths published by an earlier build that are not outputs now.
//!
//! Read from what `write` keeps in the output folder (the history of published API paths and
//! the manifest of current outputs), the same facts `_redirects` is rendered from. Loaded at
//! start and again after every rebuild.

use crate::write::{History, Manifest};
use camino::Utf8PathBuf;
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

pub struct Gone {
    out_dir: Utf8PathBuf,
    paths: RwLock<Arc<HashSet<String>>>,
}

impl Gone {
    pub fn load(out_dir: Utf8PathBuf) -> Gone {
        let paths = RwLock::new(Arc::new(read(&out_dir)));
        Gone { out_dir, paths }
    }

    /// Reads the output folder's state again.
    pub fn refresh(&self) {
        let fresh = Arc::new(read(&self.out_dir));
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

fn read(out_dir: &camino::Utf8Path) -> HashSet<String> {
    let current = Manifest::load(out_dir);
    History::load(out_dir)
        .paths()
        .filter(|path| !current.contains(path))
        .map(str::to_string)
        .collect()
}
