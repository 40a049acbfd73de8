//! The licences content-api knows: SPDX identifiers and their common spellings, each with its
//! canonical URL and what it asks of whoever reuses the content. A known `licence` without
//! `licence_url` gets its canonical URL; an unknown one is named without a link (and reported,
//! see `cli::placeholders`); a `licence_url` that is the canonical URL of a known licence tells
//! which one an unknown name means, and one that names a different licence than `licence` does
//! is reported too.

/// A licence content-api knows.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct KnownLicence {
    /// The SPDX identifier (`CC-BY-4.0`).
    pub spdx: &'static str,
    /// Its usual short name (`CC BY 4.0`).
    pub name: &'static str,
    /// Its canonical URL.
    pub url: &'static str,
    /// Whether reuse must credit the author (for software licences: keep the notice).
    pub attribution: bool,
    /// What else it asks of a reuser, as phrases that follow "reuse is allowed" (`for
    /// non-commercial purposes only`).
    pub conditions: &'static [&'static str],
    /// Other names it goes by, besides the identifier and the short name.
    pub aliases: &'static [&'static str],
}

const NON_COMMERCIAL: &str = "for non-commercial purposes only";
const SHARE_ALIKE: &str = "with adaptations shared under the same licence";
const NO_DERIVATIVES: &str = "without adaptations";

/// The table. Matching ignores case, spaces, hyphens, underscores and commas, and the words
/// "license", "licence", "version", "the", "international" and "universal".
pub const KNOWN_LICENCES: &[KnownLicence] = &[
    KnownLicence {
        spdx: "CC-BY-4.0",
        name: "CC BY 4.0",
        url: "https://creativecommons.org/licenses/by/4.0/",
        attribution: true,
        conditions: &[],
        aliases: &["Creative Commons Attribution 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-SA-4.0",
        name: "CC BY-SA 4.0",
        url: "https://creativecommons.org/licenses/by-sa/4.0/",
        attribution: true,
        conditions: &[SHARE_ALIKE],
        aliases: &["Creative Commons Attribution-ShareAlike 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-NC-4.0",
        name: "CC BY-NC 4.0",
        url: "https://creativecommons.org/licenses/by-nc/4.0/",
        attribution: true,
        conditions: &[NON_COMMERCIAL],
        aliases: &["Creative Commons Attribution-NonCommercial 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-NC-SA-4.0",
        name: "CC BY-NC-SA 4.0",
        url: "https://creativecommons.org/licenses/by-nc-sa/4.0/",
        attribution: true,
        conditions: &[NON_COMMERCIAL, SHARE_ALIKE],
        aliases: &["Creative Commons Attribution-NonCommercial-ShareAlike 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-ND-4.0",
        name: "CC BY-ND 4.0",
        url: "https://creativecommons.org/licenses/by-nd/4.0/",
        attribution: true,
        conditions: &[NO_DERIVATIVES],
        aliases: &["Creative Commons Attribution-NoDerivatives 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-NC-ND-4.0",
        name: "CC BY-NC-ND 4.0",
        url: "https://creativecommons.org/licenses/by-nc-nd/4.0/",
        attribution: true,
        conditions: &[NON_COMMERCIAL, NO_DERIVATIVES],
        aliases: &["Creative Commons Attribution-NonCommercial-NoDerivatives 4.0"],
    },
    KnownLicence {
        spdx: "CC-BY-3.0",
        name: "CC BY 3.0",
        url: "https://creativecommons.org/licenses/by/3.0/",
        attribution: true,
        conditions: &[],
        aliases: &["Creative Commons Attribution 3.0"],
    },
    KnownLicence {
        spdx: "CC-BY-SA-3.0",
        name: "CC BY-SA 3.0",
        url: "https://creativecommons.org/licenses/by-sa/3.0/",
        attribution: true,
        conditions: &[SHARE_ALIKE],
        aliases: &["Creative Commons Attribution-ShareAlike 3.0"],
    },
    KnownLicence {
        spdx: "CC0-1.0",
        name: "CC0 1.0",
        url: "https://creativecommons.org/publicdomain/zero/1.0/",
        attribution: false,
        conditions: &[],
        aliases: &["CC0", "CC0 1.0 Universal", "Creative Commons Zero"],
    },
    KnownLicence {
        spdx: "MIT",
        name: "MIT",
        url: "https://opensource.org/license/mit",
        attribution: true,
        conditions: &[],
        aliases: &["MIT License", "Expat"],
    },
    KnownLicence {
        spdx: "Apache-2.0",
        name: "Apache 2.0",
        url: "https://www.apache.org/licenses/LICENSE-2.0",
        attribution: true,
        conditions: &[],
        aliases: &[
            "Apache License 2.0",
            "Apache License, Version 2.0",
            "ASL 2.0",
        ],
    },
    KnownLicence {
        spdx: "BSD-2-Clause",
        name: "BSD 2-Clause",
        url: "https://opensource.org/license/bsd-2-clause",
        attribution: true,
        conditions: &[],
        aliases: &["Simplified BSD"],
    },
    KnownLicence {
        spdx: "BSD-3-Clause",
        name: "BSD 3-Clause",
        url: "https://opensource.org/license/bsd-3-clause",
        attribution: true,
        conditions: &[],
        aliases: &["New BSD", "Modified BSD"],
    },
    KnownLicence {
        spdx: "Unlicense",
        name: "Unlicense",
        url: "https://unlicense.org/",
        attribution: false,
        conditions: &[],
        aliases: &[],
    },
    KnownLicence {
        spdx: "0BSD",
        name: "0BSD",
        url: "https://opensource.org/license/0bsd",
        attribution: false,
        conditions: &[],
        aliases: &["Zero-Clause BSD", "BSD Zero Clause"],
    },
];

/// The known licence `name` is a spelling of.
pub fn by_name(name: &str) -> Option<&'static KnownLicence> {
    let key = name_key(name);
    if key.is_empty() {
        return None;
    }
    KNOWN_LICENCES.iter().find(|licence| {
        [licence.spdx, licence.name]
            .iter()
            .chain(licence.aliases)
            .any(|spelling| name_key(spelling) == key)
    })
}

/// The known licence whose canonical URL `url` is (the scheme, `www.`, a trailing slash, and a
/// `legalcode` or `deed.xx` page of a Creative Commons licence do not matter).
pub fn by_url(url: &str) -> Option<&'static KnownLicence> {
    let key = url_key(url);
    KNOWN_LICENCES
        .iter()
        .find(|licence| url_key(licence.url) == key)
}

/// Lowercase letters, digits and dots, without the words that do not tell licences apart.
fn name_key(name: &str) -> String {
    const IGNORED: [&str; 6] = [
        "license",
        "licence",
        "version",
        "the",
        "international",
        "universal",
    ];
    name.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|word| !word.is_empty() && !IGNORED.contains(word))
        .collect()
}

fn url_key(url: &str) -> String {
    let url = url.trim().to_lowercase();
    let url = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(&url);
    let url = url.strip_prefix("www.").unwrap_or(url);
    let mut parts: Vec<&str> = url.split('/').filter(|part| !part.is_empty()).collect();
    if parts
        .last()
        .is_some_and(|last| last.starts_with("legalcode") || last.starts_with("deed"))
    {
        parts.pop();
    }
    let joined = parts.join("/");
    // opensource.org lists each licence under /licenses/ and /license/.
    joined.replacen("opensource.org/licenses/", "opensource.org/license/", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spdx_identifiers_and_common_spellings_are_known() {
        for (name, spdx) in [
            ("CC BY 4.0", "CC-BY-4.0"),
            ("CC-BY-4.0", "CC-BY-4.0"),
            ("cc by 4.0", "CC-BY-4.0"),
            (
                "Creative Commons Attribution 4.0 International",
                "CC-BY-4.0",
            ),
            ("CC BY-SA 4.0", "CC-BY-SA-4.0"),
            ("CC-BY-NC-SA-4.0", "CC-BY-NC-SA-4.0"),
            ("CC0 1.0", "CC0-1.0"),
            ("CC0-1.0", "CC0-1.0"),
            ("CC0", "CC0-1.0"),
            ("CC0 1.0 Universal", "CC0-1.0"),
            ("MIT", "MIT"),
            ("MIT License", "MIT"),
            ("Apache-2.0", "Apache-2.0"),
            ("Apache License, Version 2.0", "Apache-2.0"),
            ("The Unlicense", "Unlicense"),
        ] {
            assert_eq!(by_name(name).map(|l| l.spdx), Some(spdx), "{name}");
        }
        for unknown in [
            "CC BY",
            "All rights reserved",
            "",
            "GPL-3.0-or-later",
            "CC BY 5.0",
        ] {
            assert_eq!(by_name(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn canonical_urls_are_recognised_in_their_usual_variants() {
        for (url, spdx) in [
            ("https://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0"),
            ("http://creativecommons.org/licenses/by/4.0", "CC-BY-4.0"),
            (
                "https://creativecommons.org/licenses/by-sa/4.0/legalcode",
                "CC-BY-SA-4.0",
            ),
            (
                "https://creativecommons.org/licenses/by/4.0/deed.es",
                "CC-BY-4.0",
            ),
            (
                "https://creativecommons.org/publicdomain/zero/1.0/",
                "CC0-1.0",
            ),
            ("https://opensource.org/licenses/MIT", "MIT"),
            ("https://www.apache.org/licenses/LICENSE-2.0", "Apache-2.0"),
        ] {
            assert_eq!(by_url(url).map(|l| l.spdx), Some(spdx), "{url}");
        }
        assert_eq!(by_url("https://example.com/licence"), None);
    }

    #[test]
    fn every_entry_has_a_distinct_identifier_url_and_spellings() {
        let mut keys = std::collections::HashSet::new();
        for licence in KNOWN_LICENCES {
            assert!(keys.insert(url_key(licence.url)), "{}", licence.url);
            for spelling in [licence.spdx, licence.name].iter().chain(licence.aliases) {
                assert_eq!(by_name(spelling), Some(licence), "{spelling}");
            }
            assert_eq!(by_url(licence.url), Some(licence));
        }
    }
}
