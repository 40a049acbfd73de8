//! The fingerprint of the last build (`.content-api/fingerprint.json`): the metadata of every
//! input and of the output it committed, so that a `build` with nothing changed is recognised
//! without reading or parsing the content.
//!
//! What it covers (any difference means a full build):
//! - the tool: its version and the executable's identity (device, inode, size, times), so
//!   another binary never matches;
//! - the settings: the resolved configuration (every key, flags applied: base URL, folders,
//!   time zone...), the config file's bytes, today's date, `--drafts` and `--future`;
//! - the publishing history's bytes (and the legacy one's in the output folder);
//! - the content tree as a scan sees it: every content file's path and stamp (device, inode,
//!   mode, size, modification and change times in nanoseconds). The walk lists every folder,
//!   so a new, removed or renamed file changes the list itself;
//! - the output: the manifest's bytes, the identity of every folder holding an output, and the
//!   stamp of every output file (those the manifest lists and those left to the site's own
//!   file), so a deleted or edited output is written again by the next build.
//!
//! Racy timestamps (git's "racy git"): a file changed twice within the file system's timestamp
//! granularity keeps its stamp. A stamp is trusted only when its times are older than the moment
//! it was taken by more than that granularity (`FileStamp::is_racy`: 100 ms on file systems with
//! sub-second timestamps, 3 s on the others); a content file changed more recently is also
//! stored with the hash of the text the build read, and compared by reading it again. An output
//! that recent is not trusted at all: no fingerprint is saved, and the next build is a full one
//! (which writes nothing when nothing changed, and saves one).
//!
//! Only a clean build (no error or warning) saves one, so a build it stands in for would have
//! printed nothing but its summary. A stale fingerprint is harmless: it matches only while the
//! output still holds exactly what that build committed.

use crate::config::SiteConfig;
use crate::content::FileContents;
use crate::history::LEGACY_HISTORY_PATH;
use crate::output::Output;
use crate::source::{FileStamp, StampedFile, read_content, stamp_tree};
use crate::write::state_file::{Links, read_state};
use crate::write::{
    MANIFEST_PATH, MAX_STATE_BYTES, OutputDigest, Publisher, Racy, WriteError, check_output_path,
    now_ns,
};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::NaiveDate;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_64, xxh3_128};

/// Where the fingerprint lives, relative to the output folder.
pub const FINGERPRINT_PATH: &str = ".content-api/fingerprint.json";

/// The record's format: a fingerprint of another format never matches.
const FORMAT: u32 = 1;

/// A fingerprint larger than this is not read (a real one is a few hundred bytes per racy file).
const MAX_BYTES: u64 = 16 << 20;

/// Every setting of a build that can change its output.
pub struct BuildSettings<'a> {
    /// The site's settings, each of which can change the output.
    pub config: &'a SiteConfig,
    /// The config file, when one is in use.
    pub config_file: Option<&'a Utf8Path>,
    /// The build's date (`--today`, or the clock's): a scheduled post goes live by it.
    pub today: NaiveDate,
    /// `--drafts`: drafts are published too.
    pub drafts: bool,
    /// `--future`.
    pub future: bool,
}

/// What the last build reported, for a build that reuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reused {
    /// Output files.
    pub files: usize,
    /// Content files.
    pub sources: usize,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
struct FingerprintFile {
    format: u32,
    tool: String,
    settings: String,
    history: String,
    content: String,
    /// Content files whose stamps were racy: path → hash of the text the build read.
    racy: BTreeMap<String, String>,
    manifest: String,
    /// Outputs the manifest does not list (left to the site's own file), also stamped.
    yielded: Vec<String>,
    outputs: String,
    files: usize,
    sources: usize,
}

/// The inputs as found before a build reads them: compared with the fingerprint on disk, and
/// saved as the new fingerprint after the build. Taken before the content is read, so a file
/// that changes while the build runs has another stamp next time.
pub struct Probe {
    taken_ns: i128,
    tool: String,
    settings: String,
    history: String,
    history_files: [Utf8PathBuf; 2],
    tree: Vec<StampedFile>,
    /// The content folder the tree was stamped in (its racy files are read again there).
    content_dir: std::path::PathBuf,
    content: String,
    /// The last build, when its fingerprint matched.
    reused: Option<Reused>,
}

impl Probe {
    /// Stamps the inputs, and compares them with the fingerprint of the last build in the
    /// output folder of `publisher` (see [`Probe::unchanged`]). `None` when they cannot be
    /// described by stamps (a symbolic link in the content, a problem a scan would report, an
    /// unreadable config or history file, a network file system).
    pub fn take(build: &BuildSettings<'_>, publisher: &Publisher) -> Option<Probe> {
        let taken_ns = now_ns();
        let tool = tool_identity()?;
        let settings = settings_digest(build)?;
        let history_files = history_files(build.config);
        let history = history_digest(&history_files)?;
        let saved = load(publisher).filter(|saved| {
            let same = saved.format == FORMAT
                && saved.tool == tool
                && saved.settings == settings
                && saved.history == history;
            if !same {
                tracing::debug!(
                    "not reusing the last build: the tool, settings or history changed"
                );
            }
            same
        });
        // The output folder is stamped while the content is walked (the walk's `readdir`s are
        // sequential).
        let (tree, outputs) = rayon::join(
            || stamp_tree(build.config.content_dir.as_std_path(), build.config),
            || {
                let saved = saved.as_ref()?;
                match publisher.output_stamps(&saved.yielded, Racy::Allowed)? {
                    OutputDigest::Stamped(digest) => Some(digest),
                    OutputDigest::Racy => None,
                }
            },
        );
        let tree = tree?;
        let content = tree_digest(&tree);
        let mut probe = Probe {
            taken_ns,
            tool,
            settings,
            history,
            history_files,
            tree,
            content_dir: build.config.content_dir.clone().into_std_path_buf(),
            content,
            reused: None,
        };
        if let (Some(saved), Some(outputs)) = (saved, outputs) {
            probe.reused = probe.compare(publisher, saved, &outputs);
        }
        Some(probe)
    }

    /// Every content file the probe found, sorted by path: a build reads these rather than
    /// walking the content folder again.
    pub fn content_files(&self) -> &[StampedFile] {
        &self.tree
    }

    /// What the last build reported, when its fingerprint matched these inputs and the output
    /// folder still held what it committed: nothing changed, and nothing needs to be built.
    pub fn unchanged(&self) -> Option<Reused> {
        self.reused
    }

    fn compare(
        &self,
        publisher: &Publisher,
        saved: FingerprintFile,
        outputs: &str,
    ) -> Option<Reused> {
        let mismatch = |what: &str| {
            tracing::debug!("not reusing the last build: {what} changed");
            None
        };
        if saved.content != self.content {
            return mismatch("the content");
        }
        if manifest_digest(publisher) != Some(saved.manifest) {
            return mismatch("the manifest");
        }
        if outputs != saved.outputs {
            return mismatch("the output folder");
        }
        if !self.racy_files_match(&saved.racy) {
            return mismatch("a recently changed content file");
        }
        Some(Reused {
            files: saved.files,
            sources: saved.sources,
        })
    }

    /// Every racy file of the fingerprint holds the text it was built from. The paths are only
    /// looked up among the files the walk found, never opened as given.
    fn racy_files_match(&self, racy: &BTreeMap<String, String>) -> bool {
        let found: BTreeMap<&str, &StampedFile> = self
            .tree
            .iter()
            .filter(|file| racy.contains_key(file.path.as_str()))
            .map(|file| (file.path.as_str(), file))
            .collect();
        found.len() == racy.len()
            && found.par_iter().all(|(path, file)| {
                match read_content(&self.content_dir, file.path.as_str()) {
                    FileContents::Text(text) => Some(hex64(xxh3_64(text.as_bytes()))),
                    _ => None,
                }
                .is_some_and(|hash| racy.get(*path) == Some(&hash))
            })
    }

    /// After a successful publish of `outputs`: saves these inputs as the fingerprint, or
    /// removes the old one when this build cannot be vouched for (`clean` is false: it printed
    /// warnings; a racy file whose text the build did not hold; an output written too recently
    /// to trust its stamp; the history changed by someone else meanwhile). `digest_of` gives
    /// the xxh3-64 hash of the text the build read for a content path; `recorded` says whether
    /// the build recorded into the history (its new bytes are then the build's own).
    pub fn save(
        self,
        publisher: &Publisher,
        outputs: &[(Arc<str>, Output)],
        digest_of: impl Fn(&str) -> Option<u64>,
        clean: bool,
        recorded: bool,
    ) -> Result<bool, WriteError> {
        if !publisher.is_open() {
            return Ok(false);
        }
        let record = if clean {
            self.record(publisher, outputs, digest_of, recorded)
        } else {
            None
        };
        match record {
            Some(on_disk) => {
                let mut bytes = serde_json::to_vec(&on_disk).expect("the fingerprint serializes");
                bytes.push(b'\n');
                if publisher.read_state(FINGERPRINT_PATH, MAX_BYTES).as_deref() != Some(&bytes[..])
                {
                    publisher.write_state(FINGERPRINT_PATH, &bytes)?;
                }
                Ok(true)
            }
            None => {
                publisher.remove_state(FINGERPRINT_PATH)?;
                Ok(false)
            }
        }
    }

    fn record(
        self,
        publisher: &Publisher,
        outputs: &[(Arc<str>, Output)],
        digest_of: impl Fn(&str) -> Option<u64>,
        recorded: bool,
    ) -> Option<FingerprintFile> {
        // The history as the next build reads it: what this build recorded (its own bytes),
        // or else what it read, unless someone changed it while the build ran.
        let history = history_digest(&self.history_files)?;
        if !recorded && history != self.history {
            return None;
        }
        let mut racy = BTreeMap::new();
        for file in &self.tree {
            if file.stamp.is_racy(self.taken_ns) {
                let digest = digest_of(file.path.as_str())?;
                racy.insert(file.path.to_string(), hex64(digest));
            }
        }
        let yielded: Vec<String> = outputs
            .iter()
            .map(|(path, _)| &**path)
            .filter(|path| !publisher.manifest_lists(path))
            .map(str::to_string)
            .collect();
        let outputs_digest = match publisher.output_stamps(&yielded, Racy::GiveUp(now_ns()))? {
            OutputDigest::Stamped(digest) => digest,
            OutputDigest::Racy => {
                tracing::debug!("no fingerprint: outputs were written too recently to trust");
                return None;
            }
        };
        Some(FingerprintFile {
            format: FORMAT,
            tool: self.tool,
            settings: self.settings,
            history,
            content: self.content,
            racy,
            manifest: manifest_digest(publisher)?,
            yielded,
            outputs: outputs_digest,
            files: outputs.len(),
            sources: self.tree.len(),
        })
    }
}

/// The fingerprint in the publisher's folder, validated as untrusted input: `None` when there
/// is none, it cannot be read, or names an output that is not a path inside the folder (or one
/// the manifest lists). Never after an interrupted build: only a full one knows that folder.
fn load(publisher: &Publisher) -> Option<FingerprintFile> {
    if !publisher.is_open() || publisher.was_interrupted() {
        return None;
    }
    let bytes = publisher.read_state(FINGERPRINT_PATH, MAX_BYTES)?;
    let Ok(saved) = serde_json::from_slice::<FingerprintFile>(&bytes) else {
        tracing::debug!("ignoring an unreadable {FINGERPRINT_PATH}");
        return None;
    };
    let foreign = saved
        .yielded
        .iter()
        .any(|path| check_output_path(path).is_err() || publisher.manifest_lists(path));
    if foreign {
        tracing::debug!("ignoring {FINGERPRINT_PATH}: it names outputs it cannot hold");
        return None;
    }
    Some(saved)
}

/// The hash of the manifest's bytes, as the fingerprint holds it.
fn manifest_digest(publisher: &Publisher) -> Option<String> {
    let bytes = publisher.read_state(MANIFEST_PATH, MAX_STATE_BYTES)?;
    Some(hex128(xxh3_128(&bytes)))
}

fn hex128(hash: u128) -> String {
    format!("{hash:032x}")
}

fn hex64(hash: u64) -> String {
    format!("{hash:016x}")
}

/// This binary: its version and the executable file's stamp.
fn tool_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let stamp = FileStamp::of_path(&exe)?;
    Some(format!(
        "content-api {} {}",
        env!("CARGO_PKG_VERSION"),
        hex128(xxh3_128(&stamp.to_bytes()))
    ))
}

fn settings_digest(build: &BuildSettings<'_>) -> Option<String> {
    let mut hasher = Xxh3::new();
    // Every field of the resolved configuration, by its `Debug` form (no maps: stable order).
    hasher.update(format!("{:?}\0", build.config).as_bytes());
    hasher.update(format!("{}\0{}\0{}\0", build.today, build.drafts, build.future).as_bytes());
    match build.config_file {
        Some(path) => {
            hasher.update(b"config\0");
            hasher.update(&read_state(path, 1 << 20, Links::Follow).ok()??);
        }
        None => hasher.update(b"no config\0"),
    }
    Some(hex128(hasher.digest128()))
}

/// The publishing history and the legacy one in the output folder.
fn history_files(config: &SiteConfig) -> [Utf8PathBuf; 2] {
    [
        config.history_file.clone(),
        config.out_dir.join(LEGACY_HISTORY_PATH),
    ]
}

/// The bytes of the history files.
fn history_digest(files: &[Utf8PathBuf; 2]) -> Option<String> {
    let mut hasher = Xxh3::new();
    for path in files {
        match read_state(path, 64 << 20, Links::Follow) {
            Ok(Some(bytes)) => {
                hasher.update(format!("{}\0", bytes.len()).as_bytes());
                hasher.update(&bytes);
            }
            Ok(None) => hasher.update(b"absent\0"),
            Err(_) => return None,
        }
    }
    Some(hex128(hasher.digest128()))
}

fn tree_digest(tree: &[StampedFile]) -> String {
    let mut hasher = Xxh3::new();
    for file in tree {
        hasher.update(file.path.as_str().as_bytes());
        hasher.update(b"\0");
        hasher.update(&file.stamp.to_bytes());
    }
    hex128(hasher.digest128())
}

#[cfg(test)]
mod tests;
