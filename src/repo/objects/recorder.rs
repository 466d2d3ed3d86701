//! The [`Recorder`]: writes objects through its [`ObjectSink`] and
//! remembers which ones this process wrote, so they can be flushed before
//! anything points at them.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashSet};

use gix::ObjectId;

use super::sink::{Memory, ObjectSink, write_retrying};
use crate::error::{Context as _, Result};
use crate::repo::alive;
use crate::repo::durable;
use crate::repo::loose::LooseWriter;
use crate::repo::pack::PackSink;

/// Records the ids of objects this process wrote, so they can be flushed to disk.
pub struct Recorder<'r> {
    repo: &'r gix::Repository,
    /// The object database, asked whether an object exists before it is
    /// written without looking for new packs on a miss (gix would list
    /// `objects/pack` again for every object about to be written; one
    /// packed meanwhile is merely written loose once more).
    lookup: gix::OdbHandle,
    written: RefCell<BTreeSet<ObjectId>>,
    /// Every id this recorder already wrote or found stored: a capture
    /// writes the same tree or blob more than once (an unchanged folder
    /// rebuilt, the same content at two paths), and each look-up of a loose
    /// object opens and maps its file.
    known: RefCell<HashSet<ObjectId>>,
    /// Where new objects go.
    sink: ObjectSink,
    /// Whether the pack, if any, was written: what comes after goes loose.
    sealed: Cell<bool>,
}

impl<'r> Recorder<'r> {
    /// A recorder writing loose objects into `repo`.
    pub fn new(repo: &'r gix::Repository) -> Self {
        Self::with_sink(repo, ObjectSink::loose(repo))
    }

    /// A recorder gathering what it writes into one pack (see
    /// [`crate::repo::pack`]), written by [`Recorder::seal`] or the flush;
    /// loose objects where the repository asks for what the pack writer
    /// does not do (see [`LooseWriter::of`]).
    pub fn packing(repo: &'r gix::Repository) -> Self {
        let loose = LooseWriter::of(repo);
        let pack = loose.as_ref().map(|l| {
            let record = Some(crate::repo::pack::record_dir(repo));
            PackSink::new(l.objects_dir(), l.level(), repo.object_hash(), record)
        });
        Self::with_sink(
            repo,
            ObjectSink {
                loose,
                pack,
                memory: None,
            },
        )
    }

    /// A recorder that writes nothing to the repository: the objects it
    /// would write are kept in memory, and read back through
    /// [`Recorder::reader`] or [`Recorder::into_reader`]. For looks that
    /// must leave the repository as it is (the review page's worktree diff,
    /// a repository the user can only read).
    pub fn in_memory(repo: &'r gix::Repository) -> Self {
        Self::with_sink(
            repo,
            ObjectSink {
                loose: None,
                pack: None,
                memory: Some(Memory::default()),
            },
        )
    }

    /// A recorder writing through `sink` (another recorder's, for a thread
    /// of its own: the caller records the ids for the flush).
    pub fn with_sink(repo: &'r gix::Repository, sink: ObjectSink) -> Self {
        let mut lookup = repo.objects.clone();
        lookup.refresh_never();
        Recorder {
            repo,
            lookup,
            written: RefCell::new(BTreeSet::new()),
            known: RefCell::new(HashSet::new()),
            sink,
            sealed: Cell::new(false),
        }
    }

    /// Where this recorder writes now, for threads writing beside it.
    pub fn sink(&self) -> ObjectSink {
        if self.sealed.get() {
            ObjectSink {
                loose: self.sink.loose.clone(),
                pack: None,
                memory: self.sink.memory.clone(),
            }
        } else {
            self.sink.clone()
        }
    }

    /// Write the pack gathered so far, so that its objects can be read;
    /// later objects are written loose. Nothing when there is no pack.
    pub fn seal(&self) -> Result<()> {
        if let Some(pack) = &self.sink.pack
            && !self.sealed.replace(true)
        {
            let _t = crate::trace::span("write pack");
            pack.seal()?;
        }
        Ok(())
    }

    /// Make what was written so far readable: nothing to do when the pack
    /// gathered so far is small enough to be kept in memory too (read it
    /// through [`Recorder::reader`]; the objects written next join the same
    /// pack), else [`Recorder::seal`].
    pub fn seal_for_reading(&self) -> Result<()> {
        let copied = self.sink.pack.as_ref().is_some_and(|p| p.has_copies());
        if copied && !self.sealed.get() {
            return Ok(());
        }
        self.seal()
    }

    /// A repository that also reads the objects gathered for the pack and
    /// not yet written (see [`Recorder::seal_for_reading`]), from memory;
    /// `None` when everything written can be read from disk. Not to be
    /// shared across threads (`into_sync` leaves the memory behind).
    /// With [`Recorder::in_memory`], only the trees kept in memory are read
    /// from there: the blobs it kept are [known](Recorder::is_known).
    pub fn reader(&self) -> Option<gix::Repository> {
        if let Some(kept) = &self.sink.memory {
            let trees: gix::odb::memory::Storage = {
                let mut trees = gix::odb::memory::Storage::default();
                for (id, (kind, data)) in kept.lock().iter() {
                    if *kind == gix::objs::Kind::Tree {
                        trees.insert(*id, (*kind, data.clone()));
                    }
                }
                trees
            };
            return Some(self.overlay(trees));
        }
        if self.sealed.get() {
            return None;
        }
        let copies = self.sink.pack.as_ref().and_then(|p| p.copies())?;
        if copies.is_empty() {
            return None;
        }
        // The ids were computed when the objects were written.
        let mut memory = gix::odb::memory::Storage::default();
        for (id, kind, data) in copies {
            memory.insert(id, (kind, data));
        }
        Some(self.overlay(memory))
    }

    /// A [`Recorder::in_memory`]'s repository with every object it kept
    /// readable from memory (the repository itself when it kept none, or
    /// wrote to disk). Not to be shared across threads (`into_sync` leaves
    /// the memory behind).
    pub fn into_reader(self) -> gix::Repository {
        let kept = self
            .sink
            .memory
            .as_ref()
            .map(|m| std::mem::take(&mut *m.lock()))
            .filter(|kept| !kept.is_empty());
        match kept {
            Some(kept) => self.overlay(kept),
            None => self.repo.clone(),
        }
    }

    /// The repository, reading `objects` from memory first.
    fn overlay(&self, objects: gix::odb::memory::Storage) -> gix::Repository {
        let mut reader = self.repo.clone();
        reader.objects.set_object_memory(objects);
        reader
    }

    /// Whether it keeps what it writes in memory ([`Recorder::in_memory`]).
    pub fn keeps_in_memory(&self) -> bool {
        self.sink.in_memory()
    }

    /// The repository written to.
    pub fn repo(&self) -> &'r gix::Repository {
        self.repo
    }

    /// Whether this recorder wrote `id`, or found it stored, in this process.
    pub fn is_known(&self, id: &ObjectId) -> bool {
        self.known.borrow().contains(id)
            || self.sink.packed(id)
            || self
                .sink
                .memory
                .as_ref()
                .is_some_and(|m| m.lock().contains_key(id))
    }

    /// Remember `ids` as written by this process (e.g. blobs hashed elsewhere).
    pub fn note_written(&self, ids: impl IntoIterator<Item = ObjectId>) {
        let (mut written, mut known) = (self.written.borrow_mut(), self.known.borrow_mut());
        for id in ids {
            if !self.sink.packed(&id) {
                written.insert(id);
            }
            known.insert(id);
        }
    }

    /// Write a tree or commit object.
    pub fn write_object(&self, obj: &dyn gix::objs::WriteTo) -> Result<ObjectId> {
        gix::objs::Write::write(self, obj).context(|| "could not write an object".into())
    }

    /// Write a blob.
    pub fn write_blob(&self, data: &[u8]) -> Result<ObjectId> {
        gix::objs::Write::write_buf(self, gix::objs::Kind::Blob, data)
            .context(|| "could not write a blob".into())
    }

    /// The refs naming what this recorder wrote are published: its packs
    /// need their `.keep` files no more (see [`crate::repo::pack`]). Also
    /// done when the recorder is dropped.
    pub fn published(&self) {
        if let Some(p) = &self.sink.pack {
            p.release();
        }
    }

    /// Flush every object written so far to disk (writing the pack first).
    pub fn sync(&self) -> Result<()> {
        self.sync_with(&[], &std::collections::BTreeSet::new())
    }

    /// [`sync`](Self::sync), and in the same wave the `files` written
    /// meanwhile (ref lock files) and the folders `dirs` (see
    /// [`durable::sync_objects_and`]).
    pub fn sync_with(
        &self,
        files: &[std::path::PathBuf],
        dirs: &std::collections::BTreeSet<std::path::PathBuf>,
    ) -> Result<()> {
        self.seal()?;
        let ids: Vec<ObjectId> = std::mem::take(&mut *self.written.borrow_mut())
            .into_iter()
            .collect();
        let mut paths = self.sink.pack.as_ref().map(|p| p.unflushed()).unwrap_or_default();
        paths.extend(files.iter().cloned());
        durable::sync_objects_and(self.repo, &ids, &paths, dirs)
    }
}

impl gix::objs::Write for Recorder<'_> {
    fn write_buf(&self, kind: gix::objs::Kind, from: &[u8]) -> gix::Result<ObjectId> {
        let id = gix::objs::compute_hash(self.repo.object_hash(), kind, from)?;
        if self.known.borrow().contains(&id) {
            return Ok(id);
        }
        let loose = match gix::odb::Header::try_header(&self.lookup, &id) {
            // Packed: durable (whoever packed it flushed the pack).
            Ok(Some(gix::odb::find::Header::Packed(_))) => false,
            // Loose, maybe written by a process that failed before flushing
            // it: flushed with ours, and freshened as git does, so that a
            // gc does not take it for an old unreachable one.
            Ok(Some(gix::odb::find::Header::Loose { .. })) if self.sink.in_memory() => false,
            Ok(Some(gix::odb::find::Header::Loose { .. })) => {
                alive::freshen_loose(&alive::objects_dir(self.repo), &id);
                true
            }
            // Absent, or unreadable (a damaged loose file): written anew.
            Ok(None) | Err(_) => {
                let sink = self.sink();
                write_retrying(|| sink.write(&self.repo.objects, kind, from, id))?
            }
        };
        if loose {
            self.written.borrow_mut().insert(id);
        }
        self.known.borrow_mut().insert(id);
        Ok(id)
    }

    fn write_buf_with_known_id(
        &self,
        kind: gix::objs::Kind,
        from: &[u8],
        _id: ObjectId,
    ) -> gix::Result<ObjectId> {
        self.write_buf(kind, from)
    }

    fn write_stream(
        &self,
        kind: gix::objs::Kind,
        size: u64,
        from: &mut dyn std::io::Read,
    ) -> gix::Result<ObjectId> {
        let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 20));
        from.read_to_end(&mut buf).map_err(gix::Error::from_error)?;
        self.write_buf(kind, &buf)
    }

    fn write_stream_with_known_id(
        &self,
        kind: gix::objs::Kind,
        size: u64,
        from: &mut dyn std::io::Read,
        _id: ObjectId,
    ) -> gix::Result<ObjectId> {
        self.write_stream(kind, size, from)
    }
}

impl gix::objs::Find for Recorder<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        gix::objs::Find::try_find(self.repo, id, buffer)
    }
}
