//! The tag taxonomy.

use crate::db::Site;
use crate::model::{TagDef, Tier};
use crate::parse::tag_meta;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every valid tag definition by name.
#[salsa::tracked(returns(ref))]
pub fn tag_definitions(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, TagDef>> {
    let tags = Site::get(db).tags(db);
    Arc::new(
        tags.iter()
            .filter_map(|&file| tag_meta(db, file).clone())
            .map(|tag| (tag.name.clone(), tag))
            .collect(),
    )
}

/// Tag name → tier. Separate from the definitions so that editing a tag's description does not
/// invalidate every post's index entry.
#[salsa::tracked(returns(ref))]
pub fn tag_tiers(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, Tier>> {
    Arc::new(
        tag_definitions(db)
            .iter()
            .map(|(name, tag)| (name.clone(), tag.tier))
            .collect(),
    )
}
