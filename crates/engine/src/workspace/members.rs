//! One tag's or one series' members in one language, as salsa inputs (`TagMembers`,
//! `SeriesMembers`): created when a name first gets a published post, set only when its list of
//! files differs, and kept when the list empties, for when the name comes back.

use crate::content::ContentPath;
use crate::db::{Database, SeriesMembers, SourceFile, TagMembers};
use crate::model::Lang;
use salsa::{Durability, Setter};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The durability of one tag's or one series' members once an edit changed them. These are
/// read only by that tag's or series' own outputs (its timeline or detail, its chapters'
/// positions, its line in `llms.txt`), so LOW keeps the re-validation of later edits to those,
/// while a MEDIUM change would make salsa re-validate everything that reads any list: a tag
/// edit would cost O(corpus).
pub(super) const MEMBERS_DURABILITY: Durability = Durability::LOW;

/// A members input: one tag's or one series' published files in one language.
pub(super) trait MembersInput: Copy {
    fn create(
        db: &Database,
        lang: Lang,
        name: Arc<str>,
        files: Arc<[SourceFile]>,
        durability: Durability,
    ) -> Self;
    fn files(self, db: &Database) -> &Arc<[SourceFile]>;
    /// Whether the input holds `files` as they are now.
    fn holds(self, db: &Database, files: &[SourceFile]) -> bool {
        **self.files(db) == *files
    }
    fn set_files_to(self, db: &mut Database, files: Arc<[SourceFile]>);
}

impl MembersInput for TagMembers {
    fn create(
        db: &Database,
        lang: Lang,
        name: Arc<str>,
        files: Arc<[SourceFile]>,
        durability: Durability,
    ) -> Self {
        TagMembers::builder(lang, name, files)
            .durability(durability)
            .new(db)
    }
    fn files(self, db: &Database) -> &Arc<[SourceFile]> {
        TagMembers::files(self, db)
    }
    fn set_files_to(self, db: &mut Database, files: Arc<[SourceFile]>) {
        self.set_files(db)
            .with_durability(MEMBERS_DURABILITY)
            .to(files);
    }
}

/// A series' members also hold their paths, set only when they differ: a chapter's first edit
/// (a new input, the same path) changes `files` alone.
impl MembersInput for SeriesMembers {
    fn create(
        db: &Database,
        lang: Lang,
        name: Arc<str>,
        files: Arc<[SourceFile]>,
        durability: Durability,
    ) -> Self {
        let paths = paths_of(db, &files);
        SeriesMembers::builder(lang, name, files, paths)
            .durability(durability)
            .new(db)
    }
    fn files(self, db: &Database) -> &Arc<[SourceFile]> {
        SeriesMembers::files(self, db)
    }
    /// The paths too: a deleted chapter's input, pooled, may come back at another path
    /// (`Workspace::put`), and an emptied series keeps its input, so equal files can hold old
    /// paths.
    fn holds(self, db: &Database, files: &[SourceFile]) -> bool {
        **self.files(db) == *files && *self.paths(db) == paths_of(db, files)
    }
    fn set_files_to(self, db: &mut Database, files: Arc<[SourceFile]>) {
        let paths = paths_of(db, &files);
        if *self.paths(db) != paths {
            self.set_paths(db)
                .with_durability(MEMBERS_DURABILITY)
                .to(paths);
        }
        if **self.files(db) != *files {
            self.set_files(db)
                .with_durability(MEMBERS_DURABILITY)
                .to(files);
        }
    }
}

fn paths_of(db: &Database, files: &[SourceFile]) -> Arc<[ContentPath]> {
    files.iter().map(|file| file.path(db).clone()).collect()
}

/// The name → members input map a `LangIndex` holds.
pub(super) type MemberMap<M> = Arc<BTreeMap<Arc<str>, M>>;

/// Brings the members inputs of the `touched` names up to date with `lists`, dropping names
/// whose list emptied (their inputs are kept, for when they come back). Returns the new
/// name → input map when the set of names differs from `listed`, the map the index holds, and
/// whether any members input was created or set. A new name's input is created at `created`
/// durability.
pub(super) fn sync_members<K, M: MembersInput>(
    db: &mut Database,
    created: Durability,
    lang: Lang,
    touched: BTreeSet<Arc<str>>,
    lists: &mut BTreeMap<Arc<str>, Vec<(K, SourceFile)>>,
    inputs: &mut HashMap<Arc<str>, M>,
    listed: &BTreeMap<Arc<str>, M>,
) -> (Option<MemberMap<M>>, bool) {
    let mut names_changed = false;
    let mut members_changed = false;
    for name in touched {
        let files = lists
            .get(&name)
            .map(|members| files_of(members))
            .filter(|files| !files.is_empty());
        if files.is_none() {
            lists.remove(&name);
        }
        names_changed |= listed.contains_key(&name) != files.is_some();
        let Some(files) = files else { continue };
        match inputs.get(&name) {
            Some(&input) if input.holds(db, &files) => {}
            Some(&input) => {
                input.set_files_to(db, files);
                members_changed = true;
            }
            None => {
                let input = M::create(db, lang, name.clone(), files, created);
                inputs.insert(name, input);
                members_changed = true;
            }
        }
    }
    let map = names_changed.then(|| Arc::new(member_map(lists, inputs)));
    (map, members_changed)
}

/// Name → members input, for every name with members.
pub(super) fn member_map<K, M: Copy>(
    lists: &BTreeMap<Arc<str>, Vec<(K, SourceFile)>>,
    inputs: &HashMap<Arc<str>, M>,
) -> BTreeMap<Arc<str>, M> {
    lists
        .keys()
        .map(|name| (name.clone(), inputs[name]))
        .collect()
}

pub(super) fn files_of<K>(members: &[(K, SourceFile)]) -> Arc<[SourceFile]> {
    members.iter().map(|(_, file)| *file).collect()
}
