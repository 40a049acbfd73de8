//! What the last recorded build published (`.content-api/outputs.json` beside the publishing
//! history): each output path with the hash of its bytes, and the output folder and base URL it
//! was built for. A site whose own build empties its output folder before each run (Astro
//! does) starts every build from an empty folder, so the folder cannot say what changed since
//! the last deploy; this file can. The purge list of a `build` is measured against it, and CI
//! keeps it (with the publishing history) from one deploy to the next.
//!
//! Untrusted input: read with a size bound, without following a link (at the file or at the
//! state folder) or blocking on a FIFO, and ignored (with a message) when it is unreadable,
//! belongs to another output folder or base URL, or is not one this tool wrote: a path that is
//! not an output path ([`check_output_path`]: it would become a line of the purge list), or more
//! files than a record holds ([`MAX_RECORDED_FILES`]).

use crate::output::Output;
use crate::write::state_file::Folder;
use crate::write::{MAX_RECORDED_FILES, check_output_path};
use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
struct LastBuildFile {
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
        let ignore = |why: &dyn std::fmt::Display| -> Option<LastBuild> {
            tracing::warn!(
                "ignoring {path}: {why}; the purge list is measured against the output folder instead (delete the file: the next recorded build writes it again)"
            );
            None
        };
        let read = Folder::own(state_dir, false)
            .map_err(|err| err.to_string())
            .and_then(|folder| match folder {
                Some(folder) => folder
                    .read(LAST_BUILD_FILE, MAX_BYTES)
                    .map_err(|err| err.to_string()),
                None => Ok(None),
            });
        let bytes = match read {
            Ok(bytes) => bytes?,
            Err(why) => return ignore(&why),
        };
        let record: LastBuildFile = match serde_json::from_slice(&bytes) {
            Ok(record) => record,
            Err(err) => return ignore(&format!("not a record this version reads ({err})")),
        };
        if record.format != FORMAT
            || record.base_url != base_url
            || record.out_dir != out_dir.as_str()
        {
            tracing::debug!("{path} is another build's (folder or base URL)");
            return None;
        }
        match trusted_files(record.files) {
            Ok(files) => Some(LastBuild { files }),
            Err(why) => ignore(&why),
        }
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
        let record = LastBuildFile {
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
        let folder = Folder::own(state_dir, true)?.ok_or_else(|| {
            std::io::Error::other(format!("{state_dir} was removed as it was made"))
        })?;
        if folder
            .read(LAST_BUILD_FILE, MAX_BYTES)
            .ok()
            .flatten()
            .as_deref()
            == Some(&bytes[..])
        {
            return Ok(());
        }
        folder.write(LAST_BUILD_FILE, &bytes)
    }
}

/// The record's files, each an output path with its hash; `Err` says why the record is not
/// one this tool wrote (it is then not used at all: one bad entry means nothing in it can be
/// trusted, and the output folder is a sound baseline).
fn trusted_files(files: BTreeMap<String, String>) -> Result<BTreeMap<String, u128>, String> {
    if files.len() > MAX_RECORDED_FILES {
        return Err(format!(
            "it lists {} files, more than a build records ({MAX_RECORDED_FILES})",
            files.len()
        ));
    }
    files
        .into_iter()
        .map(|(path, hex)| {
            if let Err(why) = check_output_path(&path) {
                return Err(format!("it lists {path:?}, not an output path ({why})"));
            }
            let hash = u128::from_str_radix(&hex, 16)
                .map_err(|_| format!("the hash of {path} is not a hash ({hex:?})"))?;
            Ok((path, hash))
        })
        .collect()
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

    #[cfg(unix)]
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

    fn saved_record(files: &str) -> String {
        format!(
            r#"{{"format":1,"base_url":"https://a.example","out_dir":"dist","files":{{{files}}}}}"#
        )
    }

    #[test]
    fn a_record_naming_what_the_tool_never_writes_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let state = Utf8Path::from_path(dir.path()).unwrap().to_owned();
        let load = || LastBuild::load(&state, Utf8Path::new("dist"), "https://a.example");
        let hash = "00000000000000000000000000000001";
        std::fs::write(
            state.join(LAST_BUILD_FILE),
            saved_record(&format!(r#""api/a.json":"{hash}""#)),
        )
        .unwrap();
        assert!(load().is_some(), "a record as the tool writes it");
        for key in [
            r"api/x
https://victim.example/everything",
            "../../etc/passwd",
            "/abs.json",
            "api/a b.json",
            ".content-api/manifest.json",
        ] {
            let files = format!(r#""api/a.json":"{hash}","{key}":"{hash}""#);
            std::fs::write(state.join(LAST_BUILD_FILE), saved_record(&files)).unwrap();
            assert_eq!(load(), None, "{key}");
        }
        let many: Vec<String> = (0..=MAX_RECORDED_FILES)
            .map(|n| format!(r#""{n}":"{hash}""#))
            .collect();
        std::fs::write(state.join(LAST_BUILD_FILE), saved_record(&many.join(","))).unwrap();
        assert_eq!(load(), None, "more files than a build records");
    }

    #[cfg(unix)]
    #[test]
    fn a_state_folder_that_is_a_link_is_neither_read_nor_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let state = root.join(".content-api");
        std::os::unix::fs::symlink(&elsewhere, &state).unwrap();
        let err = record(&[("api/a.json", "1")])
            .save(&state, Utf8Path::new("dist"), "https://a.example")
            .unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        record(&[("api/a.json", "1")])
            .save(&elsewhere, Utf8Path::new("dist"), "https://a.example")
            .unwrap();
        assert_eq!(
            LastBuild::load(&state, Utf8Path::new("dist"), "https://a.example"),
            None
        );
    }
}
