//! The manifest: which files of the output folder this tool wrote, with their hashes.

use crate::render::Output;
use camino::Utf8Path;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where the manifest lives, relative to the output folder.
pub const MANIFEST_PATH: &str = ".content-api/manifest.json";

/// Path → hash (hex) of every file written by the last successful build.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Manifest {
    files: BTreeMap<String, u128>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct OnDisk {
    generator: String,
    files: BTreeMap<String, String>,
}

impl Manifest {
    pub fn from_outputs(outputs: &[(Arc<str>, Output)]) -> Manifest {
        Manifest {
            files: outputs
                .iter()
                .map(|(path, output)| (path.to_string(), output.hash))
                .collect(),
        }
    }

    /// The manifest of `out_dir`, or an empty one when there is none (or it is unreadable: the
    /// worst case is that stale files from that build are not removed).
    pub fn load(out_dir: &Utf8Path) -> Manifest {
        let Ok(bytes) = std::fs::read(out_dir.join(MANIFEST_PATH)) else {
            return Manifest::default();
        };
        let Ok(on_disk) = serde_json::from_slice::<OnDisk>(&bytes) else {
            tracing::warn!("ignoring unreadable manifest {}/{MANIFEST_PATH}", out_dir);
            return Manifest::default();
        };
        Manifest {
            files: on_disk
                .files
                .into_iter()
                .filter_map(|(path, hash)| Some((path, u128::from_str_radix(&hash, 16).ok()?)))
                .collect(),
        }
    }

    /// Deterministic bytes: sorted paths, no timestamps.
    pub fn to_bytes(&self) -> Vec<u8> {
        let on_disk = OnDisk {
            generator: "content-api".into(),
            files: self
                .files
                .iter()
                .map(|(path, hash)| (path.clone(), format!("{hash:032x}")))
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&on_disk).expect("manifest serializes");
        bytes.push(b'\n');
        bytes
    }

    pub fn hash(&self, path: &str) -> Option<u128> {
        self.files.get(path).copied()
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}
