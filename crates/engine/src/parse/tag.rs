//! Taxonomy tags: `tags/<name>.md`, front matter only.

use super::fields::FrontMatter;
use super::keys::unknown_keys;
use super::{Parsed, frontmatter, named_stem, text_or_failure};
use crate::content::FileRole;
use crate::db::SourceFile;
use crate::model::{TagDef, Tier};

/// Parses a tag file: its value and every diagnostic.
#[salsa::tracked(returns(ref))]
pub fn parse_tag(db: &dyn salsa::Database, file: SourceFile) -> Parsed<TagDef> {
    let FileRole::Tag { name } = file.role(db).clone() else {
        unreachable!("parse_tag is only called on tag files")
    };
    match text_or_failure(db, file) {
        Ok(text) => parse_tag_text(file.path(db).as_str(), &name, text),
        Err(parsed) => parsed,
    }
}

/// The tag's value alone, for the queries that need no diagnostics: a change of only
/// its diagnostics reruns none of them.
#[salsa::tracked(returns(ref))]
pub fn tag_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<TagDef> {
    parse_tag(db, file).value.clone()
}

/// Every key a tag's front matter may hold.
pub const TAG_KEYS: &[&str] = &["name", "description", "tier", "parent", "order"];

/// Parses the text of a tag file (`path` for messages, `stem` its name), outside the database.
pub fn parse_tag_text(path: &str, stem: &str, text: &str) -> Parsed<TagDef> {
    let split = match frontmatter::split(path, text) {
        Ok(split) => split,
        Err(diagnostic) => return Parsed::failed(diagnostic),
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let file_name = named_stem(path, stem, "tag");
    let name = front.required_string("name");
    if let (Some(name), Ok(stem)) = (&name, &file_name)
        && name.as_str() != &**stem
    {
        front.invalid(
            "name",
            format!("tag `name` is `{name}` but the file is named `{stem}.md`"),
            "must equal the file name without .md",
            "make the two equal: the file name is the tag's URL segment",
        );
    }
    let description = front.string("description").unwrap_or_default();
    let tier = match front.string("tier") {
        None => Some(Tier::Primary),
        Some(value) => {
            let tier = Tier::from_front_matter(&value);
            if tier.is_none() {
                front.invalid(
                    "tier",
                    format!("unknown tag `tier`: `{value}`"),
                    "expected primary, secondary or subtopic",
                    "use one of primary, secondary, subtopic (or leave it out for primary)",
                );
            }
            tier
        }
    };
    let parent = front.slug("parent");
    let order = front.integer("order").unwrap_or(0);
    let unknown_keys = unknown_keys(&front, TAG_KEYS, |_| false);
    let mut diagnostics = std::mem::take(&mut front.diagnostics);
    let name_ok = match file_name {
        Ok(stem) => Some(stem),
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            None
        }
    };
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let value = match (has_errors, name_ok, tier) {
        (false, Some(name), Some(tier)) => Some(TagDef {
            name,
            description,
            tier,
            parent,
            order,
        }),
        _ => None,
    };
    Parsed {
        value,
        diagnostics,
        body_start: split.body_start,
        unknown_keys,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_defaults_to_primary() {
        let tag = parse_tag_text("tags/rust.md", "rust", "---\nname: rust\n---\n");
        assert_eq!(tag.value.unwrap().tier, Tier::Primary);
    }

    #[test]
    fn the_name_must_match_the_file() {
        let tag = parse_tag_text(
            "tags/rust.md",
            "rust",
            "---\nname: \"Rust\"\ntier: subtopic\n---\n",
        );
        assert!(tag.value.is_none());
        assert!(
            tag.diagnostics[0]
                .message
                .contains("file is named `rust.md`")
        );
    }

    #[test]
    fn an_unknown_tier_is_an_error() {
        let tag = parse_tag_text(
            "tags/rust.md",
            "rust",
            "---\nname: rust\ntier: tertiary\n---\n",
        );
        assert!(tag.diagnostics[0].message.contains("unknown tag `tier`"));
    }
}
