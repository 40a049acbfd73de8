//! Which touched paths are still being saved: a batch whose saves are all finished is handed
//! on at once, one with a save in progress waits out the quiet period.
//!
//! What inotify says about the saves that editors and tools perform:
//! - in place (VS Code, nano, `cp`, `git checkout`, emacs after its first save): a create or a
//!   truncate, writes, then a close after writing (`IN_CLOSE_WRITE`);
//! - atomic (most editors, `sed -i`, rsync's hidden temporary file): a temporary file written
//!   and closed, then renamed over the path, whose rename-to half says it is complete;
//! - vim's `backupcopy=no`, emacs's first save: the path is renamed to a backup (`x~`), so it
//!   is missing until it is written anew and closed;
//! - JetBrains' safe write: the path is renamed to `x___jb_old___`, then `x___jb_tmp___` is
//!   renamed over it.
//!
//! So a path is unfinished after a create, a write or any other event without a close, and
//! after a rename away from it unless the rename ends on a path that is followed (a move of a
//! post; a backup or a path outside the content is not one, the editor is about to write the
//! path again). A close after writing and a rename onto the path finish it. Attribute changes
//! and reads change nothing.
//!
//! A removal leaves its path unfinished too: one `rm` cannot be told from the first of a
//! tree's removals (`rm -rf content`, `rsync --delete`, a sync tool replacing the folder),
//! which take longer than the settle time whenever the remover is descheduled, and a batch
//! handed on midway would publish a half-deleted site, where waiting lets the session see the
//! content folder gone and keep the last good output. Deleting a post is rare next to saving
//! one: it keeps the quiet period. Renames that inotify cannot pair (the other
//! half outside the watch) and platforms without close events (FSEvents, Windows, the poll
//! watcher) just wait the quiet period, as every event did before.

use super::translate::Translator;
use notify::Event;
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The followed paths of one batch whose last event left a save unfinished.
#[derive(Debug, Default)]
pub(super) struct Saves {
    unfinished: BTreeSet<PathBuf>,
}

impl Saves {
    /// True when no save of the batch is in progress.
    pub(super) fn all_finished(&self) -> bool {
        self.unfinished.is_empty()
    }

    /// Adds what `event` says about the saves of the paths `translator` follows.
    pub(super) fn add(&mut self, event: &Event, translator: &Translator) {
        let followed = event.paths.iter().filter(|p| translator.follows(p));
        match &event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Modify(ModifyKind::Name(RenameMode::To)) => {
                for path in followed {
                    self.unfinished.remove(path);
                }
            }
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                // notify names the source first, the destination second.
                let (Some(from), Some(to)) = (event.paths.first(), event.paths.get(1)) else {
                    return self.start(followed);
                };
                self.unfinished.remove(to);
                if translator.follows(to) {
                    self.unfinished.remove(from);
                } else if translator.follows(from) {
                    self.unfinished.insert(from.clone());
                }
            }
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => {}
            _ => self.start(followed),
        }
    }

    fn start<'a>(&mut self, paths: impl Iterator<Item = &'a PathBuf>) {
        self.unfinished.extend(paths.cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind};

    const POST: &str = "/c/blog/en/2024-01-01_a.md";

    fn close_write() -> EventKind {
        EventKind::Access(AccessKind::Close(AccessMode::Write))
    }
    fn write() -> EventKind {
        EventKind::Modify(ModifyKind::Data(DataChange::Any))
    }
    fn create() -> EventKind {
        EventKind::Create(CreateKind::File)
    }
    fn rename(mode: RenameMode) -> EventKind {
        EventKind::Modify(ModifyKind::Name(mode))
    }

    /// Whether all saves are finished after each event of `events`.
    fn finished_after(events: &[(EventKind, &[&str])]) -> Vec<bool> {
        let translator = Translator {
            content_root: PathBuf::from("/c"),
            layout: crate::source::Layout::seed(),
            config: Some((PathBuf::from("/"), "watch.toml".into())),
            aliases: Default::default(),
            unmatched: Default::default(),
            watcher: std::sync::Weak::new(),
        };
        let mut saves = Saves::default();
        events
            .iter()
            .map(|(kind, paths)| {
                let event = paths
                    .iter()
                    .fold(Event::new(*kind), |e, p| e.add_path(p.into()));
                saves.add(&event, &translator);
                saves.all_finished()
            })
            .collect()
    }

    #[test]
    fn an_in_place_write_is_finished_by_its_close() {
        let post: &[&str] = &[POST];
        assert_eq!(
            finished_after(&[(write(), post), (write(), post), (close_write(), post)]),
            [false, false, true]
        );
        assert_eq!(
            finished_after(&[(create(), post), (write(), post), (close_write(), post)]),
            [false, false, true]
        );
    }

    #[test]
    fn an_atomic_save_is_finished_by_the_rename_onto_the_post() {
        let temp = "/c/blog/en/.2024-01-01_a.md.tmp";
        assert_eq!(
            finished_after(&[
                (create(), &[temp]),
                (write(), &[temp]),
                (close_write(), &[temp]),
                (rename(RenameMode::From), &[temp]),
                (rename(RenameMode::To), &[POST]),
                (rename(RenameMode::Both), &[temp, POST]),
            ]),
            // The temporary file is scratch: only the post's own events count.
            [true, true, true, true, true, true]
        );
        // `sed -i`'s `sedXXXXXX` is scratch too: the save is finished once it is on the post.
        let sed = "/c/blog/en/sedAb12Cd";
        assert_eq!(
            finished_after(&[
                (create(), &[sed]),
                (close_write(), &[sed]),
                (rename(RenameMode::From), &[sed]),
                (rename(RenameMode::To), &[POST]),
                (rename(RenameMode::Both), &[sed, POST]),
            ]),
            [true, true, true, true, true]
        );
    }

    #[test]
    fn a_post_renamed_to_a_backup_waits_for_its_new_version() {
        let backup = "/c/blog/en/2024-01-01_a.md~";
        let post: &[&str] = &[POST];
        assert_eq!(
            finished_after(&[
                (rename(RenameMode::From), post),
                (rename(RenameMode::To), &[backup]),
                (rename(RenameMode::Both), &[POST, backup]),
                (create(), post),
                (write(), post),
                (close_write(), post),
                (
                    EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
                    post
                ),
                (EventKind::Remove(RemoveKind::File), &[backup]),
            ]),
            [false, false, false, false, false, true, true, true]
        );
        // JetBrains' safe write.
        let old = "/c/blog/en/2024-01-01_a.md___jb_old___";
        let tmp = "/c/blog/en/2024-01-01_a.md___jb_tmp___";
        assert_eq!(
            finished_after(&[
                (create(), &[tmp]),
                (close_write(), &[tmp]),
                (rename(RenameMode::From), post),
                (rename(RenameMode::To), &[old]),
                (rename(RenameMode::Both), &[POST, old]),
                (rename(RenameMode::From), &[tmp]),
                (rename(RenameMode::To), post),
                (rename(RenameMode::Both), &[tmp, POST]),
            ]),
            [true, true, false, false, false, false, true, true]
        );
    }

    #[test]
    fn a_move_is_finished_once_both_halves_are_seen() {
        let other = "/c/blog/es/2024-01-01_a.md";
        assert_eq!(
            finished_after(&[
                (rename(RenameMode::From), &[POST]),
                (rename(RenameMode::To), &[other]),
                (rename(RenameMode::Both), &[POST, other]),
            ]),
            [false, false, true]
        );
        // Moved out of the content: the other half is never seen.
        assert_eq!(
            finished_after(&[(rename(RenameMode::From), &[POST])]),
            [false]
        );
    }

    #[test]
    fn removals_and_folders_being_filled_wait() {
        assert_eq!(
            finished_after(&[
                (EventKind::Remove(RemoveKind::File), &[POST]),
                (EventKind::Remove(RemoveKind::Folder), &["/c/blog/en"]),
            ]),
            [false, false]
        );
        assert_eq!(
            finished_after(&[
                (EventKind::Create(CreateKind::Folder), &["/c/blog/en/new"]),
                (create(), &["/c/blog/en/new/2024-01-01_b.md"]),
                (close_write(), &["/c/blog/en/new/2024-01-01_b.md"]),
            ]),
            [false, false, false]
        );
    }

    #[test]
    fn the_config_file_follows_the_same_rule() {
        let config: &[&str] = &["/watch.toml"];
        assert_eq!(
            finished_after(&[(write(), config), (close_write(), config)]),
            [false, true]
        );
    }
}
