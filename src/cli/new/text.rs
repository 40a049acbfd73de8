//! The text of each file `new` creates (every value a YAML double-quoted string, so it reads back
//! as given), and the slug of a title.

use super::Request;
use super::flags::TierArg;
use chrono::NaiveDate;

pub fn post_text(args: &Request, description: &str, date: NaiveDate) -> String {
    let mut text = format!(
        "---\ntitle: {}\ndescription: {}\npubDate: {date}\n",
        yaml_string(&args.title),
        yaml_string(description)
    );
    if !args.tags.is_empty() {
        let tags: Vec<String> = args.tags.iter().map(|t| yaml_string(t)).collect();
        text.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    if let Some(series) = &args.series {
        text.push_str(&format!("series: {}\n", yaml_string(series)));
    }
    if args.draft {
        text.push_str("draft: true\n");
    }
    text.push_str("---\n\nWrite the post here, in Markdown.\n");
    text
}

pub fn deck_text(args: &Request, description: &str, date: NaiveDate) -> String {
    let mut text = format!(
        "---\ntype: native\ntitle: {}\ndescription: {}\npubDate: {date}\n",
        yaml_string(&args.title),
        yaml_string(description)
    );
    if args.draft {
        text.push_str("draft: true\n");
    }
    text.push_str("---\n\nThe slides, in Markdown.\n");
    text
}

pub fn series_text(slug: &str, args: &Request, description: &str) -> String {
    format!(
        "---\nname: {}\ntitle: {}\ndescription: {}\n# titleEs: \"...\" and descriptionEs: \"...\" give the Spanish title and description.\n---\n",
        yaml_string(slug),
        yaml_string(&args.title),
        yaml_string(description)
    )
}

pub fn tag_text(
    name: &str,
    tier: TierArg,
    description: Option<&str>,
    parent: Option<&str>,
) -> String {
    let mut text = format!("---\nname: {}\n", yaml_string(name));
    match description {
        Some(description) => {
            text.push_str(&format!("description: {}\n", yaml_string(description)));
        }
        None => text.push_str(
            "# description: \"...\" says in one sentence what the posts with this tag are about.\n",
        ),
    }
    text.push_str(&format!("tier: {}\n", tier.as_str()));
    if let Some(parent) = parent {
        text.push_str(&format!("parent: {}\n", yaml_string(parent)));
    }
    text.push_str("---\n");
    text
}

/// A YAML double-quoted scalar: every title reads back as the same string.
pub fn yaml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The slug of a title (shared with the OpenAPI title's ASCII form).
pub use crate::model::slugify;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_strings_escape_quotes_and_backslashes() {
        assert_eq!(yaml_string(r#"Say "hi" \o/"#), r#""Say \"hi\" \\o/""#);
        assert_eq!(yaml_string("a: b # c"), "\"a: b # c\"");
    }
}
