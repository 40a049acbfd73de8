//! [`Publisher`]: the output folder made equal to a set of files, every step of a publish in
//! one place. Open (and lock) the folder, then each publish: `plan` (every path checked, other
//! owners' files claimed or refused), `record_intent`, `write_files` (changed files only, through
//! `.content-api/tmp`), `remove_stale`, `commit` (the manifest, last), `remember`. Between
//! publishes, a daemon asks `is_intact` whether someone changed the folder.

use crate::at::AtFlags;
use crate::at::OwnedFd;
use crate::dir::{Entry, OutDir, PATH_MAX, is_missing_in, read_in};
use crate::intact::{
    FolderStamp, OutputStamp, SWEEP_PER_CHECK, folder_stamp, now_ns, settled_stamp,
};
use crate::lock::{Lock, open_locked};
use crate::manifest::{INTENT_PATH, MANIFEST_PATH, Manifest};
use crate::output::{Files, Output};
use crate::output_stamps::{OutputDigest, Racy, output_digest};
use crate::plan::{DiskState, Plan, in_runs};
use crate::safe_path::check_output_path;
use crate::writing::{Hashing, UntilStopped, Written, open_folders, stopped_or_failed};
use crate::yielding_documents::{YIELDING_HASHES_PATH, YieldingHashes, is_recorded};
use crate::{Report, Stop, WriteError, all_paths, file_name, ownership, parent_of, shutdown};
use camino::{Utf8Path, Utf8PathBuf};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

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
    stamps: HashMap<Arc<str>, OutputStamp>,
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
            if stamp.is_some() && folder_stamp(dir, folder) != *stamp {
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

    // ---- The plan: what to write, every path checked first. ----

    /// Step 2. Which outputs may differ from the disk, after checking every path this tool does
    /// not own yet and every folder a write goes through: a publish that would fail on a path
    /// fails here, before the first write.
    pub(super) fn plan<'a>(&mut self, groups: &'a [Files]) -> Result<Plan<'a>, WriteError> {
        let published_before: HashSet<*const (Arc<str>, Output)> = self
            .last_groups
            .iter()
            .map(|group| group.as_ptr())
            .collect();
        let changed = groups
            .iter()
            .filter(|group| !published_before.contains(&group.as_ptr()))
            .flat_map(|group| group.iter())
            .filter(|(path, _)| !self.yielded.contains(path));
        let mut new_outputs = Vec::new();
        let mut new_paths = Vec::new();
        let mut stale = Vec::new();
        // A known hash that differs means the file differs; only a file whose content is not
        // known (first publish, folder deleted) is read and compared before writing.
        for entry in changed {
            match self.files.get(&entry.0) {
                None => new_outputs.push(entry),
                Some(Some(hash)) if *hash == entry.1.hash => {}
                Some(Some(_)) => stale.push((entry, DiskState::Differs)),
                Some(None) => stale.push((entry, DiskState::Unknown)),
            }
        }
        let owned_before = self.files.len();
        stale.retain(|(entry, on_disk)| self.still_to_write(entry, *on_disk));
        let released = self.files.len() != owned_before;
        // Paths seen before were checked then; only new ones need the check (all of a cold
        // build's 20,000: on every thread, and the first bad path in order is the one reported).
        if let Some(err) = new_outputs
            .par_iter()
            .with_min_len(256)
            .find_map_first(|(path, _)| self.check_new_path(path).err())
        {
            return Err(err);
        }
        // Before anything is written: a file of another owner in the way stops the build, and
        // an output the site provides itself (its `404.html`) is left to it. Only paths where
        // something exists can be in the way.
        let missing = self.missing_flags(&new_outputs);
        let present = new_outputs
            .iter()
            .zip(&missing)
            .filter(|(_, missing)| !**missing)
            .map(|(entry, _)| *entry);
        let claims = ownership::claim(&self.out_dir, &self.take_over, present)?;
        self.yielded.extend(claims.yielded);
        for (entry, missing) in new_outputs.into_iter().zip(missing) {
            if !self.yielded.contains(&entry.0) {
                new_paths.push(entry.0.clone());
                let on_disk = if missing {
                    DiskState::Missing
                } else {
                    DiskState::Unknown
                };
                stale.push((entry, on_disk));
            }
        }
        let folders: BTreeSet<&str> = in_runs(stale.iter().map(|(entry, _)| parent_of(&entry.0)))
            .map(|(folder, _)| folder)
            .collect();
        for folder in folders.into_iter().filter(|folder| !folder.is_empty()) {
            match self.dir().entry(folder)? {
                Entry::Folder | Entry::Missing => {}
                Entry::File => {
                    return Err(WriteError::NotADirectory {
                        path: crate::on_disk(&self.out_dir, folder),
                    });
                }
                Entry::Other => {
                    return Err(WriteError::Symlink {
                        path: crate::on_disk(&self.out_dir, folder),
                    });
                }
            }
        }
        // Every path of an unchanged group is owned already; with no new path among the others
        // and as many outputs as owned files, the set of files is the same. Yielded paths are
        // outputs, not owned files.
        let total = self.owned_outputs(groups).count();
        let same_paths = !released && new_paths.is_empty() && total == self.files.len();
        Ok(Plan {
            stale,
            new_paths,
            same_paths,
            total,
        })
    }

    /// For each of `outputs`, in order, whether nothing at all is on disk at its path. Each
    /// folder is opened once (a cold build adds thousands of files to a few folders, most of
    /// them missing); a folder that cannot be entered (a link, a file) counts as holding
    /// everything, for the checks after. Flags in order rather than a set of paths: a cold
    /// build would hash each of its 100,000 paths three times.
    fn missing_flags(&self, outputs: &[&(Arc<str>, Output)]) -> Vec<bool> {
        let mut folders: HashMap<&str, Option<Option<OwnedFd>>> = HashMap::new();
        let mut paths = outputs.iter().map(|(path, _)| &**path);
        let mut flags = Vec::with_capacity(outputs.len());
        for (folder, count) in in_runs(paths.clone().map(parent_of)) {
            let dir = folders
                .entry(folder)
                .or_insert_with(|| self.dir().folder(folder, false).ok());
            flags.extend(paths.by_ref().take(count).map(|path| match dir {
                Some(None) => true,
                Some(Some(dir)) => is_missing_in(dir, file_name(path)),
                None => false,
            }));
        }
        flags
    }

    fn check_new_path(&self, path: &str) -> Result<(), WriteError> {
        check_output_path(path).map_err(|reason| WriteError::Unsafe {
            path: path.to_string(),
            reason,
        })?;
        let len = self.out_dir.as_str().len() + 1 + path.len();
        if len > PATH_MAX {
            return Err(WriteError::PathTooLong {
                path: path.to_string(),
                len,
            });
        }
        Ok(())
    }

    // ---- Writing the files that differ. ----

    /// Step 4. Writes the outputs that differ, in parallel. What was written is remembered even
    /// when another write fails, so a retry does not write it again. Each folder is opened
    /// (created when missing) once, and its files are written through that handle. Once `stop`
    /// says so, no file is started and the one being written is abandoned.
    pub(super) fn write_files(
        &mut self,
        plan: &Plan<'_>,
        cold: bool,
        stop: &Stop<'_>,
    ) -> Result<Report, WriteError> {
        let dir = self.dir();
        let (out_dir, manifest, yielded) = (&self.out_dir, &self.manifest, &self.yielded);
        // A daemon's files are looked at again for hand edits (`intact`); a build's never.
        let stamped = !self.one_shot;
        let folders = open_folders(dir, plan)?;
        // Largest first, and one file per task when there are few: an edit's two post indexes,
        // the largest files it changes, are then written by two cores at once.
        let mut stale: Vec<_> = plan.stale.iter().collect();
        stale.sort_by_key(|((_, output), _)| std::cmp::Reverse(output.len()));
        let max_len = if stale.len() <= 64 { 1 } else { 8 };
        let results: Vec<Result<Written, WriteError>> = stale
            .par_iter()
            .with_max_len(max_len)
            .map(|((path, output), on_disk)| {
                if stop() {
                    return Err(WriteError::Stopped);
                }
                if ownership::is_merged(path) {
                    // Shared with the site: its lines are kept around the tool's block.
                    let written = ownership::write_merged(
                        out_dir,
                        path,
                        output,
                        manifest.contains(path),
                        yielded,
                    )?;
                    return Ok(Written::unstamped(written, None));
                }
                let folder = &folders[parent_of(path)];
                let name = file_name(path);
                let mut hasher = is_recorded(path).then(Xxh3::new);
                let mut compare = *on_disk == DiskState::Unknown;
                if cold && *on_disk == DiskState::Missing {
                    let created = dir.create_in(folder, name, path, |file| {
                        output.write_to(&mut Hashing::new(file, hasher.as_mut()))
                    })?;
                    if created {
                        return Ok(Written::unstamped(true, hasher));
                    }
                    // Something appeared there since the plan looked: the safe way.
                    compare = true;
                    hasher = is_recorded(path).then(Xxh3::new);
                }
                if compare
                    && let Some(bytes) = read_in(folder, name)
                    && output.eq_bytes(&bytes)
                {
                    let stat = crate::at::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW);
                    return Ok(Written {
                        written: false,
                        digest: hasher.map(|_| xxh3_128(&bytes)),
                        stamp: stat.ok().filter(|_| stamped).map(|s| OutputStamp::of(&s)),
                    });
                }
                let mut stamp = None;
                dir.replace_in(folder, name, path, output.len(), |file| {
                    let until_stopped = UntilStopped {
                        file: &mut *file,
                        stop,
                    };
                    output.write_to(&mut Hashing::new(until_stopped, hasher.as_mut()))?;
                    // The temporary file is renamed into place: same inode, size and mtime.
                    if stamped {
                        stamp = crate::at::fstat_file(file)
                            .ok()
                            .map(|s| OutputStamp::of(&s));
                    }
                    Ok(())
                })
                .map_err(stopped_or_failed)?;
                Ok(Written {
                    written: true,
                    digest: hasher.map(|hasher| hasher.digest128()),
                    stamp,
                })
            })
            .collect();
        let mut report = Report::default();
        let mut first_error = None;
        let mut stopped = false;
        for (((path, output), _), result) in stale.into_iter().zip(results) {
            match result {
                Ok(Written {
                    written,
                    digest,
                    stamp,
                }) => {
                    self.files.insert(path.clone(), Some(output.hash));
                    match stamp {
                        Some(stamp) => self.stamps.insert(path.clone(), stamp),
                        None => self.stamps.remove(path),
                    };
                    if let Some(digest) = digest {
                        self.digests.insert(path.clone(), digest);
                    }
                    if written {
                        report.written.push(path.clone());
                    }
                }
                // Not written, and the old file is whole: what is known of it stays true.
                Err(WriteError::Stopped) => stopped = true,
                Err(err) => {
                    self.files.insert(path.clone(), None);
                    self.stamps.remove(path);
                    self.digests.remove(path);
                    first_error.get_or_insert(err);
                }
            }
        }
        if first_error.is_some() || stopped {
            // Reported by the next publish that succeeds: a CDN's purge list must name every
            // URL whose bytes changed.
            self.unreported.append(&mut report.written);
        }
        match first_error {
            Some(err) => Err(err),
            None if stopped => Err(WriteError::Stopped),
            None => Ok(report),
        }
    }

    // ---- Removing the files no longer published. ----

    /// Step 5. Removes the owned files that are no longer outputs, with the folders they leave
    /// empty. A path that goes through a link or a file is not ours to follow: it is dropped
    /// with a warning.
    pub(super) fn remove_stale(
        &mut self,
        groups: &[Files],
        report: &mut Report,
    ) -> Result<(), WriteError> {
        let current: HashSet<&str> = self.owned_outputs(groups).map(|path| &**path).collect();
        let mut gone: Vec<Arc<str>> = self
            .files
            .keys()
            .filter(|path| !current.contains(&***path))
            .cloned()
            .collect();
        gone.sort();
        for path in gone {
            if ownership::is_merged(&path) {
                // Shared with the site: only the tool's block goes.
                if ownership::release_merged(&self.out_dir, &path)? {
                    report.removed.push(path.to_string());
                }
                self.files.remove(&path);
                continue;
            }
            match self.dir().remove(&path) {
                Ok(true) => report.removed.push(path.to_string()),
                Ok(false) => {}
                Err(err @ (WriteError::Symlink { .. } | WriteError::NotADirectory { .. })) => {
                    tracing::warn!("not removing {path}: {err}");
                }
                Err(err) => return Err(err),
            }
            self.files.remove(&path);
        }
        Ok(())
    }

    // ---- The documents a site may replace. ----

    /// Part of step 2: settles an output that is a document the site may replace, whose bytes
    /// on disk are not known, by reading them: already right (nothing to write), the bytes this
    /// tool wrote before or no record of them (to write), or a file the site put in place of
    /// the tool's (the site's from now on: yielded, no longer owned). Whether it is still to be
    /// written.
    pub(super) fn still_to_write(
        &mut self,
        (path, output): &(Arc<str>, Output),
        on_disk: DiskState,
    ) -> bool {
        if on_disk != DiskState::Unknown
            || !is_recorded(path)
            || !ownership::yields_to_site(path, output)
        {
            return true;
        }
        let Some(bytes) = self.dir().read(path) else {
            return true;
        };
        if output.eq_bytes(&bytes) {
            self.files.insert(path.clone(), Some(output.hash));
            self.digests.insert(path.clone(), xxh3_128(&bytes));
            return false;
        }
        if self.yielding_hashes.wrote(path, &bytes) != Some(false) {
            return true;
        }
        tracing::info!(
            "{}/{path} was replaced by the site's own: keeping it",
            self.out_dir
        );
        self.yielded.insert(path.clone());
        self.files.remove(path);
        false
    }

    /// Part of step 3: the documents this publish may replace leave the record first.
    pub(super) fn record_documents_before(
        &mut self,
        stale: &[(&(Arc<str>, Output), DiskState)],
    ) -> Result<(), WriteError> {
        let mut documents = self.yielding_hashes.clone();
        for ((path, _), _) in stale {
            if is_recorded(path) {
                documents.0.remove(&**path);
            }
        }
        self.save_yielding_hashes(documents)
    }

    /// Part of step 6: once the build is committed, the record lists the hash of each recorded
    /// document this tool owns now (as this publisher wrote or found it, or as the record
    /// said), and nothing else.
    pub(super) fn record_documents_after(&mut self) -> Result<(), WriteError> {
        let documents = self
            .files
            .keys()
            .filter(|path| is_recorded(path))
            .filter_map(|path| {
                let hash = self
                    .digests
                    .get(path)
                    .or_else(|| self.yielding_hashes.0.get(&**path))?;
                Some((path.to_string(), *hash))
            })
            .collect();
        self.save_yielding_hashes(YieldingHashes(documents))
    }

    fn save_yielding_hashes(&mut self, documents: YieldingHashes) -> Result<(), WriteError> {
        if documents == self.yielding_hashes {
            return Ok(());
        }
        if documents.0.is_empty() {
            self.dir().remove(YIELDING_HASHES_PATH)?;
        } else {
            self.dir()
                .write_state(YIELDING_HASHES_PATH, &documents.to_bytes())?;
        }
        self.yielding_hashes = documents;
        Ok(())
    }

    // ---- Is the folder still what the last publish left? ----

    /// False when the folder does not hold the last publish: that publish failed (a full
    /// disk, a permission), the folder or its manifest was deleted, or a folder holding our
    /// files lost one of them behind our back, or a file of ours was edited by hand (looked
    /// for a slice at a time). The next publish then checks what it would otherwise skip, so
    /// calling it again (the daemon does, every second) retries until the folder is whole.
    /// Costs one `stat` per output folder, one read of each folder whose stamp proves nothing
    /// (changed since it was last looked into, by anyone), and up to `SWEEP_PER_CHECK` `stat`s
    /// of files.
    pub fn is_intact(&mut self) -> bool {
        let whole = self.check(true);
        // All run: a folder's removals and a file's edits are repaired by the same publish.
        let unedited = !self.find_edits();
        let kept = self.yielding_documents_kept();
        whole && unedited && kept
    }

    /// Whether every document the site put in place of the tool's is still there. One the
    /// site (or the author) deleted is the tool's again: the next publish writes it. A few
    /// `stat`s: only the documents a site may replace are ever yielded this way.
    fn yielding_documents_kept(&mut self) -> bool {
        let gone: Vec<Arc<str>> = self
            .yielded
            .iter()
            .filter(|path| is_recorded(path))
            .filter(|path| {
                self.dir()
                    .entry(path)
                    .is_ok_and(|entry| entry == Entry::Missing)
            })
            .cloned()
            .collect();
        for path in &gone {
            self.yielded.remove(path);
        }
        if !gone.is_empty() {
            self.last_groups.clear();
        }
        gone.is_empty()
    }

    /// Looks at the stamps of the next [`SWEEP_PER_CHECK`] files this daemon wrote: a file
    /// whose inode, size or modification time changed since was edited (or replaced) by
    /// someone else, and its content is no longer known, so the next publish compares it and
    /// writes it again. True when one was found.
    fn find_edits(&mut self) -> bool {
        if self.stamps.is_empty() || self.opened.is_none() {
            return false;
        }
        let (order, next) = &mut self.sweep;
        if order.len() != self.stamps.len() {
            // The set of files changed: a new order (sorted, so each folder is opened once).
            *order = self.stamps.keys().cloned().collect();
            order.sort_unstable();
            *next = 0;
        }
        let count = SWEEP_PER_CHECK.min(order.len());
        let slice: Vec<Arc<str>> = (0..count)
            .map(|i| order[(*next + i) % order.len()].clone())
            .collect();
        *next = (*next + count) % order.len();
        let dir = self.dir();
        let mut folder: Option<(&str, Option<OwnedFd>)> = None;
        let mut edited = Vec::new();
        for path in &slice {
            let parent = parent_of(path);
            if folder.as_ref().is_none_or(|(open, _)| *open != parent) {
                folder = Some((parent, dir.folder(parent, false).ok().flatten()));
            }
            let Some((_, Some(fd))) = &folder else {
                continue;
            };
            // Gone: what the folder check is for.
            let Ok(stat) = crate::at::statat(fd, file_name(path), AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            if self.stamps.get(path) != Some(&OutputStamp::of(&stat)) {
                edited.push(path.clone());
            }
        }
        for path in &edited {
            tracing::info!(
                "{}/{path} was changed by someone else: writing it again",
                self.out_dir
            );
            self.files.insert(path.clone(), None);
            self.stamps.remove(path);
        }
        if !edited.is_empty() {
            // The groups holding those files must be looked at again.
            self.last_groups.clear();
        }
        !edited.is_empty()
    }

    /// Before a publish: what [`Publisher::is_intact`] does, but only for the folders someone
    /// else changed since they were last looked into (one `stat` per output folder), so that
    /// this publish rewrites what they lost. The folders the last publish wrote to are left
    /// to the next `is_intact`: reading them would put a directory read of each on every edit.
    pub fn notice_damage(&mut self) {
        let _ = self.check(false);
    }

    fn check(&mut self, thorough: bool) -> bool {
        if self.failed {
            return false;
        }
        if self.opened.is_none() {
            return true; // Nothing was published.
        }
        if self.dir_replaced() {
            return false;
        }
        let published = self.files.values().any(Option::is_some);
        if published && self.dir().entry(MANIFEST_PATH).ok() != Some(Entry::File) {
            return false;
        }
        let Some((dir, _)) = &self.opened else {
            return true;
        };
        // Each folder to look into, with the regular files it holds now.
        let mut looked: HashMap<String, Option<HashSet<String>>> = HashMap::new();
        for (folder, stamp) in &self.folders {
            let look = match stamp {
                None => thorough,
                Some(stamp) => folder_stamp(dir, folder) != Some(*stamp),
            };
            if look {
                // Stamped before the read: a removal during the read changes it again.
                looked.insert(folder.clone(), None);
            }
        }
        if looked.is_empty() {
            return true;
        }
        let checked_at = now_ns();
        let stamps: Vec<(String, Option<FolderStamp>)> = looked
            .keys()
            .map(|folder| (folder.clone(), settled_stamp(dir, folder, checked_at)))
            .collect();
        for (folder, names) in looked.iter_mut() {
            *names = dir.regular_files(folder);
        }
        let mut damaged = false;
        for (path, hash) in self.files.iter_mut() {
            let folder = parent_of(path);
            let Some(names) = looked.get(folder) else {
                continue;
            };
            let present = names
                .as_ref()
                .is_some_and(|names| names.contains(file_name(path)));
            if hash.is_some() && !present {
                *hash = None;
                damaged = true;
            }
        }
        self.folders.extend(stamps);
        if damaged {
            // The groups holding those files must be looked at again.
            self.last_groups.clear();
        }
        !damaged
    }

    /// Whether the output folder's path no longer leads to the folder this publisher opened.
    pub(super) fn dir_replaced(&self) -> bool {
        // The open handle's own metadata: no new descriptor, so a process out of descriptors
        // is not taken for a folder that went away.
        let opened = match self.dir().stat() {
            Ok(stat) => stat,
            Err(errno) => {
                tracing::warn!(
                    "cannot look at {}: {}",
                    self.out_dir,
                    std::io::Error::from(errno)
                );
                return false;
            }
        };
        match identity_at(&self.out_dir) {
            Ok((dev, ino)) => dev != crate::source::stat_dev(&opened) || ino != opened.st_ino,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => true,
            Err(err) => {
                tracing::warn!("cannot look at {}: {err}", self.out_dir);
                false
            }
        }
    }
}

/// The device and inode of what `path` leads to.
#[cfg(unix)]
fn identity_at(path: &Utf8Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

/// The volume serial number and file index of what `path` leads to.
#[cfg(windows)]
fn identity_at(path: &Utf8Path) -> std::io::Result<(u64, u64)> {
    let stat = crate::at::stat(path.as_std_path())?;
    Ok((stat.st_dev, stat.st_ino))
}

#[cfg(test)]
mod tests;
