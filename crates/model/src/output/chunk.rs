//! A piece of an output file: text in memory, or a post body on disk; and the digest a hash
//! over pieces takes for it.

use crate::content::DiskBody;
use std::cell::RefCell;
use std::io;
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// A piece of an output file.
#[derive(Clone, Debug)]
pub enum Chunk {
    /// Shared text, usually a fragment cached by a per-file query.
    Text(Arc<str>),
    /// A separator or other fixed text.
    Static(&'static str),
    /// A range of a source file's text, shared with the database input that holds it: a post's
    /// body is published as it was read, so it is held in memory once, in its file's contents.
    Source {
        /// The source file's text, whole.
        text: Arc<String>,
        /// The byte offset where the range starts.
        start: u32,
        /// The byte offset where the range ends.
        end: u32,
    },
    /// A post body a one-shot build left on disk: read again (and checked against its digest)
    /// when the file is written or compared.
    Disk(Arc<DiskBody>),
}

impl Chunk {
    /// A chunk of `text[range]`; `None` when the range is not a `str` range of `text` (or does
    /// not fit the `u32` offsets, which no content file under the size limit reaches).
    pub fn source(text: &Arc<String>, range: std::ops::Range<usize>) -> Option<Chunk> {
        text.get(range.clone())?;
        Some(Chunk::Source {
            text: text.clone(),
            start: u32::try_from(range.start).ok()?,
            end: u32::try_from(range.end).ok()?,
        })
    }

    /// The text, when it is in memory.
    pub fn text(&self) -> Option<&str> {
        match self.held() {
            Held::Memory(text) => Some(text),
            Held::Disk(_) => None,
        }
    }

    /// The length in bytes, whether the text is in memory or on disk.
    pub fn len(&self) -> usize {
        match self.held() {
            Held::Memory(text) => text.len(),
            Held::Disk(body) => body.len(),
        }
    }

    /// Whether the chunk has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    // Inlined: called for every chunk the writer and the hashes go through.
    #[inline]
    fn held(&self) -> Held<'_> {
        match self {
            Chunk::Text(text) => Held::Memory(text),
            Chunk::Static(text) => Held::Memory(text),
            Chunk::Source { text, start, end } => {
                Held::Memory(&text[*start as usize..*end as usize])
            }
            Chunk::Disk(body) => Held::Disk(body),
        }
    }

    /// Feeds the chunk to a hash over an output's chunks: the bytes of a chunk in memory, the
    /// [`digest_of`] its length and hash for a chunk on disk, whose bytes are not at hand. So
    /// within one build, equal hashes still mean equal bytes (one build holds a body either in
    /// memory or on disk, never both).
    pub(super) fn hash_into(&self, hasher: &mut Xxh3) {
        match self.held() {
            Held::Memory(text) => hasher.update(text.as_bytes()),
            Held::Disk(body) => hasher.update(&digest_of(body.len(), body.digest())),
        }
    }

    /// The [`chunk_digest`] of the chunk (of a chunk on disk, from the digest the build read).
    pub(super) fn digest(&self) -> [u8; DIGEST_LEN] {
        match self.held() {
            Held::Memory(text) => chunk_digest(text.as_bytes()),
            Held::Disk(body) => digest_of(body.len(), body.digest()),
        }
    }

    /// Hands the chunk's bytes to `f`: a chunk on disk is read first, into this thread's buffer.
    pub(super) fn with_bytes<E: From<io::Error>>(
        &self,
        f: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.held() {
            Held::Memory(text) => f(text.as_bytes()),
            Held::Disk(body) => BODY.with_borrow_mut(|buf| f(body.read(buf)?)),
        }
    }
}

/// Where a chunk's bytes are.
enum Held<'a> {
    Memory(&'a str),
    Disk(&'a DiskBody),
}

/// Chunks are equal when their text is, however it is held (a chunk on disk by its length and
/// digest).
impl PartialEq for Chunk {
    fn eq(&self, other: &Chunk) -> bool {
        match (self.text(), other.text()) {
            (Some(a), Some(b)) => a == b,
            _ => self.digest() == other.digest(),
        }
    }
}

impl Eq for Chunk {}

impl From<String> for Chunk {
    fn from(text: String) -> Chunk {
        Chunk::Text(text.into())
    }
}

impl From<Arc<str>> for Chunk {
    fn from(text: Arc<str>) -> Chunk {
        Chunk::Text(text)
    }
}

/// The bytes of a [`chunk_digest`].
pub(super) const DIGEST_LEN: usize = 12;

/// What an [`Assembly`] hashes for one chunk or entry: its length and the xxh3-64 hash of its
/// bytes. Two different versions of one entry digest alike once in 2^64: not a practical concern.
pub(super) fn chunk_digest(bytes: &[u8]) -> [u8; DIGEST_LEN] {
    digest_of(bytes.len(), xxh3_64(bytes))
}

pub(super) fn digest_of(len: usize, hash: u64) -> [u8; DIGEST_LEN] {
    let mut digest = [0; DIGEST_LEN];
    digest[..4].copy_from_slice(&(len as u32).to_le_bytes());
    digest[4..].copy_from_slice(&hash.to_le_bytes());
    digest
}

thread_local! {
    /// Each thread's buffer for the chunks it reads from disk (post bodies, a few KB each).
    static BODY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}
