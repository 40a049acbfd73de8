//! CONTRIBUTING.md's test tables agree with the files: one row per module of `tests/tests.rs`
//! with the first sentence of its `//!` header, and one row per `common::need` that a test asks
//! for, with where it is found and how to provide it.

use crate::common::need;
use std::collections::BTreeMap;
use std::path::Path;

const CONTRIBUTING: &str = "CONTRIBUTING.md";
const MODULES_HEADING: &str = "## Tests";
const NEEDS_HEADING: &str = "### Tests that need other programs";

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first table after the line `heading`, as the cells of each row below its separator
/// (trimmed, with `\|` read back as `|`), keyed by the first cell.
fn table_after(text: &str, heading: &str) -> BTreeMap<String, Vec<String>> {
    let mut lines = text.lines().skip_while(|line| *line != heading);
    assert!(lines.next().is_some(), "{CONTRIBUTING} has no `{heading}`");
    let rows = lines
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2);
    let mut table = BTreeMap::new();
    for row in rows {
        let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
        let cells: Vec<String> = inner
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|cell| cell.trim().replace('\u{0}', "|"))
            .collect();
        let duplicate = table.insert(cells[0].clone(), cells[1..].to_vec());
        assert!(duplicate.is_none(), "{heading}: two rows for {}", cells[0]);
    }
    table
}

/// The first sentence of a file's `//!` header: its first paragraph, cut after the first
/// period that ends a sentence.
fn first_sentence(source: &str) -> String {
    let paragraph: Vec<&str> = source
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .collect();
    let paragraph = paragraph.join(" ");
    match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_string(),
        None => paragraph,
    }
}

/// The modules `tests/tests.rs` declares, `common` aside.
fn test_modules() -> Vec<String> {
    read("tests/tests.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .filter(|module| *module != "common")
        .map(str::to_string)
        .collect()
}

/// How `table` differs from `expected` (cells after the first, by first cell): a row missing,
/// a row for nothing, a row that says something else.
fn differences(
    table: &BTreeMap<String, Vec<String>>,
    expected: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, cells) in expected {
        match table.get(key) {
            None => problems.push(format!("no row for {key}: {cells:?}")),
            Some(row) if row != cells => {
                problems.push(format!("the row of {key} says {row:?}, not {cells:?}"))
            }
            Some(_) => {}
        }
    }
    for key in table.keys().filter(|key| !expected.contains_key(*key)) {
        problems.push(format!("a row for {key}, which is not there"));
    }
    problems
}

#[test]
fn contributing_lists_every_test_module_with_its_headers_first_sentence() {
    let table = table_after(&read(CONTRIBUTING), MODULES_HEADING);
    let modules = test_modules();
    assert!(modules.len() > 20, "read only {modules:?}");
    let expected = modules
        .iter()
        .map(|module| {
            let header = first_sentence(&read(&format!("tests/{module}.rs")));
            (format!("`{module}`"), vec![header])
        })
        .collect();
    let problems = differences(&table, &expected);
    assert!(
        problems.is_empty(),
        "{CONTRIBUTING}, `{MODULES_HEADING}` (one row per module of tests/tests.rs, with the \
         first sentence of its header):\n{}",
        problems.join("\n")
    );
}

/// Where a need is found, as the table says it.
fn found_through(need: &need::Need) -> String {
    let programs = need
        .programs
        .iter()
        .map(|program| format!("`{program}`"))
        .collect::<Vec<_>>()
        .join(" or ");
    match (need.variable, programs.is_empty()) {
        (Some(variable), false) => format!("`{variable}`, else {programs} on `PATH`"),
        (Some(variable), true) => format!("`{variable}`"),
        (None, false) => format!("{programs} on `PATH`"),
        (None, true) => String::new(),
    }
}

/// The name of each constant of `tests/common/need.rs` with the need's name.
fn need_constants() -> BTreeMap<String, String> {
    let source = read("tests/common/need.rs");
    let pattern =
        regex_lite::Regex::new(r#"pub const (\w+): Need = Need \{\s*name: "([^"]+)""#).unwrap();
    pattern
        .captures_iter(&source)
        .map(|c| (c[2].to_string(), c[1].to_string()))
        .collect()
}

/// Every `.rs` file below `tests/`, but the fixtures, with its text.
fn test_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    walkdir::WalkDir::new(root.join("tests"))
        .into_iter()
        .filter_entry(|entry| entry.file_name() != "fixtures")
        .map(Result::unwrap)
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "rs"))
        .map(|entry| {
            let relative = entry.path().strip_prefix(root).unwrap();
            let text = std::fs::read_to_string(entry.path()).unwrap();
            (relative.to_string_lossy().into_owned(), text)
        })
        .collect()
}

#[test]
fn contributing_lists_exactly_the_needs_the_tests_ask_for() {
    let table = table_after(&read(CONTRIBUTING), NEEDS_HEADING);
    let constants = need_constants();
    assert_eq!(
        constants.len(),
        need::ALL.len(),
        "need::ALL lists every need"
    );
    let sources = test_sources();
    let mut problems = Vec::new();
    for need in need::ALL {
        let constant = &constants[need.name];
        let asked = sources.iter().any(|(path, text)| {
            path != "tests/common/need.rs" && text.contains(&format!("need::{constant}."))
        });
        if !asked {
            problems.push(format!(
                "need::{constant} is asked for by no test: remove it"
            ));
        }
    }
    let expected = need::ALL
        .iter()
        .map(|need| {
            let cells = vec![found_through(need), need.how.to_string()];
            (format!("`{}`", need.name), cells)
        })
        .collect();
    problems.extend(differences(&table, &expected));
    assert!(
        problems.is_empty(),
        "{CONTRIBUTING}, `{NEEDS_HEADING}` (one row per need of tests/common/need.rs):\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_row_missing_a_row_for_nothing_and_a_stale_row_are_each_reported() {
    let row = |key: &str, cell: &str| (key.to_string(), vec![cell.to_string()]);
    let expected = BTreeMap::from([row("`a`", "A."), row("`b`", "B."), row("`c`", "C.")]);
    let table = table_after(
        "## Tests\n\n| Module | What |\n|---|---|\n| `a` | A. |\n| `c` | Not C. |\n| `gone` | G\\|H. |\n",
        "## Tests",
    );
    assert_eq!(table[&"`gone`".to_string()], ["G|H."]);
    assert_eq!(
        differences(&table, &expected),
        [
            r#"no row for `b`: ["B."]"#,
            r#"the row of `c` says ["Not C."], not ["C."]"#,
            "a row for `gone`, which is not there",
        ]
    );
}

#[test]
fn a_first_sentence_ends_at_its_period_or_with_its_paragraph() {
    assert_eq!(
        first_sentence("//! One thing, on\n//! two lines. Then more.\n//!\n//! Aside.\n"),
        "One thing, on two lines."
    );
    assert_eq!(
        first_sentence("//! No period here\n//!\n//! Aside.\n"),
        "No period here"
    );
}
