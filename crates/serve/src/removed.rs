//! Which paths answer 410: API paths published by an earlier build that are not outputs now.
//!
//! Read from the publishing history (the site's history file, plus a legacy one still in the
//! output folder) and the manifest of current outputs, the same facts `_redirects` is rendered
//! from. Loaded at start and again after every rebuild. An unreadable history is reported by
//! the build; here it means no 410s.

use crate::config::SiteConfig;
use crate::deploy::HistoryFile;
use crate::write::Manifest;
use camino::Utf8PathBuf;
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

pub struct Gone {
    out_dir: Utf8PathBuf,
    /// The site as configured: whose publishing history is read.
    site: Arc<SiteConfig>,
    paths: RwLock<Arc<HashSet<String>>>,
}

impl Gone {
    pub fn load(out_dir: Utf8PathBuf, site: Arc<SiteConfig>) -> Gone {
        let paths = RwLock::new(Arc::new(read(&out_dir, &site)));
        Gone {
            out_dir,
            site,
            paths,
        }
    }

    /// Reads the output folder's state again.
    pub fn refresh(&self) {
        let fresh = Arc::new(read(&self.out_dir, &self.site));
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

fn read(out_dir: &camino::Utf8Path, site: &SiteConfig) -> HashSet<String> {
    let current = Manifest::load(out_dir);
    let site = SiteConfig {
        out_dir: out_dir.to_owned(),
        ..site.clone()
    };
    let Ok(history) = HistoryFile::load(&site) else {
        return HashSet::new();
    };
    history
        .history()
        .paths()
        .filter(|path| !current.contains(path))
        .map(str::to_string)
        .collect()
}
