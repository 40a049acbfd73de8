//! Agent skills: `agent-skills/<name>/SKILL.md`, published as they are.

use super::fields::FrontMatter;
use super::{Parsed, frontmatter, named_stem, text_or_failure};
use crate::content::FileRole;
use crate::db::SourceFile;
use crate::model::SkillMeta;

/// Parses an agent skill file: its value and every diagnostic.
#[salsa::tracked(returns(ref))]
pub fn parse_skill(db: &dyn salsa::Database, file: SourceFile) -> Parsed<SkillMeta> {
    let FileRole::Skill { name } = file.role(db).clone() else {
        unreachable!("parse_skill is only called on skill files")
    };
    let path = file.path(db).as_str();
    let text = match text_or_failure(db, file) {
        Ok(text) => text,
        Err(parsed) => return parsed,
    };
    let split = match frontmatter::split(path, text) {
        Ok(split) => split,
        Err(diagnostic) => return Parsed::failed(diagnostic),
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let folder = named_stem(path, &name, "skill");
    let declared = front.required_string("name");
    if let (Some(declared), Ok(folder)) = (&declared, &folder)
        && declared.as_str() != &**folder
    {
        front.invalid(
            "name",
            format!("skill `name` is `{declared}` but its folder is `{folder}`"),
            "must equal the folder name",
            "rename the folder or the skill so that they are equal",
        );
    }
    let description = front.required_string("description");
    let mut diagnostics = std::mem::take(&mut front.diagnostics);
    let folder = folder.map_err(|d| diagnostics.push(d)).ok();
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let value = match (has_errors, folder, description) {
        (false, Some(name), Some(description)) => Some(SkillMeta { name, description }),
        _ => None,
    };
    // A skill's front matter belongs to the Agent Skills format, which allows keys of its own.
    Parsed {
        value,
        diagnostics,
        body_start: split.body_start,
        unknown_keys: Vec::new(),
    }
}

/// The skill's value alone, for the queries that need no diagnostics: a change of only
/// its diagnostics reruns none of them.
#[salsa::tracked(returns(ref))]
pub fn skill_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<SkillMeta> {
    parse_skill(db, file).value.clone()
}
