//! Reading the output folder: versions, the cache, large files streamed and rewritten.

use super::*;

#[test]
fn a_large_file_is_rewritten_as_it_is_sent_with_the_length_announced() {
    let (dir, files) = folder();
    // Over the cache limit, with base URLs across chunk boundaries.
    let unit = "{\"url\":\"https://a.example/api/x.json\"},";
    let text = unit.repeat((3 << 20) / unit.len());
    std::fs::write(dir.path().join("out/api/big.json"), &text).unwrap();
    let served = files.read("api/big.json").unwrap().unwrap();
    assert!(
        served.small_bytes().is_none(),
        "a large file is not read whole"
    );
    let rewritten = served
        .rewritten("https://a.example", "http://127.0.0.1:4321", "\"e\"".into())
        .unwrap();
    let want = crate::rebase::rewrite(
        text.as_bytes(),
        "https://a.example",
        "http://127.0.0.1:4321",
    )
    .unwrap();
    assert_eq!(rewritten.content_length(), want.len() as u64);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let body = runtime
        .block_on(http_body_util::BodyExt::collect(rewritten.into_body()))
        .unwrap()
        .to_bytes();
    assert!(
        body[..] == want[..],
        "the bytes of the whole file rewritten"
    );
}

fn folder() -> (tempfile::TempDir, ServedFolder) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("out/api")).unwrap();
    std::fs::write(dir.path().join("out/api/a.json"), "[1]").unwrap();
    std::fs::write(dir.path().join("secret.json"), "secret").unwrap();
    let files = ServedFolder::new(&dir.path().join("out")).unwrap();
    (dir, files)
}

#[test]
fn a_file_is_read_with_its_etag_and_a_missing_one_is_none() {
    let (_dir, files) = folder();
    let served = files.read("api/a.json").unwrap().unwrap();
    assert_eq!(&served.small_bytes().unwrap()[..], b"[1]");
    assert_eq!(served.etag, etag_of(b"[1]"));
    assert_eq!(served.etag.len(), 34);
    assert!(files.read("api/b.json").unwrap().is_none());
    assert!(files.read("api/a.json/x").unwrap().is_none());
    assert!(
        files.read("api").unwrap().is_none(),
        "a folder is not a file"
    );
}

#[test]
fn a_replaced_file_is_read_again_not_taken_from_the_cache() {
    let (dir, files) = folder();
    assert_eq!(
        &files
            .read("api/a.json")
            .unwrap()
            .unwrap()
            .small_bytes()
            .unwrap()[..],
        b"[1]"
    );
    let temp = dir.path().join("out/api/.a.tmp");
    std::fs::write(&temp, "[2]").unwrap();
    std::fs::rename(&temp, dir.path().join("out/api/a.json")).unwrap();
    let served = files.read("api/a.json").unwrap().unwrap();
    assert_eq!(&served.small_bytes().unwrap()[..], b"[2]");
    assert_eq!(served.etag, etag_of(b"[2]"));
}

#[cfg(unix)]
#[test]
fn links_out_of_the_folder_are_refused_and_links_inside_are_followed() {
    let (dir, files) = folder();
    let out = dir.path().join("out");
    std::os::unix::fs::symlink(dir.path().join("secret.json"), out.join("api/out.json")).unwrap();
    std::os::unix::fs::symlink(dir.path(), out.join("up")).unwrap();
    std::os::unix::fs::symlink(out.join("api/a.json"), out.join("api/in.json")).unwrap();
    assert!(files.read("api/out.json").unwrap().is_none());
    assert!(files.read("up/secret.json").unwrap().is_none());
    assert_eq!(
        &files
            .read("api/in.json")
            .unwrap()
            .unwrap()
            .small_bytes()
            .unwrap()[..],
        b"[1]"
    );
}

#[tokio::test]
async fn a_large_file_is_streamed_from_its_handle_with_the_etag_of_its_bytes() {
    let (dir, files) = folder();
    let out = dir.path().join("out");
    let old: Vec<u8> = (0..3 * CACHE_FILE_LIMIT + 7)
        .map(|i| (i % 251) as u8)
        .collect();
    std::fs::write(out.join("big.txt"), &old).unwrap();
    let served = files.read("big.txt").unwrap().unwrap();
    assert!(
        matches!(served.content, Content::File(..)),
        "streamed, not buffered"
    );
    assert_eq!(served.content_length(), old.len() as u64);
    assert_eq!(served.etag, etag_of(&old));
    if crate::write::out_file::under_wine() {
        // Wine 8 has no POSIX-semantics rename: a file held open is never renamed over there.
        eprintln!("skipped under wine: renaming over a file held open needs Windows 10's rename");
        return;
    }
    // A publish replaces the file while the response is on its way: the body is the
    // version that was opened, whole.
    let temp = out.join(".big.tmp");
    std::fs::write(&temp, vec![b'x'; 10]).unwrap();
    std::fs::rename(&temp, out.join("big.txt")).unwrap();
    let body = served.into_body().collect().await.unwrap().to_bytes();
    assert!(body[..] == old[..]);
    let again = files.read("big.txt").unwrap().unwrap();
    assert_eq!(again.etag, etag_of(b"xxxxxxxxxx"));
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_is_a_failure_and_a_fifo_is_not_a_file() {
    let (dir, files) = folder();
    let out = dir.path().join("out");
    std::os::unix::fs::symlink(out.join("api/loop.json"), out.join("api/loop.json")).unwrap();
    assert!(files.read("api/loop.json").is_err());
    let fifo = std::ffi::CString::new(out.join("api/fifo.json").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    assert!(files.read("api/fifo.json").unwrap().is_none());
}
