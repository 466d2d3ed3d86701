//! What `op.toml` holds: an [`Op`] and its parts, parsed strictly (size,
//! schema, every object id), and an op as the log lists it ([`Entry`]).

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{MAX_OP_BYTES, OPS_REF};
use crate::error::{Error, Result};

/// What kind of operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `revert` (completed).
    Revert,
    /// `revert --abort`.
    Abort,
    /// `revert --undo` or `op undo`.
    Undo,
    /// `restore` of some paths.
    Restore,
    /// `drop` of a thread.
    Drop,
    /// `prune`.
    Prune,
    /// A `fetch` that changed refs.
    Fetch,
}

impl Kind {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Revert => "revert",
            Kind::Abort => "abort",
            Kind::Undo => "undo",
            Kind::Restore => "restore",
            Kind::Drop => "drop",
            Kind::Prune => "prune",
            Kind::Fetch => "fetch",
        }
    }
}

/// One ref an op changed: `old` absent means created, `new` absent deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefChange {
    /// The full ref name.
    #[serde(rename = "ref")]
    pub reference: String,
    /// What it pointed at before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// What it points at after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// The content of `op.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// Always 1.
    pub schema: u32,
    /// What kind of operation.
    pub kind: Kind,
    /// The thread it concerns, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// When it ran (RFC 3339, UTC).
    pub time: String,
    /// The safety checkpoint: the worktree (and every file the operation
    /// could touch) before it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<String>,
    /// The user's index before it ran, as a tree, when it differed from HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_tree: Option<String>,
    /// The op this one undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// Nested repositories moved aside (`path -> where`), to put back on undo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_aside: Vec<MovedAside>,
    /// The tree the operation put the worktree to: each path it wrote or
    /// deleted holds this tree's entry afterwards (a revert's target, a
    /// restore's or an undo's worktree with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<String>,
    /// For a put-back of the whole tree (before `by_path`): the index it
    /// puts back (absent: HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_index: Option<String>,
    /// The index the operation left, when it changed the index (a revert's
    /// HEAD, an undo's index with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_after: Option<String>,
    /// A put-back that changed only the paths the undone operation had
    /// changed (and were still as it left them), not the whole worktree.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_path: bool,
    /// An undo made by a bare `op undo`: the next bare `op undo` walks past
    /// it (and what it undid) to the operation before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stepped: bool,
    /// For a prune: the notes of the checkpoints it removed (kept in the
    /// op's tree, so an undo puts them back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<KeptNote>,
    /// The git dir of the worktree whose files it changes (absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// For a put-back: nested repositories it returns from aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_back: Vec<MovedAside>,
    /// For a revert: the thread's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Agents' conversation transcripts it changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transcripts: Vec<TranscriptChange>,
    /// The refs it changed.
    #[serde(default)]
    pub refs: Vec<RefChange>,
    /// The ids this op had before trims of the log wrote it again (an id
    /// printed then still names it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub was: Vec<String>,
}

/// An agent's conversation transcript a revert's provider changed (or a
/// put-back restored): the file's content before and after, as blob ids.
/// The blobs are kept in the op's tree and the revert journal's, so they
/// live as long as the op; an undo writes `before` back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptChange {
    /// The agent (`claude-code`, `codex`).
    pub agent: String,
    /// The file (absolute).
    pub path: String,
    /// Its content before (absent: there was no file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Its content after (absent: the file was removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// What the change did, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub how: String,
}

impl TranscriptChange {
    /// The blob of the content before.
    pub fn before_id(&self) -> Result<Option<ObjectId>> {
        self.before.as_deref().map(id).transpose()
    }

    /// The blob of the content after.
    pub fn after_id(&self) -> Result<Option<ObjectId>> {
        self.after.as_deref().map(id).transpose()
    }

    /// The change that takes this one back.
    pub fn reversed(&self) -> Self {
        TranscriptChange {
            agent: self.agent.clone(),
            path: self.path.clone(),
            before: self.after.clone(),
            after: self.before.clone(),
            how: "restored from the backup".into(),
        }
    }
}

/// The note of a commit an operation removed from `refs/t3/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptNote {
    /// The checkpoint commit.
    pub commit: String,
    /// Its note's blob.
    pub note: String,
}

/// A nested repository a restore moved out of the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedAside {
    /// Its path in the worktree.
    pub path: String,
    /// Where it is now (absolute).
    pub to: String,
}

impl Op {
    /// A new op of `kind` about `thread`, dated now, with nothing recorded yet.
    pub fn new(kind: Kind, thread: Option<&str>) -> Self {
        Op {
            schema: 1,
            kind,
            thread: thread.map(str::to_owned),
            time: crate::model::note::now_rfc3339(),
            safety: None,
            index_tree: None,
            undoes: None,
            moved_aside: Vec::new(),
            restored: None,
            restored_index: None,
            index_after: None,
            by_path: false,
            stepped: false,
            notes: Vec::new(),
            worktree: None,
            moved_back: Vec::new(),
            provider: None,
            transcripts: Vec::new(),
            refs: Vec::new(),
            was: Vec::new(),
        }
    }

    /// Parse `op.toml`, refusing oversized or malformed input.
    pub fn parse(data: &[u8]) -> std::result::Result<Self, String> {
        use crate::model::document::{self, DocumentError};
        let op: Op = document::read(data, MAX_OP_BYTES).map_err(|e| match e {
            DocumentError::TooLarge { len } => format!("op.toml is {len} bytes, more than {MAX_OP_BYTES}"),
            DocumentError::NotUtf8 => "op.toml is not UTF-8".to_owned(),
            DocumentError::Toml(m) => format!("op.toml does not parse: {m}"),
        })?;
        if op.schema != 1 {
            return Err(format!(
                "op.toml has schema {}; this git-t3 understands 1",
                op.schema
            ));
        }
        for id in op
            .safety
            .iter()
            .chain(&op.index_tree)
            .chain(&op.undoes)
            .chain(&op.restored)
            .chain(&op.restored_index)
            .chain(&op.index_after)
            .chain(op.notes.iter().flat_map(|n| [&n.commit, &n.note]))
            .chain(op.refs.iter().flat_map(|r| r.old.iter().chain(&r.new)))
            .chain(&op.was)
            .chain(
                op.transcripts
                    .iter()
                    .flat_map(|t| t.before.iter().chain(&t.after)),
            )
        {
            parse_id(id)?;
        }
        Ok(op)
    }

    /// The safety checkpoint's commit.
    pub fn safety_commit(&self) -> Result<Option<ObjectId>> {
        self.safety.as_deref().map(id).transpose()
    }

    /// The index tree.
    pub fn index_tree(&self) -> Result<Option<ObjectId>> {
        self.index_tree.as_deref().map(id).transpose()
    }
}

fn parse_id(s: &str) -> std::result::Result<ObjectId, String> {
    ObjectId::from_hex(s.as_bytes()).map_err(|_| format!("'{s}' in op.toml is not an object id"))
}

/// An object id from `op.toml`.
pub fn id(s: &str) -> Result<ObjectId> {
    parse_id(s).map_err(|problem| Error::BadMetadata {
        reference: OPS_REF.into(),
        problem,
    })
}

/// An op as it is in the log.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The op commit.
    #[serde(serialize_with = "hex")]
    pub id: ObjectId,
    /// Its `op.toml`.
    #[serde(flatten)]
    pub op: Op,
}

fn hex<S: serde::Serializer>(id: &ObjectId, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_toml_round_trips_and_is_strict() {
        let mut op = Op::new(Kind::Revert, Some("t"));
        op.safety = Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into());
        op.refs.push(RefChange {
            reference: "refs/t3/checkpoints/dA/turn/2".into(),
            old: Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into()),
            new: None,
        });
        let text = toml::to_string(&op).unwrap();
        assert_eq!(Op::parse(text.as_bytes()).unwrap(), op);
        for bad in [
            text.replace("schema = 1", "schema = 7"),
            text.replace("kind = \"revert\"", "kind = \"explode\""),
            text.replace("4b825dc642cb6eb9a060e54bf8d69288fbee4904", "zz"),
        ] {
            assert!(Op::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
