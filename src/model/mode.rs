//! File modes as git writes them in patches and summaries.

use gix::objs::tree::EntryKind;

/// The octal mode git prints for an entry kind (`100644`, `120000`, …).
pub fn digits(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Blob => "100644",
        EntryKind::BlobExecutable => "100755",
        EntryKind::Link => "120000",
        EntryKind::Commit => "160000",
        EntryKind::Tree => "040000",
    }
}
