//! opencode's conversations, kept in opencode's own SQLite database
//! (`~/.local/share/opencode/opencode.db`): a session row, its messages
//! (user prompts, and the assistant's steps, each with its parts), ids that
//! grow with time (`msg_…`). git-t3 never opens the database itself; it
//! goes through opencode's own commands, so opencode's schema, locking and
//! migrations stay opencode's business:
//!
//! - `opencode export <session>` reads the conversation; its messages,
//!   with every object's keys sorted, are the bytes git-t3 plans on,
//!   backs up and compares (opencode's import writes the same messages
//!   with keys in another order, and the session's own row changes its
//!   `time.updated` whenever it is touched, so neither can be compared
//!   byte for byte);
//! - rolling back to before a prompt deletes that prompt's user message
//!   and every message after it (`opencode db "DELETE FROM message …"`,
//!   whose parts go with them), which leaves the session as it was when
//!   the prompt was submitted;
//! - putting messages back imports them (`opencode import`, which adds
//!   the messages and parts it does not have and leaves the rest alone).
//!
//! After a change the session is exported again and must hold exactly
//! the messages planned, else the change fails (the revert's journal keeps
//! the backup, so `revert --abort` puts them back). Every id written into
//! a query is checked to be a plain id first (`[A-Za-z0-9_]`), whether it
//! comes from a note or from opencode.
//!
//! opencode runs with `--pure` (no plugins: git-t3's own plugin would
//! capture again) and without updating itself. A session open in a running
//! opencode keeps its messages in memory: quit it before a revert.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value};

use super::edit::{Edit, PlanError};
use crate::child;

/// How long one opencode command may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The most ids deleted by one query (each command line stays far below
/// the kernel's limit for one argument).
const IDS_PER_QUERY: usize = 1000;

/// How the session is named where a path would be (the op log's
/// `transcripts[].path`, messages).
pub fn handle(session: &str) -> String {
    format!("opencode session {session}")
}

/// Whether `id` may be written into a query: a plain opencode id.
pub fn is_plain_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The `opencode` program in `search_path` (a `PATH` value).
pub fn program(search_path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(search_path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("opencode"))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// Why an opencode command failed.
#[derive(Debug)]
pub enum Failure {
    /// The session does not exist.
    NoSession,
    /// opencode could not be run, failed or answered something else.
    Other(String),
}

/// One opencode session, reached through the program `opencode`.
#[derive(Debug, Clone)]
pub struct Session<'a> {
    /// The program.
    pub program: &'a Path,
    /// The session id (checked plain).
    pub id: &'a str,
}

/// An export: the session's row and its messages.
struct Export {
    info: Value,
    messages: Vec<Value>,
}

impl Session<'_> {
    fn run(&self, args: &[&std::ffi::OsStr], dir: Option<&Path>) -> Result<Vec<u8>, Failure> {
        let mut command = Command::new(self.program);
        command
            .arg("--pure")
            .args(args)
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("NO_COLOR", "1");
        if let Some(d) = dir {
            command.current_dir(d);
        }
        let what = args
            .first()
            .map_or_else(String::new, |a| a.to_string_lossy().into_owned());
        let done = child::run(
            &mut command,
            child::Options {
                input: None,
                stdout: true,
                own_group: true,
                timeout: Some(TIMEOUT),
                ..Default::default()
            },
            crate::interrupt::process(),
        )
        .map_err(|e| Failure::Other(format!("could not run `{} {what}`: {e}", self.program.display())))?;
        if done.success() {
            return Ok(done.stdout);
        }
        let text = child::one_line(&strip_ansi(&String::from_utf8_lossy(&done.stderr)));
        if text.contains("Session not found") {
            return Err(Failure::NoSession);
        }
        Err(Failure::Other(match done.status {
            None => format!("`opencode {what}` did not answer within {}s", TIMEOUT.as_secs()),
            Some(s) => format!("`opencode {what}` failed ({s}): {text}"),
        }))
    }

    fn export(&self) -> Result<Export, Failure> {
        let out = self.run(&["export".as_ref(), self.id.as_ref()], None)?;
        // The JSON document starts at the first line that opens an object
        // (anything printed before it is opencode talking).
        let start = std::iter::once(0)
            .chain(memchr_lines(&out))
            .find(|&i| out.get(i) == Some(&b'{'))
            .ok_or_else(|| Failure::Other("`opencode export` printed no session".into()))?;
        let doc: Value = serde_json::from_slice(out.get(start..).unwrap_or_default()).map_err(|e| {
            Failure::Other(format!(
                "`opencode export` printed something else than a session: {e}"
            ))
        })?;
        let Value::Object(mut doc) = doc else {
            return Err(Failure::Other(
                "`opencode export` printed no session object".into(),
            ));
        };
        let info = doc.remove("info").unwrap_or(Value::Null);
        if info.get("id").and_then(Value::as_str) != Some(self.id) {
            return Err(Failure::Other("`opencode export` printed another session".into()));
        }
        let Some(Value::Array(messages)) = doc.remove("messages") else {
            return Err(Failure::Other("`opencode export` printed no messages".into()));
        };
        Ok(Export { info, messages })
    }

    /// The conversation as git-t3 compares it: the messages, keys sorted.
    pub fn read(&self) -> Result<Vec<u8>, Failure> {
        Ok(canonical(&Value::Array(self.export()?.messages)))
    }

    /// Make the session hold the messages `target` (bytes [`Self::read`]
    /// gave): delete those it has beyond them, import those it lacks, then
    /// check it holds them.
    pub fn write(&self, target: &[u8]) -> Result<(), Failure> {
        let want = parse_messages(target).map_err(Failure::Other)?;
        let now = self.export()?;
        let have: std::collections::HashMap<String, Value> = now
            .messages
            .iter()
            .filter_map(|m| Some((message_id(m)?.to_owned(), canonical_value(m))))
            .collect();
        let want_ids: std::collections::HashSet<&str> = want.iter().filter_map(message_id).collect();
        // Gone, or not as wanted (deleted, then imported as wanted).
        let mut delete: Vec<&str> = now
            .messages
            .iter()
            .filter_map(message_id)
            .filter(|id| !want_ids.contains(id))
            .collect();
        let mut import = Vec::new();
        for m in &want {
            let id = message_id(m).ok_or_else(|| Failure::Other("a message to put back has no id".into()))?;
            match have.get(id) {
                Some(h) if *h == canonical_value(m) => {}
                Some(_) => {
                    delete.push(id);
                    import.push(m.clone());
                }
                None => import.push(m.clone()),
            }
        }
        for chunk in delete.chunks(IDS_PER_QUERY) {
            if let Some(bad) = chunk.iter().chain([&self.id]).find(|id| !is_plain_id(id)) {
                return Err(Failure::Other(format!(
                    "refused to delete the message '{}': not a plain opencode id",
                    bad.chars()
                        .filter(|c| !c.is_control())
                        .take(64)
                        .collect::<String>()
                )));
            }
            let list = chunk
                .iter()
                .map(|id| format!("'{id}'"))
                .collect::<Vec<_>>()
                .join(",");
            let query = format!(
                "DELETE FROM message WHERE session_id = '{}' AND id IN ({list})",
                self.id
            );
            self.run(&["db".as_ref(), query.as_ref()], None)?;
        }
        if !import.is_empty() {
            self.import(&now.info, import)?;
        }
        let after = self.read()?;
        if after != canonical(&Value::Array(want)) {
            return Err(Failure::Other(
                "opencode's session does not hold the messages written (was opencode running in it?)".into(),
            ));
        }
        Ok(())
    }

    fn import(&self, info: &Value, messages: Vec<Value>) -> Result<(), Failure> {
        let mut doc = Map::new();
        doc.insert("info".into(), info.clone());
        doc.insert("messages".into(), Value::Array(messages));
        let mut file = tempfile::Builder::new()
            .prefix("git-t3-opencode-")
            .suffix(".json")
            .tempfile()
            .map_err(|e| Failure::Other(format!("could not create a file for `opencode import`: {e}")))?;
        std::io::Write::write_all(&mut file, &canonical(&Value::Object(doc)))
            .map_err(|e| Failure::Other(format!("could not write a file for `opencode import`: {e}")))?;
        // opencode files an imported session under the project it runs in:
        // it runs where the session lives.
        let dir = info
            .get("directory")
            .and_then(Value::as_str)
            .map(Path::new)
            .filter(|d| d.is_absolute() && d.is_dir());
        self.run(&["import".as_ref(), file.path().as_os_str()], dir)?;
        Ok(())
    }
}

fn memchr_lines(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
    data.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' && out.ends_with('\u{1b}') {
            out.pop();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out.replace("\u{1b}", "")
}

fn message_id(m: &Value) -> Option<&str> {
    m.get("info")?.get("id")?.as_str()
}

fn parse_messages(data: &[u8]) -> Result<Vec<Value>, String> {
    match serde_json::from_slice(data) {
        Ok(Value::Array(messages)) => Ok(messages),
        Ok(_) => Err("the saved conversation is not a list of messages".into()),
        Err(e) => Err(format!("the saved conversation is not JSON: {e}")),
    }
}

/// `v` with every object's keys in order.
fn canonical_value(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), canonical_value(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_value).collect()),
        other => other.clone(),
    }
}

/// `v` as bytes, keys in order.
fn canonical(v: &Value) -> Vec<u8> {
    serde_json::to_vec(&canonical_value(v)).unwrap_or_default()
}

/// The conversation `data` (as [`Session::read`] gives it) as it was before
/// the prompt whose user message is `prompt_id`.
pub fn plan(data: &[u8], prompt_id: &str) -> Result<Edit, PlanError> {
    let messages = parse_messages(data).map_err(PlanError::Format)?;
    let cut = messages
        .iter()
        .position(|m| message_id(m) == Some(prompt_id))
        .ok_or(PlanError::PromptNotFound)?;
    if messages
        .get(cut)
        .and_then(|m| m.get("info")?.get("role")?.as_str())
        != Some("user")
    {
        return Err(PlanError::Format(format!(
            "the message {prompt_id} that started the turn is not a user's prompt"
        )));
    }
    let (kept, removed) = messages.split_at(cut);
    if let Some(bad) = removed.iter().find(|m| !message_id(m).is_some_and(is_plain_id)) {
        return Err(PlanError::Format(format!(
            "a message to delete has no plain id ({})",
            message_id(bad)
                .unwrap_or("none")
                .chars()
                .filter(|c| !c.is_control())
                .take(64)
                .collect::<String>()
        )));
    }
    let prompts = removed
        .iter()
        .filter(|m| m.get("info").and_then(|i| i.get("role")).and_then(Value::as_str) == Some("user"))
        .count() as u64;
    Ok(Edit {
        after: canonical(&Value::Array(kept.to_vec())),
        how: format!(
            "deleted {} message(s) of opencode's session ({prompts} prompt(s))",
            removed.len()
        ),
        prompts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(id: &str, role: &str) -> Value {
        serde_json::json!({"info": {"role": role, "id": id, "time": {"created": 1}}, "parts": [{"type": "text", "id": format!("prt_{id}")}]})
    }

    #[test]
    fn the_cut_keeps_the_messages_before_the_prompt_keys_sorted() {
        let all = Value::Array(vec![
            msg("msg_1", "user"),
            msg("msg_2", "assistant"),
            msg("msg_3", "user"),
            msg("msg_4", "assistant"),
            msg("msg_5", "user"),
        ]);
        let data = canonical(&all);
        let edit = plan(&data, "msg_3").unwrap();
        assert_eq!(edit.prompts, 2);
        let kept: Vec<Value> = serde_json::from_slice(&edit.after).unwrap();
        let ids: Vec<&str> = kept.iter().filter_map(message_id).collect();
        assert_eq!(ids, ["msg_1", "msg_2"]);
        let text = String::from_utf8(edit.after).unwrap();
        assert!(
            text.starts_with(r#"[{"info":{"id":"msg_1","role":"user","time""#),
            "{text}"
        );
        assert!(matches!(plan(&data, "msg_9"), Err(PlanError::PromptNotFound)));
        assert!(matches!(plan(&data, "msg_2"), Err(PlanError::Format(_))));
        assert!(matches!(plan(b"{}", "msg_1"), Err(PlanError::Format(_))));
        // An id that could not be written into a query stops the plan.
        let hostile = canonical(&Value::Array(vec![
            msg("msg_1", "user"),
            msg("msg_2'); --", "assistant"),
        ]));
        assert!(matches!(plan(&hostile, "msg_1"), Err(PlanError::Format(_))));
    }

    #[test]
    fn only_plain_ids_reach_a_query() {
        assert!(is_plain_id("ses_db107e40effet5Ua61JEufqMvq"));
        assert!(is_plain_id("msg_24ef8306c001q0WxbydUnjzGGv"));
        for bad in ["", "a'b", "a b", "x;DROP", "a-b", "ü", &"a".repeat(129)] {
            assert!(!is_plain_id(bad), "{bad}");
        }
    }

    #[test]
    fn colour_codes_are_taken_out_of_opencodes_errors() {
        assert_eq!(
            strip_ansi("\u{1b}[91m\u{1b}[1mError: \u{1b}[0mSession not found: x"),
            "Error: Session not found: x"
        );
    }
}
