//! What the documents say about reusing the content: only what the licence says. A licence
//! content-api knows gives its terms (attribution only when it requires it, and its other
//! conditions); an unknown one is named, with its link when there is one, and its terms are
//! left to its text.

use super::page::{Inline, link, text};
use crate::config::Licence;

/// "reuse is allowed, including for training and grounding, with attribution" (lowercase, no
/// final stop), `attribution` being the words for the licence's attribution requirement in the
/// caller's document; `None` for a licence whose terms content-api does not know.
pub fn reuse_clause(licence: &Licence, attribution: &str) -> Option<String> {
    let known = licence.known?;
    let mut clause = String::from("reuse is allowed, including for training and grounding");
    if known.attribution {
        clause.push_str(", ");
        clause.push_str(attribution);
    }
    for condition in known.conditions {
        clause.push_str(", ");
        clause.push_str(condition);
    }
    Some(clause)
}

/// What a document says when it cannot state the terms (an unknown licence).
pub const SEE_THE_LICENCE: &str = "see the licence for the reuse it allows";

/// [`reuse_clause`], or [`SEE_THE_LICENCE`].
pub fn reuse_or_see_licence(licence: &Licence, attribution: &str) -> String {
    reuse_clause(licence, attribution).unwrap_or_else(|| SEE_THE_LICENCE.to_string())
}

/// The licence's name, linked to its text when it has a URL.
pub fn licence_name(licence: &Licence) -> Inline {
    match &licence.url {
        Some(url) => link(&licence.name, url),
        None => text(&licence.name),
    }
}

/// `text` with its first letter in upper case.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn licence(name: &str, url: Option<&str>) -> Licence {
        Licence::new(name.into(), url.map(str::to_string))
    }

    #[test]
    fn attribution_and_conditions_follow_the_licence() {
        assert_eq!(
            reuse_clause(&licence("CC BY 4.0", None), "with attribution").as_deref(),
            Some("reuse is allowed, including for training and grounding, with attribution")
        );
        assert_eq!(
            reuse_clause(&licence("CC0-1.0", None), "with attribution").as_deref(),
            Some("reuse is allowed, including for training and grounding")
        );
        assert_eq!(
            reuse_clause(&licence("CC BY-NC-SA 4.0", None), "with attribution").as_deref(),
            Some(
                "reuse is allowed, including for training and grounding, with attribution, for non-commercial purposes only, with adaptations shared under the same licence"
            )
        );
        let unknown = licence("All rights reserved", Some("https://example.com/terms"));
        assert_eq!(reuse_clause(&unknown, "with attribution"), None);
        assert_eq!(
            reuse_or_see_licence(&unknown, "with attribution"),
            SEE_THE_LICENCE
        );
        assert_eq!(capitalized("reuse is"), "Reuse is");
    }
}
