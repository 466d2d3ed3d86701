//! A turn's figures as the views show them: `diff --turn N`'s count when
//! the command filled it in, else the note's record; and what they leave
//! out (the user's edits, whitespace-only changes).

/// A turn's files, lines added and deleted: as `diff --turn N` counts them
/// when known, else the note's record.
pub(super) fn figures(cp: &crate::store::Checkpoint) -> (u64, u64, u64) {
    match cp.counts {
        Some(c) => (c.files as u64, c.additions, c.deletions),
        None => figures_of_note(cp),
    }
}

/// The note's record of a turn: files, lines added and deleted since the
/// turn before, whitespace counted.
pub(super) fn figures_of_note(cp: &crate::store::Checkpoint) -> (u64, u64, u64) {
    let (a, d) = cp.note.totals();
    let files = cp.note.files.len() as u64 + cp.note.files_omitted.unwrap_or_default().files;
    (files, a, d)
}

/// What a turn's figures leave out, said beside them: `+ 2 files edited by
/// you, 1 file changed only in whitespace`.
pub(super) fn left_out(cp: &crate::store::Checkpoint) -> Option<String> {
    let c = cp.counts?;
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if let Some(u) = c.user_edits.filter(|u| *u > 0) {
        parts.push(format!("+ {} edited by you", files(u)));
    }
    if c.whitespace_only > 0 {
        parts.push(format!("{} changed only in whitespace", files(c.whitespace_only)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}
