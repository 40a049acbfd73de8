//! Front-matter keys that other static-site generators read (Hugo, Jekyll, Astro, Eleventy,
//! Zola, Docusaurus, and their popular themes), with who reads each. A site that moves to
//! content-api, or feeds the same files to both, keeps them: they are neither typos nor
//! mistakes, so they are never an error (see `keys`' header).

/// Each key, and the generators (or themes) whose documented front matter has it.
pub const OTHER_GENERATORS: &[(&str, &str)] = &[
    ("aliases", "Hugo, Zola"),
    ("authors", "Hugo, Zola, Docusaurus"),
    ("canonical", "Astro themes, Jekyll SEO"),
    ("canonical_url", "Jekyll SEO, Eleventy"),
    ("canonicalURL", "Hugo PaperMod"),
    ("categories", "Hugo, Jekyll"),
    ("category", "Jekyll"),
    ("comments", "Hugo and Jekyll themes"),
    ("cover", "Hugo PaperMod"),
    ("coverImage", "Astro themes"),
    ("custom_edit_url", "Docusaurus"),
    ("date", "Hugo, Jekyll, Eleventy, Zola, Docusaurus"),
    ("description", "Hugo, Jekyll, Zola, Docusaurus"),
    ("draft", "Hugo, Zola, Docusaurus"),
    ("eleventyComputed", "Eleventy"),
    ("eleventyExcludeFromCollections", "Eleventy"),
    ("eleventyNavigation", "Eleventy"),
    ("excerpt", "Jekyll"),
    ("excerpt_separator", "Jekyll"),
    ("expiryDate", "Hugo"),
    ("extra", "Zola"),
    ("featured", "Hugo and Astro themes"),
    ("featured_image", "Hugo themes"),
    ("headless", "Hugo"),
    ("hidden", "Hugo and Astro themes"),
    ("hide_table_of_contents", "Docusaurus"),
    ("hide_title", "Docusaurus"),
    ("id", "Docusaurus"),
    ("image", "Jekyll, Docusaurus, Astro themes"),
    ("images", "Hugo"),
    ("in_search_index", "Zola"),
    ("isCJKLanguage", "Hugo"),
    ("keywords", "Hugo, Docusaurus"),
    ("lang", "Jekyll, Astro themes"),
    ("last_modified_at", "Jekyll"),
    ("last_update", "Docusaurus"),
    ("lastmod", "Hugo"),
    ("layout", "Jekyll, Hugo, Astro, Eleventy"),
    ("linkTitle", "Hugo"),
    ("markup", "Hugo"),
    ("math", "Hugo and Jekyll themes"),
    ("mathjax", "Jekyll themes"),
    ("mermaid", "Hugo and Jekyll themes"),
    ("ogImage", "Astro themes"),
    ("outputs", "Hugo"),
    ("pagination", "Eleventy"),
    ("pagination_next", "Docusaurus"),
    ("pagination_prev", "Docusaurus"),
    ("params", "Hugo"),
    ("path", "Zola"),
    ("permalink", "Jekyll, Eleventy"),
    ("pinned", "Astro and Hugo themes"),
    ("publishDate", "Hugo"),
    ("published", "Jekyll"),
    ("readingTime", "Astro themes"),
    ("redirect_from", "Jekyll"),
    ("redirect_to", "Jekyll"),
    ("resources", "Hugo"),
    ("ShowToc", "Hugo PaperMod"),
    ("showToc", "Hugo PaperMod"),
    ("sidebar_label", "Docusaurus"),
    ("sidebar_position", "Docusaurus"),
    ("sitemap", "Hugo, Jekyll"),
    ("slug", "Hugo, Jekyll, Eleventy, Zola, Docusaurus"),
    ("sticky", "Jekyll themes"),
    ("subtitle", "Hugo and Jekyll themes"),
    ("summary", "Hugo"),
    ("tags", "Hugo, Jekyll, Eleventy, Docusaurus"),
    ("taxonomies", "Zola"),
    ("template", "Zola"),
    ("templateEngineOverride", "Eleventy"),
    ("thumbnail", "Hugo and Jekyll themes"),
    ("title", "Hugo, Jekyll, Eleventy, Zola, Docusaurus"),
    ("toc", "Hugo and Jekyll themes"),
    ("translationKey", "Hugo"),
    ("type", "Hugo"),
    ("unlisted", "Docusaurus"),
    ("updated", "Zola"),
    ("url", "Hugo"),
    ("weight", "Hugo, Zola"),
];

/// Who reads `key` among other generators, if any does.
pub fn read_by(key: &str) -> Option<&'static str> {
    OTHER_GENERATORS
        .iter()
        .find(|(known, _)| *known == key)
        .map(|(_, who)| *who)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_is_listed_once() {
        let mut keys: Vec<&str> = OTHER_GENERATORS.iter().map(|(key, _)| *key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), before);
        assert_eq!(read_by("lastmod"), Some("Hugo"));
        assert_eq!(read_by("decription"), None);
    }
}
