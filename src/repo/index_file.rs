//! Encoding git-t3's private index files (`index.tracked`,
//! `index.untracked`) in one pass, and reading them back once their bytes
//! have been checked.
//!
//! gix's writer sends every field of every entry through a counting,
//! dynamically dispatched writer: ~17 ms for 100,000 entries, a quarter of a
//! capture with a watcher. The entries are the same bytes here (gix's own
//! `Entry::write_to`, into a `Vec`), with git's padding, the header and the
//! trailer around them; the private files carry no extension (nothing reads
//! a tree cache there) and no checksum (the meta file binds them by
//! identity). A sparse index, whose extension says its directory entries
//! are directories, is written by gix.

use gix::index::entry::Flags;

use crate::error::{Error, Result};

/// The bytes of `file` as an index file without extensions, whose trailer
/// is the null id (git's `index.skipHash`).
pub fn encode_private(file: &gix::index::File) -> Result<Vec<u8>> {
    let state: &gix::index::State = file;
    let failed =
        |e: std::io::Error| Error::Internal(format!("could not encode {}: {e}", file.path().display()));
    if state.is_sparse() {
        let mut data = Vec::new();
        let options = gix::index::write::Options {
            skip_hash: true,
            extensions: gix::index::write::Extensions::None,
        };
        file.write_to(&mut data, options).map_err(|e| Error::Git {
            context: format!("could not encode {}", file.path().display()),
            source: Box::new(e),
        })?;
        return Ok(data);
    }
    let entries = state.entries();
    let kept = entries.iter().filter(|e| !e.flags.contains(Flags::REMOVE));
    let count = u32::try_from(kept.clone().count())
        .map_err(|_| Error::Internal("an index of more than 4 billion entries".into()))?;
    let version: u32 = if entries.iter().any(|e| e.flags.contains(Flags::EXTENDED)) {
        3
    } else {
        2
    };
    let mut out = Vec::with_capacity(12 + entries.len() * 96 + 32);
    out.extend_from_slice(b"DIRC");
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    for e in kept {
        let start = out.len();
        e.write_to(&mut out, state).map_err(failed)?;
        // NUL-padded to a multiple of 8 bytes (the one NUL written counts).
        let pad = (8 - (out.len() - start) % 8) % 8;
        out.resize(out.len() + pad, 0);
    }
    out.extend_from_slice(state.object_hash().null().as_slice());
    Ok(out)
}

/// Read the private index at `path` if `check` accepts its metadata and
/// bytes (the caller's identity and checksum); `None` when it cannot be
/// read, is refused, or does not decode. Its timestamp, which status uses
/// for racy entries, is the file's mtime, as for any index.
pub fn read_checked(
    path: &std::path::Path,
    object_hash: gix::hash::Kind,
    check: impl FnOnce(&std::fs::Metadata, &[u8]) -> bool,
) -> Option<gix::index::File> {
    let file = crate::fsread::open_regular(path, false).ok()?;
    let meta = file.metadata().ok()?;
    // Mapped, as gix maps an index: reading 9 MB into a new buffer costs
    // 5-8 ms at 100,000 entries, more than decoding it.
    // SAFETY: the private index files are written only by a capture, which
    // holds the repository's lock, as the caller does; and never the file
    // being read (a slot is overwritten only when the meta file names the
    // other one, `index.untracked` is replaced by a rename). A private
    // copy-on-write mapping, so nothing here writes through it.
    #[allow(unsafe_code)]
    let data = unsafe { memmap2::MmapOptions::new().map_copy_read_only(&file) }.ok()?;
    if !check(&meta, &data) {
        return None;
    }
    let timestamp = filetime::FileTime::from_last_modification_time(&meta);
    let (state, _) = gix::index::State::from_bytes(&data, timestamp, object_hash, Default::default()).ok()?;
    Some(gix::index::File::from_state(state, path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::bstr::ByteSlice as _;
    use gix::index::entry::{Mode, Stat};

    fn index(extended: bool, long_path: bool) -> gix::index::File {
        let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
        let id = gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let long = "d/".repeat(2100) + "long";
        let names = [
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "dir/file.txt",
            "x\ty\nz",
            long.as_str(),
        ];
        let names = if long_path { &names[..] } else { &names[..6] };
        for (i, name) in names.iter().enumerate() {
            let stat = Stat {
                mtime: gix::index::entry::stat::Time {
                    secs: 1_700_000_000 + i as u32,
                    nsecs: 7,
                },
                size: i as u32 * 100,
                ino: 42 + i as u32,
                ..Stat::default()
            };
            let flags = if extended && i == 2 {
                Flags::SKIP_WORKTREE | Flags::EXTENDED
            } else {
                Flags::empty()
            };
            let mode = if i == 1 { Mode::FILE_EXECUTABLE } else { Mode::FILE };
            state.dangerously_push_entry(stat, id, flags, mode, name.as_bytes().as_bstr());
        }
        state.sort_entries();
        gix::index::File::from_state(state, std::path::PathBuf::from("/nonexistent/index.tracked"))
    }

    #[test]
    fn the_bytes_are_gixs_without_extensions() {
        // A path of 4,095 bytes or more, which gix writes but does not read
        // back, is compared as bytes only.
        for (extended, long_path) in [(false, false), (true, false), (false, true), (true, true)] {
            let file = index(extended, long_path);
            let mut theirs = Vec::new();
            let options = gix::index::write::Options {
                skip_hash: true,
                extensions: gix::index::write::Extensions::None,
            };
            file.write_to(&mut theirs, options).unwrap();
            let ours = encode_private(&file).unwrap();
            assert_eq!(ours, theirs, "extended: {extended}, long path: {long_path}");
            if long_path {
                continue;
            }
            // And gix reads them back.
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("index");
            std::fs::write(&path, &ours).unwrap();
            let back = gix::index::File::at(&path, gix::hash::Kind::Sha1, true, Default::default()).unwrap();
            assert_eq!(back.entries().len(), file.entries().len());
            for (a, b) in back.entries().iter().zip(file.entries()) {
                assert_eq!(a.path(&back), b.path(&file));
                assert_eq!((a.id, a.stat, a.mode), (b.id, b.stat, b.mode));
                assert_eq!(
                    a.flags.contains(Flags::SKIP_WORKTREE),
                    b.flags.contains(Flags::SKIP_WORKTREE)
                );
            }
        }
    }
}
