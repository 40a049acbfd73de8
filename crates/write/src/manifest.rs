//! The manifest: which files of the output folder this tool wrote.

use super::safe_path::check_output_path;
use super::state_file::{Links, read_state};
use camino::Utf8Path;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The largest manifest or intent record read: 64 bytes per path at a million paths.
pub const MAX_STATE_BYTES: u64 = 64 << 20;
/// Where the manifest lives, relative to the output folder.
pub const MANIFEST_PATH: &str = ".content-api/manifest.json";

/// The intent record: the paths a build may write that the manifest does not list yet, saved
/// before its first write and removed once the manifest lists them. After a crash, its paths
/// count as written by this tool, so the next build removes those that are not outputs.
pub const INTENT_PATH: &str = ".content-api/intent.json";

/// The paths of every file written by the last successful build. Only these are ever removed.
/// The paths are shared with the outputs that have them: a cold build's manifest and intent
/// record list 100,000 paths without copying one.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Manifest {
    files: BTreeSet<Arc<str>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ManifestFile<'a> {
    #[serde(borrow)]
    generator: Cow<'a, str>,
    /// Sorted and unique as written; read into a list first, because building the set from a
    /// sorted list is one pass where inserting 20,000 paths one by one is not. Borrowed when
    /// written: writing 20,000 paths copies none of them.
    files: Vec<Cow<'a, str>>,
}

impl Manifest {
    /// A manifest of `paths`: the files a build wrote, or may write.
    pub fn from_paths(paths: impl IntoIterator<Item = Arc<str>>) -> Manifest {
        Manifest {
            files: paths.into_iter().collect(),
        }
    }

    /// The manifest of `out_dir`, or an empty one when there is none (or it is unreadable: the
    /// worst case is that stale files from that build are not removed).
    pub fn load(out_dir: &Utf8Path) -> Manifest {
        Manifest::load_from(out_dir, MANIFEST_PATH)
    }

    /// A list of paths in the manifest's format (the manifest or the intent record). The file is
    /// untrusted input: an entry that is not a valid output path (absolute, `..`, a name too
    /// long, inside `.content-api/`) is dropped with a warning, so no entry can make the tool
    /// touch anything outside the output folder or its own state.
    pub fn load_from(out_dir: &Utf8Path, relative: &str) -> Manifest {
        let bytes = match read_state(
            &crate::on_disk(out_dir, relative),
            MAX_STATE_BYTES,
            Links::Refuse,
        ) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Manifest::default(),
            Err(err) => {
                tracing::warn!(
                    "ignoring {err}: this build treats every file of the folder as not its own, and replaces the manifest when it publishes"
                );
                return Manifest::default();
            }
        };
        match serde_json::from_slice::<ManifestFile>(&bytes) {
            Ok(on_disk) => {
                let (files, refused): (Vec<Cow<str>>, Vec<Cow<str>>) = on_disk
                    .files
                    .into_iter()
                    .partition(|path| check_output_path(path).is_ok());
                let files: BTreeSet<Arc<str>> = files.into_iter().map(Arc::from).collect();
                for path in refused {
                    tracing::warn!(
                        "ignoring the entry {path:?} of {out_dir}/{relative}: it is not a path \
                         inside the output folder"
                    );
                }
                Manifest { files }
            }
            Err(_) => {
                tracing::warn!("ignoring unreadable manifest {out_dir}/{relative}");
                Manifest::default()
            }
        }
    }

    /// Deterministic bytes: sorted paths, no timestamps.
    pub fn to_bytes(&self) -> Vec<u8> {
        let on_disk = ManifestFile {
            generator: Cow::Borrowed("content-api"),
            files: self
                .files
                .iter()
                .map(|path| Cow::Borrowed(&**path))
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&on_disk).expect("manifest serializes");
        bytes.push(b'\n');
        bytes
    }

    /// Whether the tool wrote `path` (relative to the output folder).
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Every path listed, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|path| &**path)
    }

    /// Whether no path is listed: the folder has no file of this tool's.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
