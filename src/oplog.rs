//! The operation log `refs/t3/ops`: one commit per state-changing operation
//! (revert, abort, undo, restore, drop, prune, a fetch that changed refs).
//!
//! An op commit's message is `t3 op <kind> thread=<id>`; its tree holds
//! `op.toml` (the [`Op`]), when the user's index differed from HEAD the
//! index as the subtree `index`, and when the op changed an agent's
//! conversation transcript the file's content before and after as the blobs
//! `transcripts/<i>.before` and `<i>.after` (so the backup lives as long as
//! the op). Its first parent is the previous op; its
//! other parents are the op's safety checkpoint and every commit the op
//! removed from `refs/t3/`, so `git gc` keeps all of them as long as the log
//! holds the op, and an undo can always put them back.

use gix::ObjectId;
use gix::objs::tree::EntryKind;
use serde::{Deserialize, Serialize};

use crate::error::{Context as _, Error, Result};
use crate::repo::{self, Expect, Locked, Recorder, RefUpdate};

/// The ref of the operation log.
pub const OPS_REF: &str = "refs/t3/ops";
/// An op recorded before it was carried out, until it is complete.
pub const PENDING_REF: &str = "refs/t3/pending";
/// The largest `op.toml` accepted (an op may list thousands of refs).
pub const MAX_OP_BYTES: usize = 8 << 20;
/// How many ops `log` walks at most.
pub const MAX_LOG: usize = 100_000;

/// What kind of operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `revert` (completed).
    Revert,
    /// `revert --abort`.
    Abort,
    /// `revert --undo` or `op undo`.
    Undo,
    /// `restore` of some paths.
    Restore,
    /// `drop` of a thread.
    Drop,
    /// `prune`.
    Prune,
    /// A `fetch` that changed refs.
    Fetch,
}

impl Kind {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Revert => "revert",
            Kind::Abort => "abort",
            Kind::Undo => "undo",
            Kind::Restore => "restore",
            Kind::Drop => "drop",
            Kind::Prune => "prune",
            Kind::Fetch => "fetch",
        }
    }
}

/// One ref an op changed: `old` absent means created, `new` absent deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefChange {
    /// The full ref name.
    #[serde(rename = "ref")]
    pub reference: String,
    /// What it pointed at before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// What it points at after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// The content of `op.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// Always 1.
    pub schema: u32,
    /// What kind of operation.
    pub kind: Kind,
    /// The thread it concerns, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// When it ran (RFC 3339, UTC).
    pub time: String,
    /// The safety checkpoint: the worktree (and every file the operation
    /// could touch) before it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<String>,
    /// The user's index before it ran, as a tree, when it differed from HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_tree: Option<String>,
    /// The op this one undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// Nested repositories moved aside (`path -> where`), to put back on undo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_aside: Vec<MovedAside>,
    /// The tree the operation put the worktree to: each path it wrote or
    /// deleted holds this tree's entry afterwards (a revert's target, a
    /// restore's or an undo's worktree with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<String>,
    /// For a put-back of the whole tree (before `by_path`): the index it
    /// puts back (absent: HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_index: Option<String>,
    /// The index the operation left, when it changed the index (a revert's
    /// HEAD, an undo's index with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_after: Option<String>,
    /// A put-back that changed only the paths the undone operation had
    /// changed (and were still as it left them), not the whole worktree.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_path: bool,
    /// An undo made by a bare `op undo`: the next bare `op undo` walks past
    /// it (and what it undid) to the operation before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stepped: bool,
    /// For a prune: the notes of the checkpoints it removed (kept in the
    /// op's tree, so an undo puts them back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<KeptNote>,
    /// The git dir of the worktree whose files it changes (absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// For a put-back: nested repositories it returns from aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_back: Vec<MovedAside>,
    /// For a revert: the thread's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Agents' conversation transcripts it changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcripts: Vec<TranscriptChange>,
    /// The refs it changed.
    #[serde(default)]
    pub refs: Vec<RefChange>,
    /// The ids this op had before trims of the log wrote it again (an id
    /// printed then still names it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub was: Vec<String>,
}

/// An agent's conversation transcript a revert's provider changed (or a
/// put-back restored): the file's content before and after, as blob ids.
/// The blobs are kept in the op's tree and the revert journal's, so they
/// live as long as the op; an undo writes `before` back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptChange {
    /// The agent (`claude-code`, `codex`).
    pub agent: String,
    /// The file (absolute).
    pub path: String,
    /// Its content before (absent: there was no file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Its content after (absent: the file was removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// What the change did, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub how: String,
}

impl TranscriptChange {
    /// The blob of the content before.
    pub fn before_id(&self) -> Result<Option<ObjectId>> {
        self.before.as_deref().map(id).transpose()
    }

    /// The blob of the content after.
    pub fn after_id(&self) -> Result<Option<ObjectId>> {
        self.after.as_deref().map(id).transpose()
    }

    /// The change that takes this one back.
    pub fn reversed(&self) -> Self {
        TranscriptChange {
            agent: self.agent.clone(),
            path: self.path.clone(),
            before: self.after.clone(),
            after: self.before.clone(),
            how: "restored from the backup".into(),
        }
    }
}

/// A tree holding the blobs of `changes` (`<i>.before`, `<i>.after`), to
/// keep them reachable; `None` when there are none.
pub fn transcripts_tree(rec: &Recorder<'_>, changes: &[TranscriptChange]) -> Result<Option<ObjectId>> {
    let mut entries = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        for (side, blob) in [("before", c.before_id()?), ("after", c.after_id()?)] {
            if let Some(blob) = blob {
                entries.push(gix::objs::tree::Entry {
                    mode: EntryKind::Blob.into(),
                    filename: format!("{i}.{side}").into(),
                    oid: blob,
                });
            }
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    entries.sort_by(|a, b| a.filename.cmp(&b.filename));
    let mut tree = gix::objs::Tree::empty();
    tree.entries = entries;
    rec.write_object(&tree).map(Some)
}

/// The note of a commit an operation removed from `refs/t3/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptNote {
    /// The checkpoint commit.
    pub commit: String,
    /// Its note's blob.
    pub note: String,
}

/// A nested repository a restore moved out of the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedAside {
    /// Its path in the worktree.
    pub path: String,
    /// Where it is now (absolute).
    pub to: String,
}

impl Op {
    /// A new op of `kind` about `thread`, dated now, with nothing recorded yet.
    pub fn new(kind: Kind, thread: Option<&str>) -> Self {
        Op {
            schema: 1,
            kind,
            thread: thread.map(str::to_owned),
            time: crate::model::note::now_rfc3339(),
            safety: None,
            index_tree: None,
            undoes: None,
            moved_aside: Vec::new(),
            restored: None,
            restored_index: None,
            index_after: None,
            by_path: false,
            stepped: false,
            notes: Vec::new(),
            worktree: None,
            moved_back: Vec::new(),
            provider: None,
            transcripts: Vec::new(),
            refs: Vec::new(),
            was: Vec::new(),
        }
    }

    /// Parse `op.toml`, refusing oversized or malformed input.
    pub fn parse(data: &[u8]) -> std::result::Result<Self, String> {
        if data.len() > MAX_OP_BYTES {
            return Err(format!(
                "op.toml is {} bytes, more than {MAX_OP_BYTES}",
                data.len()
            ));
        }
        let text = std::str::from_utf8(data).map_err(|_| "op.toml is not UTF-8".to_owned())?;
        let op: Op = toml::from_str(text).map_err(|e| format!("op.toml does not parse: {}", e.message()))?;
        if op.schema != 1 {
            return Err(format!(
                "op.toml has schema {}; this git-t3 understands 1",
                op.schema
            ));
        }
        for id in op
            .safety
            .iter()
            .chain(&op.index_tree)
            .chain(&op.undoes)
            .chain(&op.restored)
            .chain(&op.restored_index)
            .chain(&op.index_after)
            .chain(op.notes.iter().flat_map(|n| [&n.commit, &n.note]))
            .chain(op.refs.iter().flat_map(|r| r.old.iter().chain(&r.new)))
            .chain(&op.was)
            .chain(
                op.transcripts
                    .iter()
                    .flat_map(|t| t.before.iter().chain(&t.after)),
            )
        {
            parse_id(id)?;
        }
        Ok(op)
    }

    /// The safety checkpoint's commit.
    pub fn safety_commit(&self) -> Result<Option<ObjectId>> {
        self.safety.as_deref().map(id).transpose()
    }

    /// The index tree.
    pub fn index_tree(&self) -> Result<Option<ObjectId>> {
        self.index_tree.as_deref().map(id).transpose()
    }
}

fn parse_id(s: &str) -> std::result::Result<ObjectId, String> {
    ObjectId::from_hex(s.as_bytes()).map_err(|_| format!("'{s}' in op.toml is not an object id"))
}

/// An object id from `op.toml`.
pub fn id(s: &str) -> Result<ObjectId> {
    parse_id(s).map_err(|problem| Error::BadMetadata {
        reference: OPS_REF.into(),
        problem,
    })
}

/// An op as it is in the log.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The op commit.
    #[serde(serialize_with = "hex")]
    pub id: ObjectId,
    /// Its `op.toml`.
    #[serde(flatten)]
    pub op: Op,
}

fn hex<S: serde::Serializer>(id: &ObjectId, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(id)
}

/// Append `op` to the log, keeping reachable its safety checkpoint, the old
/// value of every ref it changed, and `keep`. Returns the op commit.
pub fn record(lock: &Locked<'_>, op: &Op, keep: &[ObjectId]) -> Result<ObjectId> {
    record_with(lock, op, keep, false)
}

/// [`record`], and in the same ref transaction point `refs/t3/pending` at the
/// op (`pending`): an operation that is recorded before it is carried out.
pub fn record_with(lock: &Locked<'_>, op: &Op, keep: &[ObjectId], pending: bool) -> Result<ObjectId> {
    let repo = lock.repo();
    let rec = Recorder::new(repo);
    let tree = op_tree(&rec, op)?;
    let message = message(op);
    // What the op removed stays reachable while the log holds it (a prune's
    // too: it can be undone until the log forgets it).
    let removed = op
        .refs
        .iter()
        .filter_map(|r| r.old.as_deref())
        .map(id)
        .collect::<Result<Vec<_>>>()?;
    for _ in 0..5 {
        let prev = repo::find_direct_ref(repo, OPS_REF)?;
        // The first parent is the previous op, or the log's root marker:
        // never a commit that could pass for an op.
        let mut parents: Vec<ObjectId> = vec![match prev {
            Some(p) => p,
            None => root_marker(&rec)?,
        }];
        for c in op
            .safety_commit()?
            .into_iter()
            .chain(removed.iter().copied())
            .chain(keep.iter().copied())
        {
            if !parents.contains(&c) && repo.has_object(c) {
                parents.push(c);
            }
        }
        let commit = repo::write_commit(&rec, tree, parents, &message)?;
        rec.sync()?;
        let mut updates = vec![RefUpdate {
            name: OPS_REF.into(),
            new: Some(commit),
            expect: prev.map_or(Expect::Absent, Expect::Is),
        }];
        if pending {
            updates.push(RefUpdate {
                name: PENDING_REF.into(),
                new: Some(commit),
                expect: Expect::Any,
            });
        }
        match repo::update_refs(lock, &updates, &message) {
            Ok(()) => return Ok(commit),
            Err(Error::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Conflict {
        reference: OPS_REF.into(),
    })
}

/// Delete the refs `targets` (each with the commit it must still point at),
/// recorded first as an op of `kind` about `thread`, so the op exists
/// before anything it names goes (it keeps the commits, unless it is a
/// prune). Returns the op commit.
pub fn record_deletion(
    lock: &Locked<'_>,
    kind: Kind,
    thread: Option<&str>,
    targets: &[(String, ObjectId)],
) -> Result<ObjectId> {
    let mut op = Op::new(kind, thread);
    if kind == Kind::Prune {
        // A prune removes the notes too: kept in the op for its undo.
        let mut notes = repo::NotesReader::open(lock.repo())?;
        for (_, commit) in targets {
            let hex = commit.to_string();
            if let Some(blob) = notes.blob_id(*commit)?
                && !op.notes.iter().any(|n| n.commit == hex)
            {
                op.notes.push(KeptNote {
                    commit: hex,
                    note: blob.to_string(),
                });
            }
        }
    }
    op.refs = targets
        .iter()
        .map(|(name, id)| RefChange {
            reference: name.clone(),
            old: Some(id.to_string()),
            new: None,
        })
        .collect();
    let commit = record(lock, &op, &[])?;
    let updates: Vec<RefUpdate> = targets
        .iter()
        .map(|(name, id)| RefUpdate {
            name: name.clone(),
            new: None,
            expect: Expect::Is(*id),
        })
        .collect();
    repo::update_refs(lock, &updates, &format!("t3: {}", kind.as_str()))?;
    Ok(commit)
}

/// The tree of an op commit: `op.toml`, the index subtree, the transcripts.
fn op_tree(rec: &Recorder<'_>, op: &Op) -> Result<ObjectId> {
    let text =
        toml::to_string(op).map_err(|e| Error::Internal(format!("could not serialize op.toml: {e}")))?;
    let blob = rec.write_blob(text.as_bytes())?;
    let mut tree = gix::objs::Tree::empty();
    if let Some(index) = op.index_tree()? {
        tree.entries.push(gix::objs::tree::Entry {
            mode: EntryKind::Tree.into(),
            filename: "index".into(),
            oid: index,
        });
    }
    if !op.notes.is_empty() {
        let mut notes = gix::objs::Tree::empty();
        for (i, n) in op.notes.iter().enumerate() {
            notes.entries.push(gix::objs::tree::Entry {
                mode: EntryKind::Blob.into(),
                filename: i.to_string().into(),
                oid: id(&n.note)?,
            });
        }
        notes.entries.sort();
        tree.entries.push(gix::objs::tree::Entry {
            mode: EntryKind::Tree.into(),
            filename: "notes".into(),
            oid: rec.write_object(&notes)?,
        });
    }
    tree.entries.push(gix::objs::tree::Entry {
        mode: EntryKind::Blob.into(),
        filename: "op.toml".into(),
        oid: blob,
    });
    if let Some(transcripts) = transcripts_tree(rec, &op.transcripts)? {
        tree.entries.push(gix::objs::tree::Entry {
            mode: EntryKind::Tree.into(),
            filename: "transcripts".into(),
            oid: transcripts,
        });
    }
    rec.write_object(&tree)
}

/// How many of the newest ops stay, given which are old (newest first).
/// Ops are appended in time order, but a clock may have jumped: every op up
/// to the oldest one that is not old stays.
fn keep_count(old: &[bool]) -> usize {
    old.iter().rposition(|o| !o).map_or(0, |i| i + 1)
}

/// The message of the commit a log starts from.
const ROOT_MESSAGE: &str = "t3 oplog root";

/// A new root marker: the first parent of the oldest op, so that no commit
/// an op keeps (a checkpoint fetched from anyone) is ever taken for an op.
fn root_marker(rec: &Recorder<'_>) -> Result<ObjectId> {
    // Not the empty tree: gix takes it as present without writing it, and
    // git's fsck would find it missing.
    let blob = rec.write_blob(b"the start of git-t3's operation log\n")?;
    let mut tree = gix::objs::Tree::empty();
    tree.entries.push(gix::objs::tree::Entry {
        mode: EntryKind::Blob.into(),
        filename: "README".into(),
        oid: blob,
    });
    let tree = rec.write_object(&tree)?;
    repo::write_commit(rec, tree, Vec::new(), ROOT_MESSAGE)
}

fn is_root_marker(repo: &gix::Repository, id: ObjectId) -> bool {
    repo.find_commit(id)
        .ok()
        .and_then(|c| c.message_raw().ok().map(|m| m == ROOT_MESSAGE.as_bytes()))
        .unwrap_or(false)
}

/// An op commit's message.
fn message(op: &Op) -> String {
    match &op.thread {
        Some(t) => format!("t3 op {} thread={t}", op.kind.as_str()),
        None => format!("t3 op {}", op.kind.as_str()),
    }
}

/// Drop from the log every op older than `cutoff` (and the commits only
/// they kept become collectable): the newer ops are written again on a
/// shorter history, `undoes` following them. Nothing is trimmed while an op
/// is pending. Returns how many ops were dropped.
pub fn trim(lock: &Locked<'_>, cutoff: jiff::Timestamp) -> Result<usize> {
    let repo = lock.repo();
    if repo::find_direct_ref(repo, PENDING_REF)?.is_some() {
        return Ok(0);
    }
    let Some(head) = repo::find_direct_ref(repo, OPS_REF)? else {
        return Ok(0);
    };
    let entries = log(repo, MAX_LOG)?;
    let old = |e: &Entry| e.op.time.parse::<jiff::Timestamp>().is_ok_and(|t| t < cutoff);
    let keep = keep_count(&entries.iter().map(old).collect::<Vec<_>>());
    if keep == entries.len() {
        return Ok(0);
    }
    let rec = Recorder::new(repo);
    let mut renamed: std::collections::HashMap<String, String> = Default::default();
    let mut prev: Option<ObjectId> = None;
    for e in entries[..keep].iter().rev() {
        let commit = repo
            .find_commit(e.id)
            .context(|| format!("op {} is not a commit", e.id))?;
        let mut parents: Vec<ObjectId> = commit.parent_ids().map(gix::Id::detach).collect();
        // The first parent is the previous op or the root marker (or, in a
        // log from before markers, what the first op kept): it goes, and
        // the previous op as written again, or a new marker, takes its place.
        let first_is_link = match parents.first() {
            Some(p) => previous(repo, e.id)?.is_some() || is_root_marker(repo, *p),
            None => false,
        };
        if first_is_link {
            parents.remove(0);
        }
        parents.insert(
            0,
            match prev {
                Some(p) => p,
                None => root_marker(&rec)?,
            },
        );
        let mut op = e.op.clone();
        if let Some(new) = op.undoes.as_ref().and_then(|u| renamed.get(u)) {
            op.undoes = Some(new.clone());
        }
        op.was.push(e.id.to_string());
        let tree = op_tree(&rec, &op)?;
        let new = repo::write_commit(&rec, tree, parents, &message(&op))?;
        renamed.insert(e.id.to_string(), new.to_string());
        prev = Some(new);
    }
    rec.sync()?;
    let update = RefUpdate {
        name: OPS_REF.into(),
        new: prev,
        expect: Expect::Is(head),
    };
    repo::update_refs(lock, &[update], "t3: operation log trimmed")?;
    Ok(entries.len() - keep)
}

/// The op that was recorded but not carried out to its end, if any.
pub fn pending(repo: &gix::Repository) -> Result<Option<Entry>> {
    match repo::find_direct_ref(repo, PENDING_REF)? {
        None => Ok(None),
        Some(id) => Ok(Some(Entry {
            id,
            op: read(repo, id)?,
        })),
    }
}

/// Mark the pending op `id` complete.
pub fn clear_pending(lock: &Locked<'_>, id: ObjectId) -> Result<()> {
    let update = RefUpdate {
        name: PENDING_REF.into(),
        new: None,
        expect: Expect::Is(id),
    };
    repo::update_refs(lock, &[update], "t3: op complete")
}

/// The op of op commit `commit`.
pub fn read(repo: &gix::Repository, commit: ObjectId) -> Result<Op> {
    let tree = repo::commit_tree(repo, commit)?;
    let tree = repo
        .find_tree(tree)
        .context(|| format!("could not read the tree of op {commit}"))?;
    let entry = tree.find_entry("op.toml").ok_or_else(|| Error::BadMetadata {
        reference: OPS_REF.into(),
        problem: format!("op {commit} has no op.toml"),
    })?;
    let header = repo
        .find_header(entry.oid())
        .context(|| format!("could not read op.toml of {commit}"))?;
    if header.size() > MAX_OP_BYTES as u64 {
        return Err(Error::BadMetadata {
            reference: OPS_REF.into(),
            problem: format!("op.toml of {commit} is {} bytes", header.size()),
        });
    }
    let blob = repo
        .find_blob(entry.oid())
        .context(|| format!("could not read op.toml of {commit}"))?;
    Op::parse(&blob.data).map_err(|problem| Error::BadMetadata {
        reference: OPS_REF.into(),
        problem: format!("op {commit}: {problem}"),
    })
}

/// The log, newest first (following first parents), at most `limit` ops.
pub fn log(repo: &gix::Repository, limit: usize) -> Result<Vec<Entry>> {
    walk(repo)?.take(limit.min(MAX_LOG)).collect()
}

/// The log newest first, read one op at a time: a caller that stops early
/// (at the op it looks for) reads no further.
pub fn walk(repo: &gix::Repository) -> Result<impl Iterator<Item = Result<Entry>> + '_> {
    let mut next = repo::find_direct_ref(repo, OPS_REF)?;
    Ok(std::iter::from_fn(move || {
        let commit = next.take()?;
        let entry = read(repo, commit).map(|op| Entry { id: commit, op });
        match previous(repo, commit) {
            Ok(p) => next = p,
            Err(e) => return Some(Err(e)),
        }
        Some(entry)
    })
    .take(MAX_LOG))
}

/// The op before `commit`: its first parent, when that is an op commit (the
/// first op's first parent is its safety checkpoint or a removed commit).
fn previous(repo: &gix::Repository, commit: ObjectId) -> Result<Option<ObjectId>> {
    let c = repo
        .find_commit(commit)
        .context(|| format!("op {commit} is not a commit"))?;
    let Some(parent) = c.parent_ids().next().map(gix::Id::detach) else {
        return Ok(None);
    };
    let p = repo
        .find_commit(parent)
        .context(|| format!("the parent {parent} of op {commit} is not a commit"))?;
    let message = p
        .message_raw()
        .context(|| format!("could not read commit {parent}"))?;
    Ok(message.starts_with(b"t3 op ").then_some(parent))
}

/// The op in effect that undid op `id`, if any (an undo that was undone
/// in turn does not count).
pub fn undone_by(repo: &gix::Repository, id: ObjectId) -> Result<Option<ObjectId>> {
    let mut cancelled = std::collections::HashSet::new();
    for e in walk(repo)? {
        let e = e?;
        if e.id == id {
            return Ok(None);
        }
        if cancelled.contains(&e.id) {
            continue;
        }
        if let Some(undone) = e.op.undoes.as_deref().map(self::id).transpose()? {
            if undone == id {
                return Ok(Some(e.id));
            }
            cancelled.insert(undone);
        }
    }
    Ok(None)
}

/// What a bare `op undo` undoes: the newest op not yet undone, of any
/// kind, walking past the undos earlier bare `op undo`s made (and what
/// they undid), so that repeated, it goes further back.
pub fn latest_to_undo(repo: &gix::Repository) -> Result<Option<Entry>> {
    let mut cancelled = std::collections::HashSet::new();
    for e in walk(repo)? {
        let e = e?;
        if cancelled.contains(&e.id) {
            continue;
        }
        if e.op.stepped {
            if let Some(undone) = e.op.undoes.as_deref() {
                cancelled.insert(self::id(undone)?);
            }
            continue;
        }
        return Ok(Some(e));
    }
    Ok(None)
}

/// The op named by `spec`: a full or unique abbreviated op commit id.
pub fn find(repo: &gix::Repository, spec: &str) -> Result<Entry> {
    let spec = spec.trim().to_ascii_lowercase();
    if spec.len() < 4 || !spec.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::usage(format!(
            "'{spec}' is not an op id (4 to 40 hex digits, as `git t3 op log` shows)"
        )));
    }
    let matching: Vec<Entry> = log(repo, MAX_LOG)?
        .into_iter()
        .filter(|e| e.id.to_string().starts_with(&spec) || e.op.was.iter().any(|w| w.starts_with(&spec)))
        .collect();
    match matching.len() {
        1 => Ok(matching.into_iter().next().expect("one element")),
        0 => Err(Error::Refused(format!("no op {spec} in the operation log"))),
        n => Err(Error::usage(format!("op id {spec} is ambiguous ({n} ops match)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_op_between_newer_ones_stays() {
        assert_eq!(keep_count(&[false, true, false, true, true]), 3);
        assert_eq!(keep_count(&[false, false]), 2);
        assert_eq!(keep_count(&[true, true]), 0);
        assert_eq!(keep_count(&[]), 0);
    }

    #[test]
    fn op_toml_round_trips_and_is_strict() {
        let mut op = Op::new(Kind::Revert, Some("t"));
        op.safety = Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into());
        op.refs.push(RefChange {
            reference: "refs/t3/checkpoints/dA/turn/2".into(),
            old: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
            new: None,
        });
        let text = toml::to_string(&op).unwrap();
        assert_eq!(Op::parse(text.as_bytes()).unwrap(), op);
        for bad in [
            text.replace("schema = 1", "schema = 7"),
            text.replace("kind = \"revert\"", "kind = \"explode\""),
            text.replace("4b825dc642cb6eb9a060e54bf8d69288fbee4904", "zz"),
        ] {
            assert!(Op::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
