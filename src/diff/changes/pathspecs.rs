//! Reading a side, a blob at a path, and limiting changes to pathspecs.

use super::*;

/// The content git diffs for one side: the blob's bytes, or for a gitlink
/// the one line git compares, `Subproject commit <id>`; `None` when the side
/// does not exist.
pub fn diffed(repo: &gix::Repository, side: Option<Side>) -> Result<Option<Vec<u8>>> {
    match side {
        None => Ok(None),
        Some(Side {
            kind: EntryKind::Commit,
            id,
        }) => Ok(Some(format!("Subproject commit {id}\n").into_bytes())),
        other => load(repo, other),
    }
}

/// The bytes of one side (empty when absent), or `None` for a gitlink.
pub fn load(repo: &gix::Repository, side: Option<Side>) -> Result<Option<Vec<u8>>> {
    match side {
        None => Ok(Some(Vec::new())),
        Some(Side {
            kind: EntryKind::Commit,
            ..
        }) => Ok(None),
        Some(Side { id, .. }) => Ok(Some(
            repo.find_blob(id)
                .context(|| format!("could not read blob {id}"))?
                .take_data(),
        )),
    }
}

/// The blob at `path` in `tree` and its size, if there is a blob there.
pub fn blob_at(repo: &gix::Repository, tree: ObjectId, path: &[u8]) -> Result<Option<(ObjectId, u64)>> {
    let Some((_, id)) = crate::repo::entry_at(repo, tree, path)?.filter(|(mode, _)| mode.is_blob()) else {
        return Ok(None);
    };
    let size = repo
        .find_header(id)
        .context(|| format!("could not read the header of blob {id}"))?
        .size();
    Ok(Some((id, size)))
}

/// Pathspecs to limit a diff to (git's syntax through gix), relative to a
/// directory of the worktree as git's are to the current one.
pub struct Pathspecs<'r> {
    search: gix::pathspec::Search,
    /// For `:(attr:…)` pathspecs: attributes as the worktree and HEAD's
    /// index-less view give them.
    attributes: Option<gix::AttributeStack<'r>>,
}

impl<'r> Pathspecs<'r> {
    /// `None` without pathspecs: everything. `prefix` is the directory they
    /// are relative to (`sub/dir/`, empty at the root), where the command
    /// runs (`-C` included).
    pub fn new(repo: &'r gix::Repository, paths: &[String], prefix: &[u8]) -> Result<Option<Self>> {
        if paths.is_empty() {
            return Ok(None);
        }
        let bad = |e: &dyn std::fmt::Display| crate::Error::usage(format!("bad pathspec: {e}"));
        let defaults = repo
            .pathspec_defaults_inherit_ignore_case(true)
            .map_err(|e| bad(&e))?;
        let root = repo.workdir().unwrap_or_else(|| repo.git_dir());
        // Absolute pathspecs are made relative to the worktree as its real path.
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
        let prefix = gix::path::from_byte_slice(prefix.strip_suffix(b"/").unwrap_or(prefix))
            .map_err(|_| crate::Error::usage("the current directory's path is not valid here"))?;
        let mut patterns = Vec::with_capacity(paths.len());
        for raw in paths {
            let pattern = gix::pathspec::parse(raw.as_bytes(), defaults).map_err(|e| bad(&e))?;
            let mut normal = pattern.clone();
            normal.normalize(prefix, &root).map_err(|e| bad(&e))?;
            if normal.is_nil() && !pattern.signature.contains(gix::pathspec::MagicSignature::TOP) {
                // `.` at the top (or `..` one level down) is the whole
                // worktree; gix would take its `.` for a leading directory
                // that no path has. The same pattern without a path, from
                // the top, matches everything. (git's `:(top).` matches
                // nothing, and so does gix's.)
                let mut all = gix::pathspec::parse(b":(top)", defaults).map_err(|e| bad(&e))?;
                all.signature = pattern.signature | gix::pathspec::MagicSignature::TOP;
                all.search_mode = pattern.search_mode;
                all.attributes = pattern.attributes;
                patterns.push(all);
            } else {
                patterns.push(pattern);
            }
        }
        let needs_attributes = patterns.iter().any(|p| !p.attributes.is_empty());
        let search = gix::pathspec::Search::from_specs(patterns, Some(prefix), &root).map_err(|e| bad(&e))?;
        let attributes = if needs_attributes {
            let empty = gix::index::State::new(repo.object_hash());
            Some(
                repo.attributes_only(&empty, gix::worktree::stack::state::attributes::Source::IdMapping)
                    .map_err(|e| bad(&e))?,
            )
        } else {
            None
        };
        Ok(Some(Pathspecs { search, attributes }))
    }

    /// Whether `path` (a file) is inside.
    pub fn includes(&mut self, path: &[u8]) -> bool {
        let attributes = &mut self.attributes;
        self.search
            .pattern_matching_relative_path(
                gix::bstr::BStr::new(path),
                Some(false),
                &mut |rela, case, is_dir, out| {
                    let Some(stack) = attributes.as_mut() else {
                        return false;
                    };
                    let mode = if is_dir {
                        gix::index::entry::Mode::DIR
                    } else {
                        gix::index::entry::Mode::FILE
                    };
                    stack.set_case(case);
                    stack
                        .at_entry(rela, Some(mode))
                        .is_ok_and(|platform| platform.matching_attributes(out))
                },
            )
            .is_some_and(|m| !m.is_excluded())
    }
}

/// Only the changes whose paths `matches` says yes to, like git's pathspec
/// (which limits before renames are found): a rename with only one side
/// inside becomes the addition or deletion of that side.
pub fn limit(changes: Vec<TreeChange>, mut matches: impl FnMut(&[u8]) -> bool) -> Vec<TreeChange> {
    let mut out = Vec::with_capacity(changes.len());
    for c in changes {
        let Some(old_path) = c.old_path.clone() else {
            if matches(&c.path) {
                out.push(c);
            }
            continue;
        };
        match (matches(&old_path), matches(&c.path)) {
            (true, true) => out.push(c),
            (false, false) => {}
            (false, true) => out.push(TreeChange {
                kind: ChangeKind::Added,
                old_path: None,
                old: None,
                similarity: None,
                ..c
            }),
            (true, false) => out.push(TreeChange {
                path: old_path,
                kind: ChangeKind::Deleted,
                old_path: None,
                new: None,
                similarity: None,
                ..c
            }),
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
