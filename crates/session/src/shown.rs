//! What the author is told: each diagnostic once while it persists, again in full when its
//! file is saved again, a line when a file is fixed; what the preview's landing page shows.

use crate::Session;
use crate::content::{ContentPath, FileContents};
use crate::diag::Diagnostic;
use std::collections::{BTreeSet, HashSet};

impl Session {
    /// Replaces the shown set with `current`; returns what to print (see
    /// [`Outcome::new_diagnostics`]) and the files fixed since.
    pub(crate) fn remember_shown(
        &mut self,
        current: &[Diagnostic],
    ) -> (Vec<Diagnostic>, Vec<String>) {
        let to_print = self.to_print(current);
        let fixed = self.fixed(current, |_| true);
        self.shown = current.iter().cloned().collect();
        (to_print, fixed)
    }

    /// Like [`Session::remember_shown`], when `current` only covers the `changed` files (unless
    /// `structural`): what is known about other files stays.
    pub(crate) fn remember_shown_for<'a>(
        &mut self,
        current: &[Diagnostic],
        structural: bool,
        changed: impl Iterator<Item = &'a ContentPath>,
    ) -> (Vec<Diagnostic>, Vec<String>) {
        if structural {
            return self.remember_shown(current);
        }
        let changed: HashSet<&str> = changed.map(ContentPath::as_str).collect();
        let to_print = self.to_print(current);
        let fixed = self.fixed(current, |path| changed.contains(path));
        self.shown.retain(|d| !changed.contains(d.path.as_str()));
        self.shown.extend(current.iter().cloned());
        (to_print, fixed)
    }

    /// Files of the batch put back to the version the build holds (a broken file restored to
    /// its last good text, or a new broken file deleted): nothing to rebuild, but the errors
    /// shown for them are gone. The files fixed, and those gone with their errors.
    pub(crate) fn restored(&mut self) -> (Vec<String>, Vec<String>) {
        let paths: BTreeSet<ContentPath> = self
            .shown
            .iter()
            .filter(|d| self.was_saved(&d.path))
            .filter_map(|d| ContentPath::new(&d.path))
            .collect();
        if paths.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let current = self.diagnostics_after(false, paths.iter());
        let fixed = self.remember_shown_for(&current, false, paths.iter()).1;
        let gone = paths
            .iter()
            .map(ContentPath::as_str)
            .filter(|path| self.workspace.text_of(path).is_none())
            .filter(|path| !self.shown.iter().any(|d| d.path == *path))
            .map(str::to_owned)
            .collect();
        (fixed, gone)
    }

    /// The diagnostics of `current` not shown before, or in a file the batch named.
    fn to_print(&self, current: &[Diagnostic]) -> Vec<Diagnostic> {
        current
            .iter()
            .filter(|d| !self.shown.contains(*d) || self.was_saved(&d.path))
            .cloned()
            .collect()
    }

    /// True when the batch names `path` or a folder above it.
    fn was_saved(&self, path: &str) -> bool {
        self.saved.iter().any(|saved| {
            path == saved
                || path
                    .strip_prefix(saved.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Files (among those `in_scope`) that had errors shown and have none in `current`, and
    /// still exist (a deleted file is not "fixed").
    fn fixed(&self, current: &[Diagnostic], in_scope: impl Fn(&str) -> bool) -> Vec<String> {
        let still_broken: HashSet<&str> = current
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.path.as_str())
            .collect();
        let fixed: BTreeSet<&str> = self
            .shown
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.path.as_str())
            .filter(|path| in_scope(path) && !still_broken.contains(path))
            .filter(|path| self.workspace.text_of(path).is_some())
            .collect();
        fixed.into_iter().map(str::to_owned).collect()
    }

    /// Renders a diagnostic with the text of its file when the database has it.
    pub fn render(&self, diagnostic: &Diagnostic, color: bool) -> String {
        let pending_text = ContentPath::new(&diagnostic.path)
            .and_then(|path| self.pending.get(&path))
            .and_then(FileContents::text);
        let text = pending_text.or_else(|| self.workspace.text_of(&diagnostic.path));
        diagnostic.render(text, color)
    }

    /// Every diagnostic of the content as it is on disk now (held-back files included), by
    /// path and position: what the preview's landing page shows.
    pub fn current_diagnostics(&self) -> Vec<&Diagnostic> {
        let mut current: Vec<&Diagnostic> = self.shown.iter().collect();
        current.sort_by_key(|d| {
            let (line, column) = d.location.as_ref().map_or((0, 0), |l| (l.line, l.column));
            (&d.path, line, column, &d.message)
        });
        current
    }
}
