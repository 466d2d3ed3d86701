//! How `--stat`, `--numstat` and `--summary` name a file: quoted as git
//! quotes it, a rename as git's `pprint_rename` writes it.

use gix::bstr::ByteSlice;

use super::patch::quote_as;
use crate::model::note::FileChange;

/// git's `pprint_rename`: `pfx{old => new}sfx` around a common prefix and suffix.
pub fn rename_label(old: &[u8], new: &[u8]) -> Vec<u8> {
    let (la, lb) = (old.len(), new.len());
    let mut pfx = 0;
    let mut i = 0;
    while i < la && i < lb && old[i] == new[i] {
        if old[i] == b'/' {
            pfx = i + 1;
        }
        i += 1;
    }
    let adjust = usize::from(pfx > 0);
    let mut sfx = 0;
    let (mut ia, mut ib) = (la as isize - 1, lb as isize - 1);
    // Walk back from the ends, allowed to reach one into the prefix's slash.
    let floor = pfx as isize - adjust as isize;
    while ia >= floor && ib >= floor && ia >= 0 && ib >= 0 && old[ia as usize] == new[ib as usize] {
        if old[ia as usize] == b'/' {
            sfx = la - ia as usize;
        }
        ia -= 1;
        ib -= 1;
    }
    let a_mid = la.saturating_sub(pfx + sfx);
    let b_mid = lb.saturating_sub(pfx + sfx);
    let mut s = Vec::new();
    if pfx + sfx > 0 {
        s.extend_from_slice(&old[..pfx]);
        s.push(b'{');
    }
    s.extend_from_slice(&old[pfx..pfx + a_mid]);
    s.extend_from_slice(b" => ");
    s.extend_from_slice(&new[pfx..pfx + b_mid]);
    if pfx + sfx > 0 {
        s.push(b'}');
        s.extend_from_slice(&old[la - sfx..]);
    }
    s
}

/// A file's name in `--stat` and `--numstat`: quoted, a rename as `{old =>
/// new}`; as git's `pprint_rename`, a rename where either name needs
/// quoting is both names whole, each quoted: `"a\303\274" => "b"`.
pub(super) fn display_name(f: &FileChange, quote_high: bool) -> Vec<u8> {
    let raw = f.path_bytes();
    let path = quote_as(raw.as_bstr(), quote_high);
    match f.old_path_bytes() {
        Some(old) => {
            let quoted_old = quote_as(old.as_bstr(), quote_high);
            if quoted_old[..] != old[..] || path[..] != raw[..] {
                let mut s = quoted_old;
                s.extend_from_slice(b" => ");
                s.extend_from_slice(&path);
                s
            } else {
                rename_label(&old, &raw)
            }
        }
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::rename_label;

    #[test]
    fn renames_print_like_git() {
        let l = |a: &str, b: &str| String::from_utf8(rename_label(a.as_bytes(), b.as_bytes())).unwrap();
        assert_eq!(
            l("docs/old name.txt", "docs/new name.txt"),
            "docs/{old name.txt => new name.txt}"
        );
        assert_eq!(l("a.txt", "b.txt"), "a.txt => b.txt");
        assert_eq!(l("src/a/x.rs", "src/b/x.rs"), "src/{a => b}/x.rs");
        // Checked against git 2.47: no common directory, no braces.
        assert_eq!(l("x.rs", "sub/x.rs"), "x.rs => sub/x.rs");
        assert_eq!(l("sub/x.rs", "x.rs"), "sub/x.rs => x.rs");
        assert_eq!(l("a/b/c.rs", "a/c.rs"), "a/{b => }/c.rs");
    }
}
