//! The indexes over published posts (publication order, tag membership, series membership),
//! kept as salsa inputs and updated entry by entry.
//!
//! They could be tracked queries over all posts, but such a query becomes LOW durability as soon
//! as one post is edited, and from then on every output downstream of it (every timeline, every
//! series) is re-validated through it on every rebuild: O(corpus) work per edit. As inputs, an
//! edit sets only the entries whose members changed, and untouched outputs keep their
//! durability, so salsa verifies them in O(1).
//!
//! Each index is a pure function of the per-file summaries (`sort_key`, `post_links`): `build`
//! computes it from scratch, `update` maintains it. The property tests compare watch-mode output
//! with a fresh build after every edit.

mod sorted;

use super::members::{MembersInput, files_of, member_map, sync_members};
use crate::db::{Database, Index, LangIndex, SeriesMembers, SourceFile, TagMembers};
use crate::derive::{post_links, sort_key};
use crate::model::{Lang, ReadingKey, SortKey};
use rayon::prelude::*;
use salsa::{Durability, Setter};
use sorted::Sorted;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// The durability of the post lists (a language's published posts, both languages', one tag's
/// posts) and of `Index::volatile` once an edit changed one. LOW: a file's first edit puts its
/// new input in the lists, and at MEDIUM that would tell salsa that every MEDIUM value may be
/// stale. Only `runs::list_runs` reads a list: it cuts it into interned runs, and what renders
/// a run is keyed by the run, so re-validating after every edit costs one step per run.
pub(super) const LIST_DURABILITY: Durability = Durability::LOW;

/// The durability of the name → members maps once a name appeared or disappeared. Not LOW:
/// every series chapter's entry reads the series map, and would then be re-validated after
/// every later edit.
const MAP_DURABILITY: Durability = Durability::MEDIUM;

/// What a published post contributes to the indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub key: SortKey,
    pub tags: Vec<Arc<str>>,
    pub series: Option<(Arc<str>, Option<i64>)>,
}

impl Summary {
    fn reading_key(&self) -> Option<(Arc<str>, ReadingKey)> {
        let (name, order) = self.series.clone()?;
        Some((
            name,
            ReadingKey {
                order,
                date: self.key.date,
                id: self.key.id.clone(),
            },
        ))
    }
}

/// The summary of `file`, or `None` when it is not a published post.
pub fn summary(db: &dyn salsa::Database, file: SourceFile) -> Option<Summary> {
    let key = sort_key(db, file).clone()?;
    let links = post_links(db, file).as_ref()?;
    Some(Summary {
        key,
        tags: links.tags.clone(),
        series: links.series.clone(),
    })
}

/// The indexes of every language, with the state needed to update them.
pub struct Indexes {
    index: Index,
    /// One per language of the site, in the configuration's order (as `Index::langs`).
    langs: Vec<LangState>,
    /// The durabilities the inputs were made with, for a rebuild's new ones.
    lists: Durability,
    maps: Durability,
}

struct LangState {
    input: LangIndex,
    summaries: HashMap<SourceFile, Summary>,
    published: Vec<(SortKey, SourceFile)>,
    tags: BTreeMap<Arc<str>, Vec<(SortKey, SourceFile)>>,
    series: BTreeMap<Arc<str>, Vec<(ReadingKey, SourceFile)>>,
    /// Members inputs by name, kept when a tag or series empties, for when it comes back.
    tag_inputs: HashMap<Arc<str>, TagMembers>,
    series_inputs: HashMap<Arc<str>, SeriesMembers>,
}

/// Each language's published posts with their summaries, in the site's order.
pub type LangSummaries = Vec<(Lang, Vec<(SourceFile, Summary)>)>;

impl Indexes {
    /// Builds the indexes from every post's summary and creates their inputs: the post lists at
    /// `lists`, the rest (the name maps, series members) at `maps`.
    pub fn build(
        db: &Database,
        posts: LangSummaries,
        lists: Durability,
        maps: Durability,
    ) -> Indexes {
        let langs = lang_states(db, posts, lists, maps);
        // A singleton: queries reach it with `Index::get`.
        let all = merged(&langs);
        let inputs = langs.iter().map(|state| state.input).collect();
        let index = Index::builder(inputs, all, 0, Arc::default())
            .durability(maps)
            .all_durability(lists)
            .runs_epoch_durability(lists)
            .volatile_durability(lists)
            .new(db);
        Indexes {
            index,
            langs,
            lists,
            maps,
        }
    }

    /// Builds every language's index anew (the site's languages changed) and sets the inputs
    /// that hold them.
    pub fn rebuild(&mut self, db: &mut Database, posts: LangSummaries) {
        self.langs = lang_states(db, posts, self.lists, self.maps);
        let inputs: Arc<[LangIndex]> = self.langs.iter().map(|state| state.input).collect();
        self.index
            .set_langs(db)
            .with_durability(MAP_DURABILITY)
            .to(inputs);
        let all = merged(&self.langs);
        self.index
            .set_all(db)
            .with_durability(LIST_DURABILITY)
            .to(all);
        let epoch = self.index.runs_epoch(db) + 1;
        self.index
            .set_runs_epoch(db)
            .with_durability(LIST_DURABILITY)
            .to(epoch);
    }

    /// Re-reads the summaries of `files`, drops the entries of the `deleted` files, and sets the
    /// index entries that changed. Files of a language the site does not have are ignored.
    pub fn update(
        &mut self,
        db: &mut Database,
        files: impl IntoIterator<Item = (Lang, SourceFile)>,
        deleted: impl IntoIterator<Item = (Lang, SourceFile)>,
    ) {
        let changes: Vec<(Lang, SourceFile, Option<Summary>)> = deleted
            .into_iter()
            .map(|(lang, file)| (lang, file, None))
            .chain(
                files
                    .into_iter()
                    .map(|(lang, file)| (lang, file, summary(db, file))),
            )
            .collect();
        let mut touched: Vec<Touched> = self.langs.iter().map(|_| Touched::default()).collect();
        for (lang, file, new) in changes {
            let Some(slot) = self.slot(db, lang) else {
                continue;
            };
            self.langs[slot].apply(file, new, &mut touched[slot]);
        }
        self.commit(db, touched);
    }

    /// The position of `lang` among the site's languages.
    fn slot(&self, db: &Database, lang: Lang) -> Option<usize> {
        self.langs
            .iter()
            .position(|state| state.input.lang(db) == lang)
    }

    /// Puts the new input of each `replaced` pair (old → new, the same path) wherever the
    /// indexes hold the old one, and sets the entries that held it. The summaries move as they
    /// are: [`Indexes::update`] then reads the new contents.
    pub fn replace(&mut self, db: &mut Database, replaced: &HashMap<SourceFile, SourceFile>) {
        let mut touched: Vec<Touched> = self.langs.iter().map(|_| Touched::default()).collect();
        for (state, touched) in self.langs.iter_mut().zip(&mut touched) {
            for (&old, &new) in replaced {
                state.replace(old, new, touched);
            }
        }
        self.commit(db, touched);
    }

    /// Sets the files whose inputs were created in this session (see `Index::volatile`).
    pub fn set_volatile(&mut self, db: &mut Database, files: &HashSet<SourceFile>) {
        self.index
            .set_volatile(db)
            .with_durability(LIST_DURABILITY)
            .to(Arc::new(files.clone()));
    }

    /// Sets the inputs of what `touched` says may have changed.
    fn commit(&mut self, db: &mut Database, touched: Vec<Touched>) {
        let order_touched = touched.iter().any(|t| t.published);
        let mut lists_changed = false;
        for (state, touched) in self.langs.iter_mut().zip(touched) {
            lists_changed |= state.commit(db, touched);
        }
        if order_touched {
            let all = merged(&self.langs);
            if **self.index.all(db) != *all {
                self.index
                    .set_all(db)
                    .with_durability(LIST_DURABILITY)
                    .to(all);
                lists_changed = true;
            }
        }
        if lists_changed {
            let epoch = self.index.runs_epoch(db) + 1;
            self.index
                .set_runs_epoch(db)
                .with_durability(LIST_DURABILITY)
                .to(epoch);
        }
    }

    /// Every post file the indexes know as published.
    pub fn published_files<'a>(
        &'a self,
        db: &'a Database,
    ) -> impl Iterator<Item = (Lang, SourceFile)> + 'a {
        self.langs.iter().flat_map(move |state| {
            let lang = state.input.lang(db);
            state.summaries.keys().map(move |file| (lang, *file))
        })
    }
}

/// Each language's index state with its inputs. Sorting is pure work, done on every thread;
/// the inputs are then created in the site's order, so their ids do not depend on the threads.
fn lang_states(
    db: &Database,
    posts: LangSummaries,
    lists: Durability,
    maps: Durability,
) -> Vec<LangState> {
    let sorted: Vec<(Lang, Sorted)> = posts
        .into_par_iter()
        .map(|(lang, posts)| (lang, Sorted::of(posts)))
        .collect();
    sorted
        .into_iter()
        .map(|(lang, sorted)| LangState::build(db, lang, sorted, lists, maps))
        .collect()
}

/// Every language's published posts in one newest-first list (a merge of sorted lists; a
/// site has a handful of languages, so each step scans their heads).
fn merged(langs: &[LangState]) -> Arc<[(SortKey, SourceFile)]> {
    let mut heads = vec![0usize; langs.len()];
    let mut out = Vec::with_capacity(langs.iter().map(|l| l.published.len()).sum());
    loop {
        let mut next: Option<usize> = None;
        for (i, state) in langs.iter().enumerate() {
            let Some(candidate) = state.published.get(heads[i]) else {
                continue;
            };
            let better = next.is_none_or(|n| {
                SortKey::newest_first(&candidate.0, &langs[n].published[heads[n]].0)
                    == std::cmp::Ordering::Less
            });
            if better {
                next = Some(i);
            }
        }
        let Some(i) = next else { break };
        out.push(langs[i].published[heads[i]].clone());
        heads[i] += 1;
    }
    out.into()
}

/// What an update may have changed in one language.
#[derive(Default)]
struct Touched {
    published: bool,
    tags: BTreeSet<Arc<str>>,
    series: BTreeSet<Arc<str>>,
}

impl LangState {
    /// The state of one language's indexes, with their inputs created.
    fn build(
        db: &Database,
        lang: Lang,
        sorted: Sorted,
        lists: Durability,
        maps: Durability,
    ) -> LangState {
        let Sorted {
            summaries,
            published,
            tags,
            series,
        } = sorted;
        let mut state = LangState {
            input: LangIndex::builder(lang, Arc::from([]), Arc::default(), Arc::default())
                .durability(maps)
                .published_durability(lists)
                .new(db),
            summaries,
            published,
            tags,
            series,
            tag_inputs: HashMap::new(),
            series_inputs: HashMap::new(),
        };
        for (tag, members) in &state.tags {
            let input = TagMembers::create(db, lang, tag.clone(), files_of(members), lists);
            state.tag_inputs.insert(tag.clone(), input);
        }
        for (name, chapters) in &state.series {
            let input = SeriesMembers::create(db, lang, name.clone(), files_of(chapters), maps);
            state.series_inputs.insert(name.clone(), input);
        }
        // The inputs are created with their final values: no setter, so no new revision.
        state.input = LangIndex::builder(
            lang,
            state.published.clone().into(),
            Arc::new(member_map(&state.tags, &state.tag_inputs)),
            Arc::new(member_map(&state.series, &state.series_inputs)),
        )
        .durability(maps)
        .published_durability(lists)
        .new(db);
        state
    }

    /// Puts `new` where the in-memory indexes hold `old` (same summary, so same positions).
    fn replace(&mut self, old: SourceFile, new: SourceFile, touched: &mut Touched) {
        let Some(summary) = self.summaries.remove(&old) else {
            return;
        };
        swap_sorted(
            &mut self.published,
            &summary.key,
            old,
            new,
            SortKey::newest_first,
        );
        for tag in &summary.tags {
            if let Some(members) = self.tags.get_mut(tag) {
                swap_sorted(members, &summary.key, old, new, SortKey::newest_first);
            }
            touched.tags.insert(tag.clone());
        }
        if let Some((name, key)) = summary.reading_key() {
            if let Some(chapters) = self.series.get_mut(&name) {
                swap_sorted(chapters, &key, old, new, ReadingKey::reading_order);
            }
            touched.series.insert(name);
        }
        self.summaries.insert(new, summary);
        touched.published = true;
    }

    /// Replaces `file`'s contribution with `new` in the in-memory indexes.
    fn apply(&mut self, file: SourceFile, new: Option<Summary>, touched: &mut Touched) {
        let old = self.summaries.get(&file).cloned();
        if old == new {
            return;
        }
        if let Some(old) = &old {
            remove_sorted(&mut self.published, &old.key, file, SortKey::newest_first);
            for tag in &old.tags {
                if let Some(members) = self.tags.get_mut(tag) {
                    remove_sorted(members, &old.key, file, SortKey::newest_first);
                }
                touched.tags.insert(tag.clone());
            }
            if let Some((name, key)) = old.reading_key() {
                if let Some(chapters) = self.series.get_mut(&name) {
                    remove_sorted(chapters, &key, file, ReadingKey::reading_order);
                }
                touched.series.insert(name);
            }
            self.summaries.remove(&file);
        }
        if let Some(new) = new {
            insert_sorted(
                &mut self.published,
                new.key.clone(),
                file,
                SortKey::newest_first,
            );
            for tag in &new.tags {
                let members = self.tags.entry(tag.clone()).or_default();
                insert_sorted(members, new.key.clone(), file, SortKey::newest_first);
                touched.tags.insert(tag.clone());
            }
            if let Some((name, key)) = new.reading_key() {
                insert_sorted(
                    self.series.entry(name.clone()).or_default(),
                    key,
                    file,
                    ReadingKey::reading_order,
                );
                touched.series.insert(name);
            }
            self.summaries.insert(file, new);
        }
        touched.published = true;
    }

    /// Sets every index input whose value differs from the in-memory index: lists and maps at
    /// [`LIST_DURABILITY`], the name maps at [`MAP_DURABILITY`], one tag's or series' members at
    /// [`MEMBERS_DURABILITY`](super::members::MEMBERS_DURABILITY).
    /// Returns whether a post list (the published posts, a tag's members) was set.
    fn commit(&mut self, db: &mut Database, touched: Touched) -> bool {
        let lang = self.input.lang(db);
        let mut lists_changed = false;
        if touched.published && **self.input.published(db) != *self.published {
            self.input
                .set_published(db)
                .with_durability(LIST_DURABILITY)
                .to(self.published.clone().into());
            lists_changed = true;
        }
        let listed = self.input.tags(db).clone();
        let (map, tags_changed) = sync_members(
            db,
            LIST_DURABILITY,
            lang,
            touched.tags,
            &mut self.tags,
            &mut self.tag_inputs,
            &listed,
        );
        if let Some(map) = map {
            self.input
                .set_tags(db)
                .with_durability(MAP_DURABILITY)
                .to(map);
        }
        let listed = self.input.series(db).clone();
        let (map, _) = sync_members(
            db,
            MAP_DURABILITY,
            lang,
            touched.series,
            &mut self.series,
            &mut self.series_inputs,
            &listed,
        );
        if let Some(map) = map {
            self.input
                .set_series(db)
                .with_durability(MAP_DURABILITY)
                .to(map);
        }
        lists_changed || tags_changed
    }
}

/// Inserts `(key, file)` where `order` puts it (the lists are kept sorted).
fn insert_sorted<K>(
    list: &mut Vec<(K, SourceFile)>,
    key: K,
    file: SourceFile,
    order: fn(&K, &K) -> std::cmp::Ordering,
) {
    let at = list.partition_point(|(k, _)| order(k, &key) == std::cmp::Ordering::Less);
    list.insert(at, (key, file));
}

/// Replaces `(key, old)` by `(key, new)`, found like [`remove_sorted`] finds it.
fn swap_sorted<K: PartialEq>(
    list: &mut [(K, SourceFile)],
    key: &K,
    old: SourceFile,
    new: SourceFile,
    order: fn(&K, &K) -> std::cmp::Ordering,
) {
    let at = list.partition_point(|(k, _)| order(k, key) == std::cmp::Ordering::Less);
    let at = match list.get(at) {
        Some((k, f)) if k == key && *f == old => Some(at),
        _ => list.iter().position(|(_, f)| *f == old),
    };
    if let Some(at) = at {
        list[at].1 = new;
    }
}

/// Removes `(key, file)`, found by binary search on `key` (ids make keys unique).
fn remove_sorted<K: PartialEq>(
    list: &mut Vec<(K, SourceFile)>,
    key: &K,
    file: SourceFile,
    order: fn(&K, &K) -> std::cmp::Ordering,
) {
    let at = list.partition_point(|(k, _)| order(k, key) == std::cmp::Ordering::Less);
    if list.get(at).is_some_and(|(k, f)| k == key && *f == file) {
        list.remove(at);
    } else if let Some(at) = list.iter().position(|(_, f)| *f == file) {
        // Not where the key says (cannot happen with unique ids); stay correct anyway.
        list.remove(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timestamp;

    fn key(date: &str, id: &str) -> SortKey {
        SortKey {
            date: Timestamp::parse(date).unwrap(),
            id: id.into(),
        }
    }

    #[test]
    fn sorted_lists_stay_sorted_through_inserts_and_removals() {
        let db = Database::default();
        let files: Vec<SourceFile> = (0..4)
            .map(|i| {
                SourceFile::new(
                    &db,
                    crate::content::ContentPath::new(&format!("blog/en/x{i}.md")).unwrap(),
                    crate::content::FileRole::Ignored,
                    crate::content::FileContents::Missing,
                )
            })
            .collect();
        let mut list = Vec::new();
        let keys = [
            key("2024-01-02", "en/b"),
            key("2024-01-03", "en/a"),
            key("2024-01-02", "en/a"),
            key("2023-01-01", "en/z"),
        ];
        for (k, f) in keys.iter().zip(&files) {
            insert_sorted(&mut list, k.clone(), *f, SortKey::newest_first);
        }
        let ids: Vec<&str> = list.iter().map(|(k, _)| &*k.id).collect();
        assert_eq!(ids, ["en/a", "en/a", "en/b", "en/z"]);
        assert_eq!(list[1].1, files[2], "equal dates break on id");
        remove_sorted(&mut list, &keys[0], files[0], SortKey::newest_first);
        let ids: Vec<&str> = list.iter().map(|(k, _)| &*k.id).collect();
        assert_eq!(ids, ["en/a", "en/a", "en/z"]);
    }
}
