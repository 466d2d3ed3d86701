//! Writing the target files: checkout through gix, folders and links on the way, emptied folders pruned.

use super::*;

/// Write the entries of `target` whose paths are in `wanted`.
pub(super) fn checkout(
    repo: &gix::Repository,
    workdir: &Path,
    target: ObjectId,
    wanted: &HashSet<&[u8]>,
    interrupt: crate::interrupt::Interrupt,
) -> Result<()> {
    let mut index = checkout_index(repo, target, wanted)?;
    let large = stream::take_large(repo, &mut index)?;
    // What is in the way goes first, so each file is written new, as git's
    // checkout does: never through another hard link to the same inode,
    // and a FIFO, socket or device there is never opened.
    for entry in index.entries() {
        if entry.flags.contains(gix::index::entry::Flags::SKIP_WORKTREE) {
            continue;
        }
        let path = abs(workdir, entry.path(&index))?;
        // Only where every folder on the way is a real one: a symlink (or a
        // file) in the way is the checkout's to replace, and nothing is
        // ever removed through it.
        if !real_dirs_between(workdir, &path) {
            continue;
        }
        match std::fs::symlink_metadata(&path) {
            Ok(md) if !md.is_dir() => {
                std::fs::remove_file(&path).context(|| format!("could not replace {}", path.display()))?;
            }
            _ => {}
        }
    }
    if index.entries().is_empty() {
        // gix's checkout panics on an index without entries.
        return Ok(());
    }
    // Attributes as git's checkout reads them: the target's `.gitattributes`,
    // else the worktree's (an ignored one the target does not have).
    let mut options = repo
        .checkout_options(gix::worktree::stack::state::attributes::Source::IdMappingThenWorktree)
        .context(|| "could not read checkout settings".into())?;
    options.overwrite_existing = true;
    options.destination_is_initially_empty = false;
    let objects = repo
        .objects
        .clone()
        .into_arc()
        .context(|| "could not share the object database".into())?;
    let outcome = gix::worktree::state::checkout(
        &mut index,
        workdir,
        objects,
        &gix::progress::Discard,
        &gix::progress::Discard,
        interrupt.flag(),
        options,
    )
    .context(|| format!("could not write files into {}", workdir.display()))?;
    interrupt.check()?;
    if let Some(e) = outcome.errors.first() {
        return Err(Error::Io {
            context: format!("could not write {}", e.path.to_str_lossy()),
            path: None,
            source: std::io::Error::other(e.error.to_string()),
        });
    }
    if let Some(c) = outcome.collisions.first() {
        return Err(Error::Refused(format!(
            "could not write {}: it collides with another path",
            c.path.to_str_lossy()
        )));
    }
    stream::write_large(repo, workdir, &large, interrupt)?;
    interrupt.check()
}

/// An index of the entries of `target` to write, plus, marked
/// skip-worktree, the `.gitattributes` files above them (their eol and
/// filter attributes come from the target tree, as a checkout of the whole
/// tree would read them). Each path is looked up on its own: a revert
/// writes a few files of a tree that may have 100,000.
pub(super) fn checkout_index(
    repo: &gix::Repository,
    target: ObjectId,
    wanted: &HashSet<&[u8]>,
) -> Result<gix::index::State> {
    use gix::index::entry::{Flags, Mode, Stat};
    let root = repo
        .find_tree(target)
        .context(|| format!("could not read tree {target}"))?;
    // Path → whether it is to be written.
    let mut paths: std::collections::BTreeMap<Vec<u8>, bool> = std::collections::BTreeMap::new();
    for path in wanted {
        paths.insert(path.to_vec(), true);
        let mut end = path.len();
        while let Some(slash) = path.get(..end).and_then(|p| p.rfind_byte(b'/')) {
            let mut file = path.get(..=slash).unwrap_or_default().to_vec();
            file.extend_from_slice(b".gitattributes");
            paths.entry(file).or_insert(false);
            end = slash;
        }
        paths.entry(b".gitattributes".to_vec()).or_insert(false);
    }
    let mut index = gix::index::State::new(repo.object_hash());
    for (path, write) in paths {
        let Some((mode, id)) = repo::entry_at(repo, root.id, &path)?.filter(|(mode, _)| !mode.is_tree())
        else {
            continue;
        };
        if !write && !mode.is_blob() {
            continue;
        }
        let flags = if write {
            Flags::empty()
        } else {
            Flags::SKIP_WORKTREE | Flags::EXTENDED
        };
        index.dangerously_push_entry(Stat::default(), id, flags, Mode::from(mode), path.as_bstr());
    }
    index.sort_entries();
    Ok(index)
}

/// Whether every folder between `workdir` and `path` (exclusive) is a real
/// directory, not a symlink, a file or missing.
pub(super) fn real_dirs_between(workdir: &Path, path: &Path) -> bool {
    dirs_between(workdir, path, false)
}

/// Whether every folder between `workdir` and `path` that exists is a real
/// one (the missing ones can be made without writing through a symlink).
pub(super) fn no_links_between(workdir: &Path, path: &Path) -> bool {
    dirs_between(workdir, path, true)
}

/// Whether the folders between `workdir` and `path` (exclusive) are real
/// directories, up to the first missing one when `missing_ok`.
pub(super) fn dirs_between(workdir: &Path, path: &Path, missing_ok: bool) -> bool {
    let Ok(rel) = path.strip_prefix(workdir) else {
        return false;
    };
    let mut dir = workdir.to_path_buf();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return true;
        }
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Err(_) if missing_ok => return true,
            _ => return false,
        }
    }
    true
}

/// Remove folders that the deletion of `path` left empty, up to the worktree root.
pub fn prune_empty_parents(workdir: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == workdir || !d.starts_with(workdir) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}
