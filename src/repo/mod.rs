//! The gix plumbing git-t3 needs, in one place: opening the repository,
//! writing objects durably, refs with compare-and-swap, and the notes tree.
//!
//! The rest of the crate calls these functions instead of gix's API, so that
//! a gix upgrade touches this file (and the status walk in `capture`) only.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use crate::error::{Context as _, Error, Result, git_err};

pub mod lock;
use crate::model::thread::NOTES_REF;

/// Name of the identity on every object git-t3 writes.
pub const IDENTITY_NAME: &str = "T3 Checkpoint";
/// Email of the identity on every object git-t3 writes.
pub const IDENTITY_EMAIL: &str = "t3@checkpoint.invalid";

/// Open the repository holding `dir` the way git does (honouring `GIT_DIR`,
/// `GIT_WORK_TREE` and the discovery limits).
pub fn open(dir: &Path) -> Result<gix::Repository> {
    match gix::discover_with_environment_overrides(dir) {
        Ok(repo) => Ok(repo),
        Err(e) if e.is_not_found() || e.to_string().contains("not a git repository") => {
            Err(Error::NotARepository { path: dir.to_owned() })
        }
        Err(e) => {
            // gix reports "no repository found" in several shapes; a missing
            // directory or ceiling both mean the same thing to a user.
            let msg = format!("{e:?}");
            if msg.contains("Could not find a git repository")
                || msg.contains("not a git repository")
                || msg.contains("NoGitRepository")
            {
                Err(Error::NotARepository { path: dir.to_owned() })
            } else {
                Err(Error::Git {
                    context: format!("could not open the repository at {}", dir.display()),
                    source: Box::new(e),
                })
            }
        }
    }
}

/// The working tree of `repo`, or an error for a bare repository.
pub fn workdir(repo: &gix::Repository) -> Result<PathBuf> {
    repo.workdir().map(Path::to_owned).ok_or_else(|| Error::Bare {
        path: repo.git_dir().to_owned(),
    })
}

/// Where git-t3 keeps its private files shared by all worktrees (lock).
pub fn t3_common_dir(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("t3")
}

/// Where git-t3 keeps its per-worktree private files (the capture cache).
pub fn t3_worktree_dir(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("t3")
}

fn signature(tb: &mut gix::date::parse::TimeBuf) -> gix::actor::SignatureRef<'_> {
    gix::actor::SignatureRef {
        name: IDENTITY_NAME.into(),
        email: IDENTITY_EMAIL.into(),
        time: gix::date::Time::now_utc().to_str(tb),
    }
}

/// Records the ids of objects this process wrote, so they can be flushed to disk.
pub struct Recorder<'r> {
    repo: &'r gix::Repository,
    written: RefCell<BTreeSet<ObjectId>>,
}

impl<'r> Recorder<'r> {
    /// A recorder writing into `repo`.
    pub fn new(repo: &'r gix::Repository) -> Self {
        Recorder {
            repo,
            written: RefCell::new(BTreeSet::new()),
        }
    }

    /// The repository written to.
    pub fn repo(&self) -> &'r gix::Repository {
        self.repo
    }

    /// Remember `ids` as written by this process (e.g. blobs hashed elsewhere).
    pub fn note_written(&self, ids: impl IntoIterator<Item = ObjectId>) {
        self.written.borrow_mut().extend(ids);
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

    /// Flush every object written so far to disk.
    pub fn sync(&self) -> Result<()> {
        let ids: Vec<ObjectId> = std::mem::take(&mut *self.written.borrow_mut())
            .into_iter()
            .collect();
        durable::sync_objects(self.repo, &ids)
    }
}

impl gix::objs::Write for Recorder<'_> {
    fn write_buf(&self, kind: gix::objs::Kind, from: &[u8]) -> gix::Result<ObjectId> {
        let id = gix::objs::compute_hash(self.repo.object_hash(), kind, from)?;
        if self.repo.has_object(id) {
            return Ok(id);
        }
        let id = self.repo.objects.write_buf_with_known_id(kind, from, id)?;
        self.written.borrow_mut().insert(id);
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

/// Make sure the empty tree exists as a real object (git treats it as virtual,
/// but other tools and transports expect it on disk).
pub fn ensure_tree_object(rec: &Recorder<'_>, tree: ObjectId) -> Result<()> {
    if tree == ObjectId::empty_tree(rec.repo().object_hash()) {
        rec.write_object(&gix::objs::Tree::empty())?;
    }
    Ok(())
}

/// The tree of commit `id`.
pub fn commit_tree(repo: &gix::Repository, id: ObjectId) -> Result<ObjectId> {
    repo.find_commit(id)
        .context(|| format!("{id} is not a commit"))?
        .tree_id()
        .map(gix::Id::detach)
        .context(|| format!("could not read the tree of commit {id}"))
}

/// Author name and email, and the parent count, of commit `id`.
pub fn commit_identity(repo: &gix::Repository, id: ObjectId) -> Result<(String, String, usize)> {
    let commit = repo.find_commit(id).context(|| format!("{id} is not a commit"))?;
    let decoded = commit
        .decode()
        .context(|| format!("commit {id} does not parse"))?;
    let author = decoded
        .author()
        .context(|| format!("commit {id} has no valid author"))?;
    Ok((
        author.name.to_string(),
        author.email.to_string(),
        decoded.parents().count(),
    ))
}

/// The tree HEAD points to, or `None` on an unborn branch.
pub fn head_tree(repo: &gix::Repository) -> Result<Option<ObjectId>> {
    let head = repo.head().context(|| "could not read HEAD".into())?;
    if head.is_unborn() {
        return Ok(None);
    }
    let id = repo
        .head_tree_id_or_empty()
        .context(|| "could not resolve HEAD to a tree".into())?;
    Ok(Some(id.detach()))
}

/// The object a ref points to, or `None` if it does not exist.
pub fn find_ref(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    let found = repo
        .try_find_reference(name)
        .context(|| format!("could not read {name}"))?;
    match found {
        None => Ok(None),
        Some(mut r) => Ok(Some(
            r.peel_to_id()
                .context(|| format!("could not resolve {name}"))?
                .detach(),
        )),
    }
}

/// A ref name as bytes and the object it points to.
#[derive(Debug, Clone)]
pub struct RefEntry {
    /// Full name; not necessarily UTF-8 when it came from elsewhere.
    pub name: gix::bstr::BString,
    /// The direct target, or `None` for a symbolic ref.
    pub target: Option<ObjectId>,
}

/// All refs whose full name starts with `prefix` (which must end in `/`).
pub fn list_refs(repo: &gix::Repository, prefix: &str) -> Result<Vec<RefEntry>> {
    let platform = repo.references().context(|| "could not list refs".into())?;
    let iter = platform
        .prefixed(prefix)
        .context(|| format!("could not list refs under {prefix}"))?;
    let mut out = Vec::new();
    for r in iter {
        let r = r.map_err(git_err(format!("could not read a ref under {prefix}")))?;
        let target = r.target().try_id().map(ToOwned::to_owned);
        out.push(RefEntry {
            name: r.name().as_bstr().to_owned(),
            target,
        });
    }
    Ok(out)
}

/// What a ref must hold for an update to go ahead.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// The ref must not exist yet.
    Absent,
    /// The ref must point at this object.
    Is(ObjectId),
    /// Anything.
    Any,
}

impl Expect {
    fn previous(self) -> PreviousValue {
        match self {
            Expect::Absent => PreviousValue::MustNotExist,
            Expect::Is(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
            Expect::Any => PreviousValue::Any,
        }
    }
}

/// One ref change in a transaction.
#[derive(Debug, Clone)]
pub struct RefUpdate {
    /// Full ref name.
    pub name: String,
    /// New target, or `None` to delete.
    pub new: Option<ObjectId>,
    /// What the ref must hold now.
    pub expect: Expect,
}

/// Apply `updates` as one transaction with compare-and-swap, then flush the
/// loose ref files to disk. A lost race becomes [`Error::Conflict`].
pub fn update_refs(repo: &gix::Repository, updates: &[RefUpdate], log_message: &str) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let mut edits = Vec::with_capacity(updates.len());
    for u in updates {
        let name: gix::refs::FullName =
            u.name
                .as_str()
                .try_into()
                .map_err(|e: gix::validate::reference::name::Error| Error::BadMetadata {
                    reference: u.name.clone(),
                    problem: format!("not a valid ref name: {e}"),
                })?;
        let change = match u.new {
            Some(id) => Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: log_message.into(),
                },
                expected: u.expect.previous(),
                new: Target::Object(id),
            },
            None => Change::Delete {
                expected: u.expect.previous(),
                log: RefLog::AndReference,
            },
        };
        edits.push(RefEdit {
            change,
            name,
            deref: false,
        });
    }
    // Only directories whose entries change need a flush: each ref's parent,
    // and the parent of every directory this update creates.
    let changed_dirs = durable::dirs_to_flush(repo.common_dir(), updates.iter().map(|u| u.name.as_str()));
    let mut tb = gix::date::parse::TimeBuf::default();
    let sig = signature(&mut tb);
    match repo.edit_references_as(edits, Some(sig)) {
        Ok(_) => {}
        Err(e) if e.dominant_class() == Some(gix::error::Class::Conflict) => {
            return Err(Error::Conflict {
                reference: updates
                    .iter()
                    .map(|u| u.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Err(e) => {
            return Err(Error::Git {
                context: format!("could not update {}", updates[0].name),
                source: Box::new(e),
            });
        }
    }
    durable::sync_refs(
        repo,
        updates.iter().map(|u| (u.name.as_str(), u.new.is_some())),
        changed_dirs,
    )
}

/// The note blob attached to `object` in `refs/notes/t3`, if any.
pub struct NotesReader<'r> {
    repo: &'r gix::Repository,
    state: Option<gix::note::plumbing::State>,
}

impl<'r> NotesReader<'r> {
    /// Open the current notes tree of `refs/notes/t3`.
    pub fn open(repo: &'r gix::Repository) -> Result<Self> {
        let state = match find_ref(repo, NOTES_REF)? {
            None => None,
            Some(commit) => {
                let tree = commit_tree(repo, commit).map_err(|e| Error::BadMetadata {
                    reference: NOTES_REF.into(),
                    problem: format!("does not point at a commit: {e}"),
                })?;
                Some(
                    gix::note::plumbing::State::new(tree, repo)
                        .context(|| format!("could not read the notes tree of {NOTES_REF}"))?,
                )
            }
        };
        Ok(NotesReader { repo, state })
    }

    /// The id of the note blob on `object`, or `None` without a note.
    pub fn blob_id(&mut self, object: ObjectId) -> Result<Option<ObjectId>> {
        let Some(state) = self.state.as_mut() else {
            return Ok(None);
        };
        state
            .get(&object, self.repo)
            .context(|| format!("could not look up the note of {object}"))
    }

    /// The note's bytes for `object`, or `None` without a note.
    pub fn get(&mut self, object: ObjectId) -> Result<Option<Vec<u8>>> {
        let Some(blob) = self.blob_id(object)? else {
            return Ok(None);
        };
        let blob = self
            .repo
            .find_blob(blob)
            .context(|| format!("the note of {object} is not a readable blob"))?;
        Ok(Some(blob.data.clone()))
    }
}

/// Set (`Some`) or remove (`None`) notes in `refs/notes/t3` in one notes
/// commit, retrying when another process moved the notes ref meanwhile.
pub fn edit_notes(
    repo: &gix::Repository,
    edits: &[(ObjectId, Option<Vec<u8>>)],
    message: &str,
) -> Result<()> {
    const ATTEMPTS: u32 = 50;
    for attempt in 0..ATTEMPTS {
        let rec = Recorder::new(repo);
        let parent = find_ref(repo, NOTES_REF)?;
        let root = match parent {
            Some(commit) => commit_tree(repo, commit)?,
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        let mut state = gix::note::plumbing::State::new(root, repo)
            .context(|| format!("could not read the notes tree of {NOTES_REF}"))?;
        for (object, data) in edits {
            let blob = data.as_deref().map(|d| rec.write_blob(d)).transpose()?;
            state
                .edit(*object, blob, repo)
                .context(|| format!("could not edit the note of {object}"))?;
        }
        let tree = state
            .write(&rec)
            .context(|| format!("could not write the notes tree of {NOTES_REF}"))?;
        if parent.is_some() && tree == root {
            return Ok(());
        }
        ensure_tree_object(&rec, tree)?;
        let commit = write_commit(&rec, tree, parent.into_iter().collect(), message)?;
        rec.sync()?;
        let expect = parent.map_or(Expect::Absent, Expect::Is);
        match update_refs(
            repo,
            &[RefUpdate {
                name: NOTES_REF.into(),
                new: Some(commit),
                expect,
            }],
            message,
        ) {
            Ok(()) => return Ok(()),
            Err(Error::Conflict { .. }) if attempt + 1 < ATTEMPTS => {
                // Someone else committed notes meanwhile: back off a little and
                // apply our edits on top of theirs.
                std::thread::sleep(std::time::Duration::from_millis(2 + u64::from(attempt) * 3));
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::Conflict {
        reference: NOTES_REF.into(),
    })
}

/// Every `(annotated object, note blob)` in the notes tree of notes commit
/// `commit`, whether fanned out (`ab/cdef…`) or not.
pub fn list_notes(repo: &gix::Repository, commit: ObjectId) -> Result<Vec<(ObjectId, ObjectId)>> {
    let mut out = Vec::new();
    let mut stack = vec![(commit_tree(repo, commit)?, String::new())];
    while let Some((tree, prefix)) = stack.pop() {
        let tree = repo
            .find_tree(tree)
            .context(|| format!("could not read notes tree {tree}"))?;
        let decoded = tree.decode().context(|| "could not parse a notes tree".into())?;
        for entry in &decoded.entries {
            let name = format!("{prefix}{}", entry.filename.to_str_lossy());
            if entry.mode.is_tree() {
                // Fan-out directories are two hex digits; anything else is not a note.
                if name.len() < 40 && entry.filename.len() == 2 {
                    stack.push((entry.oid.to_owned(), name));
                }
            } else if let Ok(id) = ObjectId::from_hex(name.as_bytes()) {
                out.push((id, entry.oid.to_owned()));
            }
        }
    }
    Ok(out)
}

/// Flushing objects and refs to disk: gix never fsyncs.
pub mod durable {
    use std::collections::BTreeSet;
    use std::fs::File;
    use std::path::{Path, PathBuf};

    use gix::ObjectId;

    use crate::error::{Context as _, Result};

    fn sync_paths(files: &[PathBuf], dirs: &BTreeSet<PathBuf>) -> Result<()> {
        let sync_one = |p: &Path, dir: bool| -> Result<()> {
            let f = File::open(p).context(|| format!("could not open {} to flush it", p.display()))?;
            let res = if dir {
                f.sync_all().or_else(ignore_unsupported)
            } else {
                f.sync_all()
            };
            res.context(|| format!("could not flush {} to disk", p.display()))
        };
        // fsync is latency-bound: several in flight let the file system
        // commit them together.
        if files.len() > 4 {
            let chunk = files.len().div_ceil(8);
            std::thread::scope(|s| {
                let handles: Vec<_> = files
                    .chunks(chunk)
                    .map(|c| s.spawn(move || c.iter().try_for_each(|p| sync_one(p, false))))
                    .collect();
                handles.into_iter().try_for_each(|h| h.join().unwrap_or(Ok(())))
            })?;
        } else {
            files.iter().try_for_each(|p| sync_one(p, false))?;
        }
        dirs.iter().try_for_each(|d| sync_one(d, true))
    }

    fn ignore_unsupported(e: std::io::Error) -> std::io::Result<()> {
        // Some file systems refuse fsync on directories; nothing more can be done there.
        if matches!(e.raw_os_error(), Some(22) | Some(9)) {
            Ok(())
        } else {
            Err(e)
        }
    }

    /// fsync the loose object files of `ids` (those in packs are durable
    /// already) and the directories holding them.
    pub fn sync_objects(repo: &gix::Repository, ids: &[ObjectId]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let objects = repo.objects.store_ref().path().to_owned();
        let mut files = Vec::with_capacity(ids.len());
        let mut dirs = BTreeSet::new();
        for id in ids {
            let hex = id.to_hex().to_string();
            let (fan, rest) = hex.split_at(2);
            let dir = objects.join(fan);
            let file = dir.join(rest);
            if file.is_file() {
                files.push(file);
                dirs.insert(dir);
            }
        }
        if !dirs.is_empty() {
            dirs.insert(objects);
        }
        sync_paths(&files, &dirs)
    }

    /// The directories a ref update will change, found before it runs: each
    /// ref's parent, and every directory up to the first existing ancestor
    /// (their entries are created by the update).
    pub fn dirs_to_flush<'a>(base: &Path, names: impl Iterator<Item = &'a str>) -> BTreeSet<PathBuf> {
        let mut dirs = BTreeSet::new();
        for name in names {
            let mut dir = base.join(name).parent().map(Path::to_owned);
            while let Some(d) = dir {
                if !d.starts_with(base) || d == base {
                    break;
                }
                let existed = d.is_dir();
                dir = d.parent().map(Path::to_owned);
                dirs.insert(d);
                if existed {
                    break;
                }
            }
        }
        dirs
    }

    /// fsync loose ref files just written and the directories `dirs_to_flush` named.
    pub fn sync_refs<'a>(
        repo: &gix::Repository,
        refs: impl Iterator<Item = (&'a str, bool)>,
        dirs: BTreeSet<PathBuf>,
    ) -> Result<()> {
        let base = repo.common_dir();
        let mut files = Vec::new();
        let mut deleted = false;
        for (name, exists) in refs {
            deleted |= !exists;
            let path = base.join(name);
            if exists && path.is_file() {
                files.push(path);
            }
        }
        // A deletion may have rewritten packed-refs.
        let packed = base.join("packed-refs");
        if deleted && packed.is_file() {
            files.push(packed);
        }
        let dirs: BTreeSet<PathBuf> = dirs.into_iter().filter(|d| d.is_dir()).collect();
        sync_paths(&files, &dirs)
    }
}

/// Render a path stored as bytes for JSON and notes (lossy for invalid UTF-8).
pub fn path_string(bytes: &[u8]) -> String {
    bytes.to_str_lossy().into_owned()
}
