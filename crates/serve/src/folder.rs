//! Reading one file of the output folder: inside the folder, and one version of it.
//!
//! - The joined path is canonicalized (every symbolic link resolved) and must lie inside the
//!   canonicalized output folder; a link that leads out of it answers "no such file"
//!   (`write::out_file`, which `mcp` reads through too).
//! - The file is opened once (`O_NOFOLLOW`, `O_NONBLOCK` so a FIFO cannot hang a worker), its
//!   metadata is read from that handle, and its bytes come from that handle. The writer
//!   replaces files by renaming a complete temporary file over them, so an open handle always
//!   sees one whole version, never a mix.
//! - A file up to `CACHE_FILE_LIMIT` is read whole and its bytes are cached and shared by every
//!   request. A larger one is streamed from its open handle in `CHUNK`-sized reads, so a slow
//!   client holds one chunk, not the file: memory stays flat however many clients read it.
//! - A cache keeps the ETag (and the bytes of small files) of recently served versions, keyed
//!   by the identity the open handle reports (its `FileStamp`: device, inode, mode, size,
//!   modification and change times). The writer never modifies a file in place, so a new version is a new inode; a hand
//!   edit in place changes the times. The cache is also emptied after every rebuild.
//!
//! Hand-written: tower-http's `ServeDir` and `hyper-staticfile` serve a folder by path, but
//! neither reads one version from one open handle nor tags it with a hash of its bytes.

use super::rebase::Rewriter;
use super::respond::{Body, full};
use crate::write::out_file::{FileStamp, Opened, open_out_file};
use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{self, Read};
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

/// ServedFolder up to this size are read whole and cached; larger ones are streamed.
const CACHE_FILE_LIMIT: u64 = 1 << 20;
/// The size of each read of a streamed file.
const CHUNK: usize = 64 << 10;
/// The cache is emptied when it would hold more than this.
const CACHE_TOTAL_LIMIT: u64 = 256 << 20;

/// One version of one file, ready to send.
#[derive(Debug)]
pub struct Served {
    /// The file's path relative to the output folder (decides the media type).
    pub path: String,
    content: Content,
    /// A strong validator: the quoted 128-bit hash of exactly these bytes.
    pub etag: String,
}

#[derive(Debug)]
enum Content {
    /// A small file's bytes (shared with the cache).
    Bytes(Bytes),
    /// A large file's open handle and its length: the body reads it as the client takes it.
    File(std::fs::File, u64),
    /// A large file sent with its production base URL rewritten (the preview), chunk by chunk
    /// as the client takes it: its handle, its length, and the length sent.
    Rewritten {
        file: std::fs::File,
        len: u64,
        sent: u64,
        from: String,
        to: String,
    },
}

impl Served {
    /// The length of the body in bytes.
    pub fn content_length(&self) -> u64 {
        match &self.content {
            Content::Bytes(bytes) => bytes.len() as u64,
            Content::File(_, len) => *len,
            Content::Rewritten { sent, .. } => *sent,
        }
    }

    /// The response body: the bytes, or a stream of the handle this version was opened as.
    pub fn into_body(self) -> Body {
        match self.content {
            Content::Bytes(bytes) => full(bytes),
            Content::File(file, len) => stream(file, len),
            Content::Rewritten {
                file,
                len,
                from,
                to,
                ..
            } => stream_rewritten(file, len, Rewriter::new(&from, &to)),
        }
    }

    /// A version of a file with other bytes (the preview's rewritten copy) and their ETag.
    pub fn with_bytes(path: String, etag: String, bytes: Bytes) -> Served {
        Served {
            path,
            content: Content::Bytes(bytes),
            etag,
        }
    }

    /// The whole content of a small file (`None` for a large one, which is never read whole).
    pub fn small_bytes(&self) -> Option<Bytes> {
        match &self.content {
            Content::Bytes(bytes) => Some(bytes.clone()),
            Content::File(..) | Content::Rewritten { .. } => None,
        }
    }

    /// This version of a large file with `from` rewritten to `to`, sent chunk by chunk (one
    /// pass over the file first, for its length); `etag` names the result. A small file, or a
    /// file that cannot be read, comes back as it is (`Err`).
    pub fn rewritten(self, from: &str, to: &str, etag: String) -> Result<Served, Served> {
        let Content::File(file, len) = self.content else {
            return Err(self);
        };
        let mut rewriter = Rewriter::new(from, to);
        let mut sent = 0u64;
        let mut buffer = vec![0; CHUNK];
        let mut out = Vec::with_capacity(CHUNK + to.len());
        let mut offset = 0u64;
        while offset < len {
            let want = CHUNK.min((len - offset) as usize);
            if file.read_exact_at(&mut buffer[..want], offset).is_err() {
                return Err(Served {
                    path: self.path,
                    content: Content::File(file, len),
                    etag: self.etag,
                });
            }
            out.clear();
            rewriter.feed(&buffer[..want], &mut out);
            sent += out.len() as u64;
            offset += want as u64;
        }
        out.clear();
        rewriter.finish(&mut out);
        sent += out.len() as u64;
        Ok(Served {
            path: self.path,
            content: Content::Rewritten {
                file,
                len,
                sent,
                from: from.to_string(),
                to: to.to_string(),
            },
            etag,
        })
    }
}

/// A body that reads `len` bytes of `file` from the start, one chunk per poll. A read failure
/// ends the body early; hyper then closes the connection (the length was announced), so the
/// client sees an error, never a short file taken for a whole one.
fn stream(file: std::fs::File, len: u64) -> Body {
    let chunks = futures_util::stream::unfold((file, 0u64), move |(file, offset)| async move {
        if offset >= len {
            return None;
        }
        let mut buffer = vec![0; CHUNK.min((len - offset) as usize)];
        match file.read_at(&mut buffer, offset) {
            Ok(0) => None,
            Ok(read) => {
                buffer.truncate(read);
                let next = offset + read as u64;
                Some((
                    Ok::<_, Infallible>(Frame::data(Bytes::from(buffer))),
                    (file, next),
                ))
            }
            Err(err) => {
                tracing::error!("a read failed while sending a file: {err}");
                None
            }
        }
    });
    StreamBody::new(chunks).boxed_unsync()
}

/// [`stream`] through a [`Rewriter`]: each chunk read is rewritten before it is sent, so the
/// body holds a chunk at a time, as the plain stream does.
fn stream_rewritten(file: std::fs::File, len: u64, rewriter: Rewriter) -> Body {
    let state = (file, 0u64, rewriter, false);
    let chunks = futures_util::stream::unfold(
        state,
        move |(file, offset, mut rewriter, done)| async move {
            if done {
                return None;
            }
            let mut out = Vec::with_capacity(CHUNK);
            if offset >= len {
                rewriter.finish(&mut out);
                return Some((
                    Ok::<_, Infallible>(Frame::data(Bytes::from(out))),
                    (file, offset, rewriter, true),
                ));
            }
            let mut buffer = vec![0; CHUNK.min((len - offset) as usize)];
            match file.read_at(&mut buffer, offset) {
                Ok(0) => None,
                Ok(read) => {
                    rewriter.feed(&buffer[..read], &mut out);
                    let next = offset + read as u64;
                    Some((
                        Ok(Frame::data(Bytes::from(out))),
                        (file, next, rewriter, false),
                    ))
                }
                Err(err) => {
                    tracing::error!("a read failed while sending a file: {err}");
                    None
                }
            }
        },
    );
    StreamBody::new(chunks).boxed_unsync()
}

/// The output folder, for reading.
pub struct ServedFolder {
    root: PathBuf,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    /// Per file: the version's identity, its bytes when small, its ETag.
    entries: HashMap<PathBuf, (FileStamp, Option<Bytes>, String)>,
    bytes: u64,
}

/// What the open handle says about the version it reads: a file replaced or written since is
/// another version.
#[cfg(unix)]
fn version_stamp(_file: &std::fs::File, meta: &std::fs::Metadata) -> io::Result<FileStamp> {
    Ok(FileStamp::of(meta))
}

/// What the open handle says about the version it reads, from the handle: std's metadata has
/// no file index or change time on Windows.
#[cfg(windows)]
fn version_stamp(file: &std::fs::File, _meta: &std::fs::Metadata) -> io::Result<FileStamp> {
    Ok(FileStamp::of_stat(&crate::write::out_file::stat_open(
        file,
    )?))
}

impl ServedFolder {
    /// The output folder `out_dir`, which must exist.
    pub fn new(out_dir: &Path) -> io::Result<ServedFolder> {
        Ok(ServedFolder {
            root: std::fs::canonicalize(out_dir)?,
            cache: Mutex::default(),
        })
    }

    /// The canonical output folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file at `relative` (a path that passed `SafePath`): `Ok(None)` when there is no
    /// regular file there inside the output folder, `Err` for any other failure (a symbolic
    /// link loop, an unreadable file), which the server answers with 500.
    pub fn read(&self, relative: &str) -> io::Result<Option<Served>> {
        let (canonical, mut file, meta) = match open_out_file(&self.root, relative)? {
            Opened::File { path, file, meta } => (path, file, meta),
            Opened::Absent | Opened::NotAFile(_) => return Ok(None),
        };
        let identity = version_stamp(&file, &meta)?;
        let cached = self.lock().entries.get(&canonical).cloned();
        if let Some((known, bytes, etag)) = cached
            && known == identity
        {
            let content = match bytes {
                Some(bytes) => Content::Bytes(bytes),
                None => Content::File(file, identity.size),
            };
            return Ok(Some(Served {
                path: relative.to_string(),
                content,
                etag,
            }));
        }
        let (content, etag) = if identity.size <= CACHE_FILE_LIMIT {
            let mut buffer = Vec::with_capacity(identity.size as usize);
            // One byte more than its size, so a file growing as it is read is not complete
            // (and not cached), and the read is bounded.
            (&mut file)
                .take(identity.size + 1)
                .read_to_end(&mut buffer)?;
            let etag = etag_of(&buffer);
            (Content::Bytes(Bytes::from(buffer)), etag)
        } else {
            let etag = etag_of_file(&file, identity.size)?;
            (Content::File(file, identity.size), etag)
        };
        let complete = match &content {
            Content::Bytes(bytes) => bytes.len() as u64 == identity.size,
            Content::File(..) | Content::Rewritten { .. } => true,
        };
        if complete {
            let bytes = match &content {
                Content::Bytes(bytes) => Some(bytes.clone()),
                Content::File(..) | Content::Rewritten { .. } => None,
            };
            let size = bytes.as_ref().map_or(0, |b| b.len() as u64);
            let mut cache = self.lock();
            if cache.bytes + size > CACHE_TOTAL_LIMIT {
                *cache = Cache::default();
            }
            cache.bytes += size;
            if let Some((_, Some(old), _)) = cache
                .entries
                .insert(canonical, (identity, bytes, etag.clone()))
            {
                cache.bytes -= old.len() as u64;
            }
        }
        Ok(Some(Served {
            path: relative.to_string(),
            content,
            etag,
        }))
    }

    /// Forgets every cached version (after a rebuild).
    pub fn clear_cache(&self) {
        *self.lock() = Cache::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // The cache holds no invariant a panic could break: recover it.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The strong ETag of `bytes`: their 128-bit xxh3 hash, quoted.
pub fn etag_of(bytes: &[u8]) -> String {
    format!("\"{:032x}\"", xxh3_128(bytes))
}

/// The ETag of the first `len` bytes of `file`, read in chunks (never the whole file at once).
fn etag_of_file(file: &std::fs::File, len: u64) -> io::Result<String> {
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0; CHUNK];
    let mut offset = 0;
    while offset < len {
        let want = CHUNK.min((len - offset) as usize);
        let read = file.read_at(&mut buffer[..want], offset)?;
        if read == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file is shorter than its size",
            ));
        }
        hasher.update(&buffer[..read]);
        offset += read as u64;
    }
    Ok(format!("\"{:032x}\"", hasher.digest128()))
}

/// `pread` on Windows: `seek_read`, which also moves the handle's position (a handle read
/// at offsets here is never read in sequence).
#[cfg(windows)]
trait FileExt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

#[cfg(windows)]
impl FileExt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        crate::write::out_file::read_exact_at(self, buf, offset)
    }
}

#[cfg(test)]
mod tests;
