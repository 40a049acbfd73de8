//! Step 5 of a publish: removing the files this tool wrote that are no longer outputs.

use super::{Publisher, Report, WriteError, ownership};
use crate::render::Files;
use std::collections::HashSet;
use std::sync::Arc;

impl Publisher {
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
}
