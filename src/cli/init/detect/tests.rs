//! Detection on small sites shaped as each generator's users shape them: the generator, the
//! content folder, the patterns with their counts, the languages and keys, and a `watch.toml`
//! that is valid TOML saying so.

use super::*;
use camino::Utf8PathBuf;

/// A temporary site from (path, text) pairs.
fn site(files: &[(&str, &str)]) -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    (dir, root)
}

fn patterns(d: &Detection) -> Vec<(&str, usize)> {
    d.posts
        .iter()
        .map(|p| (p.pattern.as_str(), p.files))
        .collect()
}

fn keys<'a>(d: &'a Detection, field: &str) -> Vec<&'a str> {
    d.keys
        .iter()
        .find(|k| k.field == field)
        .map(|k| k.keys.iter().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The rendered watch.toml, parsed: it must be valid TOML, and the reader must accept it (its
/// patterns and every key of `[front_matter.keys]` included).
fn rendered(d: &Detection) -> (String, toml::Table) {
    let text = watch_toml(d);
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("not valid TOML: {e}\n{text}"));
    let readable = &text;
    let config = crate::watch_toml::parse("watch.toml", readable, camino::Utf8Path::new("."))
        .unwrap_or_else(|e| panic!("the reader refuses it: {e}\n{readable}"));
    let posts: Vec<String> = config
        .layout
        .posts()
        .iter()
        .map(|p| p.as_str().to_string())
        .collect();
    let expected: Vec<&str> = d.posts.iter().map(|p| p.pattern.as_str()).collect();
    if !expected.is_empty() {
        assert_eq!(posts, expected);
    }
    (text, table)
}

fn strings(value: &toml::Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn hugo_with_page_bundles_and_language_suffixes() {
    let post = |date: &str, tags: &str| {
        format!("+++\ntitle = \"A\"\ndate = {date}\ntags = {tags}\ndraft = false\n+++\nBody.\n")
    };
    let a = post("2024-05-01", "[\"Web App\", \"rust\"]");
    let b = post("2024-06-01", "[\"rust\"]");
    let (_dir, root) = site(&[
        (
            "hugo.toml",
            "baseURL = 'https://example.org/'\ntitle = 'My Blog'\ndefaultContentLanguage = 'en'\n[languages.en]\nweight = 1\n[languages.fr]\nweight = 2\n",
        ),
        ("content/_index.md", "+++\ntitle = \"Home\"\n+++\n"),
        ("content/about.md", "+++\ntitle = \"About\"\n+++\n"),
        ("content/posts/_index.md", "+++\ntitle = \"Posts\"\n+++\n"),
        ("content/posts/first/index.md", &a),
        ("content/posts/first/index.fr.md", &a),
        ("content/posts/second/index.md", &b),
        (
            "content/posts/third/index.md",
            "+++\ntitle = \"C\"\ndate = 2024-07-01\nsummary = \"S\"\ndraft = true\n+++\n",
        ),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Hugo);
    assert!(d.generator.as_ref().unwrap().why.contains("hugo.toml"));
    assert_eq!(d.content_dir.value, "content");
    assert_eq!(patterns(&d), [("posts/{slug}/index.{lang}", 4)]);
    assert_eq!(d.posts[0].suffixed, 1);
    assert_eq!(d.languages.value, ["en", "fr"]);
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://example.org/");
    assert_eq!(d.site_name.as_ref().unwrap().value, "My Blog");
    assert_eq!(keys(&d, "date"), ["date"]);
    assert_eq!(keys(&d, "description"), ["summary"]);
    assert!(d.description_from_body.value);
    assert!(d.tags_as_written.value, "{:?}", d.tags_as_written);
    assert_eq!(d.draft_posts, 1);
    let (text, table) = rendered(&d);
    assert_eq!(table["content_dir"].as_str(), Some("content"));
    assert_eq!(table["out_dir"].as_str(), Some("content-api-out"));
    assert_eq!(strings(&table["languages"]), ["en", "fr"]);
    assert_eq!(
        strings(&table["layout"]["posts"]),
        ["posts/{slug}/index.{lang}"]
    );
    assert_eq!(table["layout"]["tags"].as_str(), Some(""));
    assert_eq!(table["site"]["name"].as_str(), Some("My Blog"));
    assert_eq!(
        strings(&table["front_matter"]["keys"]["description"]),
        ["summary"]
    );
    assert!(text.contains("# Hugo (hugo.toml found)"), "{text}");
    assert!(text.contains("4 files, 1 with a language suffix"), "{text}");
    assert!(
        text.contains("out_dir = \"public\", then `hugo && content-api build`"),
        "{text}"
    );
}

#[test]
fn hugo_with_language_folders() {
    let post = "---\ntitle: A\ndate: 2024-01-01\ndescription: D\ntags: [go]\n---\n";
    let (_dir, root) = site(&[
        (
            "config.toml",
            "baseURL = \"https://ex.org\"\ndefaultContentLanguage = \"fr\"\n[languages]\n[languages.en]\ncontentDir = \"content/en\"\n[languages.fr]\ncontentDir = \"content/fr\"\n",
        ),
        ("content/en/posts/a.md", post),
        ("content/en/posts/b.md", post),
        ("content/fr/posts/a.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Hugo);
    assert_eq!(patterns(&d), [("{lang}/posts/{slug}", 3)]);
    assert_eq!(d.languages.value, ["fr", "en"]);
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://ex.org");
    assert!(!d.description_from_body.value);
    assert!(!d.tags_as_written.value);
    rendered(&d);
}

#[test]
fn jekyll_posts_and_drafts() {
    let post = "---\nlayout: post\ntitle: A\ncategories: [Travel]\nexcerpt: E\n---\nBody\n";
    let (_dir, root) = site(&[
        (
            "_config.yml",
            "title: Jekyll Site\nurl: \"https://me.github.io\"\nbaseurl: \"/blog\"\nlang: en-US\n",
        ),
        ("_posts/2024-01-02-hello.md", post),
        ("_posts/2024-02-03-again.markdown", post),
        ("_posts/travel/2024-03-04-paris.md", post),
        ("_drafts/coming-soon.md", "---\ntitle: Soon\n---\n"),
        ("about.md", "---\ntitle: About\n---\n"),
        ("index.md", "---\nlayout: home\n---\n"),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Jekyll);
    assert_eq!(d.content_dir.value, ".");
    assert_eq!(
        patterns(&d),
        [("_posts/{date}-{slug}", 2), ("_posts/*/{date}-{slug}", 1)]
    );
    assert_eq!(d.drafts.len(), 1);
    assert_eq!(d.drafts[0].pattern, "_drafts/{slug}");
    assert_eq!(d.draft_posts, 1);
    assert_eq!(d.languages.value, ["en"]);
    assert_eq!(
        d.base_url.as_ref().unwrap().value,
        "https://me.github.io/blog"
    );
    assert_eq!(keys(&d, "categories"), ["categories"]);
    assert_eq!(keys(&d, "description"), ["excerpt"]);
    let (_, table) = rendered(&d);
    assert_eq!(strings(&table["layout"]["drafts"]), ["_drafts/{slug}"]);
    assert_eq!(
        table["base_url"].as_str(),
        Some("https://me.github.io/blog")
    );
}

#[test]
fn astro_blog_template() {
    let post = "---\ntitle: 'First post'\ndescription: 'Lorem ipsum'\npubDate: 'Jul 08 2022'\nheroImage: '../../assets/blog-placeholder-3.jpg'\n---\n";
    let (_dir, root) = site(&[
        (
            "astro.config.mjs",
            "import { defineConfig } from 'astro/config';\nexport default defineConfig({\n\tsite: 'https://example.com',\n\tintegrations: [mdx(), sitemap()],\n});\n",
        ),
        (
            "src/consts.ts",
            "export const SITE_TITLE = 'Astro Blog';\nexport const SITE_DESCRIPTION = 'Welcome';\n",
        ),
        (
            "src/content.config.ts",
            "const blog = defineCollection({\n\tloader: glob({ base: './src/content/blog', pattern: '**/*.{md,mdx}' }),\n});\n",
        ),
        ("src/content/blog/first-post.md", post),
        ("src/content/blog/markdown-style-guide.md", post),
        ("src/content/blog/using-mdx.mdx", post),
        ("README.md", "# Astro Starter Kit\n"),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Astro);
    assert_eq!(d.content_dir.value, "src/content");
    assert_eq!(patterns(&d), [("blog/{slug}", 3)]);
    assert_eq!(keys(&d, "date"), ["pubDate"]);
    assert_eq!(keys(&d, "image"), ["heroImage"]);
    assert_eq!(d.site_name.as_ref().unwrap().value, "Astro Blog");
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://example.com");
    assert_eq!(d.languages.value, ["en"]);
    assert!(
        d.undecided.iter().any(|s| s.contains("language")),
        "{:?}",
        d.undecided
    );
    let (text, _) = rendered(&d);
    assert!(text.contains("npx astro add @content-api/astro"), "{text}");
}

#[test]
fn astro_paper_with_a_data_folder() {
    let post = "---\nauthor: Sat Naing\npubDatetime: 2022-09-23T15:22:00Z\ntitle: Adding new posts\nfeatured: true\ndraft: false\ntags:\n  - docs\n  - FAQ\ndescription: Some rules.\n---\n";
    let (_dir, root) = site(&[
        (
            "astro.config.ts",
            "export default defineConfig({\n  site: SITE.website,\n  i18n: { locales: [\"en\"], defaultLocale: \"en\" },\n});\n",
        ),
        (
            "src/config.ts",
            "export const SITE = {\n  website: \"https://astro-paper.pages.dev/\",\n  author: \"Sat Naing\",\n  title: \"AstroPaper\",\n  lang: \"en\",\n} as const;\n",
        ),
        (
            "src/content.config.ts",
            "export const BLOG_PATH = \"src/data/blog\";\nconst blog = defineCollection({\n  loader: glob({ pattern: \"**/[^_]*.md\", base: `./${BLOG_PATH}` }),\n});\n",
        ),
        ("src/data/blog/adding-new-post.md", post),
        ("src/data/blog/examples/tailwind-typography.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Astro);
    // The base is a template literal of a constant: the folder is found all the same.
    assert_eq!(d.content_dir.value, "src/data");
    assert_eq!(patterns(&d), [("blog/*/{slug}", 1), ("blog/{slug}", 1)]);
    assert_eq!(d.languages.value, ["en"]);
    assert!(d.languages.why.contains("i18n"), "{:?}", d.languages);
    // A plain string base, no i18n: the language comes from the site's constants.
    let (_dir, root) = site(&[
        (
            "astro.config.ts",
            "export default defineConfig({ site: 'https://astro-paper.pages.dev/' });\n",
        ),
        (
            "src/config.ts",
            "export const SITE = { title: \"AstroPaper\", lang: \"en\" };\n",
        ),
        (
            "src/content.config.ts",
            "const blog = defineCollection({\n  loader: glob({ pattern: \"**/[^_]*.md\", base: \"./src/data/blog\" }),\n});\n",
        ),
        ("src/data/blog/adding-new-post.md", post),
        ("src/data/blog/examples/tailwind-typography.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.content_dir.value, "src/data");
    assert_eq!(patterns(&d), [("blog/*/{slug}", 1), ("blog/{slug}", 1)]);
    assert_eq!(keys(&d, "date"), ["pubDatetime"]);
    assert!(d.tags_as_written.value);
    assert_eq!(d.languages.value, ["en"]);
    assert_eq!(d.site_name.as_ref().unwrap().value, "AstroPaper");
    rendered(&d);
}

#[test]
fn eleventy_base_blog() {
    let post = "---\ntitle: This is my first post.\ndescription: This is a post on My Blog about agile frameworks.\ndate: 2018-05-01\ntags:\n  - another tag\n---\n";
    let (_dir, root) = site(&[
        (
            "eleventy.config.js",
            "export default async function(eleventyConfig) {};\nexport const config = {\n\tdir: {\n\t\tinput: \"content\",\n\t\tincludes: \"../_includes\",\n\t}\n};\n",
        ),
        (
            "_data/metadata.js",
            "export default {\n\ttitle: \"Eleventy Base Blog v9\",\n\turl: \"https://example.com/\",\n\tlanguage: \"en\",\n};\n",
        ),
        ("content/blog/firstpost.md", post),
        ("content/blog/secondpost.md", post),
        ("content/blog/fifthpost/fifthpost.md", post),
        ("content/about.md", "---\ntitle: About\n---\n"),
        ("content/index.njk", "home"),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Eleventy);
    assert_eq!(d.content_dir.value, "content");
    assert_eq!(patterns(&d), [("blog/{slug}", 2), ("blog/*/{slug}", 1)]);
    assert_eq!(d.site_name.as_ref().unwrap().value, "Eleventy Base Blog v9");
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://example.com/");
    assert_eq!(d.languages.value, ["en"]);
    assert!(d.tags_as_written.value);
    rendered(&d);
}

#[test]
fn zola_with_toml_front_matter_and_a_translation() {
    let post = "+++\ntitle = \"A\"\ndate = 2024-01-01\ndescription = \"D\"\n[taxonomies]\ntags = [\"rust\"]\n+++\nBody\n";
    let (_dir, root) = site(&[
        (
            "config.toml",
            "base_url = \"https://zola.example\"\ntitle = \"Zola Site\"\ndefault_language = \"en\"\ntaxonomies = [{name = \"tags\"}]\n[languages.fr]\ntitle = \"Site Zola\"\n",
        ),
        ("content/_index.md", "+++\n+++\n"),
        ("content/blog/_index.md", "+++\nsort_by = \"date\"\n+++\n"),
        ("content/blog/2024-01-01-first.md", post),
        ("content/blog/2024-01-01-first.fr.md", post),
        ("content/blog/second/index.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Zola);
    assert_eq!(
        patterns(&d),
        [("blog/{date}-{slug}.{lang}", 2), ("blog/{slug}/index", 1)]
    );
    assert_eq!(d.languages.value, ["en", "fr"]);
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://zola.example");
    assert_eq!(keys(&d, "tags"), ["taxonomies.tags"]);
    let (text, _) = rendered(&d);
    assert!(text.contains("# Zola (config.toml with base_url"), "{text}");
}

#[test]
fn markdown_without_a_generator_and_an_empty_folder() {
    let (_dir, root) = site(&[(
        "content/blog/en/2024-01-01_hello.md",
        "---\ntitle: Hi\npubDate: 2024-01-01\n---\n",
    )]);
    assert!(is_site(&root));
    let d = detect(&root).unwrap();
    assert!(d.generator.is_none());
    assert_eq!(patterns(&d), [("blog/{lang}/{date}_{slug}", 1)]);
    assert!(d.decks.is_empty());
    let (_, table) = rendered(&d);
    assert_eq!(strings(&table["layout"]["decks"]), Vec::<&str>::new());
    // The seed's own shape, slide decks and tag files included.
    let (_dir, root) = site(&[
        (
            "content/blog/en/2024-01-01_hello.md",
            "---\ntitle: Hi\npubDate: 2024-01-01\n---\n",
        ),
        (
            "content/blog/es/2024-01-01_hello.md",
            "---\ntitle: Hola\npubDate: 2024-01-01\n---\n",
        ),
        (
            "content/blog/en/_demo/2024-01-01_demo.md",
            "---\ntitle: Demo\n---\n",
        ),
        (
            "content/slides/en/2024-02-01_talk.md",
            "---\ntitle: Talk\npubDate: 2024-02-01\n---\n",
        ),
        ("content/tags/welcome.md", "---\nname: welcome\n---\n"),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(patterns(&d), [("blog/{lang}/{date}_{slug}", 2)]);
    assert_eq!(d.languages.value, ["en", "es"]);
    let (_, table) = rendered(&d);
    assert_eq!(
        strings(&table["layout"]["decks"]),
        ["slides/{lang}/{date}_{slug}"]
    );
    assert_eq!(table["layout"]["tags"].as_str(), Some("tags"));
    assert_eq!(table["layout"]["series"].as_str(), Some(""));
    let (_dir, root) = site(&[("README.md", "# Notes\n")]);
    assert!(!is_site(&root));
    assert!(detect(&root).is_none());
}

#[test]
fn hugo_split_configuration_and_date_folders() {
    let post = "---\ntitle: A\npublishDate: 2024-05-01\ncategories: [Travel]\ndraft: true\n---\n";
    let (_dir, root) = site(&[
        (
            "config/_default/hugo.yaml",
            "baseURL: https://split.example/\ntitle: Split\ndefaultContentLanguage: de\n",
        ),
        (
            "config/_default/languages.toml",
            "[de]\nweight = 1\n[en]\nweight = 2\n",
        ),
        ("content/posts/2024/05/trip.md", post),
        ("content/posts/2024/05/trip.en.md", post),
        ("content/posts/2023/11/older.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Hugo);
    assert!(
        d.generator
            .as_ref()
            .unwrap()
            .why
            .contains("config/_default")
    );
    assert_eq!(patterns(&d), [("posts/{yyyy}/{mm}/{slug}.{lang}", 3)]);
    assert_eq!(d.languages.value, ["de", "en"]);
    assert_eq!(d.base_url.as_ref().unwrap().value, "https://split.example/");
    assert_eq!(keys(&d, "date"), ["publishDate"]);
    assert_eq!(keys(&d, "categories"), ["categories"]);
    assert_eq!(d.draft_posts, 3);
    rendered(&d);
}

#[test]
fn eleventy_with_an_src_input_folder() {
    let post = "---\ntitle: A\ndate: 2024-01-01\n---\n";
    let (_dir, root) = site(&[
        (
            ".eleventy.js",
            "module.exports = function (eleventyConfig) {\n  return { dir: { input: \"src\", output: \"_site\" } };\n};\n",
        ),
        ("src/posts/2024-01-01-one.md", post),
        ("src/posts/2024-02-01-two.md", post),
        ("src/posts/posts.json", "{}"),
        ("src/index.md", "---\ntitle: Home\n---\n"),
        ("_site/posts/one/index.html", "built"),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(d.generator.as_ref().unwrap().value, Generator::Eleventy);
    assert_eq!(d.content_dir.value, "src");
    assert!(d.base_url.is_none());
    assert_eq!(patterns(&d), [("posts/{date}-{slug}", 2)]);
    assert!(d.undecided.iter().any(|s| s.contains("language")));
    let (text, _) = rendered(&d);
    assert!(text.contains("# What init could not decide:"), "{text}");
}

#[test]
fn a_relative_base_url_is_left_commented() {
    let (_dir, root) = site(&[
        ("hugo.yaml", "baseURL: /\ntitle: Local\n"),
        ("content/blog/a.md", "---\ntitle: A\n---\n"),
    ]);
    let d = detect(&root).unwrap();
    assert!(d.base_url.is_none());
    assert!(
        d.undecided.iter().any(|s| s.contains("absolute")),
        "{:?}",
        d.undecided
    );
    let (text, table) = rendered(&d);
    assert!(!table.contains_key("base_url"), "{text}");
    assert!(text.contains("# base_url = "), "{text}");
}

#[test]
fn a_language_marked_twice_keeps_the_folder() {
    let post = "---\ntitle: A\n---\n";
    let (_dir, root) = site(&[
        ("content/posts/en/a.md", post),
        ("content/posts/fr/a.fr.md", post),
    ]);
    let d = detect(&root).unwrap();
    assert_eq!(patterns(&d), [("posts/{lang}/{slug}", 2)]);
    assert!(
        d.undecided
            .iter()
            .any(|s| s.contains("language folder and a language suffix"))
    );
    rendered(&d);
}

/// The real sites of `tests/fixtures/sites`, each with the `watch.toml` written for it by hand:
/// detection finds the same content folder, post patterns (a pattern and its `.{lang}` twin are
/// one: unmarked is the default language) and languages.
#[test]
fn the_real_sites_of_the_fixtures_are_detected_as_their_watch_toml_says() {
    let sites = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sites");
    let mut checked = 0;
    for entry in std::fs::read_dir(&sites).unwrap() {
        let root = Utf8PathBuf::from_path_buf(entry.unwrap().path()).unwrap();
        let Ok(text) = std::fs::read_to_string(root.join("watch.toml")) else {
            continue;
        };
        let name = root.file_name().unwrap().to_string();
        let expected: toml::Table = text.parse().unwrap();
        let d = detect(&root).unwrap_or_else(|| panic!("{name}: not detected"));
        assert!(d.generator.is_some(), "{name}: no generator");
        assert_eq!(
            Some(d.content_dir.value.as_str()),
            expected["content_dir"].as_str(),
            "{name}"
        );
        let wanted: Vec<&str> = strings(&expected["layout"]["posts"]);
        let twin = |p: &str| wanted.contains(&p) || wanted.contains(&p.trim_end_matches(".{lang}"));
        assert!(!d.posts.is_empty(), "{name}: no posts");
        for p in &d.posts {
            assert!(
                twin(&p.pattern),
                "{name}: {} is not in {wanted:?}",
                p.pattern
            );
        }
        let languages = strings(&expected["languages"]);
        if name == "astro-paper-zh" {
            // Its config says `lang: "en"`; the posts are in Chinese, which no file says.
            assert_eq!(d.languages.value, ["en"]);
            assert!(
                d.undecided.iter().any(|s| s.contains("Chinese")),
                "{:?}",
                d.undecided
            );
        } else {
            assert_eq!(d.languages.value, languages, "{name}");
        }
        let date = expected["front_matter"]["keys"]
            .get("date")
            .map(strings)
            .unwrap_or_default();
        if !date.is_empty() {
            assert_eq!(keys(&d, "date"), date, "{name}");
        }
        rendered(&d);
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} fixture sites");
}
