//! The revert journal: the saga's state, stored as the note of the safety
//! checkpoint that `refs/t3/reverts/<b64>` points to.
//!
//! Journals may come from other machines or be damaged, so they are parsed
//! strictly (size limit, known fields only, valid ids) by one parser that
//! `revert` and `verify` share. Writing one that cannot be serialized is an
//! error, never an empty note.

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::note::RemovedRef;
use crate::model::oid::Oid;
use crate::repo::{self, NotesReader};

/// The largest journal note accepted (a thread with thousands of removed turns fits).
pub const MAX_JOURNAL_BYTES: usize = 4 << 20;

/// The saga's steps, in order; the journal names the next one to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Write the target's files.
    Restore,
    /// Roll the conversation back.
    Provider,
    /// Delete the refs above the target.
    Refs,
    /// Record the revert and finish.
    Record,
    /// Finished (only the ref swap may be left).
    Done,
}

impl Step {
    /// The lowercase name used in the journal and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Restore => "restore",
            Step::Provider => "provider",
            Step::Refs => "refs",
            Step::Record => "record",
            Step::Done => "done",
        }
    }
}

/// The saga's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    /// Always 1.
    pub schema: u32,
    /// Always "revert".
    pub kind: String,
    /// The thread.
    pub thread: String,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn reverted to.
    pub to_turn: u64,
    /// The target's ref, or `HEAD` when turn 0 was gone.
    pub target: String,
    /// The target tree.
    pub target_tree: Oid,
    /// The tree of the safety checkpoint (the worktree before the revert).
    pub safety_tree: Oid,
    /// The next step to run.
    pub step: Step,
    /// Leave the conversation alone.
    pub files_only: bool,
    /// The thread's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The refs above the target, with their notes.
    #[serde(default)]
    pub removed: Vec<RemovedRef>,
    /// When the revert started.
    pub started_at: String,
    /// The user's index before the revert, as a tree, when it differed from HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_tree: Option<Oid>,
    /// The operation log's tip when the revert began: its op is one of those
    /// above it (a safety commit can repeat, so it is not enough to know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_tip: Option<String>,
    /// Nested repositories moved out of the restore's way (with `--force`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_aside: Vec<crate::oplog::MovedAside>,
    /// The transcript changes a built-in provider makes in the provider
    /// step, planned (and their blobs kept) before anything changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcripts: Vec<crate::oplog::TranscriptChange>,
}

impl Journal {
    /// Parse a journal note, refusing oversized, malformed or inconsistent input.
    pub fn parse(data: &[u8]) -> std::result::Result<Self, ParseError> {
        use crate::model::document::{self, DocumentError};
        let j: Journal = document::read(data, MAX_JOURNAL_BYTES).map_err(|e| match e {
            DocumentError::TooLarge { len } => ParseError::TooLarge { len },
            DocumentError::NotUtf8 => ParseError::NotUtf8,
            DocumentError::Toml(m) => ParseError::Toml(m),
        })?;
        if j.schema != 1 || j.kind != "revert" {
            return Err(ParseError::Schema {
                schema: j.schema,
                kind: j.kind,
            });
        }
        if j.to_turn > j.from_turn {
            return Err(ParseError::Inconsistent(format!(
                "it reverts from turn {} to the later turn {}",
                j.from_turn, j.to_turn
            )));
        }
        // The removed refs come from notes (`model::note`), which keep
        // their ids as text: checked here.
        for id in j
            .removed
            .iter()
            .map(|r| &r.commit)
            .chain(j.removed.iter().filter_map(|r| r.note.as_ref()))
        {
            oid(id).map_err(ParseError::Inconsistent)?;
        }
        Ok(j)
    }

    /// The journal as note bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        toml::to_string(self)
            .map(String::into_bytes)
            .map_err(|e| Error::Internal(format!("could not serialize the revert journal: {e}")))
    }

    /// The target tree.
    pub fn target_tree(&self) -> ObjectId {
        self.target_tree.get()
    }

    /// The tree of the safety checkpoint.
    pub fn safety_tree(&self) -> ObjectId {
        self.safety_tree.get()
    }

    /// Whether the saga calls a provider helper (a step a re-run would repeat).
    pub fn calls_provider(&self) -> bool {
        self.from_turn > self.to_turn
            && !self.files_only
            && self.provider.as_deref().is_some_and(|p| p != "none")
    }
}

/// Why a note is not a journal this build can run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Bigger than [`MAX_JOURNAL_BYTES`].
    #[error("the journal is {len} bytes, more than the {MAX_JOURNAL_BYTES} accepted")]
    TooLarge {
        /// Its size.
        len: usize,
    },
    /// Not UTF-8 text.
    #[error("the journal is not UTF-8")]
    NotUtf8,
    /// Not TOML of the journal's shape.
    #[error("the journal does not parse: {0}")]
    Toml(String),
    /// Another schema or kind.
    #[error(
        "the journal has schema {schema} and kind '{kind}'; this git-t3 understands schema 1, kind 'revert'"
    )]
    Schema {
        /// Its schema.
        schema: u32,
        /// Its kind.
        kind: String,
    },
    /// Fields that contradict each other or are not ids.
    #[error("the journal is inconsistent: {0}")]
    Inconsistent(String),
}

/// Parse a hex object id from the journal.
pub fn oid(s: &str) -> std::result::Result<ObjectId, String> {
    ObjectId::from_hex(s.as_bytes()).map_err(|_| format!("'{s}' is not an object id"))
}

/// The journal at `reference` and the commit it is the note of, if the ref exists.
pub fn read(repo: &gix::Repository, reference: &str) -> Result<Option<(ObjectId, Journal)>> {
    let Some(commit) = repo::find_direct_ref(repo, reference)? else {
        return Ok(None);
    };
    let data = NotesReader::open(repo)?
        .get(commit)?
        .ok_or_else(|| Error::BadMetadata {
            reference: reference.to_owned(),
            problem: "the journal has no note".into(),
        })?;
    let journal = Journal::parse(&data).map_err(|e| Error::BadMetadata {
        reference: reference.to_owned(),
        problem: e.to_string(),
    })?;
    Ok(Some((commit, journal)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_tree() -> Oid {
        ObjectId::empty_tree(gix::hash::Kind::Sha1).into()
    }

    fn sample() -> Journal {
        Journal {
            schema: 1,
            kind: "revert".into(),
            thread: "t".into(),
            from_turn: 3,
            to_turn: 1,
            target: "refs/t3/checkpoints/dA/turn/1".into(),
            target_tree: empty_tree(),
            safety_tree: empty_tree(),
            step: Step::Provider,
            files_only: false,
            provider: Some("claude-code".into()),
            removed: vec![RemovedRef {
                turn: 2,
                commit: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".into(),
                note: None,
            }],
            started_at: "2026-12-03T00:00:00Z".into(),
            index_tree: None,
            ops_tip: None,
            moved_aside: Vec::new(),
            transcripts: Vec::new(),
        }
    }

    #[test]
    fn round_trips() {
        let j = sample();
        assert_eq!(Journal::parse(&j.to_bytes().unwrap()).unwrap(), j);
        assert!(j.calls_provider());
    }

    #[test]
    fn refuses_what_a_saga_cannot_run_on() {
        let text = String::from_utf8(sample().to_bytes().unwrap()).unwrap();
        for bad in [
            text.replace("schema = 1", "schema = 2"),
            text.replace("kind = \"revert\"", "kind = \"other\""),
            text.replace("step = \"provider\"", "step = \"explode\""),
            text.replace("to_turn = 1", "to_turn = 9"),
            text.replace("4b825dc642cb6eb9a060e54bf8d69288fbee4904", "not-an-id"),
            format!("surprise = 1\n{text}"),
            "x".repeat(MAX_JOURNAL_BYTES + 1),
        ] {
            assert!(Journal::parse(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(Journal::parse(b"\xff\xfe").is_err());
    }

    /// A journal with every id field, as git-t3 wrote it when the ids were
    /// strings.
    const FULL: &str = r#"schema = 1
kind = "revert"
thread = "t"
from_turn = 3
to_turn = 1
target = "refs/t3/checkpoints/dA/turn/1"
target_tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
safety_tree = "0123456789abcdef0123456789abcdef01234567"
step = "provider"
files_only = false
provider = "codex"
started_at = "2026-12-03T00:00:00Z"
index_tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ops_tip = "0123456789abcdef0123456789abcdef01234567"

[[removed]]
turn = 2
commit = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
note = "0123456789abcdef0123456789abcdef01234567"

[[moved_aside]]
path = "n"
to = "/x"

[[transcripts]]
agent = "codex"
path = "/p"
before = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
after = "0123456789abcdef0123456789abcdef01234567"
how = "x"
"#;

    #[test]
    fn writes_the_bytes_it_wrote_when_ids_were_text() {
        let j = Journal::parse(FULL.as_bytes()).unwrap();
        assert_eq!(j.to_bytes().unwrap(), FULL.as_bytes());
        // A short, non-hex or empty tree id is refused as before.
        for bad in ["4b825dc", "4b825dc642cb6eb9a060e54bf8d69288fbee490x", ""] {
            for field in ["target_tree", "safety_tree", "index_tree"] {
                let line = FULL.lines().find(|l| l.starts_with(field)).unwrap();
                let text = FULL.replace(line, &format!("{field} = \"{bad}\""));
                assert!(Journal::parse(text.as_bytes()).is_err(), "{text}");
            }
        }
        // The ops tip was never checked when parsing (only where it is used).
        let text = FULL.replace(
            "ops_tip = \"0123456789abcdef0123456789abcdef01234567\"",
            "ops_tip = \"zz\"",
        );
        assert_eq!(
            Journal::parse(text.as_bytes()).unwrap().ops_tip.as_deref(),
            Some("zz")
        );
    }
}
