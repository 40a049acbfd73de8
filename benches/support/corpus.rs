//! A synthetic bilingual corpus in the format of CONTENT_FORMAT.md, for benchmarks and scale
//! tests. It follows `shared/tools/gen_corpus.py` (same layout, same distributions) so that
//! numbers are comparable when that script is not available.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::Path;

const WORDS: &[&str] = &[
    "agent", "api", "astro", "build", "cache", "cloud", "code", "compile", "content", "data",
    "deploy", "design", "docker", "edge", "engine", "event", "graph", "index", "json", "language",
    "latency", "markdown", "memory", "model", "network", "node", "parse", "pipeline", "python",
    "query", "rust", "schema", "search", "series", "server", "slide", "static", "stream", "system",
    "tag", "test", "timeline", "token", "vector", "watch", "web", "worker", "write", "yaml",
    "zero",
];
const PALABRAS: &[&str] = &[
    "agente",
    "api",
    "construir",
    "caché",
    "nube",
    "código",
    "compilar",
    "contenido",
    "datos",
    "desplegar",
    "diseño",
    "motor",
    "evento",
    "grafo",
    "índice",
    "lenguaje",
    "latencia",
    "memoria",
    "modelo",
    "red",
    "nodo",
    "analizar",
    "consulta",
    "esquema",
    "búsqueda",
    "serie",
    "servidor",
    "diapositiva",
    "estático",
    "flujo",
    "sistema",
    "etiqueta",
    "prueba",
    "línea",
    "tiempo",
    "escribir",
    "cero",
    "año",
    "niño",
    "señal",
    "acción",
];

/// Sizes of a generated corpus.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub posts: usize,
    pub tags: usize,
    pub series: usize,
    pub slides: usize,
    pub paragraphs: usize,
    pub seed: u64,
}

impl Shape {
    /// The shape the benchmarks use for `posts` posts per language: taxonomy, series and decks
    /// grow with the corpus, as on a real site.
    pub fn scaled(posts: usize) -> Shape {
        Shape {
            posts,
            tags: (posts / 25).clamp(120, 2000),
            series: (posts / 67).clamp(40, 750),
            slides: (posts / 33).clamp(100, 1500),
            paragraphs: 8,
            seed: 1,
        }
    }
}

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn sentence(rng: &mut Rng, vocab: &[&str], words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(vocab));
    }
    let mut chars = out.chars();
    let first = chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>())
        .unwrap_or_default();
    format!("{first}{}.", chars.as_str())
}

fn body(rng: &mut Rng, vocab: &[&str], paragraphs: usize) -> String {
    let mut out = Vec::new();
    for i in 0..paragraphs {
        if i > 0 && i % 3 == 0 {
            out.push(format!(
                "## {}",
                sentence(rng, vocab, 4).trim_end_matches('.')
            ));
        }
        let para: Vec<String> = (0..4)
            .map(|_| {
                let n = 8 + rng.below(11);
                sentence(rng, vocab, n)
            })
            .collect();
        out.push(para.join(" "));
        if i == 1 {
            out.push("```rust\nfn main() {\n    println!(\"hello\");\n}\n```".into());
        }
    }
    out.join("\n\n") + "\n"
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes a corpus of `shape` under `root`.
pub fn generate(root: &Path, shape: Shape) {
    let mut rng = Rng(shape.seed);
    let primaries = ["tech", "personal", "talks", "trading", "portfolio"];
    let (mut secondaries, mut subtopics) = (Vec::new(), Vec::new());
    let mut tiers: Vec<(String, &str, Option<String>)> = primaries
        .iter()
        .map(|p| (p.to_string(), "primary", None))
        .collect();
    for i in primaries.len()..shape.tags {
        if i % 3 == 0 || secondaries.is_empty() {
            let name = format!("topic-{i}");
            tiers.push((
                name.clone(),
                "secondary",
                Some(rng.pick(&primaries).to_string()),
            ));
            secondaries.push(name);
        } else {
            let name = format!("sub-{i}");
            let parent = secondaries[rng.below(secondaries.len())].clone();
            tiers.push((name.clone(), "subtopic", Some(parent)));
            subtopics.push(name);
        }
    }
    for (order, (name, tier, parent)) in tiers.iter().enumerate() {
        let mut fm = format!(
            "name: {}\ndescription: {}\ntier: {tier}\norder: {order}\n",
            quoted(name),
            quoted(&sentence(&mut rng, WORDS, 10))
        );
        if let Some(parent) = parent {
            writeln!(fm, "parent: {}", quoted(parent)).unwrap();
        }
        write(root, &format!("tags/{name}.md"), &format!("---\n{fm}---\n"));
    }
    let series: Vec<String> = (0..shape.series).map(|i| format!("series-{i}")).collect();
    for (order, name) in series.iter().enumerate() {
        let mut fm = format!(
            "name: {}\ntitle: {}\ndescription: {}\norder: {order}\n",
            quoted(name),
            quoted(sentence(&mut rng, WORDS, 3).trim_end_matches('.')),
            quoted(&sentence(&mut rng, WORDS, 12))
        );
        if rng.chance(0.5) {
            writeln!(fm, "heroImage: \"/images/blog/series/{name}/hero-en.webp\"").unwrap();
        }
        write(
            root,
            &format!("series/{name}.md"),
            &format!("---\n{fm}---\n"),
        );
    }
    let start = chrono::NaiveDate::from_ymd_opt(2012, 1, 1).unwrap();
    let mut chapters = std::collections::HashMap::new();
    for i in 0..shape.posts {
        let day = start + chrono::Duration::days(rng.below(5001) as i64);
        let slug = format!("post-{i}-{}-{}", rng.pick(WORDS), rng.pick(WORDS));
        let file = format!("{day}_{slug}.md");
        let mut tags = vec![rng.pick(&primaries).to_string()];
        if !secondaries.is_empty() {
            tags.push(secondaries[rng.below(secondaries.len())].clone());
        }
        if !subtopics.is_empty() && rng.chance(0.7) {
            tags.push(subtopics[rng.below(subtopics.len())].clone());
        }
        tags.dedup();
        let in_series = (!series.is_empty() && rng.chance(0.25)).then(|| {
            let name = series[rng.below(series.len())].clone();
            let count = chapters.entry(name.clone()).or_insert(0);
            *count += 1;
            (name, *count)
        });
        let hero = rng.chance(0.6);
        let draft = rng.chance(0.02);
        for (lang, vocab) in [("en", WORDS), ("es", PALABRAS)] {
            let n = 3 + rng.below(6);
            let mut fm = format!(
                "title: {}\ndescription: {}\npubDate: \"{day}\"\ntags: [{}]\n",
                quoted(sentence(&mut rng, vocab, n).trim_end_matches('.')),
                quoted(&sentence(&mut rng, vocab, 14)),
                tags.iter()
                    .map(|t| quoted(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if hero {
                writeln!(fm, "heroImage: \"/images/blog/posts/{slug}/hero.webp\"").unwrap();
            }
            if let Some((name, order)) = &in_series {
                writeln!(fm, "series: {}\nseriesOrder: {order}", quoted(name)).unwrap();
            }
            if draft {
                fm.push_str("draft: true\n");
            }
            let text = format!(
                "---\n{fm}---\n\n{}",
                body(&mut rng, vocab, shape.paragraphs)
            );
            write(root, &format!("blog/{lang}/{file}"), &text);
        }
    }
    for i in 0..shape.slides {
        let day = start + chrono::Duration::days(rng.below(5001) as i64);
        let slug = format!("deck-{i}-{}", rng.pick(WORDS));
        let external = rng.chance(0.6);
        for (lang, vocab) in [("en", WORDS), ("es", PALABRAS)] {
            let mut fm = format!(
                "type: {}\ntitle: {}\ndescription: {}\npubDate: {day}\neventName: \"Meetup {}\"\neventDate: {day}\n",
                if external { "external" } else { "native" },
                quoted(sentence(&mut rng, vocab, 4).trim_end_matches('.')),
                quoted(&sentence(&mut rng, vocab, 16)),
                i % 17
            );
            if external {
                let provider = ["Slides.com", "Google Slides", "Speaker Deck"][rng.below(3)];
                writeln!(
                    fm,
                    "externalUrl: \"https://slides.example.org/{slug}\"\nprovider: \"{provider}\""
                )
                .unwrap();
            }
            write(
                root,
                &format!("slides/{lang}/{day}_{slug}.md"),
                &format!("---\n{fm}---\n\n{}", body(&mut rng, vocab, 2)),
            );
        }
    }
}

/// The corpus for `posts` posts per language under `root`, generated on first use: by
/// `../shared/tools/gen_corpus.py` when it is there (the generator the reference numbers were
/// measured with), else by [`generate`].
pub fn corpus_for(root: &Path, posts: usize) -> std::path::PathBuf {
    let dir = root.join(format!("posts-{posts}"));
    if dir.join("blog").is_dir() {
        return dir;
    }
    let shape = Shape::scaled(posts);
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/gen_corpus.py");
    let generated_by_script = script.is_file()
        && std::process::Command::new("python3")
            .arg(&script)
            .arg(&dir)
            .args([
                "--posts",
                &posts.to_string(),
                "--tags",
                &shape.tags.to_string(),
            ])
            .args([
                "--series",
                &shape.series.to_string(),
                "--slides",
                &shape.slides.to_string(),
            ])
            .status()
            .is_ok_and(|s| s.success());
    if !generated_by_script {
        eprintln!("generating {posts} posts per language with the built-in generator");
        generate(&dir, shape);
    }
    dir
}
