//! The content files reached by more than one path, for the watcher: through a symbolic link
//! (a linked folder such as `blog/es -> ../_shared/es`, or a linked file) or a hard link.
//!
//! The OS reports an edit at one path of a file: the path it was written through, or the one
//! its watch was registered under (a linked folder and its target are one folder to inotify).
//! [`Aliases`] turns such a path into every content path that reads the same file, so that
//! watch mode re-reads all of them, as a fresh build would. It is made by the same walk as a
//! scan: links are followed while they stay inside the content folder.

use super::contain::ContentFolder;
use super::walk::{is_hidden, relative_content_path};
use crate::content::Layout;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A file's identity on disk: its device and inode numbers.
type Identity = (u64, u64);

/// The content paths that share a file with another path (see the module's header).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Aliases {
    /// Each linked folder inside the content folder: its target (canonical) and the content
    /// path of the link.
    folders: Vec<(PathBuf, String)>,
    /// Each linked file: its target (canonical) and the content path of the link.
    files: Vec<(PathBuf, String)>,
    /// The content paths of each file reached by more than one of them.
    shared: HashMap<Identity, Vec<String>>,
    /// The identity of each path in `shared`.
    identity: HashMap<String, Identity>,
}

impl Aliases {
    /// The aliases of the content folder `root` as it is now. A folder with no link and no
    /// hard-linked content file has none (the common case, and the walk is then one `stat`
    /// per file).
    pub fn of(root: &Path, layout: &Layout) -> Aliases {
        if !root.is_dir() {
            return Aliases::default();
        }
        let folder = ContentFolder::new(root);
        let canonical_root = folder.canonical();
        let mut aliases = Aliases::default();
        let mut paths_of: HashMap<Identity, Vec<String>> = HashMap::new();
        // The layout's folders only, as a scan walks them: not a site's `node_modules/`.
        let walkers = layout.roots().iter().map(|top| {
            walkdir::WalkDir::new(root.join(top))
                .follow_links(true)
                .into_iter()
                .filter_entry(|entry| {
                    let leaves = entry.path_is_symlink() && !folder.holds(entry.path());
                    !is_hidden(entry) && !leaves
                })
        });
        for entry in walkers.flatten() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    // A link whose target is missing (yet: a restore may write the link
                    // first): a path that appears there later is read through it.
                    let link = err.path().filter(|path| path.is_symlink());
                    if let Some(link) = link
                        && let Some(target) = missing_target(link)
                        && target.starts_with(canonical_root)
                        && let Some(relative) =
                            link.strip_prefix(root).ok().and_then(relative_content_path)
                    {
                        aliases
                            .folders
                            .push((target, relative.as_str().to_string()));
                    }
                    continue;
                }
            };
            let Some(relative) = entry
                .path()
                .strip_prefix(root)
                .ok()
                .and_then(relative_content_path)
            else {
                continue;
            };
            let relative = relative.as_str().to_string();
            if entry.path_is_symlink()
                && let Ok(target) = entry.path().canonicalize()
            {
                if entry.file_type().is_dir() {
                    aliases.folders.push((target, relative.clone()));
                } else {
                    aliases.files.push((target, relative.clone()));
                }
            }
            if !entry.file_type().is_file() {
                continue;
            }
            let Some((identity, links)) = identity(entry.path()) else {
                continue;
            };
            let through_link = entry.path_is_symlink()
                || aliases
                    .folders
                    .iter()
                    .any(|(_, folder)| is_below(&relative, folder));
            if links > 1 || through_link {
                paths_of.entry(identity).or_default().push(relative);
            }
        }
        for (identity, paths) in paths_of {
            if paths.len() > 1 {
                for path in &paths {
                    aliases.identity.insert(path.clone(), identity);
                }
                aliases.shared.insert(identity, paths);
            }
        }
        aliases
    }

    /// The targets of the linked folders (those that exist).
    pub fn linked_folders(&self) -> impl Iterator<Item = &Path> {
        self.folders
            .iter()
            .map(|(target, _)| target.as_path())
            .filter(|target| target.is_dir())
    }

    /// Whether every content file has one path.
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty() && self.files.is_empty() && self.shared.is_empty()
    }

    /// The content paths that `path` (absolute, below the canonical content folder, but not a
    /// content path itself, e.g. `_shared/es/post.md`) is read through: the paths through the
    /// links that lead to it, and those sharing its file. Reported paths may be gone (a remove):
    /// the folder part is matched as text.
    pub fn reaching(&self, path: &Path) -> Vec<String> {
        let mut found = Vec::new();
        for (target, link) in &self.folders {
            if let Ok(rest) = path.strip_prefix(target) {
                match rest.to_str() {
                    Some("") => found.push(link.clone()),
                    Some(rest) => found.push(format!("{link}/{rest}")),
                    None => {}
                }
            }
        }
        // The target of a linked file, or a folder above a link's target (created, moved,
        // removed: its files came or went with it, and their own events may have been
        // missed): the link itself.
        for (target, link) in self.folders.iter().chain(&self.files) {
            if target.starts_with(path) && !found.contains(link) {
                found.push(link.clone());
            }
        }
        if !self.shared.is_empty()
            && let Some((identity, _)) = identity(path)
            && let Some(paths) = self.shared.get(&identity)
        {
            found.extend(paths.iter().cloned());
        }
        found
    }

    /// The other content paths that read the file at the content path `path`.
    pub fn sharing(&self, path: &str) -> impl Iterator<Item = &str> {
        self.identity
            .get(path)
            .and_then(|identity| self.shared.get(identity))
            .into_iter()
            .flatten()
            .map(String::as_str)
            .filter(move |other| *other != path)
    }

    /// Whether a change at the content path `path` (found at `root`) may change the aliases:
    /// a link, a folder (which may hold links) or a hard-linked file appeared or went there.
    pub fn may_change_at(&self, root: &Path, path: &str) -> bool {
        if self.identity.contains_key(path)
            || self.folders.iter().any(|(_, link)| link == path)
            || self.files.iter().any(|(_, link)| link == path)
        {
            return true;
        }
        let path = root.join(path);
        std::fs::symlink_metadata(&path).is_ok_and(|meta| {
            meta.file_type().is_symlink() || meta.is_dir() || has_hard_links(&meta, &path)
        })
    }
}

/// Where the link at `link` leads, though nothing is there: the canonical path of its folder
/// with the link's text appended, `.` and `..` resolved as text.
fn missing_target(link: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let to = std::fs::read_link(link).ok()?;
    let joined = link.parent()?.canonicalize().ok()?.join(to);
    let mut target = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                target.pop();
            }
            Component::CurDir => {}
            part => target.push(part),
        }
    }
    Some(target)
}

/// Whether the file `meta` describes (at `path`) has more than one name.
#[cfg(unix)]
fn has_hard_links(meta: &std::fs::Metadata, _path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.nlink() > 1
}

/// Whether the file at `path` has more than one name (std's metadata does not count them on
/// Windows; a handle's does).
#[cfg(windows)]
fn has_hard_links(_meta: &std::fs::Metadata, path: &Path) -> bool {
    identity(path).is_some_and(|(_, links)| links > 1)
}

/// A file's identity (its device and inode: shared by its hard links) and its number of
/// links, a link at `path` followed; `None` when it cannot be looked at.
#[cfg(unix)]
fn identity(path: &Path) -> Option<((u64, u64), u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some(((meta.dev(), meta.ino()), meta.nlink()))
}

/// A file's identity (its volume's serial number and its file index) and its number of links,
/// a link at `path` followed; `None` when it cannot be looked at.
#[cfg(windows)]
fn identity(path: &Path) -> Option<((u64, u64), u64)> {
    let stat = crate::at::stat(path).ok()?;
    Some(((stat.st_dev, stat.st_ino), stat.st_nlink))
}

/// Whether the content path `path` is inside the content folder `folder`.
fn is_below(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "---\ntitle: x\n---\n").unwrap();
    }

    #[test]
    fn linked_folders_linked_files_and_hard_links_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        write(root, "_shared/es/2024-01-01_a.md");
        write(root, "blog/en/2024-01-01_a.md");
        write(root, "_shared/b.md");
        link_es_and_b(root);
        std::fs::hard_link(
            root.join("blog/en/2024-01-01_a.md"),
            root.join("blog/en/2024-01-03_c.md"),
        )
        .unwrap();
        let aliases = Aliases::of(root, &Layout::seed());

        assert_reaches_es_and_b(&aliases, root);
        assert_eq!(
            aliases.reaching(&root.join("_shared/es/2024-02-02_new.md")),
            ["blog/es/2024-02-02_new.md"],
            "a file the walk did not see (new, or removed) is matched by its folder"
        );
        assert_eq!(aliases.reaching(&root.join("_shared/es")), ["blog/es"]);
        assert_eq!(
            aliases
                .sharing("blog/en/2024-01-01_a.md")
                .collect::<Vec<_>>(),
            ["blog/en/2024-01-03_c.md"]
        );
        assert!(aliases.reaching(&root.join("_drafts/x.md")).is_empty());
        assert_eq!(
            aliases.reaching(&root.join("_shared")),
            ["blog/es", "blog/en/2024-01-02_b.md"],
            "a folder above the targets: the links"
        );
        assert!(aliases.may_change_at(root, "blog/es"), "a link");
        assert!(
            aliases.may_change_at(root, "blog/en/2024-01-02_b.md"),
            "a link"
        );
        assert!(
            aliases.may_change_at(root, "blog/en/2024-01-03_c.md"),
            "a hard link"
        );
        assert!(!aliases.may_change_at(root, "blog/es/2024-01-01_a.md"));
        assert!(!aliases.may_change_at(root, "tags/rust.md"));
    }

    #[test]
    fn a_link_to_nothing_yet_leads_to_what_appears_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        write(root, "blog/en/2024-01-01_a.md");
        link_es_and_b(root);
        assert_reaches_es_and_b(&Aliases::of(root, &Layout::seed()), root);
    }

    /// `blog/es -> ../_shared/es` and `blog/en/2024-01-02_b.md -> ../../_shared/b.md`.
    fn link_es_and_b(root: &Path) {
        symlink("../_shared/es", root.join("blog/es")).unwrap();
        symlink("../../_shared/b.md", root.join("blog/en/2024-01-02_b.md")).unwrap();
    }

    fn assert_reaches_es_and_b(aliases: &Aliases, root: &Path) {
        assert_eq!(
            aliases.reaching(&root.join("_shared/es/2024-01-01_a.md")),
            ["blog/es/2024-01-01_a.md"]
        );
        assert_eq!(
            aliases.reaching(&root.join("_shared/b.md")),
            ["blog/en/2024-01-02_b.md"]
        );
    }

    #[test]
    fn a_folder_without_links_has_no_aliases() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "blog/en/2024-01-01_a.md");
        write(dir.path(), "tags/rust.md");
        let aliases = Aliases::of(dir.path(), &Layout::seed());
        assert!(aliases.is_empty());
        assert!(!aliases.may_change_at(dir.path(), "blog/en/2024-01-01_a.md"));
        assert!(
            aliases.may_change_at(dir.path(), "blog/en"),
            "a folder may hold links"
        );
    }
}
