//! Objects: the fixed identity, a [`Recorder`] that remembers which objects
//! this process wrote so they can be flushed before anything points at them,
//! and small readers of commits and HEAD.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex};

use gix::ObjectId;

use crate::error::{Context as _, Result};
use crate::repo::durable;
use crate::repo::loose::LooseWriter;
use crate::repo::pack::PackSink;

mod read;
pub use read::*;

/// Name of the identity on every object git-t3 writes.
pub const IDENTITY_NAME: &str = "T3 Checkpoint";
/// Email of the identity on every object git-t3 writes.
pub const IDENTITY_EMAIL: &str = "t3@checkpoint.invalid";
/// The identity T3 Code itself writes checkpoints with (same refs, no note).
pub const T3CODE_NAME: &str = "T3 Code";
/// Its email.
pub const T3CODE_EMAIL: &str = "t3code@users.noreply.github.com";

/// Whether an author is git-t3's fixed identity or T3 Code's.
pub fn is_t3_identity(name: &gix::bstr::BStr, email: &gix::bstr::BStr) -> bool {
    (name == IDENTITY_NAME && email == IDENTITY_EMAIL) || (name == T3CODE_NAME && email == T3CODE_EMAIL)
}

/// Whether commit `id` is a checkpoint T3 Code wrote.
pub fn is_t3code_commit(repo: &gix::Repository, id: ObjectId) -> bool {
    commit_identity(repo, id).is_ok_and(|(name, email, _)| name == T3CODE_NAME && email == T3CODE_EMAIL)
}

/// When commit `id` was made, as RFC 3339 UTC.
pub fn commit_time(repo: &gix::Repository, id: ObjectId) -> Result<String> {
    check_commit_size(repo, id)?;
    let commit = repo.find_commit(id).context(|| format!("{id} is not a commit"))?;
    let seconds = commit
        .time()
        .context(|| format!("commit {id} has no readable time"))?
        .seconds;
    Ok(jiff::Timestamp::from_second(seconds)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default())
}

/// The fixed identity, dated now.
pub(crate) fn signature(tb: &mut gix::date::parse::TimeBuf) -> gix::actor::SignatureRef<'_> {
    gix::actor::SignatureRef {
        name: IDENTITY_NAME.into(),
        email: IDENTITY_EMAIL.into(),
        time: gix::date::Time::now_utc().to_str(tb),
    }
}

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

/// Where an object is written: into a pack being gathered, else loose with
/// git-t3's writer where the repository allows it, else with gix's; or,
/// for a look that must not write ([`Recorder::in_memory`]), only into
/// memory. Shared by the threads that hash files for one [`Recorder`].
#[derive(Debug, Clone)]
pub struct ObjectSink {
    loose: Option<LooseWriter>,
    pack: Option<Arc<PackSink>>,
    memory: Option<Memory>,
}

/// Objects kept in memory instead of written, shared by the threads of one
/// [`Recorder::in_memory`].
#[derive(Debug, Clone, Default)]
struct Memory(Arc<Mutex<gix::odb::memory::Storage>>);

impl Memory {
    fn lock(&self) -> std::sync::MutexGuard<'_, gix::odb::memory::Storage> {
        // A thread that panicked while inserting left a whole map behind.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ObjectSink {
    /// Loose objects, as git writes them.
    pub fn loose(repo: &gix::Repository) -> ObjectSink {
        ObjectSink {
            loose: LooseWriter::of(repo),
            pack: None,
            memory: None,
        }
    }

    /// Whether objects go to memory only: a file is then hashed in memory,
    /// never streamed into the object database.
    pub fn in_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Write object `id` (computed by the caller) of `kind` holding `data`
    /// through `odb` when there is no writer of git-t3's own. Returns
    /// whether it went loose (and must be flushed as a file).
    pub fn write(
        &self,
        odb: &impl gix::objs::Write,
        kind: gix::objs::Kind,
        data: &[u8],
        id: ObjectId,
    ) -> gix::Result<bool> {
        if let Some(memory) = &self.memory {
            memory.lock().entry(id).or_insert_with(|| (kind, data.to_vec()));
            return Ok(false);
        }
        if let Some(pack) = &self.pack {
            pack.add(kind, data, id).map_err(gix::Error::from_error)?;
            return Ok(false);
        }
        write_loose(odb, self.loose.as_ref(), kind, data, id).map(|_| true)
    }

    /// Whether object `id` went into the pack.
    fn packed(&self, id: &ObjectId) -> bool {
        self.pack.as_ref().is_some_and(|p| p.holds(id))
    }
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
        let pack = loose
            .as_ref()
            .map(|l| PackSink::new(l.objects_dir(), l.level(), repo.object_hash()));
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
        self.seal()?;
        let ids: Vec<ObjectId> = std::mem::take(&mut *self.written.borrow_mut())
            .into_iter()
            .collect();
        let packs = self.sink.pack.as_ref().map(|p| p.unflushed()).unwrap_or_default();
        durable::sync_objects(self.repo, &ids, &packs)
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
                super::alive::freshen_loose(&super::alive::objects_dir(self.repo), &id);
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

/// Write object `id` loose, with `loose` when there is one, else with gix's
/// writer `odb`.
pub fn write_loose(
    odb: &impl gix::objs::Write,
    loose: Option<&LooseWriter>,
    kind: gix::objs::Kind,
    data: &[u8],
    id: ObjectId,
) -> gix::Result<ObjectId> {
    match loose {
        Some(w) => w
            .write(kind, data, id)
            .map(|()| id)
            .map_err(gix::Error::from_error),
        None => odb.write_buf_with_known_id(kind, data, id),
    }
}

/// Run an object write again when it fails, a few times: `git gc` (its
/// `prune-packed`, maybe in the background) removes emptied fan-out
/// folders, and gix creates the folder, then renames the object into it, so
/// a removal in between fails the rename (git's own writer retries too). A
/// write is idempotent: the same bytes make the same object.
pub fn write_retrying<T>(mut write: impl FnMut() -> gix::Result<T>) -> gix::Result<T> {
    let mut attempt = 0u32;
    loop {
        match write() {
            Err(_) if attempt < 3 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(u64::from(attempt)));
            }
            other => return other,
        }
    }
}

/// Write a parentless-or-not commit with the fixed identity.
pub fn write_commit(
    rec: &Recorder<'_>,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    message: &str,
) -> Result<ObjectId> {
    let mut tb = gix::date::parse::TimeBuf::default();
    let sig: gix::actor::Signature = signature(&mut tb).into();
    let commit = gix::objs::Commit {
        tree,
        parents: parents.into(),
        author: sig.clone(),
        committer: sig,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    rec.write_object(&commit)
}

/// A tree editor starting from the tree `base` (`None`: the empty tree).
pub fn tree_editor(repo: &gix::Repository, base: Option<ObjectId>) -> Result<gix::objs::tree::Editor<'_>> {
    let root = match base {
        None => gix::objs::Tree::empty(),
        Some(base) => repo
            .find_tree(base)
            .context(|| format!("could not read tree {base}"))?
            .decode()
            .context(|| format!("could not parse tree {base}"))?
            .into(),
    };
    let find: &dyn gix::objs::FindExt = repo;
    Ok(gix::objs::tree::Editor::new(root, find, repo.object_hash()))
}

/// Make sure the empty tree exists as a real object (git treats it as virtual,
/// but other tools and transports expect it on disk).
pub fn ensure_tree_object(rec: &Recorder<'_>, tree: ObjectId) -> Result<()> {
    if tree == ObjectId::empty_tree(rec.repo().object_hash()) {
        rec.write_object(&gix::objs::Tree::empty())?;
    }
    Ok(())
}

/// Largest commit object read (checkpoint commits are a few hundred bytes;
/// a commit inflating to gigabytes must not be read to find that out).
pub const MAX_COMMIT_BYTES: u64 = 16 << 20;

/// Fail unless `id` is a commit of at most [`MAX_COMMIT_BYTES`].
fn check_commit_size(repo: &gix::Repository, id: ObjectId) -> Result<()> {
    let header = repo.find_header(id).context(|| format!("{id} cannot be read"))?;
    if header.kind() != gix::objs::Kind::Commit {
        return Err(crate::Error::Refused(format!(
            "{id} is a {}, not a commit",
            header.kind()
        )));
    }
    if header.size() > MAX_COMMIT_BYTES {
        return Err(crate::Error::Refused(format!(
            "commit {id} is {} bytes, more than the {MAX_COMMIT_BYTES} accepted",
            header.size()
        )));
    }
    Ok(())
}
