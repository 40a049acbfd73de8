//! The one rule for what the content folder holds: a path whose symbolic links resolve outside
//! it is never content, however and whenever the link was made. The scan, the alias walk, a
//! folder's listing and every read of one file ask this module, so watch mode and a one-shot
//! build cannot disagree about a link.

use std::path::{Path, PathBuf};

/// The content folder, resolved once.
pub struct ContentFolder {
    canonical: PathBuf,
}

impl ContentFolder {
    /// The content folder at `root`, every link on the way to it resolved. A folder that cannot
    /// be resolved (gone) is taken as given: nothing below it resolves either.
    pub fn new(root: &Path) -> ContentFolder {
        let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
        ContentFolder { canonical }
    }

    /// Where `path` really is, when that is outside the content folder. A path that does not
    /// resolve (missing, dangling, a loop) is not outside: whoever reads it reports it.
    pub fn outside(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path)
            .ok()
            .filter(|target| !target.starts_with(&self.canonical))
    }

    /// Whether `path` resolves inside the content folder (see [`ContentFolder::outside`]).
    pub fn holds(&self, path: &Path) -> bool {
        self.outside(path).is_none()
    }

    /// The content folder with every link resolved.
    pub fn canonical(&self) -> &Path {
        &self.canonical
    }
}

/// What the author is told about a link leading out of the content folder.
pub const OUTSIDE_MESSAGE: &str =
    "this symbolic link leads outside the content folder; it was not followed";
/// What to do about it.
pub const OUTSIDE_HELP: &str = "move what it points to into the content folder, or remove the link";

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_path_through_a_link_out_of_the_folder_is_outside_wherever_the_link_is() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("content");
        std::fs::create_dir_all(root.join("blog/en")).unwrap();
        std::fs::create_dir_all(root.join("_shared")).unwrap();
        std::fs::write(dir.path().join("secret.md"), "x").unwrap();
        std::fs::write(root.join("_shared/kept.md"), "x").unwrap();
        symlink("../../../secret.md", root.join("blog/en/leak.md")).unwrap();
        symlink("../..", root.join("blog/up")).unwrap();
        symlink("../../_shared/kept.md", root.join("blog/en/kept.md")).unwrap();
        let folder = ContentFolder::new(&root);

        assert!(folder.outside(&root.join("blog/en/leak.md")).is_some());
        assert!(folder.outside(&root.join("blog/up/secret.md")).is_some());
        assert!(folder.holds(&root.join("blog/en/kept.md")));
        assert!(folder.holds(&root.join("blog/en/missing.md")));
        // Seen through a link to the content folder itself, the paths are the same.
        symlink(&root, dir.path().join("alias")).unwrap();
        let through_alias = ContentFolder::new(&dir.path().join("alias"));
        assert!(through_alias.holds(&root.join("blog/en/kept.md")));
        assert!(
            through_alias
                .outside(&root.join("blog/en/leak.md"))
                .is_some()
        );
    }
}
