//! What makes a cached listing be read again besides its stat data: the
//! tracked paths changed under it (HEAD moved), or a `.gitignore` became
//! tracked or untracked (then everything is read again).

use std::collections::HashSet;

use gix::bstr::{BStr, BString, ByteSlice};

/// What invalidates parts of the cache besides stat data.
#[derive(Debug, Default)]
pub(in crate::snapshot) struct Invalid {
    /// Directories to read again (ancestors of paths that became tracked or
    /// untracked).
    pub(super) dirs: HashSet<BString>,
    /// Read everything again.
    pub(super) all: bool,
}

impl Invalid {
    /// The directories to read again after the tracked paths changed from
    /// `old` to `new` (both sorted, as in an index): every ancestor of a path
    /// in one and not the other; everything when a `.gitignore` is among them.
    pub(in crate::snapshot) fn tracked_paths_changed<'a>(
        old: impl Iterator<Item = &'a BStr>,
        new: impl Iterator<Item = &'a BStr>,
    ) -> Invalid {
        let mut out = Invalid::default();
        let mut old = old.peekable();
        let mut new = new.peekable();
        let changed = |p: &BStr, out: &mut Invalid| {
            if p.rsplit_str("/").next() == Some(b".gitignore".as_slice()) {
                out.all = true;
            }
            let mut p = p;
            while let Some(i) = p.rfind_byte(b'/') {
                p = p[..i].as_bstr();
                if !out.dirs.insert(p.to_owned()) {
                    return;
                }
            }
            out.dirs.insert(BString::default());
        };
        loop {
            match (old.peek(), new.peek()) {
                (Some(a), Some(b)) => match a.cmp(b) {
                    std::cmp::Ordering::Equal => {
                        old.next();
                        new.next();
                    }
                    std::cmp::Ordering::Less => {
                        changed(a, &mut out);
                        old.next();
                    }
                    std::cmp::Ordering::Greater => {
                        changed(b, &mut out);
                        new.next();
                    }
                },
                (Some(a), None) => {
                    changed(a, &mut out);
                    old.next();
                }
                (None, Some(b)) => {
                    changed(b, &mut out);
                    new.next();
                }
                (None, None) => break,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_tracked_paths_invalidate_their_ancestors() {
        let old: Vec<BString> = vec!["a/b/c".into(), "a/d".into(), "e".into()];
        let new: Vec<BString> = vec!["a/b/c".into(), "e".into(), "f/g/h".into()];
        let inv =
            Invalid::tracked_paths_changed(old.iter().map(|p| p.as_bstr()), new.iter().map(|p| p.as_bstr()));
        assert!(!inv.all);
        let mut dirs: Vec<_> = inv.dirs.into_iter().collect();
        dirs.sort();
        assert_eq!(
            dirs,
            vec![BString::from(""), "a".into(), "f".into(), "f/g".into()]
        );
        let new2: Vec<BString> = vec!["a/.gitignore".into()];
        let inv = Invalid::tracked_paths_changed(std::iter::empty(), new2.iter().map(|p| p.as_bstr()));
        assert!(inv.all);
    }
}
