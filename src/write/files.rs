//! Step 4 of a publish: writing the outputs that differ, in parallel, each folder opened once.

use super::dir::{OutDir, read_in};
use super::plan::{OnDisk, Plan};
use super::{Publisher, Report, WriteError, file_name, ownership, parent_of};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::os::fd::OwnedFd;

impl Publisher {
    /// Step 4. Writes the outputs that differ, in parallel. What was written is remembered even
    /// when another write fails, so a retry does not write it again. Each folder is opened
    /// (created when missing) once, and its files are written through that handle.
    pub(super) fn write_files(
        &mut self,
        plan: &Plan<'_>,
        cold: bool,
    ) -> Result<Report, WriteError> {
        let dir = self.dir();
        let (out_dir, manifest) = (&self.out_dir, &self.manifest);
        let folders = open_folders(dir, plan)?;
        // Largest first, and one file per task when there are few: an edit's two post indexes
        // (8.5 and 4 MB at 10k posts per language) are then written by both cores at once.
        let mut stale: Vec<_> = plan.stale.iter().collect();
        stale.sort_by_key(|((_, output), _)| std::cmp::Reverse(output.len()));
        let max_len = if stale.len() <= 64 { 1 } else { 8 };
        let results: Vec<Result<bool, WriteError>> = stale
            .par_iter()
            .with_max_len(max_len)
            .map(|((path, output), on_disk)| {
                if ownership::is_merged(path) {
                    // Shared with the site: its lines are kept around the tool's block.
                    return ownership::write_merged(out_dir, path, output, manifest.contains(path));
                }
                let folder = &folders[parent_of(path)];
                let name = file_name(path);
                let mut compare = *on_disk == OnDisk::Unknown;
                if cold && *on_disk == OnDisk::Missing {
                    if dir.create_in(folder, name, path, |file| output.write_to(file))? {
                        return Ok(true);
                    }
                    // Something appeared there since the plan looked: the safe way.
                    compare = true;
                }
                if compare && read_in(folder, name).is_some_and(|bytes| output.eq_bytes(&bytes)) {
                    return Ok(false);
                }
                dir.replace_in(folder, name, path, output.len(), |file| {
                    output.write_to(file)
                })?;
                Ok(true)
            })
            .collect();
        let mut report = Report::default();
        let mut first_error = None;
        for (((path, output), _), result) in stale.into_iter().zip(results) {
            match result {
                Ok(written) => {
                    self.files.insert(path.clone(), Some(output.hash));
                    if written {
                        report.written.push(path.clone());
                    }
                }
                Err(err) => {
                    self.files.insert(path.clone(), None);
                    first_error.get_or_insert(err);
                }
            }
        }
        match first_error {
            Some(err) => Err(err),
            None => Ok(report),
        }
    }
}

/// Opens (creating it when missing) every folder the plan writes a file to, parents first.
fn open_folders<'a>(
    dir: &OutDir,
    plan: &Plan<'a>,
) -> Result<HashMap<&'a str, OwnedFd>, WriteError> {
    let folders: BTreeSet<&'a str> = plan
        .stale
        .iter()
        .map(|((path, _), _)| &**path)
        .filter(|path| !ownership::is_merged(path))
        .map(parent_of)
        .collect();
    folders
        .into_iter()
        .map(|folder| {
            let fd = dir.folder(folder, true)?;
            Ok((folder, fd.expect("a folder is created when missing")))
        })
        .collect()
}
