//! Large files restored as a stream: a revert to a checkpoint holding a
//! file of any size keeps a few buffers in memory, not the file.
//!
//! A regular file larger than [`STREAM_ABOVE`] is streamed when git would
//! write its bytes unchanged (no smudge filter, eol conversion, `ident` or
//! working-tree encoding applies to it); otherwise it is converted in
//! memory with everything else, as git does. A streamed file is written to
//! a temporary file beside its place and renamed over it, so nothing is
//! written through a symlink and a stop never leaves half a file.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Flags, Mode};

use crate::error::{Context as _, Error, Result};
use crate::interrupt::Interrupt;
use crate::repo::blob_stream::BlobReader;

/// Files up to this size are written from memory.
pub const STREAM_ABOVE: u64 = 8 << 20;

/// A file to stream.
pub(super) struct Large {
    path: BString,
    id: ObjectId,
    size: u64,
    executable: bool,
}

/// The attributes that make git convert a file on its way to the worktree.
const CONVERTING: &[&str] = &["filter", "text", "eol", "crlf", "ident", "working-tree-encoding"];

/// Mark the large regular files among the entries to write (those without
/// `SKIP_WORKTREE`) as skipped, and return them to be streamed.
pub(super) fn take_large(repo: &gix::Repository, index: &mut gix::index::State) -> Result<Vec<Large>> {
    let autocrlf = repo.config_snapshot().string("core.autocrlf");
    if autocrlf.is_some_and(|v| {
        !matches!(
            v.to_ascii_lowercase().as_slice(),
            b"false" | b"no" | b"off" | b"0"
        )
    }) {
        return Ok(Vec::new());
    }
    let mut candidates = Vec::new();
    for (i, entry) in index.entries().iter().enumerate() {
        if entry.flags.contains(Flags::SKIP_WORKTREE)
            || !matches!(entry.mode, Mode::FILE | Mode::FILE_EXECUTABLE)
        {
            continue;
        }
        let header = repo
            .find_header(entry.id)
            .context(|| format!("could not read object {}", entry.id))?;
        if header.size() > STREAM_ABOVE && header.kind() == gix::objs::Kind::Blob {
            candidates.push((i, header.size()));
        }
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let mut attributes = repo
        .attributes_only(
            index,
            gix::worktree::stack::state::attributes::Source::IdMappingThenWorktree,
        )
        .context(|| "could not read the attributes".into())?;
    let mut outcome = gix::attrs::search::Outcome::default();
    let mut large = Vec::new();
    for (i, size) in candidates {
        let Some(entry) = index.entries().get(i) else {
            continue;
        };
        let path = entry.path(index).to_owned();
        attributes
            .at_entry(path.as_bstr(), Some(entry.mode))
            .context(|| format!("could not read the attributes of {}", path.to_str_lossy()))?
            .matching_attributes(&mut outcome);
        let converts = outcome.iter().any(|m| {
            CONVERTING.contains(&m.assignment.name.as_str())
                && !matches!(
                    m.assignment.state,
                    gix::attrs::StateRef::Unset | gix::attrs::StateRef::Unspecified
                )
        });
        if !converts {
            large.push(Large {
                path,
                id: entry.id,
                size,
                executable: entry.mode == Mode::FILE_EXECUTABLE,
            });
        }
    }
    for l in &large {
        if let Some(e) =
            index.entry_mut_by_path_and_stage(l.path.as_bstr(), gix::index::entry::Stage::Unconflicted)
        {
            e.flags.insert(Flags::SKIP_WORKTREE);
        }
    }
    Ok(large)
}

/// Write each of `large` into `workdir`, streaming it from the object database.
pub(super) fn write_large(
    repo: &gix::Repository,
    workdir: &Path,
    large: &[Large],
    interrupt: Interrupt,
) -> Result<()> {
    for l in large {
        let path = super::abs(workdir, l.path.as_bstr())?;
        let parent = prepare_parents(workdir, &path)?;
        let mode = if l.executable { 0o777 } else { 0o666 };
        let mut tmp = tempfile::Builder::new()
            .prefix(".t3-restore-")
            .permissions(std::fs::Permissions::from_mode(mode))
            .tempfile_in(&parent)
            .context(|| format!("could not create a file in {}", parent.display()))?;
        let mut reader = BlobReader::open(repo, l.id, l.size)?;
        copy(&mut reader, tmp.as_file_mut(), interrupt)
            .context(|| format!("could not write {}", path.display()))?;
        tmp.as_file_mut()
            .flush()
            .context(|| format!("could not write {}", path.display()))?;
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            return Err(Error::Refused(format!(
                "could not write {}: a folder is in its place",
                path.display()
            )));
        }
        tmp.persist(&path)
            .map_err(|e| e.error)
            .context(|| format!("could not write {}", path.display()))?;
    }
    Ok(())
}

/// Copy in 1 MiB steps, stopping at an interrupt.
fn copy(reader: &mut impl Read, out: &mut std::fs::File, interrupt: Interrupt) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if interrupt.fired() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted",
            ));
        }
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(&buf[..n])?;
    }
}

/// Make sure every folder from `workdir` to `path`'s parent is a real
/// folder: a file or symlink in the way is removed (as git's checkout
/// does), so nothing is written through a link. Returns the parent.
fn prepare_parents(workdir: &Path, path: &Path) -> Result<std::path::PathBuf> {
    let parent = path
        .parent()
        .filter(|p| p.starts_with(workdir))
        .ok_or_else(|| Error::Refused(format!("{} is outside the worktree", path.display())))?;
    let rel = parent.strip_prefix(workdir).unwrap_or(Path::new(""));
    let mut dir = workdir.to_path_buf();
    for component in rel.components() {
        dir.push(component);
        match std::fs::symlink_metadata(&dir) {
            Ok(md) if md.is_dir() => continue,
            Ok(_) => std::fs::remove_file(&dir).context(|| format!("could not remove {}", dir.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).context(|| format!("could not stat {}", dir.display())),
        }
        std::fs::create_dir(&dir).context(|| format!("could not create {}", dir.display()))?;
    }
    Ok(parent.to_path_buf())
}
