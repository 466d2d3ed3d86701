//! Codex's `config.toml`, edited with `toml_edit` so that comments, order
//! and layout stay: the `[features]` flag that turns lifecycle hooks on for
//! older Codex versions, and the legacy top-level `notify` program.

use std::path::Path;

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::error::{Error, Result};

/// `notify = […]`: what Codex runs after each turn, JSON appended last.
pub(super) const NOTIFY: [&str; 4] = ["git", "t3", "hook", "codex"];
/// Between our argv and the notifier that ran before us.
pub(super) const THEN: &str = "--then";
/// The feature flag's deprecated name (Codex warns about it on every start
/// and reads it as an alias of [`FEATURE`]); install migrates it.
pub(super) const DEPRECATED: &str = "codex_hooks";
/// The feature flag for lifecycle hooks.
pub(super) const FEATURE: &str = "hooks";

fn bad(path: &Path, problem: impl Into<String>) -> Error {
    Error::BadInput {
        source_name: path.display().to_string(),
        problem: problem.into(),
    }
}

fn parse(path: &Path, text: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|e| {
        bad(
            path,
            format!(
                "not valid TOML ({}); fix it, then run the command again",
                e.to_string().trim().replace('\n', " ")
            ),
        )
    })
}

/// A value as written (with the spaces and comment around it), back.
fn value_from(repr: &str) -> Option<Value> {
    let doc: DocumentMut = format!("x ={repr}").parse().ok()?;
    doc.get("x").and_then(Item::as_value).cloned()
}

fn strings(path: &Path, value: &Value) -> Result<Vec<String>> {
    let problem = "`notify` is not a list of strings; fix it, then run the command again";
    value
        .as_array()
        .ok_or_else(|| bad(path, problem))?
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| bad(path, problem)))
        .collect()
}

/// What [`enable_hooks`] changed.
#[derive(Debug)]
pub(super) struct FeatureEdit {
    pub text: String,
    /// The key set to true.
    pub key: String,
    /// Its value before, as written (`None`: absent).
    pub previous: Option<String>,
    /// `[features]` did not exist.
    pub created_table: bool,
    /// The deprecated `codex_hooks` taken out, its value as written.
    pub migrated: Option<String>,
}

/// Turn lifecycle hooks on: `hooks = true` in `[features]`, a deprecated
/// `codex_hooks` taken out (its value kept for uninstall). `None`: already
/// on under the current name.
pub(super) fn enable_hooks(path: &Path, text: &str) -> Result<Option<FeatureEdit>> {
    let mut doc = parse(path, text)?;
    let created_table = doc.get("features").is_none();
    if created_table {
        doc.insert("features", Item::Table(Table::new()));
    }
    let features = doc
        .get_mut("features")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| {
            bad(
                path,
                "`features` is not a table; fix it, then run the command again",
            )
        })?;
    let key = FEATURE;
    let previous = features.get(key).and_then(Item::as_value).cloned();
    let deprecated = features.get(DEPRECATED).and_then(Item::as_value).cloned();
    if previous.as_ref().and_then(Value::as_bool) == Some(true) && deprecated.is_none() {
        return Ok(None);
    }
    if deprecated.is_some() {
        features.remove(DEPRECATED);
    }
    let mut on = Value::from(true);
    if let Some(p) = &previous {
        *on.decor_mut() = p.decor().clone();
    }
    features.insert(key, Item::Value(on));
    Ok(Some(FeatureEdit {
        text: doc.to_string(),
        key: key.to_owned(),
        previous: previous.map(|p| p.to_string()),
        created_table,
        migrated: deprecated.map(|d| d.to_string()),
    }))
}

/// Put the flag [`enable_hooks`] set back: `previous` or absent, and
/// `[features]` away when it created it and it is empty. `None`: the flag
/// is no longer true (the user changed it), nothing done.
pub(super) fn restore_feature(
    path: &Path,
    text: &str,
    key: &str,
    (previous, migrated): (Option<&str>, Option<&str>),
    created_table: bool,
) -> Result<Option<String>> {
    let mut doc = parse(path, text)?;
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return Ok(None);
    };
    if features
        .get(key)
        .and_then(Item::as_value)
        .and_then(Value::as_bool)
        != Some(true)
    {
        return Ok(None);
    }
    match previous.and_then(value_from) {
        Some(v) => {
            features.insert(key, Item::Value(v));
        }
        None => {
            features.remove(key);
        }
    }
    if let Some(v) = migrated.and_then(value_from) {
        features.insert(DEPRECATED, Item::Value(v));
    }
    if created_table && features.is_empty() {
        doc.remove("features");
    }
    Ok(Some(doc.to_string()))
}

/// What [`set_notify`] changed.
#[derive(Debug)]
pub(super) struct NotifyEdit {
    pub text: String,
    /// The `notify` value replaced, as written (`None`: there was none).
    pub previous: Option<String>,
    /// The notifier now run after ours.
    pub chained: Vec<String>,
    /// Tables a misplaced `notify = ["git", "t3", "hook", "codex"]` was
    /// taken out of (older READMEs appended it to the file's end).
    pub moved_from: Vec<String>,
}

fn is_our_argv(argv: &[String]) -> bool {
    argv.len() >= NOTIFY.len() && argv.iter().zip(NOTIFY).all(|(a, b)| a == b)
}

/// Take a `notify` that is exactly ours out of every table but the root.
fn remove_misplaced(table: &mut Table, name: &str, moved: &mut Vec<String>) {
    for (key, item) in table.iter_mut() {
        let here = if name.is_empty() {
            key.get().to_owned()
        } else {
            format!("{name}.{}", key.get())
        };
        match item {
            Item::Table(t) => {
                let ours = t
                    .get("notify")
                    .and_then(Item::as_array)
                    .is_some_and(|a| a.iter().map(Value::as_str).eq(NOTIFY.map(Some)));
                if ours {
                    t.remove("notify");
                    moved.push(here.clone());
                }
                remove_misplaced(t, &here, moved);
            }
            Item::ArrayOfTables(ts) => {
                for t in ts.iter_mut() {
                    remove_misplaced(t, &here, moved);
                }
            }
            _ => {}
        }
    }
}

/// Make the top-level `notify` run `git t3 hook codex`, then (after
/// `--then`) the program that was there. `None`: it already does.
pub(super) fn set_notify(path: &Path, text: &str) -> Result<Option<NotifyEdit>> {
    let mut doc = parse(path, text)?;
    let mut moved_from = Vec::new();
    remove_misplaced(doc.as_table_mut(), "", &mut moved_from);
    let previous = doc.get("notify").map(|item| {
        item.as_value().cloned().ok_or_else(|| {
            bad(
                path,
                "`notify` is not a list of strings; fix it, then run the command again",
            )
        })
    });
    let previous = previous.transpose()?;
    let theirs = previous
        .as_ref()
        .map(|v| strings(path, v))
        .transpose()?
        .unwrap_or_default();
    let words = |argv: &[String]| argv.join(" ");
    if super::json::runs_our_hook(&words(&theirs), "codex") && moved_from.is_empty() {
        return Ok(None);
    }
    let mut argv: Vec<String> = NOTIFY.iter().map(|s| (*s).to_owned()).collect();
    let chained = if super::json::runs_our_hook(&words(&theirs), "codex") {
        Vec::new()
    } else {
        theirs
    };
    if !chained.is_empty() {
        argv.push(THEN.to_owned());
        argv.extend(chained.iter().cloned());
    }
    let mut value = Value::Array(argv.iter().map(String::as_str).collect::<Array>());
    if let Some(p) = &previous {
        *value.decor_mut() = p.decor().clone();
    }
    doc.insert("notify", Item::Value(value));
    Ok(Some(NotifyEdit {
        text: doc.to_string(),
        previous: previous.map(|p| p.to_string()),
        chained,
        moved_from,
    }))
}

/// Put back the `notify` that [`set_notify`] replaced (`previous`, as
/// written; when not known, the argv after `--then`, else none). `None`:
/// the top-level `notify` is not ours, nothing done. Also returns the
/// notifier now configured.
pub(super) fn restore_notify(
    path: &Path,
    text: &str,
    previous: Option<&str>,
) -> Result<Option<(String, Vec<String>)>> {
    let mut doc = parse(path, text)?;
    let Some(current) = doc.get("notify").and_then(Item::as_value) else {
        return Ok(None);
    };
    let Ok(argv) = strings(path, current) else {
        return Ok(None);
    };
    if !is_our_argv(&argv) {
        return Ok(None);
    }
    let tail: Vec<String> = match argv.get(NOTIFY.len()) {
        Some(t) if t == THEN => argv.get(NOTIFY.len() + 1..).unwrap_or_default().to_vec(),
        _ => Vec::new(),
    };
    let restored = match previous.and_then(value_from) {
        Some(v) => Some(v),
        None if tail.is_empty() => None,
        None => {
            let mut v = Value::Array(tail.iter().map(String::as_str).collect::<Array>());
            *v.decor_mut() = current.decor().clone();
            Some(v)
        }
    };
    let now = match &restored {
        Some(v) => strings(path, v).unwrap_or_default(),
        None => Vec::new(),
    };
    match restored {
        Some(v) => {
            doc.insert("notify", Item::Value(v));
        }
        None => {
            doc.remove("notify");
        }
    }
    Ok(Some((doc.to_string(), now)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "# mine\nmodel = \"o3\" # fav\nnotify = [\n  \"python3\",\n  \"/x/notify.py\", # path\n] # keep\n\n[features]\nother = true\n\n[tui]\nnotify = [\"git\", \"t3\", \"hook\", \"codex\"]\n";

    #[test]
    fn notify_is_chained_top_level_and_given_back() {
        let p = Path::new("config.toml");
        let edit = set_notify(p, CONFIG).unwrap().unwrap();
        assert_eq!(edit.chained, ["python3", "/x/notify.py"]);
        assert_eq!(edit.moved_from, ["tui"]);
        let doc: DocumentMut = edit.text.parse().unwrap();
        let argv = strings(p, doc["notify"].as_value().unwrap()).unwrap();
        assert_eq!(
            argv,
            ["git", "t3", "hook", "codex", "--then", "python3", "/x/notify.py"]
        );
        assert!(doc["tui"].as_table().unwrap().get("notify").is_none());
        assert!(edit.text.contains("] # keep") || edit.text.contains("\"/x/notify.py\"] # keep"));
        assert!(set_notify(p, &edit.text).unwrap().is_none(), "twice is once");
        let (back, now) = restore_notify(p, &edit.text, edit.previous.as_deref())
            .unwrap()
            .unwrap();
        assert_eq!(now, ["python3", "/x/notify.py"]);
        assert!(back.contains("notify = [\n  \"python3\",\n  \"/x/notify.py\", # path\n] # keep\n"));
        // Without the record, the argv after --then comes back.
        let (back, now) = restore_notify(p, &edit.text, None).unwrap().unwrap();
        assert_eq!(now, ["python3", "/x/notify.py"]);
        assert!(back.contains("notify = [\"python3\", \"/x/notify.py\"]"));
    }

    #[test]
    fn feature_flag_is_set_where_it_is_and_restored() {
        let p = Path::new("config.toml");
        // Uninstall's edit, from what install's edit recorded.
        let undo = |edit: &FeatureEdit| {
            restore_feature(
                p,
                &edit.text,
                &edit.key,
                (edit.previous.as_deref(), edit.migrated.as_deref()),
                edit.created_table,
            )
            .unwrap()
            .unwrap()
        };
        let edit = enable_hooks(p, "[features]\nhooks = false # off\n")
            .unwrap()
            .unwrap();
        assert_eq!(edit.key, "hooks");
        assert_eq!(edit.text, "[features]\nhooks = true # off\n");
        assert!(enable_hooks(p, &edit.text).unwrap().is_none());
        let back = undo(&edit);
        assert_eq!(back, "[features]\nhooks = false # off\n");
        let edit = enable_hooks(p, "model = \"o3\"\n").unwrap().unwrap();
        assert_eq!(edit.text, "model = \"o3\"\n\n[features]\nhooks = true\n");
        assert_eq!(undo(&edit), "model = \"o3\"\n");
        // The deprecated name is migrated, and put back by uninstall.
        let old = "[features]\ncodex_hooks = true\n";
        let edit = enable_hooks(p, old).unwrap().unwrap();
        assert_eq!(edit.text, "[features]\nhooks = true\n");
        assert_eq!(edit.migrated.as_deref().map(str::trim), Some("true"));
        let back = undo(&edit);
        assert_eq!(back, old);
        assert!(enable_hooks(p, "features = 3\n").is_err());
        assert!(set_notify(p, "notify = \"x\"\n").is_err());
        assert!(set_notify(p, "notify = [1]\n").is_err());
        assert!(set_notify(p, "[[[").is_err());
    }
}
