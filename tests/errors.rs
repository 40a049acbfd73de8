//! Error reporting, end to end: the real binary on small broken sites.
//!
//! Every failing case checks the exit status, the message (file, line:column when known, what
//! was expected, the help), and that the output folder of a previous good build is left exactly
//! as it was (same files, same bytes, same modification times). Every run has a time limit
//! (see `common::TIMEOUT`), so a hang fails the test instead of stalling the suite.

use crate::common;

use common::{EN_POST, EN_POST_TEXT, ES_POST, ES_POST_TEXT, SERIES, Site, TAG, TODAY, post_with};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;

/// Asserts a content-error run: exit 1, `errors` errors reported and counted in the summary,
/// and `out/` exactly as `before`.
fn assert_rejected(site: &Site, before: &common::Snapshot, run: &common::Run, errors: usize) {
    run.assert_code(1);
    assert_eq!(
        run.errors().len(),
        errors,
        "number of errors\n--- stderr ---\n{}",
        run.stderr
    );
    let plural = if errors == 1 { "" } else { "s" };
    assert_eq!(
        run.summary(),
        Some(
            format!("error: {errors} error{plural} in the content; nothing was written to out")
                .as_str()
        ),
        "summary line\n--- stderr ---\n{}",
        run.stderr
    );
    common::assert_same(before, &site.out_snapshot());
}

// 1. Missing content folder: a usage error (exit 2) that names the folder and the fix.
#[test]
fn missing_content_folder_is_a_usage_error() {
    let site = Site::built();
    let before = site.out_snapshot();
    let run = site.run(&[
        "--once",
        "--content",
        "no-such-folder",
        "--out",
        "out",
        "--today",
        TODAY,
    ]);
    run.assert_code(2);
    let error = run.find("content folder");
    assert_eq!(error.level, "error");
    assert_eq!(error.message, "the content folder does not exist");
    assert_eq!(error.path.as_deref(), Some("no-such-folder"));
    error.assert_help("--content DIR");
    error.assert_help("content_dir");
    assert_eq!(run.summary(), None);
    common::assert_same(&before, &site.out_snapshot());
}

// 1b. A site laid out as another generator lays it out (Astro's blog template): no post is read
// while Markdown lies elsewhere, so the build stops, naming what it saw, instead of publishing
// an empty API. A site with no Markdown at all still builds (a new site).
#[test]
fn markdown_in_a_layout_the_tool_does_not_read_is_an_error_not_an_empty_api() {
    let site = Site::empty();
    std::fs::create_dir_all(site.content()).unwrap();
    let empty = site.build();
    empty.assert_success();
    let astro = site.root().join("src/content/blog");
    std::fs::create_dir_all(&astro).unwrap();
    for name in ["first-post.md", "second-post.md"] {
        std::fs::write(
            astro.join(name),
            "---\ntitle: 'First post'\npubDate: 'Jul 08 2022'\n---\n\nHi.\n",
        )
        .unwrap();
    }
    std::fs::write(site.root().join("README.md"), "# The site\n").unwrap();
    let before = site.out_snapshot();
    let run = site.build();
    run.assert_code(2);
    let error = run.find("no posts found");
    assert_eq!(error.level, "error");
    assert!(
        error.message.contains("2 Markdown files elsewhere")
            && error.message.contains("src/content/blog/first-post.md"),
        "{}",
        error.message
    );
    error.assert_help("content_dir");
    common::assert_same(&before, &site.out_snapshot());
}

// 2. A post the build cannot read: an error at that file about its permissions. Root reads a
// file whatever its mode, so as root the build runs as `nobody` (util-linux `setpriv`).
#[test]
fn unreadable_post_is_an_error() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = site.path(EN_POST);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let run = if std::fs::read(&path).is_ok() {
        let Some(setpriv) = common::need::SETPRIV.program() else {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            return;
        };
        build_as_nobody(&site, &setpriv)
    } else {
        site.build()
    };
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_rejected(&site, &before, &run, 1);
    let error = run.find("cannot read file");
    assert!(error.message.contains("ermission denied"), "{}", error.text);
    error.assert_at(EN_POST, None).assert_help("permissions");
}

// 3. Invalid UTF-8: located at the first bad byte (line 2, column 12: after `title: "Caf`).
#[test]
fn invalid_utf8_is_located() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        b"---\ntitle: \"Caf\xe9\"\ndescription: \"Latin-1\"\npubDate: 2024-05-01\n---\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("not valid UTF-8")
        .assert_at(EN_POST, Some((2, 12)))
        .assert_help("save the file as UTF-8");
}

// 4. Unclosed front matter: points at the opening `---` and says to add the closing one.
#[test]
fn unclosed_front_matter() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        "---\ntitle: \"Hello\"\ndescription: \"No end\"\npubDate: 2024-05-01\n\nBody.\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("front matter is not closed")
        .assert_at(EN_POST, Some((1, 1)))
        .assert_shows("1 | ---")
        .assert_shows("no line `---` closes it")
        .assert_help("add a line `---` after the last front-matter field");
}

// 5. Wrong types: both reported in one run, each at its own line, saying what was expected.
#[test]
fn wrong_types_are_all_reported_at_their_lines() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = "blog/en/2024-05-02_types.md";
    site.write(
        path,
        post_with("series: intro\nseriesOrder: \"2\"\ndraft: \"true\"\n"),
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 2);
    let order = run.find("`seriesOrder` must be an integer");
    assert!(
        order.message.ends_with("found the string \"2\""),
        "{}",
        order.text
    );
    order
        .assert_at(path, Some((6, 14)))
        .assert_shows("6 | seriesOrder: \"2\"")
        .assert_shows("expected an integer")
        .assert_help("write a whole number without quotes: seriesOrder: 2");
    let draft = run.find("`draft` must be true or false");
    assert!(
        draft.message.ends_with("found the string \"true\""),
        "{}",
        draft.text
    );
    draft
        .assert_at(path, Some((7, 8)))
        .assert_shows("7 | draft: \"true\"")
        .assert_help("write it without quotes: draft: true");
}

// 6a. A calendar date that does not exist.
#[test]
fn impossible_pub_date() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        "---\ntitle: \"Hello\"\ndescription: \"Leap\"\npubDate: 2024-02-30\n---\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("`pubDate` is not a valid date: `2024-02-30`")
        .assert_at(EN_POST, Some((4, 10)))
        .assert_shows("expected a date like 2024-05-01")
        .assert_help("write `pubDate` as YYYY-MM-DD");
}

// 6b. A bad `eventDate` in a slide deck.
#[test]
fn bad_event_date_in_deck() {
    let site = Site::built();
    let before = site.out_snapshot();
    let deck = "slides/en/2024-05-01_talk.md";
    site.write(
        deck,
        "---\ntype: native\ntitle: \"Talk\"\ndescription: \"A talk\"\npubDate: 2024-05-01\n\
         eventName: \"Meetup\"\neventDate: 2024-04-31\n---\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("`eventDate` is not a valid date: `2024-04-31`")
        .assert_at(deck, Some((7, 12)))
        .assert_help("write `eventDate` as YYYY-MM-DD");
}

// 7a. A post file name whose slug is not `^[a-z0-9-]+$`: no line, the fix is a rename.
#[test]
fn bad_slug_in_file_name() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = "blog/en/2024-01-01_Bad_Slug.md";
    site.write(path, post_with(""));
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    let error = run.find("the slug `Bad_Slug` in the file name is not valid");
    assert!(error.message.contains("^[a-z0-9-]+$"), "{}", error.text);
    error
        .assert_at(path, None)
        .assert_help("rename the file to YYYY-MM-DD_<slug>.md");
}

// 7b. A tag name with capitals in a post's `tags`.
#[test]
fn bad_tag_name_in_post() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("tags: [\"rust\"]", "tags: [\"rust\", \"Rust\"]"),
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("`Rust` in `tags` is not a valid name")
        .assert_at(EN_POST, Some((5, 16)))
        .assert_shows("names must match ^[a-z0-9-]+$")
        .assert_help("lowercase letters, digits and hyphens");
}

// 8. A series that does not exist: the error points at the `series:` value.
#[test]
fn unknown_series() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("series: intro", "series: nope"),
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("unknown series `nope`")
        .assert_at(EN_POST, Some((6, 9)))
        .assert_shows("6 | series: nope")
        .assert_shows("no file series/nope.md")
        .assert_help("create series/nope.md");
}

// 9a. `x.md` beside `x.mdx`: the duplicate id is reported (besides each undated file name).
#[test]
fn duplicate_id_md_beside_mdx() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write("blog/en/x.md", post_with(""));
    site.write("blog/en/x.mdx", post_with(""));
    let run = site.build();
    assert_rejected(&site, &before, &run, 3);
    run.find("duplicate id `en/x`: blog/en/x.md has the same name")
        .assert_at("blog/en/x.mdx", None)
        .assert_help("keep one of the two files (.md or .mdx)");
    let undated: Vec<_> = run
        .errors()
        .into_iter()
        .filter(|e| e.message.contains("does not start with a date"))
        .map(|e| e.path.unwrap())
        .collect();
    assert_eq!(undated, ["blog/en/x.md", "blog/en/x.mdx"]);
}

// 9b. The same with well-named files: the duplicate is then the only error.
#[test]
fn duplicate_id_of_dated_posts() {
    let site = Site::built();
    let before = site.out_snapshot();
    let mdx = EN_POST.replace(".md", ".mdx");
    site.write(&mdx, EN_POST_TEXT);
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("duplicate id `en/2024-05-01_hello`")
        .assert_at(&mdx, None)
        .assert_help("keep one of the two files");
}

// 9c. Two dated posts of one language with the same slug: their pages would be one URL.
#[test]
fn duplicate_slug_of_two_dated_posts() {
    let site = Site::built();
    let before = site.out_snapshot();
    let later = "blog/es/2024-05-09_hello.md";
    site.write(later, ES_POST_TEXT);
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("duplicate slug `hello`: blog/es/2024-05-01_hello.md has the same slug, so both would be published at /es/blog/hello")
        .assert_at(later, None)
        .assert_help("give one of the posts another slug");
}

// 10. Several broken files at once: every error of the run is reported, sorted by file.
#[test]
fn all_errors_of_a_run_are_reported() {
    let site = Site::built();
    let before = site.out_snapshot();
    let utf8 = "blog/en/2024-05-03_latin1.md";
    let deck = "slides/es/2024-05-01_talk.md";
    site.write(EN_POST, "---\ntitle: \"Never closed\"\n");
    site.write(
        ES_POST,
        post_with("seriesOrder: \"1\"\n").replace("2024-05-01", "2024-02-30"),
    );
    site.write(utf8, b"---\ntitle: \"\xff\"\n---\n");
    site.write(TAG, "---\nname: rust\ntier: primero\n---\n");
    site.write(SERIES, "---\nname: intro\n---\n");
    site.write(
        deck,
        "---\ntype: video\ntitle: \"T\"\ndescription: \"D\"\npubDate: 2024-05-01\n---\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 7);
    let expected = [
        (EN_POST, Some((1, 1)), "front matter is not closed"),
        (utf8, Some((2, 9)), "file is not valid UTF-8"),
        (ES_POST, Some((4, 10)), "`pubDate` is not a valid date"),
        (ES_POST, Some((5, 14)), "`seriesOrder` must be an integer"),
        (SERIES, Some((1, 1)), "missing required field `title`"),
        (deck, Some((2, 7)), "unknown deck `type`: `video`"),
        (TAG, Some((3, 7)), "unknown tag `tier`: `primero`"),
    ];
    let errors = run.errors();
    assert_eq!(errors.len(), expected.len(), "{}", run.stderr);
    for (error, (path, position, message)) in errors.iter().zip(expected) {
        error.assert_at(path, position);
        assert!(error.message.starts_with(message), "{}", error.text);
        assert!(error.help.is_some(), "no help in\n{}", error.text);
    }
}

// 11. A warning only (a tag missing from the taxonomy): exit 0, the warning printed, output
// written (the unknown tag gets its timeline, as a primary tag).
#[test]
fn a_warning_does_not_fail_the_build() {
    let site = Site::built();
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("tags: [\"rust\"]", "tags: [\"rust\", \"ghost\"]"),
    );
    let run = site.build();
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    // Besides the warning about placeholder settings (this site has no watch.toml).
    let content_warnings: Vec<_> = run
        .warnings()
        .into_iter()
        .filter(|w| !w.message.contains("placeholder settings"))
        .collect();
    assert_eq!(content_warnings.len(), 1, "{}", run.stderr);
    // Both ways out: create the tag, or take it off the post.
    run.find("tag `ghost` is not in the taxonomy (no tags/ghost.md); it counts as a primary tag")
        .assert_at(EN_POST, Some((5, 7)))
        .assert_help("create it with `content-api new tag ghost`")
        .assert_help("remove `ghost` from this post's `tags`");
    assert_eq!(run.summary(), None);
    let timeline = std::fs::read_to_string(site.out().join("api/timeline/en/ghost.json")).unwrap();
    assert!(timeline.contains("\"hello\""), "{timeline}");
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("ghost"), "{posts}");
    assert!(site.out().join("notes.txt").is_file());
}

// 12a. A `.md` file whose name is not valid UTF-8: an error (it cannot become an id or URL),
// shown with the name decoded lossily.
#[test]
fn non_utf8_file_name_is_an_error() {
    let site = Site::built();
    let before = site.out_snapshot();
    let name = std::ffi::OsStr::from_bytes(b"2024-05-02_caf\xe9.md");
    std::fs::write(site.path("blog/en").join(name), post_with("")).unwrap();
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("file name is not valid UTF-8")
        .assert_at("blog/en/2024-05-02_caf\u{fffd}.md", None)
        .assert_help("rename the file using UTF-8 characters");
}

// 12b. A 50 MB `.md` file: an error naming the 8 MB limit; only the limit is read.
#[test]
fn huge_file_is_refused() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = "blog/en/2024-05-02_huge.md";
    let mut bytes = post_with("").into_bytes();
    bytes.resize(50 * 1024 * 1024, b'a');
    site.write(path, bytes);
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("file is larger than the 8 MB limit for a content file")
        .assert_at(path, None)
        .assert_help("move large assets out of the content folder");
}

// 12c. Binary data (an image renamed `.md`): an error that says it is binary, at the first NUL.
#[test]
fn binary_file_is_refused() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = "blog/en/2024-05-02_image.md";
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..=255u8).cycle().take(4096));
    site.write(path, png);
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("this is a binary file, not Markdown text")
        .assert_at(path, Some((3, 1)))
        .assert_help("content files must be UTF-8 Markdown");
}

// 12d. A symbolic link loop (`blog/en/loop -> ..`): a warning, the link is not followed, and
// the build succeeds.
#[test]
fn symlink_loop_is_a_warning() {
    let site = Site::new();
    std::os::unix::fs::symlink("..", site.path("blog/en/loop")).unwrap();
    let run = site.build();
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    run.find("symbolic link loop")
        .assert_at("blog/en/loop", None)
        .assert_help("it was not followed");
    assert!(site.out().join("api/posts-en.json").is_file());
}

// 12e. A link to the content folder itself (`blog/en/loop -> ../..`): walked once, its
// Markdown reported as misplaced (warnings), the loop caught one level down; still a success
// with the same output as without the link.
#[test]
fn symlink_to_content_root_terminates() {
    let site = Site::new();
    site.build().assert_success();
    let before = std::fs::read(site.out().join("api/posts.json")).unwrap();
    std::os::unix::fs::symlink("../..", site.path("blog/en/loop")).unwrap();
    let run = site.build();
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    run.find("symbolic link loop");
    assert!(
        run.warnings()
            .iter()
            .any(|w| w.message.contains("not read as content")),
        "{}",
        run.stderr
    );
    let after = std::fs::read(site.out().join("api/posts.json")).unwrap();
    assert_eq!(before, after);
}

// 13a. A misspelt key in the config file: exit 2, located at its line, listing the valid keys.
#[test]
fn misspelt_config_key() {
    let site = Site::built();
    let before = site.out_snapshot();
    std::fs::write(
        site.root().join("watch.toml"),
        "base_url = \"https://example.com\"\ncontnt_dir = \"content\"\n",
    )
    .unwrap();
    let run = site.run(&["--once", "--config", "watch.toml", "--today", TODAY]);
    run.assert_code(2);
    let error = run.find("unknown field `contnt_dir`");
    assert!(
        error.message.starts_with("invalid config:"),
        "{}",
        error.text
    );
    assert!(error.message.contains("`content_dir`"), "{}", error.text);
    error
        .assert_at("watch.toml", Some((2, 1)))
        .assert_shows("2 | contnt_dir = \"content\"")
        .assert_help("watch.toml");
    common::assert_same(&before, &site.out_snapshot());
}

// 13b. A base URL that is not http(s).
#[test]
fn non_http_base_url() {
    let site = Site::built();
    let before = site.out_snapshot();
    let run = site.build_with(&["--base-url", "ftp://x"]);
    run.assert_code(2);
    assert_eq!(
        run.find("--base-url").message,
        "invalid --base-url: `ftp://x` must start with https:// or http://"
    );
    common::assert_same(&before, &site.out_snapshot());
}

// 13c. A `--today` that is not a date (month 13): rejected by the argument parser.
#[test]
fn impossible_today() {
    let site = Site::built();
    let before = site.out_snapshot();
    let run = site.run(&[
        "--once",
        "--content",
        "content",
        "--out",
        "out",
        "--today",
        "2024-13-01",
    ]);
    run.assert_code(2);
    let error = run.find("2024-13-01");
    assert!(
        error.message.contains("--today <YYYY-MM-DD>"),
        "{}",
        error.text
    );
    assert!(run.stderr.contains("--help"), "{}", run.stderr);
    common::assert_same(&before, &site.out_snapshot());
}

/// The site's build run as `nobody` through `setpriv` (for a root test run: permissions then
/// apply), with the site's folders opened to it.
fn build_as_nobody(site: &Site, setpriv: &std::path::Path) -> common::Run {
    // Let `nobody` reach and read the site (the post itself stays 000).
    let mut folder = Some(site.root());
    while let Some(dir) = folder {
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o755)).unwrap();
        folder = dir.parent().filter(|p| p.starts_with(std::env::temp_dir()));
    }
    let mut args = vec![
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        common::BIN,
    ];
    args.extend([
        "--once",
        "--content",
        "content",
        "--out",
        "out",
        "--today",
        TODAY,
    ]);
    common::run_binary_cmd(
        site.root(),
        setpriv.to_str().unwrap(),
        &args,
        &[],
        common::TIMEOUT,
    )
}

// 30. Front matter as Hugo, Jekyll and Astro write it: a blank line before the opening `---`,
// and TOML between `+++` lines with a TOML date-time, both read like the usual YAML.
#[test]
fn leading_blank_lines_and_toml_front_matter_are_read() {
    let site = Site::built();
    site.write(EN_POST, format!("\n  \n{EN_POST_TEXT}"));
    site.write(
        ES_POST,
        "+++\ntitle = \"Hola TOML\"\ndescription = \"Una entrada\"\npubDate = 2024-05-01T09:30:00-05:00\ntags = [\"rust\"]\nseries = \"intro\"\nseriesOrder = 1\n+++\n\nCuerpo.\n",
    );
    let run = site.build();
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    let en = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(en.contains("\"title\":\"Hello\""), "{en}");
    let es = std::fs::read_to_string(site.out().join("api/posts-es.json")).unwrap();
    assert!(es.contains("\"title\":\"Hola TOML\""), "{es}");
    assert!(
        es.contains("\"pubDate\":\"2024-05-01T14:30:00.000Z\""),
        "{es}"
    );
}

// 31. TOML front matter's errors: located at the value, with the fix written in TOML; a TOML
// syntax error is the file's one error.
#[test]
fn toml_front_matter_errors_are_located() {
    let site = Site::built();
    let before = site.out_snapshot();
    site.write(
        EN_POST,
        "+++\ntitle = \"Hello\"\ndescription = \"D\"\npubDate = 2024-05-01\nseries = \"intro\"\nseriesOrder = \"2\"\n+++\n",
    );
    site.write(ES_POST, "+++\ntitle = \"Hola\"\npubDate = \n+++\n");
    let run = site.build();
    assert_rejected(&site, &before, &run, 2);
    run.find("`seriesOrder` must be an integer")
        .assert_at(EN_POST, Some((6, 15)))
        .assert_help("seriesOrder = 2");
    let syntax = run.find("front matter is not valid TOML");
    assert_eq!(syntax.path.as_deref(), Some(ES_POST), "{}", syntax.text);
}

// 32. Dates as real sites write them: Astro's `July 8, 2022` is read; a day-first date is an
// error at its line that lists the accepted forms.
#[test]
fn dates_as_sites_write_them() {
    let site = Site::built();
    let before = site.out_snapshot();
    let path = "blog/en/2022-07-08_astro.md";
    site.write(
        path,
        "---\ntitle: \"Astro\"\ndescription: \"D\"\npubDate: '08/07/2022'\n---\n",
    );
    let run = site.build();
    assert_rejected(&site, &before, &run, 1);
    run.find("`pubDate` is not a valid date: `08/07/2022`")
        .assert_at(path, Some((4, 10)))
        .assert_help("Jul 08 2022")
        .assert_help("2024-05-01T09:30-05:00");
    site.write(
        path,
        "---\ntitle: \"Astro\"\ndescription: \"D\"\npubDate: 'July 8, 2022'\n---\n",
    );
    let run = site.build();
    run.assert_success();
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(
        posts.contains("\"pubDate\":\"2022-07-08T00:00:00.000Z\""),
        "{posts}"
    );
}

// 33. Key aliases (`[front_matter.keys]`): a post written with `date` and `summary` builds
// (and no unknown-key warning names them); a misspelt field name is a config error at its line.
#[test]
fn front_matter_key_aliases() {
    let site = Site::built();
    std::fs::write(
        site.root().join("watch.toml"),
        "[front_matter.keys]\ndate = [\"pubDate\", \"date\"]\ndescription = [\"description\", \"summary\"]\n",
    )
    .unwrap();
    site.write(
        EN_POST,
        "---\ntitle: \"Hello\"\nsummary: \"Aliased\"\ndate: 2024-05-01\ntags: [\"rust\"]\n---\n\nBody.\n",
    );
    let run = site.run(&["--once", "--config", "watch.toml", "--today", TODAY]);
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    assert!(!run.stderr.contains("`summary`"), "{}", run.stderr);
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("\"description\":\"Aliased\""), "{posts}");

    let before = site.out_snapshot();
    std::fs::write(
        site.root().join("watch.toml"),
        "[front_matter.keys]\ndate = [\"date\"]\nsumary = [\"summary\"]\n",
    )
    .unwrap();
    let run = site.run(&["--once", "--config", "watch.toml", "--today", TODAY]);
    run.assert_code(2);
    run.find("unknown field `sumary`")
        .assert_at("watch.toml", Some((3, 1)));
    common::assert_same(&before, &site.out_snapshot());
}

// 34. `description_from_body`: posts without a description get their first paragraph, and
// the build says so in one note, not one warning per post. Without it, a missing description
// stays an error.
#[test]
fn description_from_body_is_one_note() {
    let site = Site::built();
    let before = site.out_snapshot();
    let bare = "---\ntitle: \"Hello\"\npubDate: 2024-05-01\ntags: [\"rust\"]\n---\n\n# Hi\n\nThe **first** paragraph, with a [link](https://example.com).\n\nMore.\n";
    site.write(EN_POST, bare);
    site.write(ES_POST, bare.replace("Hello", "Hola"));
    let run = site.build();
    assert_rejected(&site, &before, &run, 2);
    assert!(
        run.errors()
            .iter()
            .all(|e| e.message == "missing required field `description`"),
        "{}",
        run.stderr
    );

    std::fs::write(
        site.root().join("watch.toml"),
        "[front_matter]\ndescription_from_body = true\n",
    )
    .unwrap();
    let run = site.run(&["--once", "--config", "watch.toml", "--today", TODAY]);
    run.assert_success();
    assert!(run.errors().is_empty(), "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("no description").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("2 posts have no description"),
        "{}",
        run.stderr
    );
    assert!(
        !run.warnings()
            .iter()
            .any(|w| w.message.contains("description")),
        "{}",
        run.stderr
    );
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(
        posts.contains("\"description\":\"The first paragraph, with a link.\""),
        "{posts}"
    );
}
