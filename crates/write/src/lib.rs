//! Publishing: making the output folder equal to a set of (path, bytes).
//!
//! The only module that writes to the output folder. Rules:
//! - one writer per folder: a publisher holds an exclusive `flock` on the folder while it is
//!   open (`lock`);
//! - every file is written to a temporary file in the folder's `.content-api/tmp`, then renamed
//!   over the target, so a reader sees the old or the new bytes, never a mix; the one exception
//!   is a path
//!   nothing is at in a build's first publish into a folder holding nothing of this tool (a
//!   *cold* publish, see [`Publisher::one_shot`]): it is created and written in place;
//! - a file whose bytes are already right is not touched (its mtime stays);
//! - a build is all or nothing as far as it can be known: every path of a publish is checked
//!   (parts, name lengths, the folders on the way) before the first write;
//! - a crash at any point converges on the next start: the paths a build may write are
//!   recorded (the intent record) before the first write, and leftover temporary files (only
//!   ever in `.content-api/tmp`) are removed by the first publish, or by a build that finds
//!   nothing changed;
//! - files this tool wrote earlier (listed in its manifest) that are no longer outputs are
//!   removed; nothing else in the folder is touched;
//! - a file of another owner is never replaced: host files are merged, the site's documents
//!   win, `take_over` replaces on purpose, any other collision stops the build (`ownership`);
//! - the manifest is written last: it is the commit point of a build;
//! - no path can leave the output folder: state files are validated as untrusted input, every
//!   path is checked part by part, and every operation goes through the open folder without
//!   following a symbolic link (`dir`).

// The layers below, under the names they have in every crate of the workspace.
use content_api_engine::{db, render};
use content_api_model::model;
use content_api_source::{config, source};

mod dir;
mod files;
mod fingerprint;
mod headers;
mod history;
mod intact;
mod last_build;
mod lock;
mod manifest;
mod ownership;
pub mod pages_functions;
mod plan;
mod purge;
mod remove;
mod report;
mod safe_path;
pub mod shutdown;
mod site_documents;
mod site_paths;
pub mod state_file;
#[cfg(test)]
mod tests;

pub use fingerprint::{BuildSettings, Probe};
pub use history::{HistoryError, HistoryFile};
pub use last_build::{LAST_BUILD_FILE, LastBuild, state_dir};
pub use manifest::MANIFEST_PATH;
pub use ownership::{
    BEGIN as OWNED_BLOCK_BEGIN, END as OWNED_BLOCK_END, OwnershipError, as_written,
};
pub use report::Report;
pub use safe_path::SafePathError;

pub use manifest::Manifest;
pub use purge::{purge_urls, write_purge_list};

use dir::PATH_MAX;
use manifest::INTENT_PATH;
use safe_path::check_output_path;

use crate::render::{Files, Output};
use camino::{Utf8Path, Utf8PathBuf};
pub use dir::write_atomically;
use dir::{Entry, OutDir, write_to};
use intact::FolderStamp;
use lock::{Lock, open_locked};
use plan::Plan;
use site_documents::DocumentHashes;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Asked by [`Publisher::publish_groups_until`] between writes: `true` stops the publish.
pub type Stop<'a> = dyn Fn() -> bool + Sync + 'a;

/// Why a publish failed, with the path it failed on.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file system refused an operation.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// An output path that could leave the folder or cannot be a file name.
    #[error("refusing to write {path}: {reason}")]
    Unsafe {
        /// The output path, relative to the output folder.
        path: String,
        /// What is wrong with it.
        reason: SafePathError,
    },
    /// An output path longer than `PATH_MAX` once joined to the output folder.
    #[error(
        "refusing to write {path}: the path is {len} bytes long with the output folder, over the \
         {PATH_MAX}-byte limit of file systems; use a shorter output folder or shorter names"
    )]
    PathTooLong {
        /// The output path, relative to the output folder.
        path: String,
        /// Its length in bytes with the output folder.
        len: usize,
    },
    /// A symbolic link on the way to an output inside the folder.
    #[error(
        "refusing to write through the symbolic link {path} inside the output folder; remove the link"
    )]
    Symlink {
        /// The link.
        path: Utf8PathBuf,
    },
    /// A file where an output needs a folder.
    #[error("{path} is in the way: a file exists where a folder is needed; remove it")]
    NotADirectory {
        /// The file in the way.
        path: Utf8PathBuf,
    },
    /// A file of another owner is in the way, or a merged host file is unreadable.
    #[error(transparent)]
    Ownership(#[from] OwnershipError),
    /// The publishing history could not be read or written.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The caller's stop check said to stop (a newer change is waiting): the files not written
    /// yet are as they were, and calling again with newer groups finishes the work. Only
    /// [`Publisher::publish_groups_until`] stops so.
    #[error("stopped for a newer change before every file was written")]
    Stopped,
    /// Another process holds the output folder's lock.
    #[error(
        "{out_dir} is being written by another process (pid {pid}: {command}); stop it first \
         (Ctrl-C in its terminal), or write into another folder: add --out DIR to this command, \
         for example --out {}-2 (a folder beside it)",
        out_dir.as_str().trim_end_matches('/')
    )]
    Locked {
        /// The output folder.
        out_dir: Utf8PathBuf,
        /// The holder's process id, from `/proc/locks` (or `unknown`).
        pid: String,
        /// The holder's command line, when it can be read.
        command: String,
    },
}

impl WriteError {
    /// True when the content itself cannot be published (a name it produces is too long for
    /// a file system): fixing the content fixes it. Everything else is about the output
    /// folder or the disk.
    pub fn is_content_problem(&self) -> bool {
        matches!(
            self,
            WriteError::Unsafe { .. } | WriteError::PathTooLong { .. }
        )
    }
}

/// Keeps an output folder equal to the latest outputs, remembering what it holds so that a
/// rebuild touches only the files that changed.
///
/// A file whose content is not known (the first publish, or after the folder was deleted) is
/// read and compared, so an unchanged file is never rewritten, even across restarts.
pub struct Publisher {
    out_dir: Utf8PathBuf,
    /// The open folder and its lock (held for the publisher's life: one writer per folder).
    /// `None` until the first publish when the folder did not exist: a run that publishes
    /// nothing does not create it.
    opened: Option<(OutDir, Lock)>,
    /// Every file this tool owns in the folder, with the hash of its bytes when known.
    files: HashMap<Arc<str>, Option<u128>>,
    /// The owned paths as the manifest on disk lists them.
    manifest: Manifest,
    /// An intent record is on disk: the next publish must commit a manifest and remove it.
    intent_on_disk: bool,
    /// Outputs left to the site's own file (`ownership::yields_to_site`): never written.
    yielded: HashSet<Arc<str>>,
    /// The hashes of the documents a site may replace, as the record on disk lists them.
    documents: DocumentHashes,
    /// The xxh3-128 of the bytes of each of those documents this publisher wrote or found.
    digests: HashMap<Arc<str>, u128>,
    /// Paths (or folders ending in `/`) whose site files this publisher may replace.
    take_over: Vec<String>,
    /// The groups of the last successful publish. Holding them keeps their allocations alive,
    /// so an address seen again is the same list, not a new one at a reused address.
    last_groups: Vec<Files>,
    /// The last publish failed: the folder may not hold it yet (see [`Publisher::is_intact`]).
    failed: bool,
    /// What the file system said about each file this daemon wrote or found right, right
    /// after: a file whose stamp changed since was edited by hand (see `intact`).
    stamps: HashMap<Arc<str>, intact::OutputStamp>,
    /// The owned paths in the order [`Publisher::is_intact`] looks at their stamps, a slice
    /// at a time, and where the next slice starts.
    sweep: (Vec<Arc<str>>, usize),
    /// Each folder that holds owned files, with its identity after the last publish: a folder
    /// whose identity changed had entries added or removed by someone else. `None` when the
    /// identity proves nothing (racy, or missing): the folder's files are looked at instead.
    folders: BTreeMap<String, Option<FolderStamp>>,
    /// A one-shot build (`build`/`--once`), not a daemon: its first publish into a folder
    /// holding nothing of this tool may create new files in place (see [`Publisher::one_shot`]).
    one_shot: bool,
    /// The temporary files interrupted writers left were removed (before the first publish).
    temp_files_removed: bool,
    /// Files a failed or stopped publish wrote, for the next successful one to report.
    unreported: Vec<Arc<str>>,
}

impl Publisher {
    /// A publisher for `out_dir` (created when missing), holding its lock, knowing which files
    /// earlier builds wrote (the manifest, plus the intent record of an interrupted build), and
    /// with the temporary files of interrupted writes removed.
    pub fn open(out_dir: &Utf8Path) -> Result<Publisher, WriteError> {
        let opened = match std::fs::symlink_metadata(out_dir) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            _ => Some(open_locked(out_dir)?),
        };
        let manifest = Manifest::load(out_dir);
        let intent = Manifest::load_from(out_dir, INTENT_PATH);
        let files: HashMap<Arc<str>, Option<u128>> = manifest
            .paths()
            .chain(intent.paths())
            .map(|path| (Arc::from(path), None))
            .collect();
        let publisher = Publisher {
            out_dir: out_dir.to_owned(),
            opened,
            files,
            manifest,
            intent_on_disk: !intent.is_empty(),
            yielded: HashSet::new(),
            documents: DocumentHashes::load(out_dir),
            digests: HashMap::new(),
            take_over: Vec::new(),
            last_groups: Vec::new(),
            failed: false,
            folders: BTreeMap::new(),
            stamps: HashMap::new(),
            sweep: (Vec::new(), 0),
            one_shot: false,
            temp_files_removed: false,
            unreported: Vec::new(),
        };
        Ok(publisher)
    }

    /// Marks the publisher as a one-shot build's. Its first publish, when the folder holds
    /// nothing of this tool (no manifest, no intent record: nothing is published there), is
    /// *cold*: each output whose path is missing is created and written in place, without a
    /// temporary file and a rename. No reader can be relying on a path nothing was published
    /// at, and a crash stays harmless: the intent record lists every path before the first
    /// write, so the next build owns a half-written file, finds its content unknown, reads and
    /// compares it and replaces it. A path where anything exists, and every publish of a
    /// daemon (whose server may read a new path while it is written), keep the temporary file
    /// and the rename.
    pub fn one_shot(mut self) -> Publisher {
        self.one_shot = true;
        self
    }

    /// Lets the publisher replace the site's files at these paths (folders end in `/`): the
    /// `take_over` setting.
    pub fn taking_over(mut self, take_over: &[String]) -> Publisher {
        self.take_over = take_over.to_vec();
        self
    }

    /// Whether this tool owns nothing in the folder (no manifest, no intent record): a build
    /// there writes every output.
    pub fn owns_nothing(&self) -> bool {
        self.files.is_empty() && !self.intent_on_disk
    }

    /// Every file this tool owns in the folder (after a publish: the outputs it wrote).
    pub fn owned_paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(|path| &**path)
    }

    /// Makes the folder hold exactly `outputs` (plus files this tool never wrote), as one group.
    pub fn publish(&mut self, outputs: &[(Arc<str>, Output)]) -> Result<Report, WriteError> {
        self.publish_groups(&[Files::from(outputs)])
    }

    /// Makes the folder hold exactly the files of `groups` (plus files this tool never wrote).
    /// A group that is the very list (same allocation) published last time is skipped without
    /// looking inside: its files are on disk as they were. Writes run in parallel; the manifest
    /// is written last, and only when the set of files changed. Paths must be unique across
    /// groups. On failure, the next call (with the same or newer groups) finishes the work.
    pub fn publish_groups(&mut self, groups: &[Files]) -> Result<Report, WriteError> {
        self.publish_groups_until(groups, &|| false)
    }

    /// [`Publisher::publish_groups`] that stops with [`WriteError::Stopped`] once `stop` says
    /// so, asked before each file and before each block of a file: a write of the 60 MB
    /// `llms-full.txt` gives way to an edit within a millisecond. A file being written when it
    /// stops is not put in place (its old bytes stay, and are still known); the files written
    /// before it are, as after a failed write, and nothing is removed or committed. A shutdown
    /// stops it the same way once its deadline passes (`shutdown`).
    pub fn publish_groups_until(
        &mut self,
        groups: &[Files],
        stop: &Stop<'_>,
    ) -> Result<Report, WriteError> {
        let stop = || stop() || shutdown::is_due();
        let result = self.try_publish(groups, &stop);
        // A stop leaves every file whole and known: the folder holds no damage to look for.
        self.failed = result
            .as_ref()
            .is_err_and(|err| !matches!(err, WriteError::Stopped));
        result
    }

    fn try_publish(&mut self, groups: &[Files], stop: &Stop<'_>) -> Result<Report, WriteError> {
        if self.opened.is_none() {
            self.opened = Some(open_locked(&self.out_dir)?);
        }
        if !self.temp_files_removed {
            // Here rather than at `open`: a build that finds nothing changed never publishes,
            // and its fingerprint covers the folders' entries (see `write::fingerprint`).
            self.remove_temp_files();
            self.temp_files_removed = true;
        }
        self.forget_if_replaced()?;
        let cold = self.is_cold()?;
        let plan = self.plan(groups)?;
        self.record_intent(&plan)?;
        self.record_documents_before(&plan.stale)?;
        let mut report = self.write_files(&plan, cold, stop)?;
        report.unchanged = plan.total - report.written.len();
        // A cold publish owned nothing before it, so nothing it owns can be stale.
        if !plan.same_paths && !cold {
            self.remove_stale(groups, &mut report)?;
        }
        self.commit(groups, plan.same_paths)?;
        self.record_documents_after()?;
        self.remember(groups, plan.same_paths);
        let owned = &self.files;
        self.unreported.retain(|path| owned.contains_key(path));
        report.written.append(&mut self.unreported);
        report.written.sort();
        report.written.dedup();
        Ok(report)
    }

    /// Step 1. When the folder was deleted (or its manifest), trust nothing known about it.
    fn forget_if_replaced(&mut self) -> Result<(), WriteError> {
        if self.dir_replaced() {
            tracing::info!("{} was removed; writing it again", self.out_dir);
            self.opened = Some(open_locked(&self.out_dir)?);
            self.forget_contents();
            // Its state files went with it: what it may hold is what we owned.
            self.intent_on_disk = true;
        } else if self.files.values().any(Option::is_some)
            && self.dir().entry(MANIFEST_PATH).ok() != Some(Entry::File)
        {
            tracing::info!(
                "{}/{MANIFEST_PATH} was removed; checking every file",
                self.out_dir
            );
            self.forget_contents();
        }
        Ok(())
    }

    fn forget_contents(&mut self) {
        self.files.values_mut().for_each(|hash| *hash = None);
        self.yielded.clear();
        self.stamps.clear();
        self.last_groups.clear();
        self.documents = DocumentHashes::load(&self.out_dir);
        self.digests.clear();
    }

    /// Whether this publish is cold (see [`Publisher::one_shot`]): a one-shot build's first,
    /// into a folder where this tool owns nothing, with no manifest and no intent record.
    fn is_cold(&self) -> Result<bool, WriteError> {
        Ok(self.one_shot
            && self.last_groups.is_empty()
            && self.files.is_empty()
            && !self.intent_on_disk
            && self.dir().entry(MANIFEST_PATH)? == Entry::Missing
            && self.dir().entry(INTENT_PATH)? == Entry::Missing)
    }

    /// Step 3. Before the first write of a path the manifest does not list, record every path
    /// this folder may hold once the writes start: after a crash, the next publisher owns them.
    fn record_intent(&mut self, plan: &Plan<'_>) -> Result<(), WriteError> {
        if plan.new_paths.is_empty() {
            return Ok(());
        }
        let intent = Manifest::from_paths(self.files.keys().chain(&plan.new_paths).cloned());
        write_to(self.dir(), INTENT_PATH, &intent.to_bytes())?;
        self.intent_on_disk = true;
        self.files.reserve(plan.new_paths.len());
        for path in &plan.new_paths {
            self.files.insert(path.clone(), None);
        }
        Ok(())
    }

    /// Step 6. The manifest (the commit point), then the intent record goes.
    fn commit(&mut self, groups: &[Files], same_paths: bool) -> Result<(), WriteError> {
        let manifest_missing = self.dir().entry(MANIFEST_PATH)? != Entry::File;
        if same_paths && !manifest_missing && !self.intent_on_disk {
            return Ok(());
        }
        let manifest = Manifest::from_paths(self.owned_outputs(groups).cloned());
        if manifest != self.manifest || manifest_missing || self.intent_on_disk {
            write_to(self.dir(), MANIFEST_PATH, &manifest.to_bytes())?;
            self.manifest = manifest;
        }
        if self.intent_on_disk {
            self.dir().remove(INTENT_PATH)?;
            self.intent_on_disk = false;
        }
        Ok(())
    }

    /// Step 7. Only now is every file of every group on disk: the next publish may skip them.
    /// A folder whose stamp changed since it was last looked into (this publish's own writes,
    /// or someone removing a file while it ran) keeps no stamp: the next
    /// [`Publisher::is_intact`] looks into it. Taking its stamp now would hide such a removal.
    fn remember(&mut self, groups: &[Files], same_paths: bool) {
        self.last_groups = groups.to_vec();
        if !same_paths || self.folders.is_empty() {
            // A hash set, then sorted: one tree insertion per file took 20 ms of a 50,000-post
            // build's publish, on the main thread.
            let folders: HashSet<&str> = self.files.keys().map(|path| parent_of(path)).collect();
            let folders: BTreeSet<&str> = folders.into_iter().collect();
            let before = std::mem::take(&mut self.folders);
            self.folders = folders
                .into_iter()
                .map(|folder| (folder.to_string(), before.get(folder).copied().flatten()))
                .collect();
        }
        let Some((dir, _)) = &self.opened else { return };
        for (folder, stamp) in self.folders.iter_mut() {
            if stamp.is_some() && dir.folder_stamp(folder) != *stamp {
                *stamp = None;
            }
        }
    }

    /// The paths of `groups` this tool owns: every output but those left to the site.
    fn owned_outputs<'a>(&'a self, groups: &'a [Files]) -> impl Iterator<Item = &'a Arc<str>> {
        all_paths(groups).filter(|path| !self.yielded.contains(*path))
    }

    /// The open folder (once a publish or `open` opened it).
    fn dir(&self) -> &OutDir {
        &self.opened.as_ref().expect("the folder is open").0
    }

    /// Removes the temporary files interrupted writers left (in the tool's own folder for them).
    /// A publish does it first; a build that finds nothing changed, which never publishes,
    /// calls it itself.
    pub fn remove_temp_files(&mut self) {
        if self.opened.is_none() {
            return;
        }
        let removed = self.dir().remove_temp_files();
        if removed > 0 {
            tracing::info!(
                "removed {removed} temporary file{} left by an interrupted build in {}",
                if removed == 1 { "" } else { "s" },
                self.out_dir
            );
        }
    }
}

fn all_paths(groups: &[Files]) -> impl Iterator<Item = &Arc<str>> {
    groups
        .iter()
        .flat_map(|group| group.iter().map(|(path, _)| path))
}

/// The folder of a relative path ("" for a file at the top).
fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// The file name of a relative path (its last part).
fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}
