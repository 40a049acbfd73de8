//! [`Publisher`]: the output folder made equal to a set of files. This module opens (and locks)
//! the folder and runs each publish's steps in order; the steps live in the modules named after
//! them: `plan` (step 2: every path checked, other owners' files claimed or refused),
//! `record_intent` (3, here), `writing` (4 and 5: changed files only, through
//! `.content-api/tmp`, then the stale ones removed), `commit` (6, the manifest, last) and
//! `remember` (7, here); `yielding_documents` settles and records the documents a site may
//! replace. Between publishes, a daemon asks `intact` whether someone changed the folder.

use crate::dir::{Entry, OutDir};
use crate::lock::{Lock, open_locked};
use crate::manifest::{INTENT_PATH, MANIFEST_PATH, Manifest};
use crate::output::{Files, Output};
use crate::output_stamps::{OutputDigest, Racy, output_digest};
use crate::source::FileStamp;
use crate::yielding_documents::{YieldingHashes, is_recorded};
use crate::{Report, Stop, WriteError, all_paths, ownership, parent_of, shutdown};
use camino::{Utf8Path, Utf8PathBuf};
use intact::same_entries;
use plan::Plan;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

mod intact;
mod plan;
mod writing;
mod yielding_documents;

pub use intact::now_ns;

/// Keeps an output folder equal to the latest outputs, remembering what it holds so that a
/// rebuild touches only the files that changed.
///
/// A file whose content is not known (the first publish, or after the folder was deleted) is
/// read and compared, so an unchanged file is never rewritten, even across restarts.
///
/// Each step's child module (`plan`, `writing`, `intact`, `yielding_documents`) works on its fields
/// in its own `impl Publisher`.
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
    yielding_hashes: YieldingHashes,
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
    stamps: HashMap<Arc<str>, FileStamp>,
    /// The owned paths in the order [`Publisher::is_intact`] looks at their stamps, a slice
    /// at a time, and where the next slice starts.
    sweep: (Vec<Arc<str>>, usize),
    /// Each folder that holds owned files, with its identity after the last publish: a folder
    /// whose identity changed had entries added or removed by someone else. `None` when the
    /// identity proves nothing (racy, or missing): the folder's files are looked at instead.
    folders: BTreeMap<String, Option<FileStamp>>,
    /// A one-shot build (`build`/`--once`), not a daemon: its first publish into a folder
    /// holding nothing of this tool may create new files in place (see [`Publisher::one_shot`]).
    one_shot: bool,
    /// The temporary files interrupted writers left were removed (before the first publish).
    temp_files_removed: bool,
    /// Files a failed or stopped publish wrote, for the next successful one to report.
    unreported: Vec<Arc<str>>,
}

impl Publisher {
    // ---- Opening, publishing, intent, commit. ----

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
            yielding_hashes: YieldingHashes::load(out_dir),
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

    /// The outputs a publish of `outputs` would leave to the site's own file (a document the
    /// site writes itself, where the tool would write its own: `ownership::yields_to_site`),
    /// looked at before anything is written, as the publish's plan will see them: one yielded
    /// already, a new path where the site's file differs from the tool's bytes, or a recorded
    /// document the site put in place of the tool's. Reads only those documents' files. What
    /// the deploy record lists is what the tool deploys, so it leaves these out.
    pub fn site_keeps<'a>(&self, outputs: &'a [(Arc<str>, Output)]) -> HashSet<&'a str> {
        let take_over = &self.take_over;
        outputs
            .iter()
            .filter(|(path, output)| {
                !ownership::is_merged(path)
                    && !ownership::takes_over(take_over, path)
                    && ownership::yields_to_site(path, output)
            })
            .filter(|(path, output)| {
                if self.yielded.contains(path) {
                    return true;
                }
                match self.files.get(path) {
                    // The tool's bytes, as it wrote them.
                    Some(Some(_)) => false,
                    // Owned, bytes not known: the site's when they are not what the tool wrote.
                    Some(None) => {
                        self.opened.is_some()
                            && is_recorded(path)
                            && self.dir().read(path).is_some_and(|bytes| {
                                !output.eq_bytes(&bytes)
                                    && self.yielding_hashes.wrote(path, &bytes) == Some(false)
                            })
                    }
                    // Not the tool's: a regular file of other bytes is the site's.
                    None => {
                        let target = crate::on_disk(&self.out_dir, path);
                        std::fs::symlink_metadata(&target).is_ok_and(|meta| meta.is_file())
                            && std::fs::read(&target).is_ok_and(|bytes| !output.eq_bytes(&bytes))
                    }
                }
            })
            .map(|(path, _)| &**path)
            .collect()
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
    /// so, asked before each file and before each block of a file, so that a write of a large
    /// `llms-full.txt` gives way to an edit at once. A file being written when it
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
            // and its fingerprint covers the folders' entries (see `deploy::fingerprint`).
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
        self.yielding_hashes = YieldingHashes::load(&self.out_dir);
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
        self.dir().write_state(INTENT_PATH, &intent.to_bytes())?;
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
            self.dir()
                .write_state(MANIFEST_PATH, &manifest.to_bytes())?;
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
            // A hash set, then sorted: cheaper than one tree insertion per file, on the main
            // thread of every publish.
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
            if stamp.is_some_and(|stamp| !same_entries(dir, folder, &stamp)) {
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

    // ---- The folder's own state, for a build's fingerprint. ----

    /// Whether the folder is open (it existed, or a publish created it).
    pub fn is_open(&self) -> bool {
        self.opened.is_some()
    }

    /// An interrupted build's intent record is on disk: only a full publish knows the folder.
    pub fn was_interrupted(&self) -> bool {
        self.intent_on_disk
    }

    /// Whether the manifest on disk lists `path` (the tool owns it there).
    pub fn manifest_lists(&self, path: &str) -> bool {
        self.manifest.contains(path)
    }

    /// The bytes of the tool's state file `relative` (`.content-api/…`), read through the open
    /// folder without following a link and up to `max_bytes`; `None` when there is none, or it
    /// cannot be read.
    pub fn read_state(&self, relative: &str, max_bytes: u64) -> Option<Vec<u8>> {
        let (dir, _) = self.opened.as_ref()?;
        dir.read_state(relative, max_bytes).ok().flatten()
    }

    /// Puts `bytes` at the tool's state file `relative` (`.content-api/…`), atomically
    /// ([`crate::state_file`]'s rule), through the open folder.
    pub fn write_state(&self, relative: &str, bytes: &[u8]) -> Result<(), WriteError> {
        self.dir().write_state(relative, bytes)
    }

    /// Removes the tool's state file `relative`, if it is there.
    pub fn remove_state(&self, relative: &str) -> Result<(), WriteError> {
        self.dir().remove(relative).map(drop)
    }

    /// The digest of every owned file's and its folder's stamp (and of `yielded`, outputs left
    /// to the site's own file); `None` when the folder is not open, a folder cannot be opened,
    /// or it is on a network file system.
    pub fn output_stamps(&self, yielded: &[String], racy: Racy) -> Option<OutputDigest> {
        let (dir, _) = self.opened.as_ref()?;
        output_digest(dir, &self.manifest, yielded, racy)
    }
}

#[cfg(test)]
mod tests;
