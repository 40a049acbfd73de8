//! The plan of a publish (`Publisher::plan`): which outputs may differ from the disk, each
//! decided and checked (every new path, every folder a write goes through, the site's files in
//! the way) before anything is written, so a publish that would fail on a path fails before
//! its first write.

use crate::output::Output;
use std::sync::Arc;

/// What is on disk at the path of an output that may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DiskState {
    /// A file whose bytes are known to differ (by hash).
    Differs,
    /// Unknown (first publish, folder deleted): read and compared before writing.
    Unknown,
    /// Nothing, when the plan looked (a path new to the folder).
    Missing,
}

/// What one publish will write, decided (and checked) before anything is written.
pub(super) struct Plan<'a> {
    /// Outputs that may differ from the disk, and what the disk holds at their path.
    pub(super) stale: Vec<(&'a (Arc<str>, Output), DiskState)>,
    /// Paths this tool does not own yet.
    pub(super) new_paths: Vec<Arc<str>>,
    /// The set of paths is the one owned now: nothing to remove, no manifest to write.
    pub(super) same_paths: bool,
    pub(super) total: usize,
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
