//! From notify's absolute paths to content-relative ones, and from event kinds to what the
//! session must re-read.
//!
//! The session re-reads every path it is given, so only *which* paths were touched matters,
//! never the order of events or how renames pair up. An event that can change a folder's
//! listing (a create, a remove, either half of a rename) also names the path's folder, which
//! the session lists again: whatever a lost or misreported event hid there is found that way.

use super::Changes;
use super::filter::is_editor_debris;
use crate::source::{Aliases, Layout};
use notify::Event;
use notify::event::{AccessKind, AccessMode, DataChange, EventKind, MetadataKind, ModifyKind};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Turns notify's events into [`Changes`].
pub(super) struct Translator {
    pub(super) content_root: PathBuf,
    /// Where the site's content lives below the root: events elsewhere are not content's.
    pub(super) layout: Layout,
    /// The config file's (canonical) folder and its name.
    pub(super) config: Option<(PathBuf, std::ffi::OsString)>,
    /// The content files reached by more than one path (links), as of the last batch.
    pub(super) aliases: Aliases,
    /// This batch's paths below the content folder that are no content path and that no known
    /// link leads to, with whether their folder's listing changed: a link made in the same
    /// batch may lead there (see [`Translator::finish_batch`]).
    pub(super) unmatched: std::cell::RefCell<Vec<(PathBuf, bool)>>,
    /// The watcher, to watch the targets of linked folders again after a walk.
    pub(super) watcher: std::sync::Weak<std::sync::Mutex<Box<dyn notify::Watcher + Send>>>,
}

impl Translator {
    /// Adds what `event` (seen at `time`) says to `changes`.
    pub(super) fn add(&self, event: &Event, time: Instant, changes: &mut Changes) {
        if event.need_rescan() {
            changes.content.rescan = true;
        }
        let Some(listing_changed) = relevance(&event.kind) else {
            return;
        };
        if event.paths.is_empty() {
            return;
        }
        changes.first_event = Some(changes.first_event.map_or(time, |t| t.min(time)));
        for path in &event.paths {
            self.classify(path, listing_changed, changes);
        }
    }

    /// Adds the paths of a watcher error: what happened there is unknown, so they are re-read
    /// as folders (or everything is, when the error names no path).
    pub(super) fn add_error(&self, error: &notify::Error, changes: &mut Changes) {
        if error.paths.is_empty() {
            changes.content.rescan = true;
        }
        for path in &error.paths {
            self.classify(path, true, changes);
        }
    }

    /// Whether events on `path` reach the session: a content path, the config file, or the
    /// content folder itself (not scratch files, never-content paths or other folders' files).
    pub(super) fn follows(&self, path: &Path) -> bool {
        self.target(path).is_some() || !self.aliases.reaching(path).is_empty()
    }

    /// At the end of a batch, before it is handed on: when it may have added or removed a
    /// link (a link, a folder or a hard-linked file appeared or went at a content path, or a
    /// path no known link leads to changed on a site with links), walks the content folder
    /// again for its links, and gives this batch's unmatched paths a second look.
    pub(super) fn finish_batch(&mut self, changes: &mut Changes) {
        let unmatched = self.unmatched.take();
        let links_may_change = changes.content.rescan
            || changes.root
            || changes.content.paths.iter().any(|path| {
                let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
                changes.content.folders.contains(folder)
                    && self.aliases.may_change_at(&self.content_root, path)
            })
            || (!self.aliases.is_empty() && unmatched.iter().any(|(_, listing)| *listing));
        if links_may_change {
            self.refresh_aliases();
            for (path, listing_changed) in unmatched {
                self.add_linked(&path, listing_changed, changes);
            }
        }
    }

    /// Walks the content folder for its links, and watches the target of each linked folder
    /// (again: inotify has one watch per folder, which a link moved away takes along).
    pub(super) fn refresh_aliases(&mut self) {
        self.aliases = Aliases::of(&self.content_root, &self.layout);
        let Some(watcher) = self.watcher.upgrade() else {
            return;
        };
        let mut watcher = watcher
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for target in self.aliases.linked_folders() {
            if let Err(err) = watcher.watch(target, notify::RecursiveMode::Recursive) {
                tracing::warn!("cannot watch {}: {err}", target.display());
            }
        }
    }

    fn classify(&self, path: &Path, listing_changed: bool, changes: &mut Changes) {
        match self.target(path) {
            // Not a content path, but maybe one that content paths are read through (the
            // target of a link): those paths changed.
            None => {
                if !self.add_linked(path, listing_changed, changes)
                    && path.starts_with(&self.content_root)
                {
                    let unmatched = (path.to_owned(), listing_changed);
                    self.unmatched.borrow_mut().push(unmatched);
                }
            }
            Some(Target::Config) => changes.config = true,
            Some(Target::Root) => changes.root = true,
            Some(Target::NotUtf8) => changes.content.rescan = true,
            Some(Target::Content(relative)) => self.add_content(relative, listing_changed, changes),
        }
    }

    /// Adds the content paths that read `path` through a link; whether there were any.
    fn add_linked(&self, path: &Path, listing_changed: bool, changes: &mut Changes) -> bool {
        let reaching = self.aliases.reaching(path);
        for linked in &reaching {
            let linked = self.content_root.join(linked);
            if let Some(Target::Content(relative)) = self.target(&linked) {
                self.add_content(relative, listing_changed, changes);
            }
        }
        !reaching.is_empty()
    }

    /// Adds a changed content path, and the other content paths that read the same file: hard
    /// links, and links whose target is this path or above it (`blog/en/a.md -> ../es/b.md`:
    /// the OS reports an edit at `blog/es/b.md` only).
    fn add_content(&self, relative: String, listing_changed: bool, changes: &mut Changes) {
        let linked = self.aliases.reaching(&self.content_root.join(&relative));
        let linked =
            linked
                .iter()
                .filter_map(|link| match self.target(&self.content_root.join(link)) {
                    Some(Target::Content(link)) => Some(link),
                    _ => None,
                });
        let sharing: Vec<String> = self
            .aliases
            .sharing(&relative)
            .map(str::to_string)
            .collect();
        for path in sharing.into_iter().chain(linked).chain([relative]) {
            // The link's folder too: a link whose target came or went may change the aliases.
            if listing_changed && let Some((folder, _)) = path.rsplit_once('/') {
                changes.content.folders.insert(folder.to_string());
            }
            changes.content.paths.insert(path);
        }
    }

    fn target(&self, path: &Path) -> Option<Target> {
        if let Some((folder, name)) = &self.config
            && path.parent() == Some(folder.as_path())
            && path.file_name() == Some(name.as_os_str())
        {
            return Some(Target::Config);
        }
        let relative = path.strip_prefix(&self.content_root).ok()?;
        if relative.as_os_str().is_empty() {
            // The content folder itself was removed, moved or replaced: its watch is gone.
            return Some(Target::Root);
        }
        let Some(text) = relative.to_str() else {
            // A name that is not UTF-8: a full scan reports it properly.
            return Some(Target::NotUtf8);
        };
        let relative = text.replace(std::path::MAIN_SEPARATOR, "/");
        // Below `.git/`, `_drafts/`, `node_modules/`...: never content, never walked.
        if !self.layout.may_hold_content(&relative) {
            return None;
        }
        let name = relative.rsplit('/').next().unwrap_or(&relative);
        if is_editor_debris(name) {
            return None; // Renamed onto a real file, the other half of the rename names that file.
        }
        Some(Target::Content(relative))
    }
}

/// What a path that reaches the session is.
enum Target {
    Config,
    Root,
    NotUtf8,
    /// Content-relative, `/`-separated.
    Content(String),
}

/// `None` for events that cannot change content (reads, attribute-only changes such as chmod
/// or Spotlight's); else whether the event can change the listing of the path's folder. A new
/// write time is a change: it is how the poll watcher reports a modification. So is a close
/// after writing: a write through a memory map reports nothing else.
fn relevance(kind: &EventKind) -> Option<bool> {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => Some(false),
        EventKind::Access(_) => None,
        EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
            | MetadataKind::Permissions
            | MetadataKind::Ownership
            | MetadataKind::Extended,
        )) => None,
        EventKind::Modify(ModifyKind::Data(DataChange::Any | DataChange::Content))
        | EventKind::Modify(ModifyKind::Metadata(MetadataKind::WriteTime)) => Some(false),
        _ => Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, Flag, RemoveKind, RenameMode};

    fn translate(events: &[Event]) -> Changes {
        let translator = Translator {
            content_root: PathBuf::from("/site/content"),
            layout: crate::source::Layout::seed(),
            config: Some((PathBuf::from("/site"), "watch.toml".into())),
            aliases: Default::default(),
            unmatched: Default::default(),
            watcher: std::sync::Weak::new(),
        };
        let mut changes = Changes::default();
        for event in events {
            translator.add(event, Instant::now(), &mut changes);
        }
        changes
    }

    fn event(kind: EventKind, paths: &[&str]) -> Event {
        paths
            .iter()
            .fold(Event::new(kind), |event, path| event.add_path(path.into()))
    }

    fn sorted(set: &std::collections::BTreeSet<String>) -> Vec<&str> {
        set.iter().map(String::as_str).collect()
    }

    #[test]
    fn paths_become_content_relative_and_debris_is_dropped() {
        let changes = translate(&[
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/blog/en/.x.md.swp"],
            ),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                &["/site/content/blog/en/a.md", "/site/content/blog/es/a.md"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/blog/en/4913"],
            ),
        ]);
        assert_eq!(
            sorted(&changes.content.paths),
            ["blog/en/a.md", "blog/es/a.md"]
        );
        assert!(!changes.config && !changes.content.rescan && !changes.root);
    }

    #[test]
    fn every_half_of_a_rename_names_its_folder_for_listing_again() {
        let changes = translate(&[
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::From)),
                &["/site/content/blog/en/a.md"],
            ),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::To)),
                &["/site/content/blog/es/b.md"],
            ),
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                &["/site/content/tags/rust.md"],
            ),
        ]);
        assert_eq!(sorted(&changes.content.folders), ["blog/en", "blog/es"]);
        assert_eq!(
            sorted(&changes.content.paths),
            ["blog/en/a.md", "blog/es/b.md", "tags/rust.md"]
        );
    }

    #[test]
    fn paths_that_are_never_content_are_dropped() {
        let changes = translate(&[
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/.git/index.lock"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/blog/_drafts/a.md"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/site/content/README.md"],
            ),
        ]);
        assert!(changes.is_empty(), "{changes:?}");
    }

    #[test]
    fn the_content_folder_itself_going_away_is_reported() {
        let changes = translate(&[event(
            EventKind::Remove(RemoveKind::Folder),
            &["/site/content"],
        )]);
        assert!(changes.root && !changes.is_empty());
    }

    #[test]
    fn the_config_file_is_recognised_by_name_in_its_folder() {
        let changes = translate(&[event(
            EventKind::Create(CreateKind::File),
            &["/site/watch.toml"],
        )]);
        assert!(changes.config);
        let changes = translate(&[event(
            EventKind::Create(CreateKind::File),
            &["/site/other.toml"],
        )]);
        assert!(changes.is_empty());
    }

    #[test]
    fn a_rescan_flag_with_or_without_paths_asks_for_a_rescan() {
        let overflow = Event::new(EventKind::Other).set_flag(Flag::Rescan);
        assert!(translate(std::slice::from_ref(&overflow)).content.rescan);
        let overflow = overflow.add_path(PathBuf::from("/site/content/blog"));
        assert!(translate(&[overflow]).content.rescan);
    }

    #[test]
    fn a_new_write_time_counts_as_a_change() {
        let changes = translate(&[event(
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::WriteTime)),
            &["/site/content/blog/en/a.md"],
        )]);
        assert_eq!(changes.content.paths.len(), 1);
    }

    #[test]
    fn a_close_after_writing_counts_as_a_change_and_a_read_does_not() {
        let post = ["/site/content/blog/en/a.md"];
        let closed = event(
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            &post,
        );
        assert_eq!(
            sorted(&translate(&[closed]).content.paths),
            ["blog/en/a.md"]
        );
        let read = event(
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            &post,
        );
        assert!(translate(&[read]).is_empty());
    }

    #[test]
    fn metadata_only_changes_are_ignored() {
        let changes = translate(&[event(
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions)),
            &["/site/content/blog/en/a.md"],
        )]);
        assert!(changes.is_empty());
    }
}
