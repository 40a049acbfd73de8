//! The plan of a publish ([`Publisher::plan`], step 2): which outputs may differ from the disk,
//! each decided and checked (every new path, every folder a write goes through, the site's
//! files in the way) before anything is written, so a publish that would fail on a path fails
//! before its first write.

use super::Publisher;
use crate::at::OwnedFd;
use crate::dir::{Entry, PATH_MAX, is_missing_in};
use crate::output::{Files, Output};
use crate::safe_path::check_output_path;
use crate::{WriteError, file_name, ownership, parent_of};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// What is on disk at the path of an output that may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DiskState {
    /// A file whose bytes are known to differ (by hash).
    Differs,
    /// Unknown (first publish, folder deleted): read and compared before writing.
    Unknown,
    /// Nothing, when the plan looked (a path new to the folder).
    Missing,
}

/// What one publish will write, decided (and checked) before anything is written.
pub(crate) struct Plan<'a> {
    /// Outputs that may differ from the disk, and what the disk holds at their path.
    pub(crate) stale: Vec<(&'a (Arc<str>, Output), DiskState)>,
    /// Paths this tool does not own yet.
    pub(crate) new_paths: Vec<Arc<str>>,
    /// The set of paths is the one owned now: nothing to remove, no manifest to write.
    pub(crate) same_paths: bool,
    pub(crate) total: usize,
}

impl Publisher {
    /// Step 2. Which outputs may differ from the disk, after checking every path this tool does
    /// not own yet and every folder a write goes through: a publish that would fail on a path
    /// fails here, before the first write.
    pub(crate) fn plan<'a>(&mut self, groups: &'a [Files]) -> Result<Plan<'a>, WriteError> {
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
}

/// The runs of equal consecutive items of `items`, each with its length. Outputs come sorted by
/// path, so the files of a folder are one run: a set of folders built from the runs takes a few
/// hundred insertions where one per file takes 20,000.
pub(crate) fn in_runs<'a>(
    items: impl Iterator<Item = &'a str>,
) -> impl Iterator<Item = (&'a str, usize)> {
    let mut items = items.peekable();
    std::iter::from_fn(move || {
        let first = items.next()?;
        let mut count = 1;
        while items.next_if_eq(&first).is_some() {
            count += 1;
        }
        Some((first, count))
    })
}

#[cfg(test)]
mod tests {
    use super::in_runs;

    #[test]
    fn runs_count_equal_neighbours_only() {
        let folders = ["api", "api", "api/b", "api", "llms", "llms"];
        let runs: Vec<(&str, usize)> = in_runs(folders.into_iter()).collect();
        assert_eq!(runs, [("api", 2), ("api/b", 1), ("api", 1), ("llms", 2)]);
        assert_eq!(in_runs(std::iter::empty()).count(), 0);
    }
}
