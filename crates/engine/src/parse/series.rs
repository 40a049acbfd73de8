//! Series definitions: `series/<name>.md`, front matter only.

use super::fields::FrontMatter;
use super::keys::unknown_keys;
use super::{Parsed, check_image, frontmatter, named_stem, text_or_failure};
use crate::content::FileRole;
use crate::db::SourceFile;
use crate::model::{Lang, SeriesDef};

/// The localizable fields: each may also appear as `<field><Lang>` (`titleEs`).
const LOCALIZED: [&str; 3] = ["title", "description", "heroImage"];

/// Every key a series' front matter may hold, besides the localized `<field><Lang>` ones.
pub const SERIES_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "order",
    "heroImage",
    "keywords",
];

/// Parses a series file: its value and every diagnostic.
#[salsa::tracked(returns(ref))]
pub fn parse_series(db: &dyn salsa::Database, file: SourceFile) -> Parsed<SeriesDef> {
    let FileRole::Series { name } = file.role(db).clone() else {
        unreachable!("parse_series is only called on series files")
    };
    match text_or_failure(db, file) {
        Ok(text) => parse_series_text(file.path(db).as_str(), &name, text),
        Err(parsed) => parsed,
    }
}

/// The series' value alone, for the queries that need no diagnostics: a change of only
/// its diagnostics reruns none of them.
#[salsa::tracked(returns(ref))]
pub fn series_meta(db: &dyn salsa::Database, file: SourceFile) -> Option<SeriesDef> {
    parse_series(db, file).value.clone()
}

/// The localizable field `key` is, itself or as `<field><Lang>`: the language's subtags, each
/// capitalised (`titleEs`, `titleKo`, `titleZhCn` for `zh-CN`, `titlePtBr` for `pt-BR`).
fn localized_base(key: &str) -> Option<&'static str> {
    LOCALIZED.into_iter().find(|base| {
        key.strip_prefix(base)
            .is_some_and(|suffix| suffix.is_empty() || Lang::from_field_suffix(suffix).is_some())
    })
}

/// Parses the text of a series file (`path` for messages, `stem` its name), outside the database.
pub fn parse_series_text(path: &str, stem: &str, text: &str) -> Parsed<SeriesDef> {
    let split = match frontmatter::split(path, text) {
        Ok(split) => split,
        Err(diagnostic) => return Parsed::failed(diagnostic),
    };
    let mut front = FrontMatter::parse(path, text, &split);
    let file_name = named_stem(path, stem, "series").and_then(|name| {
        if &*name == "index" {
            Err(crate::diag::Diagnostic::error(path, "a series cannot be named `index`")
                .help("`api/series/{lang}/index.json` is the series listing; rename the file, for example to `index-series.md`"))
        } else {
            Ok(name)
        }
    });
    let name = front.required_string("name");
    if let (Some(name), Ok(stem)) = (&name, &file_name)
        && name.as_str() != &**stem
    {
        front.invalid(
            "name",
            format!("series `name` is `{name}` but the file is named `{stem}.md`"),
            "must equal the file name without .md",
            "make the two equal: posts refer to the series by this name",
        );
    }
    front.required_string("title");
    let order = front.integer("order").unwrap_or(0);
    let keys: Vec<&str> = front.keys().collect();
    let mut text_fields = Vec::new();
    for key in keys {
        let Some(base) = localized_base(key) else {
            continue;
        };
        let value = if base == "heroImage" {
            check_image(&mut front, key)
        } else {
            front.string(key)
        };
        if let Some(value) = value {
            text_fields.push((key.to_string(), value));
        }
    }
    let unknown_keys = unknown_keys(&front, SERIES_KEYS, |key| localized_base(key).is_some());
    let mut diagnostics = std::mem::take(&mut front.diagnostics);
    let stem = match file_name {
        Ok(stem) => Some(stem),
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            None
        }
    };
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let value = match (has_errors, stem) {
        (false, Some(name)) => Some(SeriesDef {
            name,
            order,
            text: text_fields,
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
    fn localized_fields_fall_back_to_the_default() {
        let series = parse_series_text(
            "series/intro.md",
            "intro",
            "---\nname: intro\ntitle: Intro\ntitleEs: Introducción\ndescription: About\norder: 2\nheroImage: /a.webp\n---\n",
        )
        .value
        .unwrap();
        assert_eq!(series.localized("title", Lang::ES), Some("Introducción"));
        assert_eq!(series.localized("title", Lang::EN), Some("Intro"));
        assert_eq!(series.localized("description", Lang::ES), Some("About"));
        assert_eq!(series.localized("heroImage", Lang::ES), Some("/a.webp"));
        assert_eq!(series.order, 2);
    }

    #[test]
    fn every_language_has_its_localized_keys() {
        let parsed = parse_series_text(
            "series/intro.md",
            "intro",
            "---\nname: intro\ntitle: Intro\ntitleKo: 소개\ntitleZhCn: 介绍\ndescriptionPtBr: Sobre\n---\n",
        );
        assert!(parsed.unknown_keys.is_empty(), "{:?}", parsed.unknown_keys);
        let series = parsed.value.unwrap();
        let lang = |tag| Lang::parse(tag).unwrap();
        assert_eq!(series.localized("title", lang("ko")), Some("소개"));
        assert_eq!(series.localized("title", lang("zh-CN")), Some("介绍"));
        assert_eq!(
            series.localized("description", lang("pt-BR")),
            Some("Sobre")
        );
        assert_eq!(series.localized("title", lang("ja")), Some("Intro"));
    }

    #[test]
    fn a_series_named_index_is_rejected() {
        let series = parse_series_text(
            "series/index.md",
            "index",
            "---\nname: index\ntitle: X\n---\n",
        );
        assert!(series.value.is_none());
        assert!(
            series.diagnostics[0]
                .message
                .contains("cannot be named `index`")
        );
    }
}
