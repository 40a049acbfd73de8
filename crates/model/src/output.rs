//! The bytes of one output file, as a list of shared chunks.
//!
//! A list output (a post index, a timeline, `llms-full.txt`) is mostly entries that are cached
//! per source file. Keeping the file as chunks that point at those cached entries means a
//! rebuild re-assembles pointers instead of copying megabytes into a new buffer, and the entries
//! are held in memory once however many files list them. The writer copies the chunks into
//! blocks of up to 1 MB as it writes them.

mod chunk;

pub use chunk::Chunk;

/// Every output file of a build, by path, sorted: what the writer makes the output folder hold.
pub type Files = std::sync::Arc<[(std::sync::Arc<str>, Output)]>;

/// Output paths (relative to the output folder, e.g. `api/posts.json`), sorted and
/// duplicate-free: what earlier builds published, as the publishing history records it.
pub type HistoryPaths = std::sync::Arc<[std::sync::Arc<str>]>;

use chunk::{DIGEST_LEN, chunk_digest, digest_of};
use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

/// One entry of an [`Output`]: a chunk, or the entries of a [`Part`], shared with the part that
/// cached them. Holding a part's entries rather than copies of them keeps a multi-megabyte list
/// output as small as its list of runs, and assembling it clones one pointer per run.
#[derive(Clone, Debug)]
enum Piece {
    Chunk(Chunk),
    /// JSON list entries, written with [`JSON_SEPARATOR`] between them.
    Entries(Arc<[Arc<str>]>),
    /// Sections (each a run of chunks), written one after the other.
    Sections(Arc<[Arc<[Chunk]>]>),
}

/// What separates two entries of a JSON list.
const JSON_SEPARATOR: &str = ",";

impl Piece {
    /// Hands the piece's text to `f`, in order, as the writer writes it; stops at the first
    /// error. A loop per kind of piece, not a chain of iterators: `api/posts.json` is 200,000
    /// texts, and the writer's loop over them is on the edit's path.
    fn try_for_each_bytes<E: From<io::Error>>(
        &self,
        f: &mut impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            Piece::Chunk(chunk) => chunk.with_bytes(f),
            Piece::Entries(entries) => {
                for (i, entry) in entries.iter().enumerate() {
                    if i > 0 {
                        f(JSON_SEPARATOR.as_bytes())?;
                    }
                    f(entry.as_bytes())?;
                }
                Ok(())
            }
            Piece::Sections(sections) => sections
                .iter()
                .flat_map(|section| section.iter())
                .try_for_each(|chunk| chunk.with_bytes(f)),
        }
    }
}

/// An output file's content and its 128-bit hash. The hash makes "did it change?" O(1) for the
/// writer and for salsa's backdating. (The server computes ETags from the bytes it reads.)
#[derive(Clone, Debug)]
pub struct Output {
    pieces: Arc<[Piece]>,
    len: usize,
    /// The xxh3-128 hash of the bytes: equal hashes mean equal files for the writer.
    pub hash: u128,
}

impl Output {
    /// An output of one piece of text.
    pub fn new(text: impl Into<String>) -> Output {
        Output::from_chunks(vec![Chunk::from(text.into())])
    }

    /// An output made of `chunks`, in order.
    pub fn from_chunks(chunks: Vec<Chunk>) -> Output {
        let (len, hash) = length_and_hash(&chunks);
        Output {
            pieces: chunks.into_iter().map(Piece::Chunk).collect(),
            len,
            hash,
        }
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hands the text to `f`, in order, in the pieces it is held in; stops at the first error,
    /// or at a chunk on disk that cannot be read (the portal's examples read a prefix this way).
    pub fn try_for_each_bytes<E: From<io::Error>>(
        &self,
        mut f: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.pieces
            .iter()
            .try_for_each(|piece| piece.try_for_each_bytes(&mut f))
    }

    /// The content as one buffer (for tests and small documents); an error only when a chunk
    /// on disk cannot be read.
    pub fn to_vec(&self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(self.len);
        self.try_for_each_bytes(|piece| {
            bytes.extend_from_slice(piece);
            Ok::<(), io::Error>(())
        })?;
        Ok(bytes)
    }

    /// The first `max` bytes (all of them when the content is shorter); an error only when a
    /// chunk on disk cannot be read.
    pub fn prefix(&self, max: usize) -> io::Result<Vec<u8>> {
        /// Why the walk over the pieces ended early: the prefix is full, or a read failed.
        enum Ended {
            Full,
            Unreadable(io::Error),
        }
        impl From<io::Error> for Ended {
            fn from(err: io::Error) -> Ended {
                Ended::Unreadable(err)
            }
        }
        let mut bytes = Vec::with_capacity(max.min(self.len));
        let walked = self.try_for_each_bytes(|piece| {
            let take = (max - bytes.len()).min(piece.len());
            bytes.extend_from_slice(&piece[..take]);
            if bytes.len() == max {
                Err(Ended::Full)
            } else {
                Ok(())
            }
        });
        match walked {
            Ok(()) | Err(Ended::Full) => Ok(bytes),
            Err(Ended::Unreadable(err)) => Err(err),
        }
    }

    /// Whether `bytes` is exactly this content (compared chunk by chunk, without a copy). A
    /// chunk on disk that cannot be read compares unequal: writing the file then reports why.
    pub fn eq_bytes(&self, mut bytes: &[u8]) -> bool {
        if bytes.len() != self.len {
            return false;
        }
        self.try_for_each_bytes(|piece| match bytes.strip_prefix(piece) {
            Some(rest) => {
                bytes = rest;
                Ok(())
            }
            None => Err(io::Error::from(io::ErrorKind::InvalidData)),
        })
        .is_ok()
    }

    /// Writes the bytes to `out` in blocks of up to `WRITE_BLOCK` bytes, each copied together
    /// from consecutive chunks (a chunk as long as the block is written as it is).
    ///
    /// A list output is tens of thousands of small chunks: one `write` per chunk, or a `writev`
    /// of many, makes the kernel copy them one by one into pages it allocates page by page;
    /// blocks of consecutive chunks are written as a few large copies.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        BLOCK.with_borrow_mut(|block| {
            // What a failed write left in it is not this file's.
            block.clear();
            self.write_in_blocks(block, out)
        })
    }

    fn write_in_blocks(&self, block: &mut Vec<u8>, out: &mut impl Write) -> io::Result<()> {
        self.try_for_each_bytes(|bytes| {
            if block.len() + bytes.len() > WRITE_BLOCK && !block.is_empty() {
                out.write_all(block)?;
                block.clear();
            }
            if bytes.len() >= WRITE_BLOCK {
                out.write_all(bytes)
            } else {
                block.extend_from_slice(bytes);
                Ok(())
            }
        })?;
        if !block.is_empty() {
            out.write_all(block)?;
        }
        Ok(())
    }
}

thread_local! {
    /// Each writing thread's block, allocated once rather than per file: a megabyte allocated
    /// per file would grow a watch session's heap.
    static BLOCK: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(WRITE_BLOCK));
}

/// The longest block [`Output::write_to`] hands to one `write`.
const WRITE_BLOCK: usize = 1 << 20;

/// The length and xxh3-64 hash of the concatenation of `chunks`.
fn length_and_hash_64(chunks: &[Chunk]) -> (usize, u64) {
    let (len, hasher) = hash_chunks(chunks);
    (len, hasher.digest())
}

/// The length and xxh3-128 hash of the concatenation of `chunks`.
fn length_and_hash(chunks: &[Chunk]) -> (usize, u128) {
    let (len, hasher) = hash_chunks(chunks);
    (len, hasher.digest128())
}

fn hash_chunks(chunks: &[Chunk]) -> (usize, Xxh3) {
    let mut hasher = Xxh3::new();
    let mut len = 0;
    for chunk in chunks {
        chunk.hash_into(&mut hasher);
        len += chunk.len();
    }
    (len, hasher)
}

/// Equal contents have equal hashes; a 128-bit collision between two versions of one file is
/// not a practical concern, and comparing hashes keeps backdating O(1) for multi-megabyte files.
impl PartialEq for Output {
    fn eq(&self, other: &Output) -> bool {
        self.hash == other.hash && self.len == other.len
    }
}

impl Eq for Output {}

/// The entries of a run of a list, hashed once and kept with their digests: cached by a
/// tracked query. An output assembled from parts hashes the parts' digests instead of their
/// bytes, so re-assembling a multi-megabyte list after one entry changed hashes one run's worth
/// of digests, not the file.
///
/// A part holds one pointer and one digest per entry, whatever the entry is made of: the
/// separators between JSON entries are written, not held (a million entries are held by the
/// runs of a 50,000-post site's lists), and a section of several chunks is one entry.
#[derive(Clone, Debug)]
pub struct Part {
    /// [`Piece::Entries`] or [`Piece::Sections`].
    entries: Piece,
    /// Each entry's [`chunk_digest`], in order: what an [`Assembly`] hashes for this part.
    digests: Arc<[u8]>,
    /// The length in bytes, separators included.
    len: usize,
    hash: u128,
    /// How many list entries the part holds.
    items: usize,
}

impl Part {
    /// A run of JSON list entries: written separated by `,`.
    pub fn json(entries: Vec<Arc<str>>) -> Part {
        let digests = entries
            .iter()
            .flat_map(|entry| chunk_digest(entry.as_bytes()))
            .collect();
        let separators = entries.len().saturating_sub(1) * JSON_SEPARATOR.len();
        let len = entries.iter().map(|entry| entry.len()).sum::<usize>() + separators;
        Part::new(Piece::Entries(entries.into()), digests, len)
    }

    /// A run of sections, each written whole, one after the other.
    pub fn sections(sections: Vec<Section>) -> Part {
        let mut digests = Vec::with_capacity(sections.len() * DIGEST_LEN);
        let mut len = 0;
        let chunks = sections
            .into_iter()
            .map(|section| {
                digests.extend_from_slice(&section.digest);
                len += section.len;
                section.chunks
            })
            .collect();
        Part::new(Piece::Sections(chunks), digests, len)
    }

    fn new(entries: Piece, digests: Vec<u8>, len: usize) -> Part {
        Part {
            items: digests.len() / DIGEST_LEN,
            hash: xxh3_128(&digests),
            digests: digests.into(),
            entries,
            len,
        }
    }

    /// How many entries the part holds.
    pub fn items(&self) -> usize {
        self.items
    }

    /// The length in bytes, separators included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the part holds no entry.
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }
}

/// An entry of several chunks (a post's `llms-full.txt` section), digested once when it is made:
/// per post, on every thread, rather than by the one query that joins the sections, which
/// would hash every body of the site on one thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    chunks: Arc<[Chunk]>,
    digest: [u8; DIGEST_LEN],
    len: usize,
}

impl Section {
    /// Digests the chunks of one entry, once, where the entry is made.
    pub fn new(chunks: Vec<Chunk>) -> Section {
        let (len, hash) = length_and_hash_64(&chunks);
        Section {
            chunks: chunks.into(),
            digest: digest_of(len, hash),
            len,
        }
    }
}

/// Equal digests mean equal contents, as for [`Output`].
impl PartialEq for Part {
    fn eq(&self, other: &Part) -> bool {
        self.hash == other.hash && self.len == other.len && self.items == other.items
    }
}

impl Eq for Part {}

/// An output built from chunks and [`Part`]s, in order. Its hash is the xxh3-128 of the
/// `chunk_digest` of every chunk pushed alone and of every entry of every part, in order;
/// separators between entries are not hashed, since they follow from the entries. The same
/// entries give the same hash however a list is cut into runs (a watch session cuts its lists
/// around the posts it edited, a fresh build does not). That is not the hash of the bytes that
/// [`Output::from_chunks`] gives, but it is a function of them for any one output file, whose
/// entries are always cut the same way, so equal bytes give equal hashes, and different entries
/// (different bytes) give different digests, which is all the writer and salsa's backdating
/// need. (The server hashes the file it reads for its ETag.)
pub struct Assembly {
    pieces: Vec<Piece>,
    hasher: Xxh3,
    len: usize,
}

impl Default for Assembly {
    fn default() -> Assembly {
        Assembly {
            pieces: Vec::new(),
            hasher: Xxh3::new(),
            len: 0,
        }
    }
}

impl Assembly {
    /// Appends a chunk, hashing its digest.
    pub fn push(&mut self, chunk: Chunk) {
        self.hasher.update(&chunk.digest());
        self.len += chunk.len();
        self.pieces.push(Piece::Chunk(chunk));
    }

    /// Appends every entry of `part`, hashing their digests.
    pub fn push_part(&mut self, part: &Part) {
        self.hasher.update(&part.digests);
        self.len += part.len;
        self.pieces.push(part.entries.clone());
    }

    /// A JSON array of the entries the parts hold (each part's entries separated by `,`).
    pub fn push_json_array<'a>(&mut self, parts: impl IntoIterator<Item = &'a Part>) {
        self.push(Chunk::Static("["));
        let mut first = true;
        for part in parts.into_iter().filter(|part| !part.is_empty()) {
            if !first {
                // Not hashed: it follows from the entries, as inside a part.
                self.pieces
                    .push(Piece::Chunk(Chunk::Static(JSON_SEPARATOR)));
                self.len += JSON_SEPARATOR.len();
            }
            first = false;
            self.push_part(part);
        }
        self.push(Chunk::Static("]"));
    }

    /// The output the pushed pieces make, with their hash and length.
    pub fn finish(self) -> Output {
        Output {
            pieces: self.pieces.into(),
            len: self.len,
            hash: self.hasher.digest128(),
        }
    }
}

/// Builds a list output: `[`, entries separated by `,`, `]`.
pub fn json_array(entries: impl IntoIterator<Item = Arc<str>>) -> Vec<Chunk> {
    let mut chunks = vec![Chunk::Static("[")];
    for (i, entry) in entries.into_iter().enumerate() {
        if i > 0 {
            chunks.push(Chunk::Static(","));
        }
        chunks.push(Chunk::Text(entry));
    }
    chunks.push(Chunk::Static("]"));
    chunks
}

#[cfg(test)]
mod tests;
