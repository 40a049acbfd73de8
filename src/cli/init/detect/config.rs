//! Which generator a site is built with, told by its own files (Hugo, Zola, Jekyll, Astro,
//! Eleventy), and what its configuration says that `watch.toml` needs: base URL, title,
//! languages, and where the posts are.

use super::value::{self, Value, js_string, js_strings};
use super::{Generator, Why};
use camino::Utf8Path;

/// What a generator's own files say.
#[derive(Debug, Default)]
pub struct GeneratorConfig {
    pub generator: Option<Why<Generator>>,
    pub base_url: Option<Why<String>>,
    pub title: Option<Why<String>>,
    /// The languages, default first, when the configuration lists them.
    pub languages: Option<Why<Vec<String>>>,
    /// One language the configuration names (`languageCode`, `lang`), for a site that lists none.
    pub language_hint: Option<Why<String>>,
    /// The content folder, relative to the site's root, when the generator decides it.
    pub content_dir: Option<Why<String>>,
    /// Folders under the content folder that hold posts, when the configuration names them.
    pub sections: Vec<String>,
    /// The folder of drafts under the content folder (Jekyll's `_drafts`).
    pub drafts_dir: Option<String>,
    /// What could not be read.
    pub undecided: Vec<String>,
}

fn why<T>(value: T, why: impl Into<String>) -> Why<T> {
    Why {
        value,
        why: why.into(),
    }
}

/// Keys only Hugo's configuration has (Zola's `config.toml` has `base_url`).
const HUGO_KEYS: &[&str] = &[
    "baseURL",
    "baseurl",
    "languageCode",
    "defaultContentLanguage",
    "theme",
    "params",
    "paginate",
    "pagination",
    "contentDir",
    "publishDir",
    "enableRobotsTXT",
    "summaryLength",
    "menu",
    "menus",
    "outputs",
    "module",
];

fn first_file<'a>(root: &Utf8Path, names: &[&'a str]) -> Option<&'a str> {
    names.iter().copied().find(|name| root.join(name).is_file())
}

/// Reads the generator and its configuration from the site's root.
pub fn read(root: &Utf8Path) -> GeneratorConfig {
    if let Some(name) = first_file(root, &["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"]) {
        return hugo(root, name, format!("{name} found"));
    }
    if root.join("config/_default").is_dir() {
        let name = first_file(
            root,
            &[
                "config/_default/hugo.toml",
                "config/_default/hugo.yaml",
                "config/_default/config.toml",
                "config/_default/config.yaml",
            ],
        )
        .unwrap_or("config/_default/hugo.toml");
        return hugo(root, name, "config/_default/ found");
    }
    for name in ["config.toml", "config.yaml", "config.yml"] {
        let Some(config) = value::load(&root.join(name)) else {
            continue;
        };
        let hugo_key = HUGO_KEYS.iter().find(|key| config.get(key).is_some());
        if let Some(key) = hugo_key {
            return hugo(root, name, format!("{name} with Hugo's `{key}`"));
        }
        if name == "config.toml" && config.get("base_url").is_some() {
            return zola(root, &config);
        }
    }
    if root.join("archetypes").is_dir()
        && let Some(name) = first_file(root, &["config.toml", "config.yaml", "config.yml"])
    {
        return hugo(root, name, format!("{name} and archetypes/ found"));
    }
    if let Some(name) = first_file(
        root,
        &[
            "astro.config.mjs",
            "astro.config.ts",
            "astro.config.js",
            "astro.config.mts",
        ],
    ) {
        return astro(root, name);
    }
    if let Some(name) = first_file(
        root,
        &[
            "eleventy.config.js",
            "eleventy.config.mjs",
            "eleventy.config.cjs",
            ".eleventy.js",
            ".eleventy.cjs",
        ],
    ) {
        return eleventy(root, name);
    }
    if root.join("_config.yml").is_file() || root.join("_posts").is_dir() {
        return jekyll(root);
    }
    GeneratorConfig::default()
}

fn hugo(root: &Utf8Path, name: &str, found: impl Into<String>) -> GeneratorConfig {
    let mut site = GeneratorConfig {
        generator: Some(why(Generator::Hugo, found)),
        ..GeneratorConfig::default()
    };
    let Some(config) = value::load(&root.join(name)) else {
        site.undecided.push(format!(
            "Hugo's configuration {name} could not be read (JSON, or not valid): base_url, the title and the languages were not taken from it"
        ));
        return site;
    };
    // A split configuration keeps the languages in their own file.
    let languages_file = if name.starts_with("config/_default/") {
        value::load(&root.join("config/_default/languages.toml"))
            .or_else(|| value::load(&root.join("config/_default/languages.yaml")))
    } else {
        None
    };
    let base = config
        .get_str("baseURL")
        .or_else(|| config.get_str("baseurl"));
    site.base_url = base.map(|url| why(url, format!("Hugo: baseURL in {name}")));
    site.title = config
        .get_str("title")
        .map(|title| why(title, format!("Hugo: title in {name}")));
    let per_language = per_language_content(
        languages_file.as_ref().or(config.get("languages")),
        config.get_str("contentDir").as_deref(),
    );
    if let Some(parent) = per_language {
        site.content_dir = Some(why(
            parent.clone(),
            format!("Hugo: each language's contentDir is a folder of {parent}/ named after it"),
        ));
    } else if let Some(dir) = config.get_str("contentDir") {
        site.content_dir = Some(why(dir, format!("Hugo: contentDir in {name}")));
    } else {
        site.content_dir = Some(why("content".to_string(), "Hugo's content folder"));
    }
    let default = config.get_str("defaultContentLanguage");
    let table = languages_file.as_ref().or(config.get("languages"));
    if let Some(table) = table.filter(|t| !t.entries().is_empty()) {
        let mut codes: Vec<(i64, String)> = table
            .entries()
            .iter()
            .map(|(code, settings)| {
                let weight = match settings.get("weight") {
                    Some(Value::Other(n)) => n.parse().unwrap_or(i64::MAX),
                    _ => i64::MAX,
                };
                (weight, code.clone())
            })
            .collect();
        let text = std::fs::read_to_string(root.join(name)).unwrap_or_default();
        text_order(&mut codes, &text, |(_, code)| code);
        codes.sort_by_key(|(weight, _)| *weight);
        let mut codes: Vec<String> = codes.into_iter().map(|(_, code)| code).collect();
        let first = default.clone().unwrap_or_else(|| "en".to_string());
        if let Some(at) = codes.iter().position(|c| *c == first) {
            let code = codes.remove(at);
            codes.insert(0, code);
        }
        let said = match &default {
            Some(d) => format!("Hugo: [languages] in {name}, defaultContentLanguage \"{d}\" first"),
            None => format!("Hugo: [languages] in {name}, by weight (no defaultContentLanguage)"),
        };
        site.languages = Some(why(codes, said));
    } else if let Some(d) = default {
        site.language_hint = Some(why(d, format!("Hugo: defaultContentLanguage in {name}")));
    }
    if site.language_hint.is_none()
        && let Some(code) = config.get_str("languageCode")
    {
        site.language_hint = Some(why(code, format!("Hugo: languageCode in {name}")));
    }
    site
}

/// The folder that holds one content folder per language, each named after its language
/// (Docsy: `content/en`, `content/fa`), when every language of the table says so; a language
/// without its own `contentDir` has the site's (`fallback`).
fn per_language_content(table: Option<&Value>, fallback: Option<&str>) -> Option<String> {
    let entries = table?.entries();
    let mut parent: Option<&str> = None;
    for (code, settings) in entries {
        let dir = settings
            .get("contentDir")
            .and_then(Value::str)
            .or(fallback)?;
        let (folder, last) = dir.trim_end_matches('/').rsplit_once('/')?;
        if !last.eq_ignore_ascii_case(code) || parent.is_some_and(|p| p != folder) {
            return None;
        }
        parent = Some(folder);
    }
    parent.map(str::to_string)
}

/// Orders languages as the configuration's text lists them (`[languages.es]` before
/// `[languages.ca]`), whatever order the TOML table kept; those not found keep their place
/// after them.
fn text_order<T>(items: &mut [T], text: &str, code: impl Fn(&T) -> &str) {
    let at = |c: &str| {
        [
            format!("[languages.{c}]"),
            format!("[{c}]"),
            format!("{c}:"),
        ]
        .iter()
        .filter_map(|needle| text.find(needle.as_str()))
        .min()
        .unwrap_or(usize::MAX)
    };
    items.sort_by_key(|item| at(code(item)));
}

fn zola(root: &Utf8Path, config: &Value) -> GeneratorConfig {
    let mut site = GeneratorConfig {
        generator: Some(why(
            Generator::Zola,
            "config.toml with base_url and no Hugo key",
        )),
        content_dir: Some(why("content".to_string(), "Zola's content folder")),
        ..GeneratorConfig::default()
    };
    site.base_url = config
        .get_str("base_url")
        .map(|url| why(url, "Zola: base_url in config.toml"));
    site.title = config
        .get_str("title")
        .map(|title| why(title, "Zola: title in config.toml"));
    let default = config
        .get_str("default_language")
        .unwrap_or_else(|| "en".to_string());
    let mut others: Vec<String> = config
        .get("languages")
        .map(|t| {
            t.entries()
                .iter()
                .map(|(code, _)| code.clone())
                .filter(|code| *code != default)
                .collect()
        })
        .unwrap_or_default();
    let text = std::fs::read_to_string(root.join("config.toml")).unwrap_or_default();
    text_order(&mut others, &text, String::as_str);
    let said = if config.get("default_language").is_some() {
        "Zola: default_language in config.toml"
    } else {
        "Zola's default language (no default_language in config.toml)"
    };
    let mut codes = vec![default];
    let said = if others.is_empty() {
        said.to_string()
    } else {
        format!("{said}, then its [languages.*]")
    };
    codes.extend(others);
    site.languages = Some(why(codes, said));
    site
}

fn jekyll(root: &Utf8Path) -> GeneratorConfig {
    let has_posts = root.join("_posts").is_dir();
    let found = match (root.join("_config.yml").is_file(), has_posts) {
        (true, true) => "_config.yml and _posts/ found",
        (true, false) => "_config.yml found (no _posts/ folder)",
        _ => "_posts/ found (no _config.yml)",
    };
    let mut site = GeneratorConfig {
        generator: Some(why(Generator::Jekyll, found)),
        content_dir: Some(why(
            ".".to_string(),
            "Jekyll reads _posts/ at the site's root",
        )),
        sections: vec!["_posts".to_string()],
        drafts_dir: Some("_drafts".to_string()),
        ..GeneratorConfig::default()
    };
    let Some(config) = value::load(&root.join("_config.yml")) else {
        return site;
    };
    if let Some(url) = config.get_str("url") {
        let base = config.get_str("baseurl").unwrap_or_default();
        let said = if base.is_empty() {
            "Jekyll: url in _config.yml"
        } else {
            "Jekyll: url + baseurl in _config.yml"
        };
        site.base_url = Some(why(format!("{}{}", url.trim_end_matches('/'), base), said));
    }
    site.title = config
        .get_str("title")
        .map(|t| why(t, "Jekyll: title in _config.yml"));
    // jekyll-polyglot's `languages` and `default_lang`.
    let listed = config
        .get("languages")
        .map(Value::strings)
        .unwrap_or_default();
    if !listed.is_empty() {
        let mut codes = listed;
        if let Some(d) = config.get_str("default_lang")
            && let Some(at) = codes.iter().position(|c| *c == d)
        {
            let code = codes.remove(at);
            codes.insert(0, code);
        }
        site.languages = Some(why(
            codes,
            "Jekyll: languages and default_lang in _config.yml",
        ));
    } else if let Some(lang) = config.get_str("lang").or_else(|| config.get_str("locale")) {
        site.language_hint = Some(why(lang, "Jekyll: lang in _config.yml"));
    }
    site
}

fn astro(root: &Utf8Path, name: &str) -> GeneratorConfig {
    let mut site = GeneratorConfig {
        generator: Some(why(Generator::Astro, format!("{name} found"))),
        ..GeneratorConfig::default()
    };
    let config = std::fs::read_to_string(root.join(name)).unwrap_or_default();
    site.base_url =
        js_string(&config, "site").map(|url| why(url, format!("Astro: site in {name}")));
    let locales = js_strings(&config, "locales");
    if !locales.is_empty() {
        let mut codes = locales;
        let default = js_string(&config, "defaultLocale");
        if let Some(d) = &default
            && let Some(at) = codes.iter().position(|c| c == d)
        {
            let code = codes.remove(at);
            codes.insert(0, code);
        }
        site.languages = Some(why(
            codes,
            format!("Astro: i18n locales and defaultLocale in {name}"),
        ));
    }
    // The site's own constants: the template's src/consts.ts, AstroPaper's src/config.ts.
    for file in [
        "src/consts.ts",
        "src/config.ts",
        "src/consts.js",
        "src/config.js",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        if site.title.is_none()
            && let Some(title) =
                js_string(&text, "SITE_TITLE").or_else(|| js_string(&text, "title"))
        {
            site.title = Some(why(title, format!("Astro: the title in {file}")));
        }
        if site.base_url.is_none()
            && let Some(url) = js_string(&text, "website").filter(|u| u.starts_with("http"))
        {
            site.base_url = Some(why(url, format!("Astro: website in {file}")));
        }
        if site.language_hint.is_none()
            && let Some(lang) = js_string(&text, "lang")
        {
            site.language_hint = Some(why(lang, format!("Astro: lang in {file}")));
        }
    }
    // Collections: a glob loader's base, else the folders of src/content/.
    for file in [
        "src/content.config.ts",
        "src/content/config.ts",
        "src/content.config.mjs",
        "src/content.config.js",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let mut bases = Vec::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("base") {
            if let Some(base) = js_string(&rest[at..], "base") {
                bases.push(substitute(&text, &base));
            }
            rest = &rest[at + 4..];
        }
        bases.dedup();
        let bases: Vec<String> = bases
            .into_iter()
            .map(|b| b.trim_start_matches("./").trim_end_matches('/').to_string())
            .filter(|b| root.join(b).is_dir())
            .collect();
        let chosen = bases
            .iter()
            .find(|b| {
                b.rsplit('/')
                    .next()
                    .is_some_and(|n| super::layout::POST_FOLDERS.contains(&n))
            })
            .or(bases.first());
        if let Some(base) = chosen {
            let (parent, collection) = base.rsplit_once('/').unwrap_or((".", base));
            site.content_dir = Some(why(
                parent.to_string(),
                format!("Astro: the glob loader's base '{base}' in {file}"),
            ));
            site.sections = vec![collection.to_string()];
        }
        break;
    }
    if site.content_dir.is_none() {
        site.content_dir = Some(why(
            "src/content".to_string(),
            "Astro: the collections' folders under src/content/",
        ));
    }
    site
}

fn eleventy(root: &Utf8Path, name: &str) -> GeneratorConfig {
    let mut site = GeneratorConfig {
        generator: Some(why(Generator::Eleventy, format!("{name} found"))),
        ..GeneratorConfig::default()
    };
    let config = std::fs::read_to_string(root.join(name)).unwrap_or_default();
    let input = js_string(&config, "input")
        .map(|d| d.trim_start_matches("./").trim_end_matches('/').to_string())
        .filter(|d| !d.is_empty());
    site.content_dir = Some(match input {
        Some(dir) => why(dir, format!("Eleventy: the input folder in {name}")),
        None => why(
            ".".to_string(),
            "Eleventy's default input folder (the site's root)",
        ),
    });
    let input = site.content_dir.as_ref().map_or(".", |d| d.value.as_str());
    for file in [
        "_data/metadata.js".to_string(),
        "_data/metadata.json".to_string(),
        format!("{input}/_data/metadata.js"),
        format!("{input}/_data/metadata.json"),
        "src/_data/site.json".to_string(),
        "_data/site.json".to_string(),
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else {
            continue;
        };
        if site.title.is_none()
            && let Some(title) = js_string(&text, "title")
        {
            site.title = Some(why(title, format!("Eleventy: title in {file}")));
        }
        if site.base_url.is_none()
            && let Some(url) = js_string(&text, "url").filter(|u| u.starts_with("http"))
        {
            site.base_url = Some(why(url, format!("Eleventy: url in {file}")));
        }
        if site.language_hint.is_none()
            && let Some(lang) = js_string(&text, "language").or_else(|| js_string(&text, "lang"))
        {
            site.language_hint = Some(why(lang, format!("Eleventy: language in {file}")));
        }
    }
    site
}

/// A template literal's `${NAME}` replaced by the string constant `NAME` of the same file
/// (AstroPaper: ``base: `./${BLOG_PATH}` ``).
fn substitute(source: &str, literal: &str) -> String {
    let mut out = String::new();
    let mut rest = literal;
    while let Some(start) = rest.find("${") {
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        let name = rest[start + 2..start + end].trim();
        out.push_str(&rest[..start]);
        match js_string(source, name) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + end + 1]),
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}
