//! Agent skills: each valid `agent-skills/<name>/SKILL.md` of the content is published byte for
//! byte at `.well-known/agent-skills/<name>/SKILL.md`, and listed in the discovery index
//! `.well-known/agent-skills/index.json`.
//!
//! The index follows the Agent Skills Discovery draft v0.2.0 ("Agent Skills Discovery via
//! Well-Known URIs", cloudflare/agent-skills-discovery-rfc, as published at
//! agentskills.io/well-known-uri): a `$schema` URI and a `skills` array whose entries have
//! `name`, `type` (`skill-md`: a single SKILL.md artifact), `description`, `url` and `digest`
//! (`sha256:` and the hex SHA-256 of the artifact's exact bytes).

use super::skill_output_file;
use super::text::sha256_digest;
use crate::db::{Globals, SourceFile};
use crate::output::Output;
use crate::parse::skill_meta;
use serde::Serialize;
use std::sync::Arc;

/// The `$schema` of a v0.2.0 discovery index.
pub const SKILLS_INDEX_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// The published skills (those whose SKILL.md is valid), sorted by name.
#[salsa::tracked(returns(ref))]
pub fn published_skills(db: &dyn salsa::Database) -> Arc<[(Arc<str>, SourceFile)]> {
    let mut skills: Vec<(Arc<str>, SourceFile)> = Globals::get(db)
        .skills(db)
        .iter()
        .filter_map(|&file| Some((skill_meta(db, file).as_ref()?.name.clone(), file)))
        .collect();
    skills.sort_by(|a, b| a.0.cmp(&b.0));
    skills.into()
}

/// A published skill file: its bytes, unchanged, and their digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    pub output: Output,
    pub digest: String,
}

/// The skill file as published: `None` when the file is not usable text.
#[salsa::tracked(returns(ref))]
pub fn skill_file(db: &dyn salsa::Database, file: SourceFile) -> Option<SkillFile> {
    let text = file.contents(db).text()?;
    Some(SkillFile {
        digest: sha256_digest(text.as_bytes()),
        output: Output::new(text),
    })
}

#[derive(Serialize)]
struct SkillsIndex<'a> {
    #[serde(rename = "$schema")]
    schema: &'a str,
    skills: Vec<SkillEntry<'a>>,
}

#[derive(Serialize)]
struct SkillEntry<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    description: &'a str,
    url: String,
    digest: &'a str,
}

/// `.well-known/agent-skills/index.json`.
#[salsa::tracked(returns(ref))]
pub fn skills_index_json(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let skills = published_skills(db)
        .iter()
        .filter_map(|(name, file)| {
            let meta = skill_meta(db, *file).as_ref()?;
            let published = skill_file(db, *file).as_ref()?;
            Some(SkillEntry {
                name,
                kind: "skill-md",
                description: &meta.description,
                url: config.url(&format!("/{}", skill_output_file(name))),
                digest: &published.digest,
            })
        })
        .collect();
    let index = SkillsIndex {
        schema: SKILLS_INDEX_SCHEMA,
        skills,
    };
    Output::new(crate::wire::to_json(&index))
}
