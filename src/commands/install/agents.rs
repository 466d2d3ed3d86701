//! Each agent's install and uninstall: which files, which specs, which
//! feature switches.

use super::*;

pub(super) const CLAUDE: Spec = Spec {
    agent: "claude-code",
    command: "git t3 hook claude-code",
    events: &[
        ("UserPromptSubmit", 30),
        ("Stop", 60),
        ("StopFailure", 60),
        ("SessionEnd", 60),
    ],
    shape: Shape::Grouped,
    version: false,
};

pub(super) const CODEX: Spec = Spec {
    agent: "codex",
    command: "git t3 hook codex",
    events: &[
        ("SessionStart", 30),
        ("UserPromptSubmit", 30),
        ("Stop", 60),
        ("Interrupt", 60),
        ("SessionEnd", 60),
    ],
    shape: Shape::Grouped,
    version: false,
};

pub(super) const CURSOR: Spec = Spec {
    agent: "cursor",
    command: "git t3 hook cursor",
    events: &[("beforeSubmitPrompt", 30), ("stop", 60)],
    shape: Shape::Flat,
    version: true,
};

impl Run<'_> {
    pub(super) fn install_claude(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::ClaudeCode, scope)?;
        self.install_json("claude-code", &path, &CLAUDE)?;
        // This checkout's own file: out of git, and so out of checkpoints.
        if scope == Scope::Local
            && let (Some(repo), Some(workdir)) = (self.repo, self.workdir.clone())
            && let Some(file) = exclude::add(repo, &workdir, &path)?
        {
            self.push(&file, What::Excluded { path: path.clone() }, Action::Added);
        }
        Ok(())
    }

    pub(super) fn uninstall_claude(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::ClaudeCode, scope)?;
        let legacy = if scope == Scope::Project {
            self.legacy_claude_record(&path)
        } else {
            None
        };
        let action = self.uninstall_json("claude-code", &path, &CLAUDE, legacy)?;
        if scope == Scope::Local
            && let (Some(repo), Some(workdir)) = (self.repo, self.workdir.clone())
            && let Some(file) = exclude::remove(repo, &workdir, &path)?
        {
            self.push(&file, What::Excluded { path: path.clone() }, Action::Removed);
        }
        if scope == Scope::Project
            && let Some(repo) = self.repo
        {
            let dir = repo::t3_common_dir(repo).join("install");
            let _ = std::fs::remove_file(dir.join("claude-settings.json.orig"));
            let _ = std::fs::remove_file(dir.join("claude-settings.json.absent"));
        }
        if action == Action::NotThere {
            self.elsewhere(Target::ClaudeCode, &CLAUDE, scope, false);
        }
        Ok(())
    }

    /// What git-t3 0.1 kept when it wrote `.claude/settings.json`: the file
    /// as it was (`.orig`), or that there was none (`.absent`).
    pub(super) fn legacy_claude_record(&self, path: &Path) -> Option<Record> {
        let dir = repo::t3_common_dir(self.repo?).join("install");
        let before = if dir.join("claude-settings.json.absent").exists() {
            None
        } else {
            let data = crate::fsread::read_regular(&dir.join("claude-settings.json.orig"), false).ok()?;
            Some(String::from_utf8(data).ok()?)
        };
        Some(Record {
            part: "claude-code".into(),
            path: path.to_owned(),
            before,
            // Never equal to a file: the text it wrote was not kept.
            after: "\0".into(),
            file_created: false,
            created: Vec::new(),
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        })
    }

    pub(super) fn install_codex(&mut self, scope: Scope) -> Result<()> {
        let hooks = self.target(Target::Codex, scope)?;
        let added = self.install_json("codex", &hooks, &CODEX)?;
        self.elsewhere(Target::Codex, &CODEX, scope, true);
        let flag = self.enable_codex_feature(&hooks)?;
        if added || flag {
            self.out.notices.push(Notice::CodexTrust);
        }
        Ok(())
    }

    /// `[features]` in `~/.codex/config.toml`, on for as long as one of our
    /// hooks files needs it.
    pub(super) fn enable_codex_feature(&mut self, hooks: &Path) -> Result<bool> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let current = read_text(&config)?;
        let record = store.get("codex-feature", &config)?;
        let Some(edit) = codex::enable_hooks(&config, current.as_deref().unwrap_or(""))? else {
            if let Some(mut r) = record
                && !r.users.iter().any(|u| u == hooks)
            {
                r.users.push(hooks.to_owned());
                store.put(r)?;
            }
            let key = codex::FEATURE.to_owned();
            self.push(&config, What::CodexFeature { key }, Action::AlreadyThere);
            return Ok(false);
        };
        let dirs = missing_dirs(&config);
        self.write_text(&config, &edit.text)?;
        store.add_dirs(dirs)?;
        let mut users = record.map(|r| r.users).unwrap_or_default();
        if !users.iter().any(|u| u == hooks) {
            users.push(hooks.to_owned());
        }
        if edit.previous.is_some() {
            self.out.notices.push(Notice::FeatureWasOff {
                key: edit.key.clone(),
            });
        }
        store.put(Record {
            part: "codex-feature".into(),
            path: config.clone(),
            file_created: current.is_none(),
            before: current,
            after: edit.text,
            created: if edit.created_table {
                vec!["features".into()]
            } else {
                Vec::new()
            },
            previous: edit.previous,
            key: Some(edit.key.clone()),
            users,
            migrated: edit.migrated,
        })?;
        self.push(&config, What::CodexFeature { key: edit.key }, Action::Added);
        Ok(true)
    }

    pub(super) fn uninstall_codex(&mut self, scope: Scope) -> Result<()> {
        let hooks = self.target(Target::Codex, scope)?;
        let action = self.uninstall_json("codex", &hooks, &CODEX, None)?;
        if action == Action::NotThere {
            self.elsewhere(Target::Codex, &CODEX, scope, false);
        }
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let Some(mut record) = store.get("codex-feature", &config)? else {
            return Ok(());
        };
        let key = record.key.clone().unwrap_or_else(|| codex::FEATURE.to_owned());
        let what = What::CodexFeature { key: key.clone() };
        record.users.retain(|u| u != &hooks);
        if !record.users.is_empty() {
            store.put(record)?;
            self.push(&config, what, Action::KeptForOthers);
            return Ok(());
        }
        let action = match read_text(&config)? {
            None => Action::NotThere,
            Some(current) => {
                let previous = record.previous.clone();
                let migrated = record.migrated.clone();
                self.take_out(&config, &current, Some(&record), false, |text, created| {
                    let created_table = created.is_some_and(|c| c.iter().any(|k| k == "features"));
                    let values = (previous.as_deref(), migrated.as_deref());
                    Ok(
                        codex::restore_feature(&config, text, &key, values, created_table)?.map(|t| {
                            let empty = t.trim().is_empty();
                            (t, empty)
                        }),
                    )
                })?
            }
        };
        store.remove("codex-feature", &config)?;
        self.push(&config, what, action);
        Ok(())
    }

    pub(super) fn install_codex_notify(&mut self) -> Result<()> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let current = read_text(&config)?;
        let Some(edit) = codex::set_notify(&config, current.as_deref().unwrap_or(""))? else {
            let what = What::CodexNotify {
                then: Vec::new(),
                moved_from: Vec::new(),
            };
            self.push(&config, what, Action::AlreadyThere);
            return Ok(());
        };
        let dirs = missing_dirs(&config);
        self.write_text(&config, &edit.text)?;
        store.add_dirs(dirs)?;
        store.put(Record {
            part: "codex-notify".into(),
            path: config.clone(),
            file_created: current.is_none(),
            before: current,
            after: edit.text,
            created: Vec::new(),
            previous: edit.previous,
            key: None,
            users: Vec::new(),
            migrated: None,
        })?;
        let what = What::CodexNotify {
            then: edit.chained,
            moved_from: edit.moved_from,
        };
        self.push(&config, what, Action::Added);
        Ok(())
    }

    pub(super) fn uninstall_codex_notify(&mut self) -> Result<()> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let record = store.get("codex-notify", &config)?;
        let mut then = Vec::new();
        let action = match read_text(&config)? {
            None => Action::NotThere,
            Some(current) => {
                let previous = record.as_ref().and_then(|r| r.previous.clone());
                let restored = std::cell::RefCell::new(Vec::new());
                let action = self.take_out(&config, &current, record.as_ref(), false, |text, _| {
                    Ok(
                        codex::restore_notify(&config, text, previous.as_deref())?.map(|(t, now)| {
                            *restored.borrow_mut() = now;
                            let empty = t.trim().is_empty();
                            (t, empty)
                        }),
                    )
                })?;
                then = restored.into_inner();
                if action == Action::Restored {
                    then = previous.as_deref().map(notify_argv).unwrap_or_default();
                }
                action
            }
        };
        store.remove("codex-notify", &config)?;
        let what = What::CodexNotify {
            then,
            moved_from: Vec::new(),
        };
        self.push(&config, what, action);
        Ok(())
    }

    pub(super) fn install_cursor(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Cursor, scope)?;
        self.install_json("cursor", &path, &CURSOR)?;
        self.elsewhere(Target::Cursor, &CURSOR, scope, true);
        Ok(())
    }

    pub(super) fn uninstall_cursor(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Cursor, scope)?;
        if self.uninstall_json("cursor", &path, &CURSOR, None)? == Action::NotThere {
            self.elsewhere(Target::Cursor, &CURSOR, scope, false);
        }
        Ok(())
    }

    pub(super) fn install_opencode(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Opencode, scope)?;
        let store = self.store_for(&path)?;
        let current = read_text(&path)?;
        match &current {
            Some(text) if text == opencode::PLUGIN => {
                self.push(&path, What::OpencodePlugin, Action::AlreadyThere);
                return Ok(());
            }
            Some(text) if !text.starts_with(opencode::MARKER) => {
                return Err(Error::Refused(format!(
                    "{} exists and is not git t3's plugin; move it away, then run the command again",
                    path.display()
                )));
            }
            _ => {}
        }
        let dirs = missing_dirs(&path);
        self.write_text(&path, opencode::PLUGIN)?;
        store.add_dirs(dirs)?;
        // An older version of ours is replaced: uninstall removes the file.
        store.put(Record {
            part: "opencode".into(),
            path: path.clone(),
            before: None,
            after: opencode::PLUGIN.to_owned(),
            file_created: true,
            created: Vec::new(),
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        })?;
        self.push(&path, What::OpencodePlugin, Action::Added);
        Ok(())
    }

    pub(super) fn uninstall_opencode(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Opencode, scope)?;
        let store = self.store_for(&path)?;
        let record = store.get("opencode", &path)?;
        let action = match read_text(&path)? {
            None => Action::NotThere,
            Some(text) if text == opencode::PLUGIN || record.as_ref().is_some_and(|r| r.after == text) => {
                self.delete(&path)?;
                Action::Deleted
            }
            Some(text) if text.starts_with(opencode::MARKER) => Action::LeftChanged,
            Some(_) => Action::NotThere,
        };
        if action != Action::LeftChanged {
            store.remove("opencode", &path)?;
        }
        self.push(&path, What::OpencodePlugin, action);
        Ok(())
    }
}

/// The strings of a TOML array as written (`previous` of a record).
pub(super) fn notify_argv(repr: &str) -> Vec<String> {
    format!("notify ={repr}")
        .parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| {
            d.get("notify")
                .and_then(toml_edit::Item::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        })
        .unwrap_or_default()
}

pub(super) fn same_json(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<serde_json::Value>(a),
        serde_json::from_str::<serde_json::Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
