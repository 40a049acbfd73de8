//! The one-shot build through its library function: what it returns, what it reports and in
//! which order, and the live site it is handed.

use super::*;
use crate::config::SiteConfig;
use std::cell::RefCell;
use std::time::Duration;

/// What the build said, one line per call.
#[derive(Default)]
struct Heard(RefCell<Vec<String>>);

impl Reporter for Heard {
    fn diagnostic(&self, diagnostic: &Diagnostic, _: Option<&str>) {
        let said = format!("{}: {}", diagnostic.severity.name(), diagnostic.path);
        self.0.borrow_mut().push(said);
    }
    fn warning(&self, _: &str, message: &str) {
        self.0.borrow_mut().push(format!("warning: {message}"));
    }
    fn error(&self, _: &str, message: &str) {
        self.0.borrow_mut().push(format!("error: {message}"));
    }
    fn files_read(&self, count: usize) {
        self.0.borrow_mut().push(format!("read {count}"));
    }
    fn phase(&self, phase: &str) {
        self.0.borrow_mut().push(format!("phase: {phase}"));
    }
    fn phase_done(&self) {
        self.0.borrow_mut().push("phase done".into());
    }
}

/// A live site that answers every request with `answer`, and counts the requests.
struct Answering {
    answer: Result<Fetched, String>,
    asked: RefCell<Vec<String>>,
}

impl LiveSite for Answering {
    fn fetch(&self, url: &str, _: Duration, _: u64) -> Result<Fetched, String> {
        self.asked.borrow_mut().push(url.to_owned());
        self.answer.clone()
    }
}

fn unreachable_site() -> Answering {
    Answering {
        answer: Err("cannot connect".into()),
        asked: RefCell::default(),
    }
}

/// A site with one post in `root` (its content folder created), built with every default.
fn site(root: &Utf8Path, post: &str) -> Arc<SiteConfig> {
    let config = SiteConfig::defaults(root);
    let folder = config.content_dir.join("blog/en");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("2026-01-01_hello.md"), post).unwrap();
    Arc::new(config)
}

const POST: &str =
    "---\ntitle: Hello\ndescription: The first post.\npubDate: 2026-01-01\n---\n\nBody.\n";

fn request(config: &Arc<SiteConfig>) -> Request<'_> {
    Request {
        config,
        config_file: None,
        today: NaiveDate::from_ymd_opt(2026, 6, 1).unwrap(),
        preview: Preview::default(),
        purge_list: None,
        records_history: false,
        ci: false,
    }
}

fn temp_root() -> (tempfile::TempDir, camino::Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = camino::Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
    (dir, root)
}

#[test]
fn a_build_reports_its_phases_in_order_and_the_next_builds_write_nothing() {
    let (_dir, root) = temp_root();
    let config = site(&root, POST);
    let live = unreachable_site();
    let heard = Heard::default();
    let first = build(&request(&config), &live, &heard).unwrap();
    assert!(!first.reused && first.sources == 1 && first.written == first.files);
    assert!(first.files > 10, "{first:?}");
    let said = heard.0.take();
    let expected = [
        "phase: reading the content",
        "read 1",
        "phase: checking 1 files",
        "phase done",
        "phase: rendering",
    ];
    assert_eq!(said[..expected.len()], expected, "{said:#?}");
    assert_eq!(
        said.last().map(String::as_str),
        Some("phase done"),
        "{said:#?}"
    );
    // The first build wrote every file, so its fingerprint is not saved: the second build
    // reads and writes nothing, and saves it (once the outputs' stamps are past the racy
    // window of file systems with sub-second timestamps, 100 ms); the third parses nothing.
    std::thread::sleep(Duration::from_millis(250));
    let second = build(&request(&config), &live, &heard).unwrap();
    assert_eq!((second.written, second.reused), (0, false), "{second:?}");
    assert_eq!(second.unchanged, first.files);
    heard.0.take();
    let third = build(&request(&config), &live, &heard).unwrap();
    assert!(third.reused, "{third:?}");
    assert_eq!(
        (third.files, third.sources, third.written),
        (first.files, 1, 0)
    );
    assert!(heard.0.take().is_empty(), "a reused build reads no content");
    // A site under a reserved name has no live site to read.
    assert!(live.asked.borrow().is_empty());
}

#[test]
fn content_errors_stop_the_build_before_anything_is_written() {
    let (_dir, root) = temp_root();
    let config = site(
        &root,
        "---\ndescription: No title.\npubDate: 2026-01-01\n---\n\nBody.\n",
    );
    let heard = Heard::default();
    let stopped = build(&request(&config), &unreachable_site(), &heard).unwrap_err();
    let BuildError::ContentErrors(errors) = stopped else {
        panic!("{stopped:?}");
    };
    assert!(errors >= 1);
    let said = heard.0.take();
    let reported = said
        .iter()
        .filter(|s| s.starts_with("error: blog/en/"))
        .count();
    assert_eq!(reported, errors, "{said:#?}");
    let written = std::fs::read_dir(&config.out_dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect()
        })
        .unwrap_or_else(|_| Vec::new());
    assert!(
        written
            .iter()
            .all(|name| name.to_string_lossy().starts_with('.')),
        "{written:?}"
    );
}

#[test]
fn a_recorded_build_in_ci_stops_when_the_live_record_cannot_be_read() {
    let (_dir, root) = temp_root();
    let mut config = (*site(&root, POST)).clone();
    config.base_url = "https://blog.site.dev".into();
    let config = Arc::new(config);
    let live = unreachable_site();
    let ci = Request {
        records_history: true,
        ci: true,
        ..request(&config)
    };
    let stopped = build(&ci, &live, &Heard::default()).unwrap_err();
    let BuildError::LiveRecord(message) = &stopped else {
        panic!("{stopped:?}");
    };
    assert!(
        message.starts_with(
            "cannot read the live site's deploy record https://blog.site.dev/.well-known/content-api/deploy.json: cannot connect"
        ),
        "{message}"
    );
    assert_eq!(live.asked.borrow().len(), 1);
    // A preview records nothing, so it reads nothing either.
    let preview = Request {
        preview: Preview {
            drafts: true,
            future: false,
        },
        ..ci
    };
    build(&preview, &live, &Heard::default()).unwrap();
    assert_eq!(live.asked.borrow().len(), 1);
}
