//! Staging: what a batch's paths and folders hold on disk now, recorded as pending changes.
//! Nothing here touches the database; a rebuild applies them.

use crate::Session;
use crate::content::{ContentPath, FileContents, Scan};
use crate::diag::Diagnostic;
use crate::source;
use std::collections::HashSet;
use std::sync::Arc;

impl Session {
    /// Records the disk version of `path` (a file or a folder, existing or not).
    pub(crate) fn stage_path(&mut self, relative: &str) {
        let disk_path = self.content_dir.join(relative);
        if disk_path.is_dir() {
            let scan = source::scan_under(&self.content_dir, self.config(), relative);
            let found: HashSet<ContentPath> = scan.files.iter().map(|f| f.path.clone()).collect();
            let problems = scan.problems.iter().map(crate::workspace::scan_problem);
            self.replace_scan_problems(|path| is_at_or_below(path, relative), problems);
            for file in scan.files {
                self.stage(file.path, file.contents);
            }
            self.stage_missing_under(relative, &found);
            return;
        }
        if let Some(path) = ContentPath::new(relative)
            && self.config().classify(&path).is_content()
        {
            let contents = source::read_content(&self.content_dir, relative);
            self.stage(path, contents);
        }
        // Gone from disk: it may have been a folder (deleted or moved away), and every file
        // known below it is gone too. (A path that is a file has nothing below it.)
        if std::fs::symlink_metadata(&disk_path).is_err() {
            self.stage_missing_under(relative, &HashSet::new());
        }
        if !disk_path.is_dir() {
            // What a fresh walk reports at this path now (a link whose target is missing, a
            // FIFO) replaces what an earlier one did: a problem mended since goes.
            let problems = source::problems_at(&self.content_dir, self.config(), relative);
            let problems = problems.iter().map(crate::workspace::scan_problem);
            self.replace_scan_problems(|path| path == relative, problems);
        }
    }

    /// Replaces the walk's problems at the paths `replaced` names with `found`.
    fn replace_scan_problems(
        &mut self,
        replaced: impl Fn(&str) -> bool,
        found: impl IntoIterator<Item = Diagnostic>,
    ) {
        let before = self.workspace.scan_problems();
        let mut problems: Vec<Diagnostic> = before
            .iter()
            .filter(|problem| !replaced(&problem.path))
            .cloned()
            .chain(found)
            .collect();
        // In path order, as a full scan lists them.
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        if *problems != *before {
            self.workspace.set_scan_problems(problems.into());
        }
    }

    /// Makes the files held directly in `folder` equal its listing on disk: files the session
    /// does not hold are read, held files that are not listed are deleted, and a folder that
    /// is gone takes everything known below it along.
    pub(crate) fn stage_listing(&mut self, folder: &str) {
        let Some(listed) = source::list_folder(&self.content_dir, self.config(), folder) else {
            if std::fs::symlink_metadata(self.content_dir.join(folder)).is_err() {
                self.stage_missing_under(folder, &HashSet::new());
            }
            return;
        };
        let prefix = format!("{folder}/");
        let held: HashSet<ContentPath> = self
            .known_paths()
            .filter(|path| {
                path.as_str()
                    .strip_prefix(&prefix)
                    .is_some_and(|name| !name.contains('/'))
            })
            .collect();
        for path in listed.iter().filter(|path| !held.contains(*path)) {
            let contents = source::read_content(&self.content_dir, path.as_str());
            self.stage(path.clone(), contents);
        }
        let listed: HashSet<&ContentPath> = listed.iter().collect();
        for path in held.into_iter().filter(|path| !listed.contains(path)) {
            self.stage(path, FileContents::Missing);
        }
    }

    /// Stages every known file below `folder` that is not in `found` as deleted.
    fn stage_missing_under(&mut self, folder: &str, found: &HashSet<ContentPath>) {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let gone: Vec<ContentPath> = self
            .known_paths()
            .filter(|path| path.as_str().starts_with(&prefix) && !found.contains(path))
            .collect();
        for path in gone {
            self.stage(path, FileContents::Missing);
        }
    }

    /// Stages every difference between a full scan and what the session knows.
    pub(crate) fn stage_scan(&mut self, scan: Scan) {
        let found: HashSet<ContentPath> = scan.files.iter().map(|f| f.path.clone()).collect();
        let problems: Arc<[Diagnostic]> = scan
            .problems
            .iter()
            .map(crate::workspace::scan_problem)
            .collect();
        self.workspace.set_scan_problems(problems);
        for file in scan.files {
            self.stage(file.path, file.contents);
        }
        let gone: Vec<ContentPath> = self
            .known_paths()
            .filter(|path| !found.contains(path))
            .collect();
        for path in gone {
            self.stage(path, FileContents::Missing);
        }
    }

    /// Paths that exist in the database or are pending creation (a path may come twice).
    fn known_paths(&self) -> impl Iterator<Item = ContentPath> + '_ {
        let existing = self.workspace.existing_paths().cloned();
        let pending = self
            .pending
            .iter()
            .filter(|(_, contents)| **contents != FileContents::Missing)
            .map(|(path, _)| path.clone());
        existing.chain(pending)
    }

    fn stage(&mut self, path: ContentPath, contents: FileContents) {
        if self.workspace.contents_of(&path) == contents {
            self.pending.remove(&path);
        } else {
            self.pending.insert(path, contents);
        }
    }
}

/// Whether the content path `path` is `folder` or inside it.
fn is_at_or_below(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}
