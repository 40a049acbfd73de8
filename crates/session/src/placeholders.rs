//! Settings that must not be published as they are, the same for `build` and `check` (a pull
//! request's check fails exactly when its deploy would): placeholders (without `watch.toml`, or
//! with one that leaves them out, a build uses `http://localhost:4321` in every URL, a generic
//! author and a licence nobody chose), and a licence the documents cannot state rightly (one
//! content-api does not know, without `licence_url`; a `licence_url` that is another
//! licence's). The caller says them: a warning, and an error in CI.

use crate::config::{Licence, SiteConfig};
use crate::watch_toml::PlaceholderKeys;

/// One setting the build is using a placeholder for.
#[derive(Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// How to set it: `base_url` (watch.toml) or `--base-url URL`.
    pub how_to_set: &'static str,
    /// The value used instead.
    pub used: String,
}

/// The settings of a run that are placeholders: `config` resolved from a `watch.toml` that sets
/// the keys `file_sets` names, with `--base-url` given or not.
pub fn find(
    config: &SiteConfig,
    file_sets: PlaceholderKeys,
    base_url_flag: bool,
) -> Vec<Placeholder> {
    let keys = file_sets;
    let mut found = Vec::new();
    if !base_url_flag && !keys.base_url {
        found.push(Placeholder {
            how_to_set: "`base_url` in watch.toml (or --base-url URL)",
            used: config.base_url.clone(),
        });
    }
    if !keys.author {
        found.push(Placeholder {
            how_to_set: "`author` under [site] in watch.toml",
            used: format!("\"{}\"", config.author),
        });
    }
    if !keys.licence {
        found.push(Placeholder {
            how_to_set: "`licence` under [site] in watch.toml (an SPDX identifier such as CC-BY-4.0 gets its URL)",
            used: config.licence.name.clone(),
        });
    }
    found
}

/// What is wrong with the licence settings, one message each (without its level).
pub fn licence_problems(licence: &Licence) -> Vec<String> {
    let mut problems = Vec::new();
    if licence.known.is_none() && licence.url.is_none() {
        problems.push(format!(
            "the licence \"{}\" is not one content-api knows, and `licence_url` is not set: the documents would name it without a link, and say nothing of its terms\n  \
             = help: set `licence_url` under [site] in watch.toml to the licence's text, or write a licence content-api knows by its SPDX identifier ({})",
            licence.name,
            KNOWN_EXAMPLES.join(", ") + ", ..."
        ));
    }
    if let (Some(named), Some(linked), Some(url)) = (licence.known, licence.url_names, &licence.url)
    {
        problems.push(format!(
            "`licence` is \"{}\" ({}), but `licence_url` {url} is the URL of {}: the documents would name one licence and link another\n  \
             = help: make them agree: the URL of {} is {} (or leave `licence_url` out: a licence content-api knows gets its URL)",
            licence.name, named.spdx, linked.spdx, named.spdx, named.url
        ));
    }
    problems
}

/// Examples of SPDX identifiers for the help (each one known: see the test).
const KNOWN_EXAMPLES: [&str; 5] = ["CC-BY-4.0", "CC-BY-SA-4.0", "CC0-1.0", "MIT", "Apache-2.0"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_the_help_gives_are_known() {
        for spdx in KNOWN_EXAMPLES {
            let licence = Licence::new(spdx.to_string(), None);
            assert_eq!(licence.known.map(|k| k.spdx), Some(spdx));
            assert!(licence_problems(&licence).is_empty());
        }
        assert_eq!(
            licence_problems(&Licence::new("Mine".into(), None)).len(),
            1
        );
        assert!(
            licence_problems(&Licence::new(
                "Mine".into(),
                Some("https://x.example/l".into())
            ))
            .is_empty()
        );
    }

    #[test]
    fn a_key_is_a_placeholder_until_the_file_or_a_flag_sets_it() {
        let config = SiteConfig::defaults(camino::Utf8Path::new("site"));
        let unset = |sets, flag| {
            find(&config, sets, flag)
                .iter()
                .map(|p| {
                    p.how_to_set
                        .split('`')
                        .nth(1)
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            unset(PlaceholderKeys::default(), false),
            ["base_url", "author", "licence"]
        );
        assert_eq!(
            unset(PlaceholderKeys::default(), true),
            ["author", "licence"]
        );
        let all = PlaceholderKeys {
            base_url: true,
            author: true,
            licence: true,
        };
        assert!(unset(all, false).is_empty());
        let found = find(&config, PlaceholderKeys::default(), false);
        assert_eq!(found[0].used, crate::config::DEFAULT_BASE_URL);
    }
}
