//! Reading objects: blobs, commit trees and identities, HEAD tree, tree entries, entry modes.

use super::*;

/// The id `data` has as a blob, without writing it.
pub fn hash_blob(repo: &gix::Repository, data: &[u8]) -> Result<ObjectId> {
    gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, data)
        .context(|| "could not hash a blob".into())
}

/// The content of blob `id`, refused when larger than `max` bytes (read
/// from its header first).
pub fn read_blob(repo: &gix::Repository, id: ObjectId, max: u64) -> Result<Vec<u8>> {
    let header = repo
        .find_header(id)
        .context(|| format!("could not read the object {id}"))?;
    if header.kind() != gix::objs::Kind::Blob || header.size() > max {
        return Err(crate::Error::Refused(format!(
            "the object {id} is not a blob of at most {max} bytes"
        )));
    }
    Ok(repo
        .find_blob(id)
        .context(|| format!("could not read the blob {id}"))?
        .take_data())
}

/// The tree of commit `id`.
pub fn commit_tree(repo: &gix::Repository, id: ObjectId) -> Result<ObjectId> {
    check_commit_size(repo, id)?;
    repo.find_commit(id)
        .context(|| format!("{id} is not a commit"))?
        .tree_id()
        .map(gix::Id::detach)
        .context(|| format!("could not read the tree of commit {id}"))
}

/// Author name and email, and the parent count, of commit `id`.
pub fn commit_identity(repo: &gix::Repository, id: ObjectId) -> Result<(String, String, usize)> {
    check_commit_size(repo, id)?;
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

/// The index mode of a tree entry kind.
pub fn kind_mode(kind: gix::objs::tree::EntryKind) -> gix::index::entry::Mode {
    use gix::index::entry::Mode;
    use gix::objs::tree::EntryKind;
    match kind {
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
        EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
        EntryKind::Tree => Mode::DIR,
        EntryKind::Blob => Mode::FILE,
    }
}

/// HEAD's tree, or the empty tree on an unborn branch.
pub fn head_tree_or_empty(repo: &gix::Repository) -> Result<ObjectId> {
    Ok(head_tree(repo)?.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash())))
}

/// The tree entry kind of an index mode (anything unknown is a plain blob; a
/// sparse index's directory entry names a whole subtree).
pub fn mode_kind(mode: gix::index::entry::Mode) -> gix::objs::tree::EntryKind {
    use gix::index::entry::Mode;
    use gix::objs::tree::EntryKind;
    match mode {
        Mode::SYMLINK => EntryKind::Link,
        Mode::COMMIT => EntryKind::Commit,
        Mode::FILE_EXECUTABLE => EntryKind::BlobExecutable,
        Mode::DIR => EntryKind::Tree,
        _ => EntryKind::Blob,
    }
}

/// The entry at `path` (`/`-separated) under `tree`: its mode and id, or
/// `None` when the path is not there. Unlike gix's `lookup_entry`, a
/// component that is not a tree (a file, or a gitlink whose commit is in
/// another repository) ends the lookup with `None` instead of an error.
pub fn entry_at(
    repo: &gix::Repository,
    tree: ObjectId,
    path: &[u8],
) -> Result<Option<(gix::objs::tree::EntryMode, ObjectId)>> {
    let mut current = tree;
    let mut components = path.split(|b| *b == b'/').peekable();
    while let Some(name) = components.next() {
        let data = repo
            .find_tree(current)
            .context(|| format!("could not read tree {current}"))?;
        let Some(entry) = gix::objs::TreeRefIter::from_bytes(&data.data, current.kind())
            .filter_map(std::result::Result::ok)
            .find(|e| e.filename == name)
        else {
            return Ok(None);
        };
        if components.peek().is_none() {
            return Ok(Some((entry.mode, entry.oid.to_owned())));
        }
        if !entry.mode.is_tree() {
            return Ok(None);
        }
        current = entry.oid.to_owned();
    }
    Ok(None)
}
