//! Large files are hashed and written as a stream, so a capture's memory
//! stays bounded whatever the file size (`git add` does the same).
//!
//! A file is streamed when its converted content has a known size (no clean
//! filter or eol conversion changed it) and it is larger than
//! [`STREAM_ABOVE`]; the object is written while it is hashed, through a
//! reader that fails if the file turns out shorter than announced, so a file
//! that shrinks while it is read never becomes a malformed object.

use std::io::Read;

use gix::ObjectId;
use gix::bstr::BStr;
use gix::objs::tree::EntryKind;

use super::clean::Clean;

/// Files up to this size are hashed in memory (fewer system calls).
pub(super) const STREAM_ABOVE: u64 = 8 << 20;

/// What the one `lstat` of an untracked file told: enough to decide on the
/// cap and on streaming without another.
#[derive(Debug, Clone, Copy)]
pub(super) struct Known {
    /// A regular file (not a symlink).
    pub(super) is_file: bool,
    /// Its size in bytes.
    pub(super) len: u64,
    /// Its executable bit.
    pub(super) executable: bool,
}

impl Known {
    pub(super) fn of(md: &gix::index::fs::Metadata) -> Self {
        Known {
            is_file: md.is_file(),
            len: md.len(),
            executable: md.is_executable(),
        }
    }
}

/// Reads exactly `left` bytes, failing with `UnexpectedEof` on fewer.
pub(super) struct Exact<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Exact<R> {
    pub(super) fn new(inner: R, len: u64) -> Self {
        Exact { inner, left: len }
    }
}

impl<R: Read> Read for Exact<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was read",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Write the worktree file `rela` (a regular file of `len` bytes) as a blob
/// by streaming it through the clean filters, when they leave it unchanged;
/// `None` when it must be hashed in memory (a filter changed it, or it is
/// small). Returns the id and whether it is executable.
/// `known` is what an `lstat` taken just before told (else one is taken).
pub(super) fn large_file(
    repo: &gix::Repository,
    pipeline: &mut Clean<'_>,
    workdir: &std::path::Path,
    rela: &BStr,
    known: Option<Known>,
) -> gix::Result<Option<(ObjectId, EntryKind)>> {
    use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
    let rel = gix::path::from_bstr(rela).map_err(gix::Error::from_error)?;
    let path = workdir.join(&rel);
    let md = match known {
        Some(k) => k,
        None => match gix::index::fs::Metadata::from_path_no_follow(&path) {
            Ok(md) => Known::of(&md),
            Err(_) => return Ok(None),
        },
    };
    if !md.is_file || md.len <= STREAM_ABOVE {
        return Ok(None);
    }
    // Replaced since its lstat by a FIFO or a link: left to the plain path.
    let file = match crate::fsread::open_regular(&path, false) {
        Ok(f) => f,
        Err(e) if crate::fsread::is_not_regular(&e) || e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(None);
        }
        Err(e) => return Err(gix::Error::from_error(e)),
    };
    let converted = pipeline.convert_to_git(file, &rel)?;
    let ToGitOutcome::Unchanged(file) = converted else {
        return Ok(None);
    };
    let id = gix::objs::Write::write_stream(
        &repo.objects,
        gix::objs::Kind::Blob,
        md.len,
        &mut Exact::new(file, md.len),
    )?;
    let kind = if md.executable {
        EntryKind::BlobExecutable
    } else {
        EntryKind::Blob
    };
    Ok(Some((id, kind)))
}

/// Hash and write the worktree file `rela` like `git add`: streamed when it
/// is large ([`large_file`]) and `rec` writes to disk, in memory through
/// `rec` otherwise ([`small_file`]); a nested repository by its HEAD commit.
/// `known` is what an `lstat` taken just before told, if any.
pub(super) fn to_object(
    repo: &gix::Repository,
    rec: &crate::repo::Recorder<'_>,
    pipeline: &mut Clean<'_>,
    workdir: &std::path::Path,
    rela: &BStr,
    known: Option<Known>,
) -> gix::Result<Option<(ObjectId, EntryKind)>> {
    // Kept in memory, an object is read whole anyway.
    if !rec.keeps_in_memory()
        && let Some(found) = large_file(repo, pipeline, workdir, rela, known)?
    {
        return Ok(Some(found));
    }
    if let Some(found) = small_file(rec, pipeline, workdir, rela)? {
        return Ok(found);
    }
    nested_repository(repo, workdir, rela)
}

/// The folder at `rela` as `git add` records it: a repository by its HEAD
/// commit (opened without trusting its configuration), else nothing.
fn nested_repository(
    repo: &gix::Repository,
    workdir: &std::path::Path,
    rela: &BStr,
) -> gix::Result<Option<(ObjectId, EntryKind)>> {
    let rel = gix::path::from_bstr(rela).map_err(gix::Error::from_error)?;
    if through_symlink(workdir, &rel) {
        return Ok(None);
    }
    let path = workdir.join(&rel);
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        return Ok(None);
    }
    let options = repo.open_options().clone_without_trust();
    let Ok(nested) = gix::open_opts(&path, options) else {
        return Ok(None);
    };
    Ok(nested.head_id().ok().map(|id| (id.detach(), EntryKind::Commit)))
}

/// A regular file or a symlink hashed in memory and written through `rec`
/// (its writer reuses one zlib stream and skips objects already stored),
/// as gix's `worktree_file_to_object` would: the same checks (no symlinked
/// folder on the way), the same clean filters. `Some(None)` when the file
/// is gone; `None` for a folder (a nested repository).
fn small_file(
    rec: &crate::repo::Recorder<'_>,
    pipeline: &mut Clean<'_>,
    workdir: &std::path::Path,
    rela: &BStr,
) -> gix::Result<Option<Option<(ObjectId, EntryKind)>>> {
    use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
    use std::io::Read as _;
    let rel = gix::path::from_bstr(rela).map_err(gix::Error::from_error)?;
    let path = workdir.join(&rel);
    if through_symlink(workdir, &rel) {
        // gix refuses it with a message of its own.
        return Ok(None);
    }
    let md = match std::fs::symlink_metadata(&path) {
        Ok(md) => md,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Some(None));
        }
        Err(e) => return Err(gix::Error::from_error(e)),
    };
    let write = |data: &[u8]| rec.write_blob(data).map_err(gix::Error::from_error);
    if md.is_symlink() {
        let target = std::fs::read_link(&path).map_err(gix::Error::from_error)?;
        let target = gix::path::into_bstr(target).map_err(gix::Error::from_error)?;
        return Ok(Some(Some((write(target.as_ref())?, EntryKind::Link))));
    }
    if !md.is_file() {
        return Ok(None);
    }
    // Replaced since its lstat by a FIFO (never opened: skipped, as git
    // skips one) or by a link: as if gone.
    let file = match crate::fsread::open_regular(&path, false) {
        Ok(f) => f,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || crate::fsread::is_not_regular(&e)
                || e.raw_os_error() == Some(libc::ELOOP) =>
        {
            return Ok(Some(None));
        }
        Err(e) => return Err(gix::Error::from_error(e)),
    };
    let mut buf = Vec::new();
    let id = match pipeline.convert_to_git(file, &rel)? {
        ToGitOutcome::Unchanged(mut f) => {
            f.read_to_end(&mut buf).map_err(gix::Error::from_error)?;
            write(&buf)?
        }
        ToGitOutcome::Process(mut r) => {
            r.read_to_end(&mut buf).map_err(gix::Error::from_error)?;
            write(&buf)?
        }
        ToGitOutcome::Buffer(b) => write(b)?,
    };
    let kind = if is_executable(&md) {
        EntryKind::BlobExecutable
    } else {
        EntryKind::Blob
    };
    Ok(Some(Some((id, kind))))
}

/// Whether a folder on the way from `workdir` to `rel` is a symlink (what
/// is below it is not in the worktree).
fn through_symlink(workdir: &std::path::Path, rel: &std::path::Path) -> bool {
    let mut at = workdir.to_path_buf();
    let Some(parent) = rel.parent() else {
        return false;
    };
    parent.components().any(|c| {
        at.push(c);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink())
    })
}

#[cfg(unix)]
fn is_executable(md: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    md.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_read_is_an_error_not_a_short_object() {
        let mut exact = Exact::new(&b"abc"[..], 5);
        let mut out = Vec::new();
        let err = exact.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let mut exact = Exact::new(&b"abcdef"[..], 3);
        let mut out = Vec::new();
        exact.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abc");
    }
}
