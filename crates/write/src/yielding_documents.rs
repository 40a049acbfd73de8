//! Documents a site may replace (`ownership::yields_to_site`): the hashes of the bytes this
//! tool wrote at their paths (`.content-api/documents.json`), so that a file the site put in
//! place of one of them, in an output folder that is not emptied between builds, is recognised
//! and kept rather than overwritten.
//!
//! A document holding the bytes this tool wrote (its recorded hash) or would write now is the
//! tool's; anything else there is the site's. A document's hash leaves the record before the
//! document is replaced and the new one is recorded once the build is committed: a build
//! stopped in between leaves a document without a hash, which counts as the tool's (as every
//! document did before the record existed).

use super::manifest::MAX_STATE_BYTES;
use super::state_file::{Links, read_state};
use crate::documents::{self, Yields};
use camino::Utf8Path;
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_128;

/// Where the record lives, relative to the output folder.
pub const YIELDING_HASHES_PATH: &str = ".content-api/documents.json";

/// The paths whose hashes are recorded: every output document that may yield to the site's
/// own file (`contract::documents::OUTPUT_DOCUMENTS`), but not the posts' Markdown twins
/// (thousands of them, which a site writing its own makes from the same content).
pub(crate) fn is_recorded(path: &str) -> bool {
    documents::by_file(path).is_some_and(|row| row.yields != Yields::Never)
}

/// Path → the xxh3-128 hash of the bytes this tool wrote there.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct YieldingHashes(pub(crate) BTreeMap<String, u128>);

#[derive(serde::Serialize, serde::Deserialize)]
struct YieldingHashesFile {
    generator: String,
    /// Path → hash, as 32 hexadecimal digits.
    documents: BTreeMap<String, String>,
}

impl YieldingHashes {
    /// The record of `out_dir`, or an empty one (with a warning when it is unreadable: its
    /// documents are then treated as this tool's, as before the record existed).
    pub fn load(out_dir: &Utf8Path) -> YieldingHashes {
        let path = crate::on_disk(out_dir, YIELDING_HASHES_PATH);
        let record = match read_state(&path, MAX_STATE_BYTES, Links::Refuse) {
            Ok(None) => return YieldingHashes::default(),
            Ok(Some(bytes)) => serde_json::from_slice::<YieldingHashesFile>(&bytes).ok(),
            Err(err) => {
                tracing::warn!("ignoring {err} (it stays where it is)");
                return YieldingHashes::default();
            }
        };
        let Some(record) = record else {
            tracing::warn!("ignoring unreadable {path} (it stays where it is)");
            return YieldingHashes::default();
        };
        let documents = record
            .documents
            .into_iter()
            .filter(|(path, _)| is_recorded(path))
            .filter_map(|(path, hex)| Some((path, u128::from_str_radix(&hex, 16).ok()?)))
            .collect();
        YieldingHashes(documents)
    }

    /// Deterministic bytes: sorted paths and hashes.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let record = YieldingHashesFile {
            generator: "content-api".to_string(),
            documents: self
                .0
                .iter()
                .map(|(path, hash)| (path.clone(), format!("{hash:032x}")))
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&record).expect("the record serializes");
        bytes.push(b'\n');
        bytes
    }

    /// Whether `bytes` are bytes this tool wrote at `path`; `None` when nothing is recorded
    /// for it.
    pub(crate) fn wrote(&self, path: &str, bytes: &[u8]) -> Option<bool> {
        let hash = self.0.get(path)?;
        Some(*hash == xxh3_128(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_documents_are_those_of_before_the_table() {
        let recorded: Vec<&str> = documents::OUTPUT_DOCUMENTS
            .iter()
            .map(|row| row.file)
            .filter(|file| is_recorded(file))
            .collect();
        assert_eq!(
            recorded,
            [
                "404.html",
                "llms.txt",
                "llms-full.txt",
                "auth.md",
                ".well-known/agent-skills/index.json"
            ]
        );
        assert!(!is_recorded("blog/hello.md"));
        assert!(!is_recorded("api/posts.json"));
    }

    #[test]
    fn the_record_round_trips_and_keeps_only_the_documents_a_site_may_replace() {
        let dir = tempfile::tempdir().unwrap();
        let out = Utf8Path::from_path(dir.path()).unwrap();
        std::fs::create_dir(out.join(".content-api")).unwrap();
        let hashes = YieldingHashes(BTreeMap::from([
            ("404.html".to_string(), 1),
            ("llms.txt".to_string(), u128::MAX),
        ]));
        std::fs::write(out.join(YIELDING_HASHES_PATH), hashes.to_bytes()).unwrap();
        assert_eq!(YieldingHashes::load(out), hashes);
        assert_eq!(hashes.wrote("404.html", b"anything"), Some(false));
        assert_eq!(hashes.wrote("auth.md", b"anything"), None);

        // Hand-edited: a path outside the recorded documents, a hash that is not hexadecimal.
        std::fs::write(
            out.join(YIELDING_HASHES_PATH),
            r#"{"generator":"content-api","documents":{"../etc/passwd":"01","api/posts.json":"02","404.html":"zz","auth.md":"0a"}}"#,
        )
        .unwrap();
        let loaded = YieldingHashes::load(out);
        assert_eq!(loaded.0, BTreeMap::from([("auth.md".to_string(), 10)]));

        std::fs::write(out.join(YIELDING_HASHES_PATH), "not json").unwrap();
        assert_eq!(YieldingHashes::load(out), YieldingHashes::default());
    }
}
