//! Scanning the whole content folder: every content file with its role and contents, plus the
//! problems found on the way (odd names, symlink loops) that belong to no readable file.

use super::contain::{ContentFolder, OUTSIDE_HELP, OUTSIDE_MESSAGE};
use super::read::{kind_of, read_file};
use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents, FileRole, Scan, ScanProblem, ScannedFile};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Walks the site's content folders below `root` (its layout's roots: a stray `node_modules/`
/// or `.git/` next to the content costs nothing), classifies every file by `site`'s layout, and reads the content files in parallel. Symlinks are
/// followed while they stay inside the content folder (`root` itself may be a link: a
/// symlinked content folder is common); links out of it and loops are reported, not followed.
/// FIFOs, sockets and devices named like content are reported and skipped, never opened.
pub fn scan(root: &Path, site: &SiteConfig) -> Scan {
    scan_keeping(root, site, &keep_all)
}

/// What a scan keeps of each file it read, given its path, role and place on disk: the contents
/// as read, or less (a one-shot build leaves post bodies on disk). Called on the reading thread,
/// as each file is read, so that what is not kept is never held for the whole scan.
pub type Keep<'k> =
    dyn Fn(&ContentPath, &FileRole, &Path, FileContents) -> FileContents + Sync + 'k;

/// Keeps every file's contents as read.
fn keep_all(_: &ContentPath, _: &FileRole, _: &Path, contents: FileContents) -> FileContents {
    contents
}

/// [`scan`], keeping of each file what `keep` says.
pub fn scan_keeping(root: &Path, site: &SiteConfig, keep: &Keep<'_>) -> Scan {
    // The walk runs on this thread while the other threads read what it has found so far, so
    // reading does not wait for the whole walk of a large site.
    let (sender, found) = std::sync::mpsc::channel();
    let (walked, files) = rayon::join(
        // The readers end only when the walk does (the channel closes): a send cannot fail.
        move || walk(root, site, &mut |file| drop(sender.send(file))),
        move || {
            found
                .into_iter()
                .par_bridge()
                .map(|file| read(file, keep))
                .collect::<Vec<_>>()
        },
    );
    sorted_scan(files, walked.problems)
}

/// What a walk of the whole content folder found, before anything is read.
pub(super) struct Found {
    /// The content files: path, role, where on disk.
    pub files: Vec<FoundFile>,
    /// Problems of the walk itself.
    pub problems: Vec<ScanProblem>,
    /// A symbolic link was on the way (followed or not).
    pub saw_link: bool,
}

/// Walks every content folder of `root` by the scan's rules, reading nothing.
pub(super) fn find(root: &Path, site: &SiteConfig) -> Found {
    let mut files = Vec::new();
    let walked = walk(root, site, &mut |file| files.push(file));
    Found {
        files,
        problems: walked.problems,
        saw_link: walked.saw_link,
    }
}

/// What a walk found besides the files it handed on.
struct Walked {
    problems: Vec<ScanProblem>,
    saw_link: bool,
}

/// Walks every content folder of `root`, handing each content file to `found` as it comes.
fn walk(root: &Path, site: &SiteConfig, found: &mut impl FnMut(FoundFile)) -> Walked {
    let mut walked = Walked {
        problems: Vec::new(),
        saw_link: false,
    };
    for top in site.layout.roots() {
        let dir = root.join(top);
        if dir.is_dir() {
            walked.saw_link |= walk_folder(root, &dir, site, found, &mut walked.problems);
        }
    }
    walked
}

/// A content file a walk found: where it is, what it is, where on disk.
type FoundFile = (ContentPath, FileRole, PathBuf);

/// Reads the content files a walk already listed, as [`scan`] would after walking again: the
/// fingerprint's probe (`deploy::Probe`) walks the folder before a build, and lists files only
/// when its walk met no symbolic link and no problem, so a scan's walk would find the same.
/// `keep` says what is kept of each file, as for [`scan_keeping`].
pub fn scan_listed<'a>(
    files: impl Iterator<Item = (&'a ContentPath, &'a Path)>,
    site: &SiteConfig,
    keep: &Keep<'_>,
) -> Scan {
    let found = files
        .map(|(path, disk_path)| (path.clone(), site.classify(path), disk_path.to_owned()))
        .collect();
    read_found(found, Vec::new(), keep)
}

/// Scans one folder below the content root (`relative`, `/`-separated), for a watcher that saw
/// it appear or move. Folders that cannot hold content give an empty scan.
pub fn scan_under(root: &Path, site: &SiteConfig, relative: &str) -> Scan {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let dir = root.join(relative);
    if site.layout.may_hold_content(relative) && dir.is_dir() {
        walk_folder(
            root,
            &dir,
            site,
            &mut |file| found.push(file),
            &mut problems,
        );
    }
    read_found(found, problems, &keep_all)
}

/// What a full scan reports at `relative` alone (a file, a link, a FIFO; not a folder's
/// contents): a walk of that one path, its files not read.
pub fn problems_at(root: &Path, site: &SiteConfig, relative: &str) -> Vec<ScanProblem> {
    let mut problems = Vec::new();
    let path = root.join(relative);
    if site.layout.may_hold_content(relative)
        && std::fs::symlink_metadata(&path).is_ok()
        && !path.is_dir()
    {
        walk_folder(root, &path, site, &mut |_| {}, &mut problems);
    }
    problems
}

fn read_found(found: Vec<FoundFile>, problems: Vec<ScanProblem>, keep: &Keep<'_>) -> Scan {
    sorted_scan(
        found.into_par_iter().map(|file| read(file, keep)).collect(),
        problems,
    )
}

fn read((path, role, disk_path): FoundFile, keep: &Keep<'_>) -> ScannedFile {
    let contents = keep(&path, &role, &disk_path, read_file(&disk_path));
    ScannedFile {
        contents,
        path,
        role,
    }
}

/// A scan of `files` read in any order: sorted by path (each path is found once).
fn sorted_scan(mut files: Vec<ScannedFile>, mut problems: Vec<ScanProblem>) -> Scan {
    files.par_sort_unstable_by(|a, b| a.path.cmp(&b.path));
    problems.sort_by(|a: &ScanProblem, b| a.path.cmp(&b.path));
    Scan { files, problems }
}

/// Walks `dir` (below `root`), adding its content files to `found`; returns whether a symbolic
/// link was on the way.
fn walk_folder(
    root: &Path,
    dir: &Path,
    site: &SiteConfig,
    found: &mut impl FnMut(FoundFile),
    problems: &mut Vec<ScanProblem>,
) -> bool {
    // Links are followed only while they stay inside the content folder: a link to `/` (or
    // to anything outside) is reported and skipped, so a scan never walks the machine.
    let folder = ContentFolder::new(root);
    let mut outside: Vec<ScanProblem> = Vec::new();
    let mut saw_link = false;
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|entry| {
            if is_hidden(entry) {
                return false;
            }
            saw_link |= entry.path_is_symlink();
            if !entry.path_is_symlink() || folder.holds(entry.path()) {
                return true;
            }
            outside.push(ScanProblem {
                path: shown_path(root, entry.path()),
                message: OUTSIDE_MESSAGE.into(),
                help: OUTSIDE_HELP.into(),
                is_error: false,
            });
            false
        });
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                problems.push(walk_problem(root, &err));
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        match relative_content_path(relative) {
            Some(path) => match site.classify(&path) {
                FileRole::Ignored => {}
                FileRole::Misplaced { reason } => problems.push(ScanProblem {
                    path: path.to_string(),
                    message: "this Markdown file is not read as content".into(),
                    help: reason.to_string(),
                    is_error: false,
                }),
                _ if !file_type.is_file() => problems.push(ScanProblem {
                    path: path.to_string(),
                    message: format!(
                        "this is {}, not a regular file; it was skipped",
                        kind_of(file_type)
                    ),
                    help: "content files are regular files: remove it, or prefix its name with \
                           `_` if it belongs there"
                        .into(),
                    is_error: false,
                }),
                role => found((path, role, entry.into_path())),
            },
            None if looks_like_markdown(relative) => problems.push(ScanProblem {
                path: relative.to_string_lossy().into_owned(),
                message: "file name is not valid UTF-8, so it cannot become an id or a URL".into(),
                help: "rename the file using UTF-8 characters (slugs use a-z, 0-9 and -)".into(),
                is_error: true,
            }),
            None => {}
        }
    }
    problems.append(&mut outside);
    saw_link
}

/// Whether the walk skips `entry`: a name starting with `.` or `_` below the content folder
/// (`.git/`, `_drafts/`, `_shared/`) is never content.
pub(super) fn is_hidden(entry: &walkdir::DirEntry) -> bool {
    let name = entry.file_name().as_encoded_bytes();
    entry.depth() > 0 && (name.starts_with(b".") || name.starts_with(b"_"))
}

fn shown_path(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

pub(super) fn relative_content_path(relative: &Path) -> Option<ContentPath> {
    let text = relative.to_str()?;
    ContentPath::new(&text.replace(std::path::MAIN_SEPARATOR, "/"))
}

fn looks_like_markdown(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    bytes.ends_with(b".md") || bytes.ends_with(b".mdx")
}

fn walk_problem(root: &Path, err: &walkdir::Error) -> ScanProblem {
    let shown = err
        .path()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_else(|| root.display().to_string());
    if err.loop_ancestor().is_some() {
        ScanProblem {
            path: shown,
            message: "symbolic link loop: this link points back to a folder that contains it"
                .into(),
            help: "remove the link or point it somewhere outside its own parent folders; it was \
                   not followed"
                .into(),
            is_error: false,
        }
    } else {
        // A dangling link to an image is harmless; one named like a post hides content.
        let is_error = err
            .path()
            .is_none_or(|p| p.is_dir() || looks_like_markdown(p));
        ScanProblem {
            path: shown,
            message: format!("cannot read this part of the content folder: {err}"),
            help: "check that it exists and is readable (a dangling symbolic link is a common \
                   cause)"
                .into(),
            is_error,
        }
    }
}
