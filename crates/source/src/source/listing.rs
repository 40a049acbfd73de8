//! One folder's content files by name, without reading them: how the watcher's session checks,
//! cheaply, that it holds exactly the files a folder has after a batch of changes there.

use super::contain::ContentFolder;
use crate::config::SiteConfig;
use crate::content::ContentPath;
use std::path::Path;

/// The content files directly in `relative` (a `/`-separated folder below `root`): the paths a
/// full scan would find there, by the same rules (names starting with `.` or `_` are never
/// content; symlinks are followed while they stay inside the content folder), without their subfolders. `None` when the folder cannot be
/// listed (it is gone, or it is not a folder).
pub fn list_folder(root: &Path, site: &SiteConfig, relative: &str) -> Option<Vec<ContentPath>> {
    if !site.layout.may_hold_content(relative) {
        return Some(Vec::new());
    }
    let dir = root.join(relative);
    let entries = std::fs::read_dir(&dir).ok()?;
    let folder = ContentFolder::new(root);
    if !folder.holds(&dir) {
        return Some(Vec::new()); // A linked folder leading outside: never walked.
    }
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue; // Not UTF-8: a full scan reports it.
        };
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        // `metadata` follows a symlink, as the scan does, while it stays inside.
        if !std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_symlink()) && !folder.holds(&entry.path()) {
            continue;
        }
        if let Some(path) = ContentPath::new(&format!("{relative}/{name}"))
            && site.classify(&path).is_content()
        {
            found.push(path);
        }
    }
    found.sort();
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use camino::Utf8Path;

    #[test]
    fn lists_the_content_files_a_scan_would_find_in_one_folder() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("blog/en");
        std::fs::create_dir_all(folder.join("nested")).unwrap();
        for name in ["2024-01-01_a.md", ".hidden.md", "_draft.md", "notes.txt"] {
            std::fs::write(folder.join(name), "x").unwrap();
        }
        std::fs::write(folder.join("nested/2024-01-02_b.md"), "x").unwrap();
        let site = SiteConfig::defaults(Utf8Path::new("."));
        let listed = list_folder(root.path(), &site, "blog/en").unwrap();
        let scanned: Vec<ContentPath> = crate::source::scan(root.path(), &site)
            .files
            .into_iter()
            .map(|f| f.path)
            .filter(|p| p.as_str().rsplit_once('/').unwrap().0 == "blog/en")
            .collect();
        assert_eq!(listed, scanned);
        assert_eq!(listed.len(), 1);
        assert_eq!(list_folder(root.path(), &site, "blog/fr"), None);
        assert_eq!(list_folder(root.path(), &site, ".git"), Some(Vec::new()));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_leading_out_of_the_content_folder_is_not_listed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("content");
        std::fs::create_dir_all(root.join("blog/en")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        std::fs::write(dir.path().join("elsewhere/2024-01-01_secret.md"), "x").unwrap();
        symlink(
            "../../../elsewhere/2024-01-01_secret.md",
            root.join("blog/en/2024-01-01_leak.md"),
        )
        .unwrap();
        symlink("../../elsewhere", root.join("blog/es")).unwrap();
        let site = SiteConfig::defaults(Utf8Path::new("."));
        assert_eq!(list_folder(&root, &site, "blog/en"), Some(Vec::new()));
        assert_eq!(list_folder(&root, &site, "blog/es"), Some(Vec::new()));
    }
}
