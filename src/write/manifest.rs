//! The manifest: which files of the output folder this tool wrote.

use camino::Utf8Path;
use std::collections::BTreeSet;

/// Where the manifest lives, relative to the output folder.
pub const MANIFEST_PATH: &str = ".content-api/manifest.json";

/// The paths of every file written by the last successful build. Only these are ever removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Manifest {
    files: BTreeSet<String>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct OnDisk {
    generator: String,
    files: BTreeSet<String>,
}

impl Manifest {
    pub fn from_paths<'a>(paths: impl Iterator<Item = &'a str>) -> Manifest {
        Manifest {
            files: paths.map(str::to_string).collect(),
        }
    }

    /// The manifest of `out_dir`, or an empty one when there is none (or it is unreadable: the
    /// worst case is that stale files from that build are not removed).
    pub fn load(out_dir: &Utf8Path) -> Manifest {
        let Ok(bytes) = std::fs::read(out_dir.join(MANIFEST_PATH)) else {
            return Manifest::default();
        };
        match serde_json::from_slice::<OnDisk>(&bytes) {
            Ok(on_disk) => Manifest {
                files: on_disk.files,
            },
            Err(_) => {
                tracing::warn!("ignoring unreadable manifest {out_dir}/{MANIFEST_PATH}");
                Manifest::default()
            }
        }
    }

    /// Deterministic bytes: sorted paths, no timestamps.
    pub fn to_bytes(&self) -> Vec<u8> {
        let on_disk = OnDisk {
            generator: "content-api".into(),
            files: self.files.clone(),
        };
        let mut bytes = serde_json::to_vec_pretty(&on_disk).expect("manifest serializes");
        bytes.push(b'\n');
        bytes
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }
}
