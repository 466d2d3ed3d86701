//! Unit tests of move detection.

use super::detect::indent;
use super::*;

#[test]
fn settings_parse_as_git_parses_them() {
    assert_eq!(Mode::parse("true"), Ok(Some(Mode::Zebra)));
    assert_eq!(Mode::parse("2"), Ok(Some(Mode::Zebra)));
    assert_eq!(Mode::parse("off"), Ok(None));
    assert_eq!(Mode::parse("no"), Ok(None));
    assert_eq!(Mode::parse("dimmed_zebra"), Ok(Some(Mode::DimmedZebra)));
    assert!(Mode::parse("Zebra").is_err());
    assert_eq!(
        parse_ws(" ignore-space-at-eol , ignore-space-change"),
        Ok((Space::Change, false))
    );
    assert_eq!(parse_ws("ignore-all-space,no"), Ok((Space::Exact, false)));
    assert_eq!(parse_ws("allow-indentation-change"), Ok((Space::Exact, true)));
    assert!(parse_ws("allow-indentation-change,ignore-all-space").is_err());
    assert!(parse_ws("").is_err());
}

#[test]
fn indentation_is_measured_as_git_measures_it() {
    assert_eq!(indent(b"  \tx\n", 8), (3, 8));
    assert_eq!(indent(b"\t\tx\n", 4), (2, 8));
    assert_eq!(indent(b"\x0c x\n", 8), (2, 1));
    assert_eq!(indent(b" \t \n", 8), (4, BLANK));
    assert_eq!(indent(b"\n", 8), (1, BLANK));
}

#[test]
fn short_blocks_are_not_moves_except_in_plain_mode() {
    let stream = [Sym::Minus(b"}"), Sym::Other, Sym::Plus(b"}")];
    let zebra = Settings {
        mode: Mode::Zebra,
        space: Space::Exact,
        indentation: false,
    };
    assert_eq!(mark(&stream, zebra, 8), [0, 0, 0]);
    let plain = Settings {
        mode: Mode::Plain,
        ..zebra
    };
    assert_eq!(mark(&stream, plain, 8), [MOVED, 0, MOVED]);
}
