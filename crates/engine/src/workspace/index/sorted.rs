//! One language's posts sorted as its indexes keep them: pure work, done for both languages
//! at once before `Indexes::build` creates any input.

use super::Summary;
use crate::db::SourceFile;
use crate::model::{ReadingKey, SortKey};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// One language's posts in the orders its indexes keep, before any input exists.
pub(super) struct Sorted {
    pub(super) summaries: HashMap<SourceFile, Summary>,
    pub(super) published: Vec<(SortKey, SourceFile)>,
    pub(super) tags: BTreeMap<Arc<str>, Vec<(SortKey, SourceFile)>>,
    pub(super) series: BTreeMap<Arc<str>, Vec<(ReadingKey, SourceFile)>>,
}

impl Sorted {
    pub(super) fn of(posts: Vec<(SourceFile, Summary)>) -> Sorted {
        let mut sorted = Sorted {
            summaries: HashMap::with_capacity(posts.len()),
            published: Vec::with_capacity(posts.len()),
            tags: BTreeMap::new(),
            series: BTreeMap::new(),
        };
        for (file, summary) in posts {
            sorted.published.push((summary.key.clone(), file));
            for tag in &summary.tags {
                sorted
                    .tags
                    .entry(tag.clone())
                    .or_default()
                    .push((summary.key.clone(), file));
            }
            if let Some((name, key)) = summary.reading_key() {
                sorted.series.entry(name).or_default().push((key, file));
            }
            sorted.summaries.insert(file, summary);
        }
        sorted
            .published
            .sort_by(|a, b| SortKey::newest_first(&a.0, &b.0));
        for members in sorted.tags.values_mut() {
            members.sort_by(|a, b| SortKey::newest_first(&a.0, &b.0));
        }
        for chapters in sorted.series.values_mut() {
            chapters.sort_by(|a, b| ReadingKey::reading_order(&a.0, &b.0));
        }
        sorted
    }
}
