//! Writing loose objects with one zlib stream per thread.
//!
//! gix's loose writer sets up a new deflate stream for every object: some
//! 300 KiB allocated and zeroed, most of it fresh pages the kernel must
//! fault in. A capture writes a few dozen small objects (the changed blobs,
//! every tree on their paths, the commit and its note), so that set-up cost
//! more than the compression, the file and the rename together. Here each
//! thread keeps one stream and resets it between objects.
//!
//! The object file is what git writes: the zlib stream of `"<kind> <size>\0"`
//! and the data, in a temporary file of the objects folder renamed into its
//! fan-out folder (read-only, as git leaves it). Where the repository asks
//! for something this writer does not do — group-shared permissions
//! (`core.sharedRepository`) or a compression setting gix would read
//! differently — [`LooseWriter::of`] returns `None` and gix's writer is used.

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::zlib::stream::deflate::{Compress, FlushCompress};
use gix::zlib::{Compression, Status};

/// Writes loose objects into one objects folder.
#[derive(Debug, Clone)]
pub struct LooseWriter {
    objects: PathBuf,
    level: Compression,
}

thread_local! {
    /// This thread's deflate stream and the level it was made for.
    static DEFLATE: RefCell<Option<(Compression, Compress)>> = const { RefCell::new(None) };
}

impl LooseWriter {
    /// The writer for `repo`'s objects, or `None` when gix's own writer must
    /// be used (see the module docs).
    pub fn of(repo: &gix::Repository) -> Option<LooseWriter> {
        let config = repo.config_snapshot();
        if config.string("core.sharedRepository").is_some() {
            return None;
        }
        let level = match (
            config.string("core.looseCompression"),
            config.string("core.compression"),
        ) {
            (None, None) => Compression::BEST_SPEED,
            // Git's values, -1 (zlib's default) to 9; anything else is left
            // to gix to judge.
            (Some(v), _) | (None, Some(v)) => match v.to_string().trim().parse::<i32>() {
                Ok(-1) => Compression::DEFAULT,
                Ok(n) => Compression::new(n)?,
                Err(_) => return None,
            },
        };
        Some(LooseWriter {
            objects: repo.objects.store_ref().path().to_owned(),
            level,
        })
    }

    /// Write object `id` of `kind` holding `data` (its id computed by the
    /// caller). An object file already there is left as it is.
    pub fn write(&self, kind: gix::objs::Kind, data: &[u8], id: ObjectId) -> std::io::Result<()> {
        let compressed = self.compress(kind, data)?;
        let hex = id.to_hex().to_string();
        let (fan, name) = hex.split_at(2);
        let dir = self.objects.join(fan);
        let mut tmp = read_only_temp(&self.objects, "tmp_obj_")?;
        tmp.write_all(&compressed)?;
        create_dir(&dir)?;
        persist(tmp, &dir.join(name))
    }

    /// The zlib stream of the object's header and data, with this thread's
    /// deflate stream.
    fn compress(&self, kind: gix::objs::Kind, data: &[u8]) -> std::io::Result<Vec<u8>> {
        let header = gix::objs::encode::loose_header(kind, data.len() as u64);
        zlib(self.level, &header, data)
    }

    /// The objects folder written to.
    pub(crate) fn objects_dir(&self) -> &Path {
        &self.objects
    }

    /// The zlib level objects are compressed with.
    pub(crate) fn level(&self) -> Compression {
        self.level
    }
}

/// A temporary file in `dir`, read-only once closed (as git leaves object
/// and pack files).
pub(crate) fn read_only_temp(dir: &Path, prefix: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o444));
    }
    builder.tempfile_in(dir)
}

/// Create the folder `dir` unless it is there.
pub(crate) fn create_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// Rename `tmp` to `path`; a file there already (written by another
/// process meanwhile, where a rename does not replace a file) holds the
/// same bytes, as the name is their checksum.
pub(crate) fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    match tmp.persist(path) {
        Ok(_) => Ok(()),
        Err(_) if path.is_file() => Ok(()),
        Err(e) => Err(e.error),
    }
}

/// The zlib stream of `header` then `data`, with this thread's deflate
/// stream at `level`.
pub(crate) fn zlib(level: Compression, header: &[u8], data: &[u8]) -> std::io::Result<Vec<u8>> {
    DEFLATE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let compress = match &mut *slot {
            Some((l, c)) if *l == level => {
                c.reset();
                c
            }
            other => &mut other.insert((level, Compress::new(level))).1,
        };
        let mut out = Vec::with_capacity(64 + data.len() + data.len() / 1000);
        deflate(compress, header, &mut out, FlushCompress::None)?;
        deflate(compress, data, &mut out, FlushCompress::Finish)?;
        Ok(out)
    })
}

/// Feed all of `input` to `compress`, appending what it writes to `out`;
/// with [`FlushCompress::Finish`], until the stream has ended.
fn deflate(
    compress: &mut Compress,
    input: &[u8],
    out: &mut Vec<u8>,
    flush: FlushCompress,
) -> std::io::Result<()> {
    let mut input = input;
    loop {
        if out.capacity() - out.len() < 256 {
            out.reserve(out.capacity().max(4096));
        }
        let (in_before, out_before) = (compress.total_in(), compress.total_out());
        let len = out.len();
        out.resize(out.capacity(), 0);
        let status = compress
            .compress(input, &mut out[len..], flush)
            .map_err(std::io::Error::other);
        let wrote = usize::try_from(compress.total_out() - out_before).unwrap_or(0);
        out.truncate(len + wrote);
        let status = status?;
        let read = usize::try_from(compress.total_in() - in_before).unwrap_or(0);
        input = input.get(read..).unwrap_or_default();
        let done = match flush {
            FlushCompress::Finish => status == Status::StreamEnd,
            _ => input.is_empty(),
        };
        if done {
            return Ok(());
        }
        if read == 0 && wrote == 0 && out.len() < out.capacity() {
            return Err(std::io::Error::other("zlib made no progress"));
        }
    }
}
