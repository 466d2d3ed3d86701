//! What `op.toml` holds: an [`Op`] and its parts, parsed strictly (size,
//! schema, every object id), and an op as the log lists it ([`Entry`]).

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::{MAX_OP_BYTES, OPS_REF};
use crate::error::{Error, Result};
use crate::model::oid::Oid;

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
    pub old: Option<Oid>,
    /// What it points at after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Oid>,
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
    pub safety: Option<Oid>,
    /// The user's index before it ran, as a tree, when it differed from HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_tree: Option<Oid>,
    /// The op this one undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<Oid>,
    /// Nested repositories moved aside (`path -> where`), to put back on undo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved_aside: Vec<MovedAside>,
    /// The tree the operation put the worktree to: each path it wrote or
    /// deleted holds this tree's entry afterwards (a revert's target, a
    /// restore's or an undo's worktree with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<Oid>,
    /// For a put-back of the whole tree (before `by_path`): the index it
    /// puts back (absent: HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_index: Option<Oid>,
    /// The index the operation left, when it changed the index (a revert's
    /// HEAD, an undo's index with its paths put back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_after: Option<Oid>,
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
    pub was: Vec<Oid>,
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
    pub before: Option<Oid>,
    /// Its content after (absent: the file was removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Oid>,
    /// What the change did, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub how: String,
}

impl TranscriptChange {
    /// The blob of the content before.
    pub fn before_id(&self) -> Option<ObjectId> {
        self.before.map(Oid::get)
    }

    /// The blob of the content after.
    pub fn after_id(&self) -> Option<ObjectId> {
        self.after.map(Oid::get)
    }

    /// The change that takes this one back.
    pub fn reversed(&self) -> Self {
        TranscriptChange {
            agent: self.agent.clone(),
            path: self.path.clone(),
            before: self.after,
            after: self.before,
            how: "restored from the backup".into(),
        }
    }
}

/// The note of a commit an operation removed from `refs/t3/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptNote {
    /// The checkpoint commit.
    pub commit: Oid,
    /// Its note's blob.
    pub note: Oid,
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
        Ok(op)
    }

    /// The safety checkpoint's commit.
    pub fn safety_commit(&self) -> Option<ObjectId> {
        self.safety.map(Oid::get)
    }

    /// The index tree.
    pub fn index_tree(&self) -> Option<ObjectId> {
        self.index_tree.map(Oid::get)
    }
}

fn parse_id(s: &str) -> std::result::Result<ObjectId, String> {
    ObjectId::from_hex(s.as_bytes()).map_err(|_| format!("'{s}' in op.toml is not an object id"))
}

/// An object id kept as text (a revert journal's removed refs, which come
/// from notes, and its ops tip), as an error about the operation log when
/// it is not one.
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

    const EMPTY: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

    #[test]
    fn op_toml_round_trips_and_is_strict() {
        let empty = Oid::from_hex(EMPTY).unwrap();
        let mut op = Op::new(Kind::Revert, Some("t"));
        op.safety = Some(empty);
        op.refs.push(RefChange {
            reference: "refs/t3/checkpoints/dA/turn/2".into(),
            old: Some(empty),
            new: None,
        });
        let text = toml::to_string(&op).unwrap();
        assert_eq!(Op::parse(text.as_bytes()).unwrap(), op);
        for bad in [
            text.replace("schema = 1", "schema = 7"),
            text.replace("kind = \"revert\"", "kind = \"explode\""),
            text.replace(EMPTY, "zz"),
        ] {
            assert!(Op::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_id_is_checked_as_before() {
        let head = "schema = 1\nkind = \"undo\"\ntime = \"2026-12-01T00:00:00Z\"\n";
        let parse = |rest: &str| Op::parse(format!("{head}{rest}").as_bytes());
        let fields = [
            "safety = \"{}\"\n",
            "index_tree = \"{}\"\n",
            "undoes = \"{}\"\n",
            "restored = \"{}\"\n",
            "restored_index = \"{}\"\n",
            "index_after = \"{}\"\n",
            "was = [\"{}\"]\n",
            "[[notes]]\ncommit = \"{}\"\nnote = \"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"\n",
            "[[notes]]\ncommit = \"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"\nnote = \"{}\"\n",
            "[[refs]]\nref = \"refs/t3/x\"\nold = \"{}\"\n",
            "[[refs]]\nref = \"refs/t3/x\"\nnew = \"{}\"\n",
            "[[transcripts]]\nagent = \"codex\"\npath = \"/p\"\nbefore = \"{}\"\n",
            "[[transcripts]]\nagent = \"codex\"\npath = \"/p\"\nafter = \"{}\"\n",
        ];
        for field in fields {
            let with = |id: &str| field.replace("{}", id);
            let op = parse(&with(EMPTY)).unwrap();
            assert_eq!(Op::parse(toml::to_string(&op).unwrap().as_bytes()).unwrap(), op);
            for bad in [
                &EMPTY[..39],
                &EMPTY[..7],
                "4b825dc642cb6eb9a060e54bf8d69288fbee490x",
                "zz",
                "",
            ] {
                assert!(parse(&with(bad)).is_err(), "{}", with(bad));
            }
            // Upper case was taken (ObjectId::from_hex), and still is.
            let upper = parse(&with(&EMPTY.to_ascii_uppercase())).unwrap();
            assert_eq!(upper, op);
        }
    }

    /// An `op.toml` with every id field, as git-t3 wrote it when the ids
    /// were strings, and `op log --json`'s entry for it then.
    const FULL: &str = r#"schema = 1
kind = "undo"
thread = "t"
time = "2026-12-01T00:00:00Z"
safety = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
index_tree = "0123456789abcdef0123456789abcdef01234567"
undoes = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
restored = "0123456789abcdef0123456789abcdef01234567"
restored_index = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
index_after = "0123456789abcdef0123456789abcdef01234567"
by_path = true
was = ["4b825dc642cb6eb9a060e54bf8d69288fbee4904", "0123456789abcdef0123456789abcdef01234567"]

[[notes]]
commit = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
note = "0123456789abcdef0123456789abcdef01234567"

[[transcripts]]
agent = "codex"
path = "/p"
before = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
how = "x"

[[transcripts]]
agent = "codex"
path = "/q"
after = "0123456789abcdef0123456789abcdef01234567"

[[refs]]
ref = "refs/t3/x"
old = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
new = "0123456789abcdef0123456789abcdef01234567"

[[refs]]
ref = "refs/t3/y"
new = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"#;
    const FULL_JSON: &str = r#"{"id":"0123456789abcdef0123456789abcdef01234567","schema":1,"kind":"undo","thread":"t","time":"2026-12-01T00:00:00Z","safety":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","index_tree":"0123456789abcdef0123456789abcdef01234567","undoes":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","restored":"0123456789abcdef0123456789abcdef01234567","restored_index":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","index_after":"0123456789abcdef0123456789abcdef01234567","by_path":true,"notes":[{"commit":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","note":"0123456789abcdef0123456789abcdef01234567"}],"transcripts":[{"agent":"codex","path":"/p","before":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","how":"x"},{"agent":"codex","path":"/q","after":"0123456789abcdef0123456789abcdef01234567"}],"refs":[{"ref":"refs/t3/x","old":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","new":"0123456789abcdef0123456789abcdef01234567"},{"ref":"refs/t3/y","new":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}],"was":["4b825dc642cb6eb9a060e54bf8d69288fbee4904","0123456789abcdef0123456789abcdef01234567"]}"#;

    #[test]
    fn writes_the_bytes_it_wrote_when_ids_were_text() {
        let op = Op::parse(FULL.as_bytes()).unwrap();
        assert_eq!(toml::to_string(&op).unwrap(), FULL);
        let id = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        assert_eq!(serde_json::to_string(&Entry { id, op }).unwrap(), FULL_JSON);
    }
}
