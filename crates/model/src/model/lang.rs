//! The two content languages.

use std::fmt;

/// A content language. The set is closed: the contract names exactly these two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    En,
    Es,
}

impl Lang {
    /// Every language, in the order outputs list them (`en` before `es`).
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Es];

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
        }
    }

    pub fn parse(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "es" => Some(Lang::Es),
            _ => None,
        }
    }

    /// Where the language's pages live on the site: English at the root, Spanish under `/es`.
    pub fn site_prefix(self) -> &'static str {
        match self {
            Lang::En => "",
            Lang::Es => "/es",
        }
    }

    /// The suffix of localized front-matter keys, as in `titleEs`.
    pub fn field_suffix(self) -> &'static str {
        match self {
            Lang::En => "En",
            Lang::Es => "Es",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
