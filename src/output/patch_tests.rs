//! The unit tests of `patch.rs`.

use super::*;
use crate::diff::patch::{Line, LineKind};

fn id(hex: &str) -> ObjectId {
    ObjectId::from_hex(hex.as_bytes()).unwrap_or_else(|_| ObjectId::null(gix::hash::Kind::Sha1))
}

fn text(p: &FilePatch, color: bool) -> String {
    let mut out = Vec::new();
    let look = Look::default();
    let style = Style {
        color,
        quote_high: true,
        look: &look,
        prefixes: ["a/", "b/"],
        suppress_blank_empty: false,
        words: None,
        word_regex: None,
    };
    write(p, style, &mut out).expect("writing to a Vec");
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn ranges_like_git() {
    assert_eq!(span(1, 0), "0,0");
    assert_eq!(span(6, 0), "5,0");
    assert_eq!(span(1, 1), "1");
    assert_eq!(span(5, 3), "5,3");
}

#[test]
fn base85_matches_git() {
    let mut out = Vec::new();
    base85(b"\x00\x00\x00\x00", &mut out);
    assert_eq!(out, b"00000");
    out.clear();
    base85(&[0xff; 4], &mut out);
    assert_eq!(out, b"|NsC0");
}

#[test]
fn a_renamed_file_with_a_space_and_a_new_mode() {
    let p = FilePatch {
        header: Header {
            old_path: "old name.txt".into(),
            new_path: "new name.txt".into(),
            old_id: id("1111111111111111111111111111111111111111"),
            new_id: id("2222222222222222222222222222222222222222"),
            event: Event::Renamed {
                old_mode: EntryKind::Blob,
                new_mode: EntryKind::BlobExecutable,
                similarity: 75,
            },
            full_ids: false,
            abbrev: [7, 7],
        },
        blank_at_eof: None,
        written: Default::default(),
        body: Body::Text(vec![Hunk {
            old_start: 1,
            old_len: 1,
            new_start: 1,
            new_len: 1,
            function: None,
            lines: vec![
                Line {
                    kind: LineKind::Removed,
                    text: b"a".to_vec(),
                    no_newline: true,
                },
                Line {
                    kind: LineKind::Added,
                    text: b"b".to_vec(),
                    no_newline: false,
                },
            ],
        }]),
    };
    assert_eq!(
        text(&p, false),
        "diff --git a/old name.txt b/new name.txt\n\
             old mode 100644\nnew mode 100755\nsimilarity index 75%\n\
             rename from old name.txt\nrename to new name.txt\n\
             index 1111111..2222222\n\
             --- a/old name.txt\t\n+++ b/new name.txt\t\n\
             @@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
    );
}

#[test]
fn a_new_binary_file_with_odd_name() {
    let p = FilePatch {
        header: Header {
            old_path: "t\u{e4}b".into(),
            new_path: "t\u{e4}b".into(),
            old_id: ObjectId::null(gix::hash::Kind::Sha1),
            new_id: id("2222222222222222222222222222222222222222"),
            event: Event::Added {
                mode: EntryKind::Blob,
            },
            full_ids: false,
            abbrev: [7, 7],
        },
        body: Body::Binary(Binary::Differ),
        blank_at_eof: None,
        written: Default::default(),
    };
    assert_eq!(
        text(&p, true),
        "\x1b[1mdiff --git \"a/t\\303\\244b\" \"b/t\\303\\244b\"\x1b[m\n\
             \x1b[1mnew file mode 100644\x1b[m\n\
             \x1b[1mindex 0000000..2222222\x1b[m\n\
             Binary files /dev/null and \"b/t\\303\\244b\" differ\n"
    );
}
