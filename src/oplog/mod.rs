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

use crate::error::{Context as _, Error, Result};
use crate::model::oid::Oid;
use crate::repo::{self, Expect, Locked, Recorder, RefUpdate};

/// The ref of the operation log.
pub const OPS_REF: &str = "refs/t3/ops";
/// An op recorded before it was carried out, until it is complete.
pub const PENDING_REF: &str = "refs/t3/pending";
/// The largest `op.toml` accepted (an op may list thousands of refs).
pub const MAX_OP_BYTES: usize = 8 << 20;
/// How many ops `log` walks at most.
pub const MAX_LOG: usize = 100_000;

mod op;
mod undone;
pub use op::{Entry, KeptNote, Kind, MovedAside, Op, RefChange, TranscriptChange, id};
pub use undone::{latest_to_undo, undone_by, walk_undone};

/// A tree holding the blobs of `changes` (`<i>.before`, `<i>.after`), to
/// keep them reachable; `None` when there are none.
pub fn transcripts_tree(rec: &Recorder<'_>, changes: &[TranscriptChange]) -> Result<Option<ObjectId>> {
    let mut entries = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        for (side, blob) in [("before", c.before_id()), ("after", c.after_id())] {
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
    let removed: Vec<ObjectId> = op.refs.iter().filter_map(|r| r.old.map(Oid::get)).collect();
    for _ in 0..5 {
        let prev = repo::find_direct_ref(repo, OPS_REF)?;
        // The first parent is the previous op, or the log's root marker:
        // never a commit that could pass for an op.
        let mut parents: Vec<ObjectId> = vec![match prev {
            Some(p) => p,
            None => root_marker(&rec)?,
        }];
        for c in op
            .safety_commit()
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
        let mut seen = std::collections::HashSet::new();
        for (_, commit) in targets {
            if seen.insert(*commit)
                && let Some(blob) = notes.blob_id(*commit)?
            {
                op.notes.push(KeptNote {
                    commit: (*commit).into(),
                    note: blob.into(),
                });
            }
        }
    }
    op.refs = targets
        .iter()
        .map(|(name, id)| RefChange {
            reference: name.clone(),
            old: Some((*id).into()),
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
    if let Some(index) = op.index_tree() {
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
                oid: n.note.get(),
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
    let mut renamed: std::collections::HashMap<Oid, Oid> = Default::default();
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
            op.undoes = Some(*new);
        }
        op.was.push(e.id.into());
        let tree = op_tree(&rec, &op)?;
        let new = repo::write_commit(&rec, tree, parents, &message(&op))?;
        renamed.insert(e.id.into(), new.into());
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
        .filter(|e| {
            e.id.to_string().starts_with(&spec) || e.op.was.iter().any(|w| w.to_string().starts_with(&spec))
        })
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
}
