//! Example responses for the portal: an excerpt of the file each operation's example URL
//! serves, read from the build's own output, so the portal shows what is really there.
//!
//! Each excerpt is a tracked query over that one output: it re-runs when the file changes and
//! backdates when its excerpt did not, so the portal is rendered again only when an excerpt
//! changed (an edit of the newest post, not of an older one). It reads at most [`PREFIX`]
//! bytes of the file, so its cost does not grow with the corpus.

use crate::db::{Globals, LangTree};
use crate::derive::{series_members, series_names, tag_members, tag_names};
use crate::operations::{Operation, operations};
use crate::output::Output;
use crate::render::index::api_index_json;
use crate::render::posts::{all_posts_json, posts_json};
use crate::render::slides::slides_json;
use crate::render::timelines::{series_detail_json, series_listing_json, tag_timeline_json};
use std::fmt::Write as _;
use std::sync::Arc;

/// The most bytes of a file an excerpt reads: more than the first entry of any list.
const PREFIX: usize = 16 * 1024;

/// Prose strings longer than this many characters are shortened (URLs and ids never are).
const LONG_TEXT: usize = 80;

/// What the portal says about the excerpts.
pub const EXCERPT_NOTE: &str = "an excerpt of the file this URL serves, from this build; lists are cut after their first entry and long texts after 80 characters, marked …";

/// The excerpt of the response of `operations(languages)[operation]`'s example URL (its first resolved
/// path), or `None` when the operation has no URL yet (no series or tag exists). (`site` is
/// the singleton: salsa keys a query with extra arguments by a salsa struct and them.)
#[salsa::tracked(returns(ref))]
pub fn example_response(
    db: &dyn salsa::Database,
    site: Globals,
    operation: usize,
) -> Option<String> {
    let op = operations(&site.config(db).languages)[operation];
    let output = example_output(db, site, op)?;
    // The API's files are in memory (only a post's Markdown twin holds a body left on disk),
    // so this read has nothing that can fail.
    let prefix = output.prefix(PREFIX).ok()?;
    Some(json_excerpt(&prefix))
}

/// The output behind `op`'s example URL, the first path `index::resolved_paths` gives (the
/// first language, then the first name in it), taken from the query that renders that file.
/// It asks those queries directly rather than the output plan, which lists the portal itself.
fn example_output(db: &dyn salsa::Database, site: Globals, op: &Operation) -> Option<Output> {
    let trees = site.trees(db);
    let first_lang = trees[0];
    if let Some(&tree) = trees
        .iter()
        .find(|tree| std::ptr::eq(Operation::posts_in(tree.lang(db)), op))
    {
        return Some(posts_json(db, tree).clone());
    }
    let output = match op.id {
        "getApiIndex" => api_index_json(db).clone(),
        "listPosts" => all_posts_json(db).clone(),
        "listSeries" => series_listing_json(db, first_lang).clone(),
        "getSlidesTimeline" => slides_json(db, first_lang).clone(),
        "getSeries" => {
            let (tree, name) = first_named(db, site, series_names)?;
            series_detail_json(db, series_members(db, tree, &name)?).clone()
        }
        "getTimelineByTag" => {
            let (tree, name) = first_named(db, site, tag_names)?;
            tag_timeline_json(db, tag_members(db, tree, &name)?).clone()
        }
        _ => return None,
    };
    Some(output)
}

/// A query listing a language's series or tag names (`series_names`, `tag_names`).
type NamesOf = for<'db> fn(&'db dyn salsa::Database, LangTree) -> &'db Arc<[Arc<str>]>;

/// The first language that has a name in `names`, and that name (the order of
/// `index::resolved_paths`).
fn first_named(
    db: &dyn salsa::Database,
    site: Globals,
    names: NamesOf,
) -> Option<(LangTree, Arc<str>)> {
    site.trees(db)
        .iter()
        .find_map(|&tree| names(db, tree).first().map(|name| (tree, name.clone())))
}

/// A readable excerpt of compact JSON (possibly cut short): indented by two spaces, every
/// array cut after its first element, long prose strings shortened, and whatever the prefix
/// cut off closed with `…`.
pub fn json_excerpt(json: &[u8]) -> String {
    let mut out = Excerpt::default();
    let mut at = 0;
    while at < json.len() {
        let byte = json[at];
        let (token, next) = match byte {
            b' ' | b'\n' | b'\r' | b'\t' => {
                at += 1;
                continue;
            }
            b'"' => match string_end(json, at) {
                Some(end) => (Token::String(&json[at..end]), end),
                None => break,
            },
            b'{' | b'[' => (Token::Open(byte), at + 1),
            b'}' | b']' => (Token::Close, at + 1),
            b':' => (Token::Colon, at + 1),
            b',' => (Token::Comma, at + 1),
            _ => {
                let end = json[at..]
                    .iter()
                    .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\n'))
                    .map(|n| at + n);
                match end {
                    Some(end) => (Token::Scalar(&json[at..end]), end),
                    None => break, // Possibly cut in the middle of a number.
                }
            }
        };
        out.push(token);
        at = next;
    }
    out.finish()
}

enum Token<'a> {
    Open(u8),
    Close,
    Colon,
    Comma,
    String(&'a [u8]),
    Scalar(&'a [u8]),
}

struct Frame {
    close: u8,
    /// Whether something was written inside (else `{}` / `[]`).
    filled: bool,
}

#[derive(Default)]
struct Excerpt {
    text: String,
    open: Vec<Frame>,
    /// Skipping the rest of the array at this depth (its first element is shown).
    skipping: Option<usize>,
    /// Nesting inside the skipped part.
    skipped_depth: usize,
}

impl Excerpt {
    fn push(&mut self, token: Token<'_>) {
        if let Some(depth) = self.skipping {
            match token {
                Token::Open(_) => self.skipped_depth += 1,
                Token::Close if self.skipped_depth > 0 => self.skipped_depth -= 1,
                Token::Close => {
                    self.skipping = None;
                    debug_assert_eq!(depth, self.open.len());
                    self.close();
                }
                _ => {}
            }
            return;
        }
        match token {
            Token::Open(byte) => {
                self.start_item();
                self.text.push(char::from(byte));
                self.open.push(Frame {
                    close: if byte == b'{' { b'}' } else { b']' },
                    filled: false,
                });
            }
            Token::Close => self.close(),
            Token::Colon => self.text.push_str(": "),
            Token::Comma => {
                if self.open.last().is_some_and(|f| f.close == b']') {
                    // An array's first element is shown; the rest is skipped.
                    self.text.push(',');
                    self.newline(self.open.len());
                    self.text.push('…');
                    self.skipping = Some(self.open.len());
                } else {
                    self.text.push(',');
                    self.newline(self.open.len());
                }
            }
            Token::String(raw) => {
                self.start_item();
                self.text.push_str(&shorten(&String::from_utf8_lossy(raw)));
            }
            Token::Scalar(raw) => {
                self.start_item();
                self.text.push_str(&String::from_utf8_lossy(raw));
            }
        }
    }

    /// Before a value or key: the line break after an opening bracket.
    fn start_item(&mut self) {
        if let Some(frame) = self.open.last_mut()
            && !frame.filled
        {
            frame.filled = true;
            self.newline(self.open.len());
        }
    }

    fn close(&mut self) {
        let Some(frame) = self.open.pop() else {
            return;
        };
        if frame.filled {
            self.newline(self.open.len());
        }
        self.text.push(char::from(frame.close));
    }

    fn newline(&mut self, depth: usize) {
        self.text.push('\n');
        self.text.push_str(&"  ".repeat(depth));
    }

    /// Closes what the prefix cut off.
    fn finish(mut self) -> String {
        if self.skipping.is_none() && !self.open.is_empty() {
            if self.open.last().is_some_and(|f| f.filled) {
                if !self.text.ends_with(' ') {
                    self.text.push(' ');
                }
                self.text.push('…');
            } else {
                self.start_item();
                self.text.push('…');
            }
        }
        self.skipping = None;
        while !self.open.is_empty() {
            self.close();
        }
        self.text
    }
}

/// The end (exclusive) of the JSON string starting at `start`, or `None` if cut off.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < json.len() {
        match json[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// A quoted JSON string, its text cut after [`LONG_TEXT`] characters when it is prose (has a
/// space); URLs, ids and dates are kept whole.
fn shorten(quoted: &str) -> String {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains(' ') || inner.chars().count() <= LONG_TEXT {
        return quoted.to_string();
    }
    let mut cut = String::new();
    let mut escaped = false;
    for (count, c) in inner.chars().enumerate() {
        if count >= LONG_TEXT && !escaped {
            break;
        }
        escaped = c == '\\' && !escaped;
        cut.push(c);
    }
    let mut out = String::new();
    let _ = write!(out, "\"{}…\"", cut.trim_end());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_their_first_entry_and_objects_are_indented() {
        let json = br#"[{"id":"a","tags":["x","y"],"n":1,"e":[],"o":{}},{"id":"b"}]"#;
        assert_eq!(
            json_excerpt(json),
            "[\n  {\n    \"id\": \"a\",\n    \"tags\": [\n      \"x\",\n      …\n    ],\n    \"n\": 1,\n    \"e\": [],\n    \"o\": {}\n  },\n  …\n]"
        );
    }

    #[test]
    fn a_cut_prefix_is_closed_and_long_prose_is_shortened() {
        let long = "word ".repeat(40);
        let json = format!(
            r#"{{"d":"{long}","url":"https://a.example/{}","x":[1,2"#,
            "p".repeat(90)
        );
        let excerpt = json_excerpt(json.as_bytes());
        assert!(
            excerpt.contains(&format!("\"d\": \"{}…\"", "word ".repeat(16).trim_end())),
            "{excerpt}"
        );
        assert!(
            excerpt.contains(&"p".repeat(90)),
            "URLs are whole: {excerpt}"
        );
        assert!(
            excerpt.ends_with("\"x\": [\n    1,\n    …\n  ]\n}"),
            "{excerpt}"
        );
        assert_eq!(json_excerpt(br#"{"a":"cut in the mid"#), "{\n  \"a\": …\n}");
        assert_eq!(json_excerpt(b"{"), "{\n  …\n}");
    }

    #[test]
    fn escapes_survive_shortening() {
        let text = format!("\"{}\\\"quoted\\\" {}\"", "a ".repeat(39), "b ".repeat(40));
        let short = shorten(&text);
        assert!(short.ends_with("…\""), "{short}");
        assert!(!short.ends_with("\\…\""), "{short}");
    }
}
