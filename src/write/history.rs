//! The publishing history: every API path this output folder has ever published.
//!
//! A removed API path (a tag whose last post was deleted, a series removed) must answer
//! `410 Gone`, not `404`, so the folder remembers what it published. The history is read before
//! a build (it is a salsa input: `_redirects` lists the paths that are in it and no longer
//! outputs) and grows after each successful publish. It lives beside the manifest and, like it,
//! is never served.

use crate::db::Published;
use camino::Utf8Path;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Where the history lives, relative to the output folder.
pub const HISTORY_PATH: &str = ".content-api/published.json";

/// The API paths (relative to the output folder, e.g. `api/posts.json`) published so far.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct History {
    paths: BTreeSet<Arc<str>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct OnDisk {
    generator: String,
    /// Sorted API paths, relative to the output folder.
    published: Vec<String>,
}

pub use crate::render::is_api_path;

impl History {
    /// The history of `out_dir`; empty when there is none. An unreadable history is reported
    /// and treated as empty: the worst case is that paths removed earlier answer 404, not 410.
    pub fn load(out_dir: &Utf8Path) -> History {
        let bytes = match std::fs::read(out_dir.join(HISTORY_PATH)) {
            Ok(bytes) => bytes,
            Err(_) => return History::default(),
        };
        match serde_json::from_slice::<OnDisk>(&bytes) {
            Ok(on_disk) => History {
                paths: on_disk
                    .published
                    .into_iter()
                    .filter(|path| is_api_path(path) && super::check_relative(path).is_ok())
                    .map(Arc::from)
                    .collect(),
            },
            Err(err) => {
                tracing::warn!("ignoring unreadable history {out_dir}/{HISTORY_PATH}: {err}");
                History::default()
            }
        }
    }

    /// This history plus the API paths among `outputs`.
    pub fn with_outputs<'a>(&self, outputs: impl IntoIterator<Item = &'a Arc<str>>) -> History {
        let mut paths = self.paths.clone();
        paths.extend(
            outputs
                .into_iter()
                .filter(|path| is_api_path(path))
                .cloned(),
        );
        History { paths }
    }

    pub fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(|p| &**p)
    }

    /// The history as the salsa input `Site.published` takes it.
    pub fn published(&self) -> Published {
        self.paths.iter().cloned().collect()
    }

    /// Deterministic bytes: sorted paths, no timestamps.
    pub fn to_bytes(&self) -> Vec<u8> {
        let on_disk = OnDisk {
            generator: "content-api".into(),
            published: self.paths.iter().map(|p| p.to_string()).collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&on_disk).expect("history serializes");
        bytes.push(b'\n');
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(paths: &[&str]) -> Vec<Arc<str>> {
        paths.iter().map(|p| Arc::from(*p)).collect()
    }

    #[test]
    fn only_api_paths_are_remembered_and_the_set_only_grows() {
        let first =
            History::default().with_outputs(&outputs(&["api/a.json", "openapi.json", "_headers"]));
        assert_eq!(first.paths().collect::<Vec<_>>(), ["api/a.json"]);
        let second = first.with_outputs(&outputs(&["api/b.json"]));
        assert_eq!(
            second.paths().collect::<Vec<_>>(),
            ["api/a.json", "api/b.json"]
        );
        assert_eq!(
            &*second.published(),
            &[Arc::from("api/a.json"), Arc::from("api/b.json")]
        );
    }

    #[test]
    fn it_survives_a_round_trip_through_the_disk_and_drops_unsafe_entries() {
        let dir = tempfile::tempdir().unwrap();
        let out = Utf8Path::from_path(dir.path()).unwrap();
        assert_eq!(History::load(out), History::default());
        let history = History::default().with_outputs(&outputs(&["api/x.json", "api/y.json"]));
        std::fs::create_dir_all(out.join(".content-api")).unwrap();
        std::fs::write(out.join(HISTORY_PATH), history.to_bytes()).unwrap();
        assert_eq!(History::load(out), history);
        std::fs::write(
            out.join(HISTORY_PATH),
            r#"{"generator":"x","published":["api/ok.json","api/../../etc/passwd","llms.txt"]}"#,
        )
        .unwrap();
        assert_eq!(
            History::load(out).paths().collect::<Vec<_>>(),
            ["api/ok.json"]
        );
        std::fs::write(out.join(HISTORY_PATH), "not json").unwrap();
        assert_eq!(History::load(out), History::default());
    }
}
