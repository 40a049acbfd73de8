//! An envelope whose list is cached per entry, serialized around the list: the JSON before and
//! after its `wire::Fragments` field, with the entries' chunks in between, so a one-entry change
//! re-serializes only the envelope.

use crate::output::Chunk;
use crate::wire::around_fragments;
use serde::Serialize;

/// Serializes an envelope holding one `Fragments` field, with the `array` chunks in its place.
pub fn to_json_spliced<T: Serialize>(envelope: &T, array: Vec<Chunk>) -> Vec<Chunk> {
    let (before, after) = around_fragments(envelope);
    let mut chunks = Vec::with_capacity(array.len() + 2);
    chunks.push(Chunk::from(before));
    chunks.extend(array);
    chunks.push(Chunk::from(after));
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{Output, json_array};
    use crate::wire::{Fragments, Language, TagTimeline};

    #[test]
    fn fragments_are_spliced_into_their_envelope() {
        let array = json_array(["{\"a\":1}".into(), "{\"a\":2}".into()]);
        let timeline = TagTimeline {
            tag: "rust",
            lang: Language(crate::model::Lang::ES),
            total: 2,
            posts: Fragments,
        };
        let spliced = Output::from_chunks(to_json_spliced(&timeline, array));
        assert_eq!(
            String::from_utf8(spliced.to_vec().unwrap()).unwrap(),
            r#"{"tag":"rust","lang":"es","total":2,"posts":[{"a":1},{"a":2}]}"#
        );
    }
}
