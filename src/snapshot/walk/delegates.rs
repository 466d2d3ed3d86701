//! What the status walk calls, in its own threads: [`Collect`] keeps what
//! it reports, [`HashAndWrite`] hashes a changed tracked file and writes
//! its blob, [`GitlinkHead`] reads the HEAD of a nested repository at a
//! gitlink.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::status::plumbing::index_as_worktree::traits::{CompareBlobs, ReadData, SubmoduleStatus};
use gix::status::plumbing::index_as_worktree_with_renames::{Entry as StatusEntry, VisitEntry};

use super::TrackedChange;
use crate::error::{Context as _, Result};
use crate::snapshot::{Ctx, stream};

/// Collects the status walk's findings as owned data.
#[derive(Default)]
pub(super) struct Collect {
    /// Tracked entries whose file, or only its stat data, differs.
    pub(super) tracked: Vec<TrackedChange>,
    /// Untracked, not ignored files and nested repositories, with their
    /// kind on disk (gix's own walk; the cached one's replace them).
    pub(super) untracked: Vec<(BString, Option<gix::dir::entry::Kind>)>,
}

impl<'index> VisitEntry<'index> for Collect {
    type ContentChange = Option<ObjectId>;
    type SubmoduleStatus = ObjectId;

    fn visit_entry(&mut self, entry: StatusEntry<'index, Self::ContentChange, Self::SubmoduleStatus>) {
        match entry {
            StatusEntry::Modification {
                entry_index, status, ..
            } => {
                self.tracked.push(TrackedChange {
                    index: entry_index,
                    status,
                });
            }
            StatusEntry::DirectoryContents { entry, .. } => {
                if entry.status == gix::dir::entry::Status::Untracked
                    && entry.property != Some(gix::dir::entry::Property::DotGit)
                    && !matches!(
                        entry.disk_kind,
                        Some(gix::dir::entry::Kind::Untrackable | gix::dir::entry::Kind::Directory)
                    )
                    // A name git refuses (`.GIT`, `git~1`, `.git `): `git add`
                    // would not take it, and no restore could write it back.
                    && entry
                        .rela_path
                        .split(|b| *b == b'/')
                        .all(|c| crate::model::path::check_component(c).is_ok())
                {
                    self.untracked.push((entry.rela_path, entry.disk_kind));
                }
            }
            StatusEntry::Rewrite { .. } => {}
        }
    }
}

/// Hashes a changed tracked file in the walk's thread and writes its blob.
#[derive(Clone)]
pub(super) struct HashAndWrite {
    /// Asked whether a blob is stored already, without listing the packs
    /// again on a miss (one packed meanwhile is merely written loose again).
    odb: gix::OdbHandleArc,
    sink: crate::repo::objects::ObjectSink,
    hash: gix::hash::Kind,
    written: Arc<Mutex<Vec<ObjectId>>>,
    /// Leave every changed file to [`Rehash`](crate::snapshot::hash::Rehash)
    /// (see `Ctx::auto_eol`).
    defer: bool,
}

impl HashAndWrite {
    /// Writing through the capture's sink, each id written pushed to
    /// `written`.
    pub(super) fn new(ctx: &Ctx<'_, '_>, written: Arc<Mutex<Vec<ObjectId>>>) -> Result<Self> {
        let mut odb = ctx.repo.objects.clone();
        odb.refresh_never();
        Ok(HashAndWrite {
            odb: odb
                .into_arc()
                .context(|| "could not share the object database".into())?,
            sink: ctx.rec.sink(),
            hash: ctx.repo.object_hash(),
            written,
            defer: ctx.auto_eol.get(),
        })
    }
}

impl CompareBlobs for HashAndWrite {
    type Output = Option<ObjectId>;

    fn compare_blobs<'a, 'b>(
        &mut self,
        entry: &gix::index::Entry,
        _worktree_blob_size: u64,
        data: impl ReadData<'a>,
        buf: &mut Vec<u8>,
    ) -> gix::Result<Option<Self::Output>> {
        use gix::objs::{Exists as _, Write as _};
        use std::io::Read as _;
        if self.defer {
            return Ok(Some(None));
        }
        let mut stream = data.stream_worktree_file()?;
        // A large file with a known size is written while it is hashed, in
        // bounded memory (it is written even when unchanged: git add does
        // too), unless objects are only kept in memory.
        if let Some(len) = stream.size().filter(|l| *l > stream::STREAM_ABOVE)
            && stream.as_bytes().is_none()
            && !self.sink.in_memory()
        {
            let written = self.odb.write_stream(
                gix::objs::Kind::Blob,
                len,
                &mut stream::Exact::new(&mut stream, len),
            );
            let id = match written {
                Ok(id) => id,
                // The file shrank while it was read: hash it again.
                Err(e) if e.to_string().contains("shrank") => return Ok(Some(None)),
                Err(e) => return Err(e),
            };
            if id == entry.id {
                return Ok(None);
            }
            self.written.lock().unwrap_or_else(|p| p.into_inner()).push(id);
            return Ok(Some(Some(id)));
        }
        let bytes: &[u8] = match stream.as_bytes() {
            Some(b) => b,
            None => {
                stream.read_to_end(buf).map_err(gix::Error::from_error)?;
                buf
            }
        };
        let id = gix::objs::compute_hash(self.hash, gix::objs::Kind::Blob, bytes)?;
        if id == entry.id {
            return Ok(None);
        }
        if !self.odb.exists(&id) {
            let loose = crate::repo::objects::write_retrying(|| {
                self.sink.write(&self.odb, gix::objs::Kind::Blob, bytes, id)
            })?;
            if loose {
                self.written.lock().unwrap_or_else(|p| p.into_inner()).push(id);
            }
        }
        Ok(Some(Some(id)))
    }
}

/// `git add` records a nested repository by its HEAD commit.
#[derive(Clone)]
pub(super) struct GitlinkHead {
    /// The worktree the gitlinks' paths are relative to.
    pub(super) workdir: PathBuf,
}

impl SubmoduleStatus for GitlinkHead {
    type Output = ObjectId;

    fn status(&mut self, entry: &gix::index::Entry, rela_path: &BStr) -> gix::Result<Option<ObjectId>> {
        let Ok(rela) = gix::path::from_bstr(rela_path) else {
            return Ok(None);
        };
        let path = self.workdir.join(rela);
        let Ok(sub) = gix::open_opts(&path, gix::open::Options::isolated()) else {
            return Ok(None);
        };
        Ok(sub
            .head_id()
            .ok()
            .map(gix::Id::detach)
            .filter(|id| *id != entry.id))
    }
}
