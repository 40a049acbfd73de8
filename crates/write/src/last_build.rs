//! What the last recorded build published (`.content-api/outputs.json` beside the publishing
//! history): each output path with the hash of its bytes, and the output folder and base URL it
//! was built for. A site whose own build empties its output folder before each run (Astro
//! does) starts every build from an empty folder, so the folder cannot say what changed since
//! the last deploy; this file can. The purge list of a `build` is measured against it, and CI
//! keeps it (with the publishing history) from one deploy to the next.
//!
//! Untrusted input: read with a size bound, without following a link or blocking on a FIFO,
//! and ignored (with a message) when it is unreadable or belongs to another output folder or
//! base URL.

use crate::render::Output;
use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

/// The file's name inside the state folder.
pub const LAST_BUILD_FILE: &str = "outputs.json";

/// The state folder beside the publishing history: what must outlive the output folder.
pub fn state_dir(history_file: &Utf8Path) -> Utf8PathBuf {
    let folder = match history_file.parent() {
        Some(folder) if !folder.as_str().is_empty() => folder,
        _ => Utf8Path::new("."),
    };
    folder.join(".content-api")
}

/// The largest record read: 64 bytes per output at 200,000 outputs.
const MAX_BYTES: u64 = 16 << 20;

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Record {
    format: u32,
    base_url: String,
    out_dir: String,
    /// Output path → xxh3-128 of its bytes, as 32 hex digits.
    files: BTreeMap<String, String>,
}

const FORMAT: u32 = 1;

/// The outputs of the last recorded build into `out_dir` for `base_url`: path → hash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastBuild {
    /// Output path → xxh3-128 of its bytes.
    pub files: BTreeMap<String, u128>,
}

impl LastBuild {
    /// The record in `state_dir`, when there is one for this output folder and base URL.
    pub fn load(state_dir: &Utf8Path, out_dir: &Utf8Path, base_url: &str) -> Option<LastBuild> {
        let path = state_dir.join(LAST_BUILD_FILE);
        let bytes = match read_bounded(&path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return None,
            Err(why) => {
                tracing::warn!(
                    "ignoring {path}: {why}; the purge list is measured against the output folder instead"
                );
                return None;
            }
        };
        let record: Record = match serde_json::from_slice(&bytes) {
            Ok(record) => record,
            Err(err) => {
                tracing::warn!(
                    "ignoring {path}: not a record this version reads ({err}); the next recorded build replaces it"
                );
                return None;
            }
        };
        if record.format != FORMAT
            || record.base_url != base_url
            || record.out_dir != out_dir.as_str()
        {
            tracing::debug!("{path} is another build's (folder or base URL)");
            return None;
        }
        let files = record
            .files
            .into_iter()
            .filter_map(|(path, hex)| Some((path, u128::from_str_radix(&hex, 16).ok()?)))
            .collect();
        Some(LastBuild { files })
    }

    /// The record of `outputs` (the files this build owns in the folder).
    pub fn of<'a>(outputs: impl IntoIterator<Item = &'a (Arc<str>, Output)>) -> LastBuild {
        LastBuild {
            files: outputs
                .into_iter()
                .map(|(path, output)| (path.to_string(), output.hash))
                .collect(),
        }
    }

    /// The output paths whose bytes differ from this record's (new ones included), and the paths
    /// it lists that are no longer outputs.
    pub fn changes(&self, now: &LastBuild) -> (Vec<Arc<str>>, Vec<String>) {
        let changed = now
            .files
            .iter()
            .filter(|(path, hash)| self.files.get(*path) != Some(hash))
            .map(|(path, _)| Arc::from(path.as_str()))
            .collect();
        let removed = self
            .files
            .keys()
            .filter(|path| !now.files.contains_key(*path))
            .cloned()
            .collect();
        (changed, removed)
    }

    /// Writes the record when its bytes differ from the file's, through a temporary file and a
    /// rename; creates the state folder.
    pub fn save(
        &self,
        state_dir: &Utf8Path,
        out_dir: &Utf8Path,
        base_url: &str,
    ) -> std::io::Result<()> {
        let record = Record {
            format: FORMAT,
            base_url: base_url.to_string(),
            out_dir: out_dir.to_string(),
            files: self
                .files
                .iter()
                .map(|(path, hash)| (path.clone(), format!("{hash:032x}")))
                .collect(),
        };
        let mut bytes = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        let path = state_dir.join(LAST_BUILD_FILE);
        if read_bounded(&path).ok().flatten().as_deref() == Some(&bytes[..]) {
            return Ok(());
        }
        std::fs::create_dir_all(state_dir)?;
        let temporary = state_dir.join(format!(".{LAST_BUILD_FILE}.{}.tmp", std::process::id()));
        let written =
            std::fs::write(&temporary, &bytes).and_then(|()| std::fs::rename(&temporary, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }
}

/// The file at `path`: `None` when there is none; an error naming why when it is not a regular
/// file, cannot be read, or is larger than [`MAX_BYTES`].
fn read_bounded(path: &Utf8Path) -> Result<Option<Vec<u8>>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let file = match file {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    let meta = file.metadata().map_err(|err| err.to_string())?;
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    if meta.len() > MAX_BYTES {
        return Err(format!("it is larger than {} MiB", MAX_BYTES >> 20));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| err.to_string())?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(files: &[(&str, &str)]) -> LastBuild {
        let outputs: Vec<(Arc<str>, Output)> = files
            .iter()
            .map(|(path, text)| (Arc::from(*path), Output::new(text.to_string())))
            .collect();
        LastBuild::of(&outputs)
    }

    #[test]
    fn changes_are_new_or_different_bytes_and_removed_paths() {
        let before = record(&[
            ("api/a.json", "1"),
            ("api/b.json", "2"),
            ("api/gone.json", "3"),
        ]);
        let now = record(&[
            ("api/a.json", "1"),
            ("api/b.json", "two"),
            ("api/new.json", "4"),
        ]);
        let (changed, removed) = before.changes(&now);
        assert_eq!(
            changed,
            [Arc::from("api/b.json"), Arc::from("api/new.json")]
        );
        assert_eq!(removed, ["api/gone.json"]);
    }

    #[test]
    fn a_record_is_only_for_its_folder_and_base_url() {
        let dir = tempfile::tempdir().unwrap();
        let state = Utf8Path::from_path(dir.path())
            .unwrap()
            .join(".content-api");
        let built = record(&[("api/a.json", "1")]);
        built
            .save(&state, Utf8Path::new("dist"), "https://a.example")
            .unwrap();
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("dist"), "https://a.example"),
            Some(built)
        );
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("out"), "https://a.example"),
            None
        );
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("dist"), "https://b.example"),
            None
        );
    }

    #[test]
    fn a_fifo_or_garbage_is_ignored_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let state = Utf8Path::from_path(dir.path()).unwrap().to_owned();
        std::fs::write(state.join(LAST_BUILD_FILE), "not json").unwrap();
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("dist"), "https://a.example"),
            None
        );
        std::fs::remove_file(state.join(LAST_BUILD_FILE)).unwrap();
        let fifo = std::ffi::CString::new(state.join(LAST_BUILD_FILE).as_str()).unwrap();
        // SAFETY: mkfifo(3) on a path this test owns.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("dist"), "https://a.example"),
            None
        );
    }
}
