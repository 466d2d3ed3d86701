//! A tree is checked whole before any of it is written: every entry's name
//! by git's rules ([`crate::model::path`]), path and symlink-target lengths,
//! and that what an entry says is a tree is one. A checkpoint may have been
//! fetched from someone else; one that fails is refused before the first
//! file changes, and `verify` reports the same findings.

use std::collections::HashMap;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::model::path::{self, MAX_LINK_TARGET, MAX_PATH};

/// One thing wrong in a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The path of the entry (as far as it could be built).
    pub path: BString,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: String = self
            .path
            .to_str_lossy()
            .chars()
            .map(|c| {
                if c.is_control() || crate::model::thread::is_bidi_control(c) {
                    '?'
                } else {
                    c
                }
            })
            .collect();
        write!(f, "{shown}: {}", self.problem)
    }
}

/// Largest tree object read (a folder of a million files is ~40 MiB).
const MAX_TREE_BYTES: u64 = 64 << 20;
/// Most entries walked in one check: a few small trees that repeat one
/// another can stand for billions of paths.
pub const MAX_ENTRIES: usize = 5_000_000;

/// Entries walked before the tree's size is counted first.
const COUNT_AFTER: usize = 20_000;

/// A finding when `tree` holds more files than a diff would compare.
fn too_many_files(repo: &gix::Repository, tree: ObjectId) -> Option<Finding> {
    let cap = crate::diff::changes::MAX_CHANGES;
    match crate::diff::changes::file_count(repo, tree) {
        Ok(n) if n > cap as u64 => Some(Finding {
            path: BString::default(),
            problem: format!("more than {cap} files in the tree (not written)"),
        }),
        Ok(_) => None,
        Err(e) => Some(Finding {
            path: BString::default(),
            problem: crate::error::one_line(&e),
        }),
    }
}

/// Read tree `id` as `(name, kind, id)` entries, or say why it cannot be.
fn entries(repo: &gix::Repository, id: ObjectId) -> Result<Vec<(BString, EntryKind, ObjectId)>, String> {
    let header = repo
        .find_header(id)
        .map_err(|e| format!("tree {id} cannot be read: {e}"))?;
    if header.size() > MAX_TREE_BYTES {
        return Err(format!(
            "tree {id} is {} bytes, more than the {MAX_TREE_BYTES} accepted",
            header.size()
        ));
    }
    let object = repo
        .find_object(id)
        .map_err(|e| format!("tree {id} cannot be read: {e}"))?;
    if object.kind != gix::objs::Kind::Tree {
        return Err(format!("{id} is a {}, not a tree", object.kind));
    }
    gix::objs::TreeRefIter::from_bytes(&object.data, id.kind())
        .map(|e| {
            e.map(|e| (e.filename.to_owned(), e.mode.kind(), e.oid.to_owned()))
                .map_err(|e| format!("tree {id} does not parse: {e}"))
        })
        .collect()
}

/// Everything wrong in tree `tree` (empty: it may be written). Subtrees
/// equal to those of `known` at the same path (a tree already trusted, like
/// HEAD's) are not read again. At most `limit` findings are returned.
pub fn check_tree(
    repo: &gix::Repository,
    tree: ObjectId,
    known: Option<ObjectId>,
    limit: usize,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut stack = vec![(tree, BString::default(), known)];
    let mut walked = 0usize;
    while let Some((id, prefix, known)) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        let list = match entries(repo, id) {
            Ok(l) => l,
            Err(problem) => {
                out.push(Finding {
                    path: prefix,
                    problem,
                });
                continue;
            }
        };
        let before = walked;
        walked += list.len();
        // Trees that repeat one another can stand for billions of paths:
        // past a large walk, count them (each distinct tree read once).
        if before < COUNT_AFTER
            && walked >= COUNT_AFTER
            && let Some(f) = too_many_files(repo, tree)
        {
            out.push(f);
            break;
        }
        if walked > MAX_ENTRIES {
            out.push(Finding {
                path: prefix,
                problem: format!("more than {MAX_ENTRIES} paths in the tree (not written)"),
            });
            break;
        }
        let known: HashMap<BString, (EntryKind, ObjectId)> = known
            .and_then(|k| entries(repo, k).ok())
            .map(|l| l.into_iter().map(|(n, k, i)| (n, (k, i))).collect())
            .unwrap_or_default();
        let mut seen = std::collections::HashSet::with_capacity(list.len());
        for (name, kind, oid) in list {
            if !seen.insert(name.clone()) {
                let mut path = prefix.clone();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(&name);
                out.push(Finding {
                    path,
                    problem: "a name that appears twice in its tree (git fsck: duplicateEntries)".into(),
                });
                continue;
            }
            let mut path = prefix.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&name);
            if let Err(p) = path::check_component(&name) {
                out.push(Finding {
                    path,
                    problem: p.as_str().into(),
                });
                continue;
            }
            if path.len() > MAX_PATH {
                out.push(Finding {
                    path,
                    problem: format!("a path longer than {MAX_PATH} bytes"),
                });
                continue;
            }
            match kind {
                EntryKind::Tree => {
                    let same = known
                        .get(&name)
                        .is_some_and(|(k, i)| *k == EntryKind::Tree && *i == oid);
                    if !same {
                        let under = known
                            .get(&name)
                            .filter(|(k, _)| *k == EntryKind::Tree)
                            .map(|(_, i)| *i);
                        stack.push((oid, path, under));
                    }
                }
                EntryKind::Link => {
                    if let Err(problem) = link_target(repo, oid) {
                        out.push(Finding { path, problem });
                    }
                }
                EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Commit => {}
            }
        }
    }
    out.truncate(limit);
    out
}

fn link_target(repo: &gix::Repository, id: ObjectId) -> Result<(), String> {
    let header = repo
        .find_header(id)
        .map_err(|e| format!("symlink {id} cannot be read: {e}"))?;
    if header.kind() != gix::objs::Kind::Blob {
        return Err(format!(
            "a symlink whose target {id} is a {}, not a blob",
            header.kind()
        ));
    }
    if header.size() > MAX_LINK_TARGET as u64 {
        return Err(format!(
            "a symlink target of {} bytes (at most {MAX_LINK_TARGET})",
            header.size()
        ));
    }
    Ok(())
}
