//! Our hooks in an agent's JSON configuration (Claude Code's settings,
//! Codex's and Cursor's `hooks.json`), edited in place through a concrete
//! syntax tree: key order, indentation, line endings, comments and trailing
//! commas stay as the user wrote them, and only our entries come and go.

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::Value;

use crate::error::{Error, Result};

/// How an agent lists the handlers of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Claude Code, Codex: `"Event": [{"hooks": [{"type": "command", "command": …}]}]`.
    Grouped,
    /// Cursor: `"event": [{"command": …}]`.
    Flat,
}

/// One agent's hooks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Spec {
    /// The agent's name in `git t3 hook <agent>`.
    pub agent: &'static str,
    /// The command every handler runs.
    pub command: &'static str,
    /// Events and their timeouts in seconds, in the order they are added.
    pub events: &'static [(&'static str, u32)],
    /// How handlers are listed.
    pub shape: Shape,
    /// `"version": 1` at the top of a file we create (Cursor).
    pub version: bool,
}

/// What [`install`] changed.
#[derive(Debug)]
pub(super) struct Added {
    /// The new text.
    pub text: String,
    /// The events that got our handler.
    pub events: Vec<String>,
    /// Containers we created (`hooks`, `hooks.<event>`), for uninstall.
    pub created: Vec<String>,
}

/// Deeper than any agent's configuration; deeper input is refused before
/// the (recursive) parser sees it.
const MAX_DEPTH: usize = 64;

fn options() -> ParseOptions {
    // JSON with comments and trailing commas (what editors call JSONC),
    // nothing looser: a file we could not give back as the agent reads it
    // is refused rather than rewritten.
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn bad(path: &Path, problem: impl Into<String>) -> Error {
    Error::BadInput {
        source_name: path.display().to_string(),
        problem: problem.into(),
    }
}

/// The deepest nesting of `[` and `{` outside strings and comments.
fn depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for c in chars.by_ref() {
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
            }
            '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse `text` (empty: an empty object), which must hold one object.
fn parse(path: &Path, text: &str) -> Result<(CstRootNode, CstObject)> {
    if depth(text) > MAX_DEPTH {
        return Err(bad(
            path,
            format!("nested more than {MAX_DEPTH} levels deep; not touched"),
        ));
    }
    let root = CstRootNode::parse(text, &options()).map_err(|e| {
        bad(
            path,
            format!(
                "not JSON git t3 can edit without losing anything ({e}); fix it, then run the command again"
            ),
        )
    })?;
    let object = match root.value() {
        None => root.object_value_or_set(),
        Some(v) => v
            .as_object()
            .ok_or_else(|| bad(path, "holds no JSON object at the top; not touched"))?,
    };
    Ok((root, object))
}

/// Whether `command` runs `git t3 hook <agent>`, however spelt
/// (`git t3 …`, `/path/to/git-t3 …`, with or without more arguments).
pub(super) fn runs_our_hook(command: &str, agent: &str) -> bool {
    let words =
        shlex::split(command).unwrap_or_else(|| command.split_whitespace().map(str::to_owned).collect());
    let rest = match words.as_slice() {
        [git, t3, rest @ ..] if git == "git" && t3 == "t3" => rest,
        [exe, rest @ ..] if Path::new(exe).file_name().is_some_and(|n| n == "git-t3") => rest,
        _ => return false,
    };
    matches!(rest, [hook, a, ..] if hook == "hook" && a == agent)
}

fn command_of(handler: &Value) -> Option<&str> {
    handler.get("command").and_then(Value::as_str)
}

/// The handlers of one entry of an event's list.
fn handlers(entry: &Value, shape: Shape) -> Vec<&Value> {
    match shape {
        Shape::Flat => vec![entry],
        Shape::Grouped => entry
            .get("hooks")
            .and_then(Value::as_array)
            .map(|hs| hs.iter().collect())
            .unwrap_or_default(),
    }
}

fn handler_value(spec: &Spec, timeout: u32) -> CstInputValue {
    let mut handler = Vec::new();
    if spec.shape == Shape::Grouped {
        handler.push(("type".to_owned(), CstInputValue::from("command")));
    }
    handler.push(("command".to_owned(), CstInputValue::from(spec.command)));
    handler.push(("timeout".to_owned(), CstInputValue::from(u64::from(timeout))));
    let handler = CstInputValue::Object(handler);
    match spec.shape {
        Shape::Flat => handler,
        Shape::Grouped => {
            CstInputValue::Object(vec![("hooks".to_owned(), CstInputValue::Array(vec![handler]))])
        }
    }
}

/// A file holding only our hooks, for an agent whose file does not exist.
pub(super) fn fresh(spec: &Spec) -> String {
    let root = CstRootNode::parse("", &options()).unwrap_or_else(|_| unreachable!("an empty text parses"));
    let object = root.object_value_or_set();
    if spec.version {
        object.append("version", CstInputValue::from(1u64));
    }
    let hooks = object.object_value_or_set("hooks");
    for (event, timeout) in spec.events {
        hooks
            .array_value_or_set(event)
            .append(handler_value(spec, *timeout));
    }
    let mut text = root.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Add our handler to every event of `spec` that has no `git t3 hook`
/// handler yet. `None`: nothing to add.
pub(super) fn install(path: &Path, text: &str, spec: &Spec) -> Result<Option<Added>> {
    let (root, object) = parse(path, text)?;
    let hooks = match object.get("hooks") {
        None => None,
        Some(prop) => Some(prop.object_value().ok_or_else(|| {
            bad(
                path,
                "\"hooks\" is not an object; fix it, then run the command again",
            )
        })?),
    };
    let mut missing = Vec::new();
    for (event, timeout) in spec.events {
        let list = match hooks.as_ref().and_then(|h| h.get(event)) {
            None => None,
            Some(prop) => Some(prop.array_value().ok_or_else(|| {
                bad(
                    path,
                    format!("\"hooks\".\"{event}\" is not a list; fix it, then run the command again"),
                )
            })?),
        };
        let ours = list.as_ref().is_some_and(|l| {
            l.elements().iter().any(|e| {
                e.to_serde_value().is_some_and(|v| {
                    handlers(&v, spec.shape)
                        .iter()
                        .any(|h| command_of(h).is_some_and(|c| runs_our_hook(c, spec.agent)))
                })
            })
        });
        if !ours {
            missing.push((*event, *timeout, list.is_none()));
        }
    }
    if missing.is_empty() {
        return Ok(None);
    }
    let mut created = Vec::new();
    let hooks = hooks.unwrap_or_else(|| {
        created.push("hooks".to_owned());
        object.object_value_or_set("hooks")
    });
    let mut events = Vec::new();
    for (event, timeout, absent) in missing {
        if absent {
            created.push(format!("hooks.{event}"));
        }
        hooks
            .array_value_or_set(event)
            .append(handler_value(spec, timeout));
        events.push(event.to_owned());
    }
    Ok(Some(Added {
        text: root.to_string(),
        events,
        created,
    }))
}

fn has_comment(node: &CstNode) -> bool {
    node.children()
        .iter()
        .any(|c| c.is_comment() || (!c.children().is_empty() && has_comment(c)))
}

/// What [`uninstall`] left.
#[derive(Debug)]
pub(super) struct Removed {
    /// The new text.
    pub text: String,
    /// Nothing but what a file we created starts with is left.
    pub empty: bool,
}

/// Remove our handlers (those running exactly `spec.command`), the entries
/// they leave empty, and the containers we created (`created`; when not
/// known, containers left empty that hold no comment). `None`: none there.
pub(super) fn uninstall(
    path: &Path,
    text: &str,
    spec: &Spec,
    created: Option<&[String]>,
) -> Result<Option<Removed>> {
    let (root, object) = parse(path, text)?;
    let Some(hooks) = object.object_value("hooks") else {
        return Ok(None);
    };
    let is_ours = |h: &Value| command_of(h).is_some_and(|c| c.trim() == spec.command);
    let may_drop = |key: &str, container: &CstNode| match created {
        Some(created) => created.iter().any(|c| c == key),
        None => !has_comment(container),
    };
    let mut removed = false;
    for (event, _) in spec.events {
        let Some(list) = hooks.array_value(event) else {
            continue;
        };
        for entry in list.elements() {
            let Some(value) = entry.to_serde_value() else {
                continue;
            };
            match spec.shape {
                Shape::Flat => {
                    if is_ours(&value) {
                        entry.remove();
                        removed = true;
                    }
                }
                Shape::Grouped => {
                    let hs = handlers(&value, spec.shape);
                    if hs.is_empty() || !hs.iter().any(|h| is_ours(h)) {
                        continue;
                    }
                    removed = true;
                    if hs.iter().all(|h| is_ours(h)) {
                        entry.remove();
                    } else if let Some(inner) = entry.as_object().and_then(|o| o.array_value("hooks")) {
                        remove_ours(&inner, &is_ours);
                    }
                }
            }
        }
        if list.elements().is_empty()
            && may_drop(&format!("hooks.{event}"), &CstNode::from(list.clone()))
            && let Some(prop) = hooks.get(event)
        {
            prop.remove();
        }
    }
    if !removed {
        return Ok(None);
    }
    if hooks.properties().is_empty()
        && may_drop("hooks", &CstNode::from(hooks.clone()))
        && let Some(prop) = object.get("hooks")
    {
        prop.remove();
    }
    let value = root.to_serde_value().unwrap_or(Value::Null);
    let empty =
        value == serde_json::json!({}) || (spec.version && value == serde_json::json!({"version": 1}));
    Ok(Some(Removed {
        text: root.to_string(),
        empty,
    }))
}

fn remove_ours(list: &CstArray, is_ours: &dyn Fn(&Value) -> bool) {
    for handler in list.elements() {
        if handler.to_serde_value().is_some_and(|v| is_ours(&v)) {
            handler.remove();
        }
    }
}

/// Whether the file at `text` has a handler of ours for any event of `spec`.
pub(super) fn has_ours(text: &str, spec: &Spec) -> bool {
    let Ok(root) = CstRootNode::parse(text, &options()) else {
        return false;
    };
    let Some(hooks) = root.to_serde_value().and_then(|v| v.get("hooks").cloned()) else {
        return false;
    };
    spec.events.iter().any(|(event, _)| {
        hooks.get(event).and_then(Value::as_array).is_some_and(|l| {
            l.iter().any(|e| {
                handlers(e, spec.shape)
                    .iter()
                    .any(|h| command_of(h).is_some_and(|c| c.trim() == spec.command))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: Spec = Spec {
        agent: "claude-code",
        command: "git t3 hook claude-code",
        events: &[("UserPromptSubmit", 30), ("Stop", 60)],
        shape: Shape::Grouped,
        version: false,
    };

    #[test]
    fn recognises_our_hook_however_spelt() {
        assert!(runs_our_hook("git t3 hook claude-code", "claude-code"));
        assert!(runs_our_hook(
            "/usr/local/bin/git-t3 hook claude-code --x",
            "claude-code"
        ));
        assert!(!runs_our_hook("git t3 hook codex", "claude-code"));
        assert!(!runs_our_hook("echo git t3 hook claude-code", "claude-code"));
        assert!(!runs_our_hook("\"unclosed", "claude-code"));
    }

    #[test]
    fn deep_or_loose_input_is_refused_not_parsed() {
        let p = Path::new("s.json");
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(install(p, &deep, &CLAUDE).is_err());
        assert!(install(p, "{'a': 1}", &CLAUDE).is_err());
        assert!(install(p, "[1]", &CLAUDE).is_err());
        assert!(install(p, "{\"hooks\": []}", &CLAUDE).is_err());
        assert!(install(p, "{\"hooks\": {\"Stop\": {}}}", &CLAUDE).is_err());
        // Strings and comments do not count towards the depth.
        assert_eq!(depth("{\"[[[\": \"{{\" /* [[[ */ // {{{\n}"), 1);
    }

    #[test]
    fn install_then_uninstall_gives_the_text_back() {
        let p = Path::new("s.json");
        for text in [
            "{}\n",
            "{\n    \"model\": \"x\"\n}\n",
            "{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"say\"}]}\n\t\t]\n\t}\n}\n",
            "// mine\n{\n  \"a\": 1, // one\n  \"b\": [1, 2,],\n}\n",
            "{\r\n  \"a\": 1\r\n}\r\n",
        ] {
            let added = install(p, text, &CLAUDE).unwrap().unwrap();
            assert!(
                install(p, &added.text, &CLAUDE).unwrap().is_none(),
                "twice is once"
            );
            let removed = uninstall(p, &added.text, &CLAUDE, Some(&added.created))
                .unwrap()
                .unwrap();
            assert_eq!(removed.text, text);
        }
    }
}
