use super::*;

fn ere(p: &str) -> Posix {
    Posix::new(
        p.as_bytes(),
        Flags {
            extended: true,
            ..Flags::default()
        },
    )
    .unwrap()
}

#[test]
fn leftmost_longest_like_glibc() {
    // git's word regex for C in a single-byte locale: the UTF-8 sequence
    // wins over the single byte listed first.
    let bytes = Posix::new(
        b"[a-z]+|[^[:space:]]|[\xc0-\xff][\x80-\xbf]+",
        Flags {
            extended: true,
            ..Flags::default()
        },
    )
    .unwrap();
    assert_eq!(bytes.find("  é".as_bytes()), Some(2..4));
    assert_eq!(ere("sam|samwise").find(b"samwise"), Some(0..7));
    assert_eq!(ere("(|a)").find_group(b"a"), Some((0..1, Some(0..1))));
    assert_eq!(ere("a|").find(b"b"), Some(0..0));
}

#[test]
fn glibc_syntax() {
    let flags = Flags {
        extended: true,
        ..Flags::default()
    };
    for bad in [
        "*a",
        "a|*b",
        "(*a)",
        "a{",
        "a{x",
        "a{1",
        "a{2,1}",
        "^*",
        "a\\",
        "\\1",
        "[[:foo:]]",
        "[z-a]",
    ] {
        assert!(Posix::new(bad.as_bytes(), flags).is_err(), "{bad}");
    }
    assert_eq!(ere("a{,2}").find(b"aaa"), Some(0..2));
    assert_eq!(ere("a)").find(b"a)"), Some(0..2));
    assert_eq!(ere("a**").find(b"aaa"), Some(0..3));
    assert_eq!(ere("\\t").find(b"t"), Some(0..1));
    assert_eq!(ere("[\\t]").find(b"\\"), Some(0..1));
    assert_eq!(ere("[]a]").find(b"]"), Some(0..1));
    assert_eq!(ere("[^]a]").find(b"]b"), Some(1..2));
    assert_eq!(ere("\\<a").find(b"ba a"), Some(3..4));
    assert_eq!(ere("..").find(b"a\0b"), None);
    assert_eq!(ere("[^a]").find(b"a\0b"), Some(1..2));
}

#[test]
fn basic_syntax_for_funcname() {
    let bre = |p: &str| Posix::new(p.as_bytes(), Flags::default()).unwrap();
    assert_eq!(bre("^\\(fn .*\\)$").find_group(b"fn x"), Some((0..4, Some(0..4))));
    assert_eq!(bre("a+").find(b"aa+"), Some(1..3));
    assert_eq!(bre("*a").find(b"*a"), Some(0..2));
    assert_eq!(bre("^*").find(b"*"), Some(0..1));
    assert_eq!(bre("a$b").find(b"a$b"), Some(0..3));
}
