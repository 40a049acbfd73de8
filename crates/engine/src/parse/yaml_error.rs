//! A YAML syntax error, said where the author can fix it and with the fix.
//!
//! saphyr reports where its scanner gave up, which is often not where the mistake is: an
//! unclosed quote is reported as "invalid indentation in quoted scalar", an unclosed `[` on the
//! next line, a tab at the start of the scalar before it. Each known kind is pointed back at
//! the character the author has to change; anything else keeps saphyr's words and position.

use std::ops::Range;

/// What to say about one syntax error. `bytes` are offsets in the YAML text.
#[derive(Debug, PartialEq, Eq)]
pub struct Explained {
    pub bytes: Range<usize>,
    pub message: String,
    pub label: String,
    pub help: String,
}

/// Explains saphyr's error `info`, reported at byte `at` of `yaml`. `first_line` is the file's
/// line number of the YAML's first line (for messages that name another line).
pub fn explain(yaml: &str, info: &str, at: usize, first_line: usize) -> Explained {
    let at = at.min(yaml.len());
    let explained = if info.contains("quoted scalar") {
        unclosed_quote(yaml, at, first_line)
    } else if info.contains("tab") || tab_after_colon(yaml, at) {
        tab(yaml, at)
    } else if info.contains("expect ':'") || info.contains("expected ':'") {
        missing_colon(yaml, at)
    } else if info.contains("duplicated key") {
        duplicate_key(yaml, at, first_line)
    } else if info.contains("mapping values are not allowed") {
        over_indented(yaml, at).or_else(|| colon_in_value(yaml, at))
    } else {
        // "did not find expected key", "invalid indentation", "expected ',' or ']'"...: an
        // unclosed bracket before the stop explains them all; else an indented field.
        unclosed_bracket(yaml, at).or_else(|| over_indented(yaml, at))
    };
    // saphyr may stop at the very end of the YAML: show the last line the author wrote.
    let at = if yaml[at..].trim().is_empty() {
        line_start(yaml, yaml.trim_end().len())
    } else {
        at
    };
    explained.unwrap_or_else(|| Explained {
        bytes: at..(at + 1).min(yaml.len()).max(at),
        message: format!("front matter is not valid YAML: {info}"),
        label: "the YAML parser stopped here".into(),
        help: "check this line and the one before it: quote values that contain `: ` or start \
               with `[`, `{`, `*`, `&`, `!`, `|`, `>`, `%`, `@` or a backtick, and indent with \
               spaces"
            .into(),
    })
}

fn line_start(yaml: &str, at: usize) -> usize {
    yaml[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(yaml: &str, at: usize) -> usize {
    yaml[at..].find('\n').map_or(yaml.len(), |i| at + i)
}

/// 0-based line index of byte `at`.
fn line_index(yaml: &str, at: usize) -> usize {
    yaml.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The key of the `key: value` line holding byte `at`, if the line is one.
fn key_of_line(yaml: &str, at: usize) -> Option<&str> {
    let line = &yaml[line_start(yaml, at)..line_end(yaml, at)];
    let (key, _) = line.split_once(':')?;
    let key = key
        .trim()
        .trim_start_matches("- ")
        .trim_matches(['"', '\'']);
    (!key.is_empty() && !key.contains(char::is_whitespace)).then_some(key)
}

/// The quote that opens the value and is never closed: the one saphyr points at, or else the
/// last quote on an earlier line that opens a value and has no closing quote on its line.
fn unclosed_quote(yaml: &str, at: usize, first_line: usize) -> Option<Explained> {
    let opening = if matches!(yaml[at..].chars().next(), Some('"' | '\'')) {
        at
    } else {
        let before = &yaml[..at];
        before
            .char_indices()
            .rev()
            .filter(|&(i, c)| matches!(c, '"' | '\'') && opens_value(yaml, i))
            .map(|(i, _)| i)
            .next()?
    };
    let quote = &yaml[opening..opening + 1];
    let line = first_line + line_index(yaml, opening);
    let what = key_of_line(yaml, opening)
        .map(|key| format!("the value of `{key}`"))
        .unwrap_or_else(|| "a quoted value".into());
    Some(Explained {
        bytes: opening..opening + 1,
        message: format!(
            "front matter is not valid YAML: {what} opens a quote that is never closed"
        ),
        label: format!("this {quote} has no closing {quote}"),
        help: format!("add the closing {quote} at the end of the value on line {line}"),
    })
}

/// True when the quote at `i` starts a value: it follows `: `, `- `, `[`, `{`, `,` or the
/// start of the line (spaces aside).
fn opens_value(yaml: &str, i: usize) -> bool {
    let before = yaml[line_start(yaml, i)..i].trim_end();
    before.is_empty() || before.ends_with([':', '-', '[', '{', ','])
}

fn tab_after_colon(yaml: &str, at: usize) -> bool {
    yaml[..at]
        .trim_end_matches(|c| c != '\n' && c != ':')
        .ends_with(':')
        && yaml[line_start(yaml, at)..line_end(yaml, at)].contains('\t')
}

/// The first tab on the line saphyr names or after it (a tab that indents the next field is
/// reported on the line before).
fn tab(yaml: &str, at: usize) -> Option<Explained> {
    let from = line_start(yaml, at);
    let tab = from + yaml[from..].find('\t')?;
    let starts_line = yaml[line_start(yaml, tab)..tab].trim().is_empty();
    let help = if starts_line {
        "YAML does not allow tabs for indentation: replace the tab with spaces (top-level fields \
         start at the beginning of the line)"
    } else {
        "YAML does not allow a tab here: replace it with a space"
    };
    Some(Explained {
        bytes: tab..tab + 1,
        message: "front matter is not valid YAML: a tab character where YAML needs spaces".into(),
        label: "a tab".into(),
        help: help.into(),
    })
}

fn duplicate_key(yaml: &str, at: usize, first_line: usize) -> Option<Explained> {
    let start = line_start(yaml, at);
    let key = key_of_line(yaml, at)?;
    let first = yaml[..start]
        .split_inclusive('\n')
        .scan(0, |offset, line| {
            let here = *offset;
            *offset += line.len();
            Some((here, line))
        })
        .find(|(_, line)| line.split_once(':').is_some_and(|(k, _)| k.trim() == key))
        .map(|(offset, _)| first_line + line_index(yaml, offset));
    let key_at = start + yaml[start..].find(key).unwrap_or(0);
    Some(Explained {
        bytes: key_at..key_at + key.len(),
        message: match first {
            Some(line) => format!(
                "front matter is not valid YAML: `{key}` is set twice (first on line {line})"
            ),
            None => format!("front matter is not valid YAML: `{key}` is set twice"),
        },
        label: "set again here".into(),
        help: format!("keep one `{key}:` line and delete the other"),
    })
}

/// A line that should be `key: value` and has no `:` (`tags ["a"]`): the last non-blank line
/// without a colon at or before where saphyr stopped.
fn missing_colon(yaml: &str, at: usize) -> Option<Explained> {
    let mut end = line_end(yaml, at);
    loop {
        let start = line_start(yaml, end);
        let line = &yaml[start..end];
        let is_field =
            line.contains(": ") || line.contains(":\t") || line.trim_end().ends_with(':');
        if !line.trim().is_empty() && !is_field && !line.trim_start().starts_with('#') {
            let indent = line.len() - line.trim_start().len();
            let word = line
                .trim()
                .split([' ', '[', '{', '"', '\'', ':'])
                .next()
                .unwrap_or("");
            let key = if word.is_empty() { "key" } else { word };
            return Some(Explained {
                bytes: start + indent..end,
                message: "front matter is not valid YAML: this line is not a `key: value` field"
                    .into(),
                label: "no `:` on this line".into(),
                help: format!(
                    "write the field as `{key}: value` (a colon and a space after the name)"
                ),
            });
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}

/// A `key: value` line indented under a field that already has a value on its own line.
fn over_indented(yaml: &str, at: usize) -> Option<Explained> {
    let start = line_start(yaml, at);
    let line = &yaml[start..line_end(yaml, at)];
    let indent = line.len() - line.trim_start().len();
    let colon = line.find(':')?;
    if indent == 0 || line.trim_start().starts_with('-') || colon < indent {
        return None;
    }
    let key = key_of_line(yaml, at)?;
    Some(Explained {
        bytes: start..start + indent,
        message: format!(
            "front matter is not valid YAML: `{key}` is indented under the field before it, \
             which already has a value"
        ),
        label: "this indentation".into(),
        help: format!(
            "remove the spaces before `{key}:` so it starts at the beginning of the line like \
             the other fields"
        ),
    })
}

/// A value that contains `: ` unquoted (`title: Rust: the good parts`).
fn colon_in_value(yaml: &str, at: usize) -> Option<Explained> {
    let start = line_start(yaml, at);
    let line = &yaml[start..line_end(yaml, at)];
    let first_colon = line.find(':')?;
    let key = key_of_line(yaml, at)?;
    let value = start + first_colon + 1;
    let value = value + (yaml[value..].len() - yaml[value..].trim_start().len());
    let end = line_end(yaml, at);
    let shown = yaml[value..end].trim_end();
    Some(Explained {
        bytes: value..end.max(value + 1).min(yaml.len()),
        message: format!("front matter is not valid YAML: the value of `{key}` contains `: `"),
        label: "a `: ` inside a value needs quotes".into(),
        help: format!(
            "put the value in quotes: {key}: \"{}\"",
            shown.replace('"', "\\\"")
        ),
    })
}

/// The `[` or `{` before `at` that is never closed (outside quotes).
fn unclosed_bracket(yaml: &str, at: usize) -> Option<Explained> {
    let mut open: Vec<(usize, char)> = Vec::new();
    let mut quote: Option<char> = None;
    for (i, c) in yaml[..at].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') if opens_value(yaml, i) => quote = Some(c),
            (None, '[' | '{') => open.push((i, c)),
            (None, ']' | '}') => {
                open.pop();
            }
            _ => {}
        }
    }
    let &(i, bracket) = open.first()?;
    let (close, example) = if bracket == '[' {
        (']', "tags: [a, b]")
    } else {
        ('}', "{ key: value }")
    };
    Some(Explained {
        bytes: i..i + 1,
        message: format!("front matter is not valid YAML: this `{bracket}` is never closed"),
        label: format!("no `{close}` closes it"),
        help: format!("add `{close}` at the end of the list, on the same line: {example}"),
    })
}

#[cfg(test)]
mod tests {
    use crate::diag::Diagnostic;
    use crate::model::Lang;
    use crate::parse::parse_post_text;

    const GOOD: &str = "---\ntitle: \"Hello\"\ndescription: \"A post\"\npubDate: 2024-05-01\ntags: [\"rust\", \"web\"]\n---\nBody\n";

    /// The one diagnostic of the post `GOOD` with `from` replaced by `to`.
    fn only_error(from: &str, to: &str) -> Diagnostic {
        assert!(GOOD.contains(from), "{from}");
        let text = GOOD.replacen(from, to, 1);
        let parsed = parse_post_text("blog/en/2024-05-01_x.md", Lang::EN, "2024-05-01_x", &text);
        let diagnostics = parsed.parsed.diagnostics;
        assert_eq!(
            diagnostics.len(),
            1,
            "one mistake, one error: {:#?}",
            diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
        assert!(parsed.parsed.value.is_none());
        diagnostics.into_iter().next().unwrap()
    }

    fn line_and_column(diagnostic: &Diagnostic) -> (usize, usize) {
        let location = diagnostic.location.as_ref().expect("located");
        (location.line, location.column)
    }

    #[test]
    fn an_unclosed_quote_is_reported_at_the_quote_that_opens() {
        let error = only_error("title: \"Hello\"", "title: \"Hello");
        assert_eq!(line_and_column(&error), (2, 8));
        assert!(
            error
                .message
                .contains("`title` opens a quote that is never closed"),
            "{error}"
        );
        assert_eq!(
            error.help.as_deref(),
            Some("add the closing \" at the end of the value on line 2")
        );
        // On a later field, and with single quotes.
        let error = only_error("description: \"A post\"", "description: 'A post");
        assert_eq!(line_and_column(&error), (3, 14));
        assert!(
            error
                .help
                .unwrap()
                .contains("closing ' at the end of the value on line 3")
        );
        // On the last field, where the YAML ends inside the quote.
        let error = only_error("tags: [\"rust\", \"web\"]", "tags: \"rust");
        assert_eq!(line_and_column(&error), (5, 7));
        assert!(error.message.contains("never closed"), "{error}");
    }

    #[test]
    fn a_field_indented_under_another_is_reported_at_its_indentation() {
        let error = only_error("description:", "  description:");
        assert_eq!(line_and_column(&error), (3, 1));
        assert!(
            error.message.contains("`description` is indented"),
            "{error}"
        );
        assert!(
            error
                .help
                .unwrap()
                .contains("remove the spaces before `description:`")
        );
    }

    #[test]
    fn a_tab_is_reported_where_it_is() {
        let error = only_error("description:", "\tdescription:");
        assert_eq!(line_and_column(&error), (3, 1));
        assert!(error.message.contains("tab"), "{error}");
        assert!(error.help.unwrap().contains("replace the tab with spaces"));
        let error = only_error("pubDate: 2024", "pubDate:\t2024");
        assert_eq!(line_and_column(&error), (4, 9));
        assert!(error.help.unwrap().contains("replace it with a space"));
    }

    #[test]
    fn an_unclosed_bracket_is_reported_at_the_bracket() {
        let error = only_error("\"web\"]", "\"web\"");
        assert_eq!(line_and_column(&error), (5, 7));
        assert!(
            error.message.contains("this `[` is never closed"),
            "{error}"
        );
        assert!(error.help.unwrap().contains("add `]`"));
        // Not the last field: saphyr stops at the next line's colon.
        let text_mistake = "tags: [\"rust\", \"web\"]\n---";
        let error = only_error(text_mistake, "tags: [\"rust\", \"web\"\ndraft: false\n---");
        assert_eq!(line_and_column(&error), (5, 7));
    }

    #[test]
    fn a_duplicate_key_names_both_lines() {
        let error = only_error("pubDate:", "title: \"Again\"\npubDate:");
        assert_eq!(line_and_column(&error), (4, 1));
        assert!(
            error
                .message
                .contains("`title` is set twice (first on line 2)"),
            "{error}"
        );
        assert_eq!(
            error.help.as_deref(),
            Some("keep one `title:` line and delete the other")
        );
    }

    #[test]
    fn a_colon_inside_a_value_asks_for_quotes() {
        let error = only_error("title: \"Hello\"", "title: Rust: the good parts");
        assert_eq!(line_and_column(&error), (2, 8));
        assert_eq!(
            error.help.as_deref(),
            Some("put the value in quotes: title: \"Rust: the good parts\"")
        );
    }

    #[test]
    fn a_field_without_its_colon_is_named() {
        let error = only_error("tags: [", "tags [");
        assert_eq!(line_and_column(&error), (5, 1));
        assert!(
            error.message.contains("not a `key: value` field"),
            "{error}"
        );
        assert!(error.help.unwrap().contains("`tags: value`"));
    }

    /// Every single-character mistake at every position (accents included, so byte and
    /// character offsets differ): never a panic, and a syntax error is always the file's only
    /// diagnostic, located inside the front matter.
    #[test]
    fn any_one_character_mistake_gives_at_most_one_syntax_error() {
        let good = GOOD.replace("A post", "Una entrada en Medellín: ¿qué tal?");
        let clean = parse_post_text("blog/en/2024-05-01_x.md", Lang::EN, "2024-05-01_x", &good);
        assert!(clean.parsed.diagnostics.is_empty());
        let yaml_end = good.rfind("---").unwrap();
        let boundaries: Vec<usize> = (0..=yaml_end)
            .filter(|&i| good.is_char_boundary(i))
            .collect();
        for &at in &boundaries[4..] {
            let mut variants: Vec<String> = ["\"", "'", "\t", "[", "{", ": ", "  ", "\n  "]
                .iter()
                .map(|insert| format!("{}{insert}{}", &good[..at], &good[at..]))
                .collect();
            if let Some(next) = good[at..].chars().next().filter(|_| at < yaml_end) {
                variants.push(format!("{}{}", &good[..at], &good[at + next.len_utf8()..]));
            }
            for text in variants {
                let parsed =
                    parse_post_text("blog/en/2024-05-01_x.md", Lang::EN, "2024-05-01_x", &text);
                let diagnostics = parsed.parsed.diagnostics;
                if diagnostics
                    .iter()
                    .any(|d| d.message.contains("not valid YAML"))
                {
                    assert_eq!(diagnostics.len(), 1, "{text:?}: {diagnostics:#?}");
                    let line = diagnostics[0].location.as_ref().unwrap().line;
                    assert!(
                        (2..=text[..text.rfind("---").unwrap()].lines().count()).contains(&line),
                        "{text:?}: line {line}: {}",
                        diagnostics[0]
                    );
                }
            }
        }
    }

    #[test]
    fn other_syntax_errors_keep_the_parsers_words() {
        let error = only_error("pubDate:", "- item\npubDate:");
        assert!(
            error
                .message
                .starts_with("front matter is not valid YAML: "),
            "{error}"
        );
        assert!(error.location.is_some());
    }
}
