//! TOML front matter (between `+++` lines, as Hugo and Zola write it), read into the same
//! positioned nodes as YAML.
//!
//! Rather than a second copy of every typed reader, the TOML table is converted into saphyr's
//! `MarkedYaml` nodes carrying the TOML spans (as character indices, as saphyr counts), so the
//! field reads, their errors and their locations are one code path for both formats. A TOML
//! date or date-time becomes the string of its RFC 3339 spelling, which `Timestamp::parse`
//! reads; a local time alone is not a date and is refused there.

use saphyr::{AnnotatedMapping, MarkedYaml, Scalar, YamlData};
use saphyr_parser::{Marker, Span};
use std::borrow::Cow;
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One top-level field: its name, its key node and its value node.
pub(super) type Entry<'a> = (&'a str, MarkedYaml<'a>, MarkedYaml<'a>);

/// A TOML syntax error: the byte range in the TOML text and the parser's message.
pub(super) struct SyntaxError {
    pub bytes: Range<usize>,
    pub message: String,
}

/// Parses `toml` into its top-level fields, in the order the file writes them.
pub(super) fn entries(toml: &str) -> Result<Vec<Entry<'_>>, SyntaxError> {
    let table = DeTable::parse(toml).map_err(|err| SyntaxError {
        bytes: err.span().unwrap_or(0..0),
        message: err.message().trim().to_string(),
    })?;
    let convert = Convert { toml };
    let mut out: Vec<(usize, Entry<'_>)> = table
        .into_inner()
        .into_iter()
        .map(|(key, value)| {
            let span = key.span();
            let key_node = convert.node(span.clone(), YamlData::Value(Scalar::Null));
            let name = match key.into_inner() {
                Cow::Borrowed(name) => name,
                // An escaped key is looked up by its source text, as with YAML.
                Cow::Owned(_) => toml.get(span.clone()).unwrap_or_default(),
            };
            let key_node = MarkedYaml {
                data: YamlData::Value(Scalar::String(Cow::Borrowed(name))),
                ..key_node
            };
            (span.start, (name, key_node, convert.value(value)))
        })
        .collect();
    out.sort_by_key(|(start, _)| *start);
    Ok(out.into_iter().map(|(_, entry)| entry).collect())
}

struct Convert<'a> {
    toml: &'a str,
}

impl<'a> Convert<'a> {
    fn value(&self, value: Spanned<DeValue<'a>>) -> MarkedYaml<'a> {
        let span = value.span();
        let data = match value.into_inner() {
            DeValue::String(s) => YamlData::Value(Scalar::String(s)),
            DeValue::Integer(n) => {
                let digits = n.as_str().replace('_', "");
                match i64::from_str_radix(&digits, n.radix()) {
                    Ok(n) => YamlData::Value(Scalar::Integer(n)),
                    // Beyond i64: shown (and refused) as the number it is written as.
                    Err(_) => YamlData::Value(Scalar::FloatingPoint(
                        digits.parse::<f64>().unwrap_or(f64::MAX).into(),
                    )),
                }
            }
            DeValue::Float(f) => {
                let text = f.as_str().replace('_', "");
                YamlData::Value(Scalar::FloatingPoint(
                    text.parse::<f64>().unwrap_or(f64::NAN).into(),
                ))
            }
            DeValue::Boolean(b) => YamlData::Value(Scalar::Boolean(b)),
            DeValue::Datetime(dt) => YamlData::Value(Scalar::String(Cow::Owned(dt.to_string()))),
            DeValue::Array(items) => {
                YamlData::Sequence(items.into_iter().map(|item| self.value(item)).collect())
            }
            DeValue::Table(table) => {
                let mut map = AnnotatedMapping::new();
                for (key, value) in table {
                    let key_span = key.span();
                    let key =
                        self.node(key_span, YamlData::Value(Scalar::String(key.into_inner())));
                    map.insert(key, self.value(value));
                }
                YamlData::Mapping(map)
            }
        };
        self.node(span, data)
    }

    fn node(&self, bytes: Range<usize>, data: YamlData<'a, MarkedYaml<'a>>) -> MarkedYaml<'a> {
        MarkedYaml {
            span: Span::new(
                Marker::new(self.chars(bytes.start), 0, 0),
                Marker::new(self.chars(bytes.end), 0, 0),
            ),
            data,
        }
    }

    /// saphyr's positions count characters; the TOML parser's are bytes.
    fn chars(&self, bytes: usize) -> usize {
        let bytes = bytes.min(self.toml.len());
        if self.toml.is_ascii() {
            bytes
        } else {
            self.toml
                .get(..bytes)
                .map_or(bytes, |prefix| prefix.chars().count())
        }
    }
}
