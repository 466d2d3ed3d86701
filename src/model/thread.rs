//! Thread ids and the ref names derived from them.
//!
//! A thread id is 1–190 bytes of UTF-8 without control characters. Its refs
//! live under `refs/t3/checkpoints/<base64url-no-pad(id)>/turn/<n>`; the
//! journal of a revert in progress and the undo slot use the same encoding.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::{Error, Result};

/// Where every checkpoint ref lives.
pub const CHECKPOINTS_PREFIX: &str = "refs/t3/checkpoints/";
/// Everything git-t3 owns under refs/.
pub const T3_PREFIX: &str = "refs/t3/";
/// The notes ref holding checkpoint metadata.
pub const NOTES_REF: &str = "refs/notes/t3";
/// Where turns a remote has for a local thread, that do not continue it,
/// are kept: `refs/t3/remotes/<remote>/<b64 thread>/turn/<n>`.
pub const REMOTES_PREFIX: &str = "refs/t3/remotes/";
/// How far above a thread's latest turn a fetched turn may be.
pub const MAX_FETCHED_TURN_GAP: u64 = 100_000;

/// The ref-name component for `remote` (a configured name, else a URL or
/// path made one): letters, digits, `.`, `_`, `-`, not starting with `.`
/// or `-`, not ending with `.` or `.lock`, at most 64 bytes. A name that
/// had to be changed gets a hash of the original appended, so two remotes
/// never share one (`team/alice` and `team-alice`).
pub fn remote_component(remote: &str) -> String {
    let mut out: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("..") {
        out = out.replace("..", ".");
    }
    let mut out: String = out.trim_start_matches(['.', '-']).chars().take(48).collect();
    loop {
        let trimmed = out.trim_end_matches('.');
        let trimmed = trimmed.strip_suffix(".lock").unwrap_or(trimmed);
        if trimmed.len() == out.len() {
            break;
        }
        out = trimmed.to_owned();
    }
    if out == remote && !out.is_empty() {
        return out;
    }
    let hash = crc32fast::hash(remote.as_bytes());
    if out.is_empty() {
        format!("remote-{hash:08x}")
    } else {
        format!("{out}-{hash:08x}")
    }
}

/// The highest turn number: far beyond any conversation, far below
/// overflow (a ref named `turn/18446744073709551615` is not a checkpoint).
pub const MAX_TURN: u64 = 1_000_000_000;
/// Longest thread id accepted, in bytes.
pub const MAX_THREAD_BYTES: usize = 190;

/// A validated thread id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(String);

impl ThreadId {
    /// Validate `raw` as a thread id: 1–190 bytes of UTF-8, no control characters.
    pub fn parse(raw: &str) -> Result<Self> {
        if raw.is_empty() {
            return Err(Error::usage("the thread id is empty"));
        }
        if raw.len() > MAX_THREAD_BYTES {
            return Err(Error::usage(format!(
                "the thread id is {} bytes long; at most {MAX_THREAD_BYTES} are allowed",
                raw.len()
            )));
        }
        if let Some(c) = raw.chars().find(|c| c.is_control() || is_bidi_control(*c)) {
            return Err(Error::usage(format!(
                "the thread id contains the control character U+{:04X}",
                u32::from(c)
            )));
        }
        if raw.trim().is_empty() {
            return Err(Error::usage("the thread id is only whitespace"));
        }
        Ok(ThreadId(raw.to_owned()))
    }

    /// Decode the `<b64>` component of a ref name back into a thread id, if it is one.
    pub fn from_encoded(encoded: &str) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(encoded).ok()?;
        let id = String::from_utf8(bytes).ok()?;
        let id = ThreadId::parse(&id).ok()?;
        // Reject non-canonical encodings so that one thread has exactly one ref prefix.
        (id.encoded() == encoded).then_some(id)
    }

    /// The raw id.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// base64url without padding of the id's UTF-8 bytes.
    pub fn encoded(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.0.as_bytes())
    }

    /// `refs/t3/checkpoints/<b64>/` — the prefix of all of this thread's checkpoints.
    pub fn checkpoints_prefix(&self) -> String {
        format!("{CHECKPOINTS_PREFIX}{}/turn/", self.encoded())
    }

    /// The checkpoint ref of `turn`.
    pub fn checkpoint_ref(&self, turn: u64) -> String {
        format!("{}{turn}", self.checkpoints_prefix())
    }

    /// `refs/t3/remotes/<remote>/<b64>/turn/`: where turns of this thread
    /// fetched from `remote` (see [`remote_component`]) that do not continue
    /// the local thread are kept.
    pub fn remote_prefix(&self, remote: &str) -> String {
        format!(
            "{REMOTES_PREFIX}{}/{}/turn/",
            remote_component(remote),
            self.encoded()
        )
    }

    /// The journal ref of a revert in progress.
    pub fn revert_journal_ref(&self) -> String {
        format!("{T3_PREFIX}reverts/{}", self.encoded())
    }

    /// The ref keeping the safety checkpoint of the last completed revert.
    pub fn undo_ref(&self) -> String {
        format!("{T3_PREFIX}undo/{}", self.encoded())
    }
}

impl std::fmt::Display for ThreadId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Characters that reorder text on a terminal (bidi embeddings, overrides
/// and isolates): a thread id holding one could show as another.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A checkpoint ref name taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRef {
    /// The decoded thread.
    pub thread: ThreadId,
    /// The turn number.
    pub turn: u64,
}

/// Why a name under `refs/t3/checkpoints/` is not a well-formed checkpoint ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefNameProblem {
    /// The name is not `refs/t3/checkpoints/<b64>/turn/<n>`.
    Layout,
    /// The `<b64>` part does not decode to a valid thread id.
    Thread,
    /// The turn is not a canonical decimal number.
    Turn,
}

impl std::fmt::Display for RefNameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefNameProblem::Layout => "not of the form refs/t3/checkpoints/<base64url thread>/turn/<n>",
            RefNameProblem::Thread => "the thread part is not base64url (no padding) of a valid thread id",
            RefNameProblem::Turn => "the turn is not a decimal number without leading zeros",
        })
    }
}

/// Parse a full ref name as a checkpoint ref.
pub fn parse_checkpoint_ref(name: &str) -> std::result::Result<CheckpointRef, RefNameProblem> {
    let rest = name
        .strip_prefix(CHECKPOINTS_PREFIX)
        .ok_or(RefNameProblem::Layout)?;
    let (encoded, turn) = rest.split_once("/turn/").ok_or(RefNameProblem::Layout)?;
    if encoded.contains('/') || turn.contains('/') {
        return Err(RefNameProblem::Layout);
    }
    let thread = ThreadId::from_encoded(encoded).ok_or(RefNameProblem::Thread)?;
    let turn = parse_turn(turn).ok_or(RefNameProblem::Turn)?;
    Ok(CheckpointRef { thread, turn })
}

/// Parse a canonical decimal turn number (no sign, no leading zeros).
pub fn parse_turn(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.parse().ok().filter(|t| *t <= MAX_TURN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_becomes_one_safe_ref_component() {
        assert_eq!(remote_component("origin"), "origin");
        assert_eq!(remote_component("my-remote_2"), "my-remote_2");
        let valid = |c: &str| {
            !c.is_empty()
                && !c.starts_with(['.', '-'])
                && !c.ends_with('.')
                && !c.ends_with(".lock")
                && !c.contains("..")
                && c.len() <= 64
                && c.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        };
        let long = "a.".repeat(40);
        for raw in [
            "/srv/git/a b.git",
            "https://h/x/../y",
            "..lock",
            "...",
            "-x.lock",
            "",
            "r.lock.lock",
            &long,
        ] {
            let c = remote_component(raw);
            assert!(valid(&c), "{raw:?} -> {c:?}");
        }
        // Two remotes never share a name.
        assert_ne!(remote_component("team/alice"), remote_component("team-alice"));
        assert_ne!(remote_component("./origin"), remote_component("origin"));
    }

    #[test]
    fn encodes_without_padding_and_round_trips() {
        let t = ThreadId::parse("thread-7f3c").unwrap();
        assert_eq!(t.encoded(), "dGhyZWFkLTdmM2M");
        assert_eq!(t.checkpoint_ref(2), "refs/t3/checkpoints/dGhyZWFkLTdmM2M/turn/2");
        let parsed = parse_checkpoint_ref(&t.checkpoint_ref(12)).unwrap();
        assert_eq!(parsed, CheckpointRef { thread: t, turn: 12 });
    }

    #[test]
    fn rejects_bad_ids() {
        assert!(ThreadId::parse("").is_err());
        assert!(ThreadId::parse(&"x".repeat(191)).is_err());
        assert!(ThreadId::parse(&"x".repeat(190)).is_ok());
        assert!(ThreadId::parse("a\nb").is_err());
        assert!(ThreadId::parse("a\u{7f}b").is_err());
        assert!(ThreadId::parse("ünïcødé thread").is_ok());
    }

    #[test]
    fn rejects_foreign_ref_names() {
        assert_eq!(
            parse_checkpoint_ref("refs/heads/main"),
            Err(RefNameProblem::Layout)
        );
        assert_eq!(
            parse_checkpoint_ref("refs/t3/checkpoints/!!/turn/1"),
            Err(RefNameProblem::Thread)
        );
        assert_eq!(
            parse_checkpoint_ref("refs/t3/checkpoints/dGhyZWFk/turn/01"),
            Err(RefNameProblem::Turn)
        );
        assert_eq!(
            parse_checkpoint_ref("refs/t3/checkpoints/dGhyZWFk/turn/-1"),
            Err(RefNameProblem::Turn)
        );
        assert_eq!(
            parse_checkpoint_ref("refs/t3/checkpoints/dGhyZWFk/turn/1/x"),
            Err(RefNameProblem::Layout)
        );
        // padding is not canonical
        assert_eq!(
            parse_checkpoint_ref("refs/t3/checkpoints/YQ==/turn/1"),
            Err(RefNameProblem::Thread)
        );
        assert_eq!(parse_turn("99999999999999999999999"), None);
    }
}
