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
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        write!(f, "{shown}: {}", self.problem)
    }
}

/// Read tree `id` as `(name, kind, id)` entries, or say why it cannot be.
fn entries(repo: &gix::Repository, id: ObjectId) -> Result<Vec<(BString, EntryKind, ObjectId)>, String> {
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
        let known: HashMap<BString, (EntryKind, ObjectId)> = known
            .and_then(|k| entries(repo, k).ok())
            .map(|l| l.into_iter().map(|(n, k, i)| (n, (k, i))).collect())
            .unwrap_or_default();
        for (name, kind, oid) in list {
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
