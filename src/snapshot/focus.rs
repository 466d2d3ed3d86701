//! Where to look when a file-system watcher said what changed: the paths it
//! listed since the token stored with the last capture's cache. Everything
//! else is taken from the cache without even an `lstat`.
//!
//! A tracked entry is checked when its path was listed (or, for a watcher
//! whose listed directories stand for their whole subtree, when one of its
//! ancestors was); gitlinks are always checked. A cached directory is
//! checked (stat data, then read if that changed) when it was listed, holds
//! a listed path, or is below a listed subtree.

use std::collections::HashSet;

use gix::bstr::{BStr, BString, ByteSlice as _};

use super::watcher::Changes;
use crate::model::path::parent;

/// The paths a watcher listed.
#[derive(Debug, Default)]
pub(super) struct Focus {
    /// The listed paths.
    paths: HashSet<BString>,
    /// The listed paths and their parents: directories whose listing may
    /// have changed.
    dirs: HashSet<BString>,
    /// Whether a listed directory stands for everything below it.
    subtrees: bool,
}

impl Focus {
    /// The focus of `changes`; `None` when everything may have changed.
    pub(super) fn of(changes: &Changes) -> Option<Focus> {
        let listed = changes.paths.as_ref()?;
        let mut focus = Focus {
            subtrees: changes.subtrees,
            ..Focus::default()
        };
        for path in listed {
            // Every ancestor: a hook lists changed files, not the new
            // directories they are in, so a directory created below an
            // unchanged-looking one must be found by checking each one up.
            let mut dir = path.as_bstr();
            while !dir.is_empty() {
                dir = parent(dir);
                if !focus.dirs.insert(dir.to_owned()) {
                    break;
                }
            }
            focus.dirs.insert(path.clone());
            focus.paths.insert(path.clone());
        }
        Some(focus)
    }

    /// How many paths were listed.
    pub(super) fn len(&self) -> usize {
        self.paths.len()
    }

    /// The listed paths.
    pub(super) fn paths(&self) -> impl Iterator<Item = &BStr> {
        self.paths.iter().map(|p| p.as_bstr())
    }

    /// The directories whose listing may have changed: the listed paths and
    /// every ancestor of one (with [`Focus::subtrees`], also everything
    /// below a listed directory).
    pub(super) fn dirs(&self) -> impl Iterator<Item = &BStr> {
        self.dirs.iter().map(|p| p.as_bstr())
    }

    /// Whether a listed directory stands for everything below it.
    pub(super) fn subtrees(&self) -> bool {
        self.subtrees
    }

    /// Whether the tracked file `path` may have changed (what
    /// `mark_unlisted` finds by binary search in the index).
    #[cfg(test)]
    pub(super) fn file_may_have_changed(&self, path: &BStr) -> bool {
        self.paths.contains(path) || (self.subtrees && self.ancestor_listed(path))
    }

    /// Whether the listing of the directory `dir` ("" for the root) may
    /// have changed: it was listed, or holds a listed path at any depth
    /// (then its stat data tells).
    pub(super) fn dir_may_have_changed(&self, dir: &BStr) -> bool {
        self.dirs.contains(dir) || (self.subtrees && self.ancestor_listed(dir))
    }

    fn ancestor_listed(&self, path: &BStr) -> bool {
        path.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .any(|(i, _)| path.get(..i).is_some_and(|p| self.paths.contains(p.as_bstr())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(paths: &[&str], subtrees: bool) -> Changes {
        Changes {
            token: Some("t".into()),
            paths: Some(paths.iter().map(|p| BString::from(*p)).collect()),
            subtrees,
        }
    }

    #[test]
    fn listed_files_and_their_directories() {
        let f = Focus::of(&changes(&["a/b/c.txt", "top.txt", "gone"], false)).unwrap();
        assert!(f.file_may_have_changed("a/b/c.txt".into()));
        assert!(f.file_may_have_changed("top.txt".into()));
        assert!(!f.file_may_have_changed("a/b/d.txt".into()));
        assert!(
            !f.file_may_have_changed("gone/x".into()),
            "Watchman lists a subtree's files"
        );
        assert!(f.dir_may_have_changed("a/b".into()));
        assert!(f.dir_may_have_changed("".into()), "the root holds top.txt");
        assert!(
            f.dir_may_have_changed("gone".into()),
            "a listed path may be a directory"
        );
        assert!(
            f.dir_may_have_changed("a".into()),
            "a new directory below a/ shows in its stat"
        );
        assert!(!f.dir_may_have_changed("c".into()));
        assert!(!f.dir_may_have_changed("gone/sub".into()));
    }

    #[test]
    fn a_hooks_directories_stand_for_their_subtrees() {
        let f = Focus::of(&changes(&["moved"], true)).unwrap();
        assert!(f.file_may_have_changed("moved/deep/x.txt".into()));
        assert!(f.dir_may_have_changed("moved/deep".into()));
        assert!(!f.file_may_have_changed("moved2/x".into()));
        assert!(!f.dir_may_have_changed("other".into()));
    }

    #[test]
    fn everything_is_no_focus() {
        let all = Changes {
            token: Some("t".into()),
            paths: None,
            subtrees: true,
        };
        assert!(Focus::of(&all).is_none());
    }
}
