//! Adding git t3's hooks to a JSON settings file and taking them out
//! again (Claude Code, Codex, Cursor), leaving everything else as it was.

use super::agents::same_json;
use super::*;

impl Run<'_> {
    pub(super) fn install_json(&mut self, part: &str, path: &Path, spec: &Spec) -> Result<bool> {
        let hooks = |events: Vec<String>| What::Hooks {
            agent: spec.agent.to_owned(),
            events,
        };
        let store = self.store_for(path)?;
        let current = read_text(path)?;
        let (text, events, created) = match &current {
            None => (
                json::fresh(spec),
                spec.events.iter().map(|(e, _)| (*e).to_owned()).collect(),
                std::iter::once("hooks".to_owned())
                    .chain(spec.events.iter().map(|(e, _)| format!("hooks.{e}")))
                    .collect(),
            ),
            Some(text) => match json::install(path, text, spec)? {
                None => {
                    self.push(path, hooks(Vec::new()), Action::AlreadyThere);
                    return Ok(false);
                }
                Some(added) => (added.text, added.events, added.created),
            },
        };
        let dirs = missing_dirs(path);
        // A record left from an earlier install whose file changed since:
        // what to give back is the file as it is now, less our entries.
        let previous = store.get(part, path)?;
        let before = match (&current, &previous) {
            (Some(now), Some(old)) => Some(
                json::uninstall(path, now, spec, Some(&old.created))?.map_or_else(|| now.clone(), |r| r.text),
            ),
            _ => current.clone(),
        };
        self.write_text(path, &text)?;
        store.add_dirs(dirs)?;
        let mut record = Record {
            part: part.to_owned(),
            path: path.to_owned(),
            before,
            after: text,
            file_created: current.is_none(),
            created,
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        };
        if let Some(old) = previous {
            record.created.extend(old.created);
            record.file_created |= old.file_created;
        }
        store.put(record)?;
        self.push(path, hooks(events), Action::Added);
        Ok(true)
    }

    pub(super) fn uninstall_json(
        &mut self,
        part: &str,
        path: &Path,
        spec: &Spec,
        legacy: Option<Record>,
    ) -> Result<Action> {
        let events = spec.events.iter().map(|(e, _)| (*e).to_owned()).collect();
        let what = What::Hooks {
            agent: spec.agent.to_owned(),
            events,
        };
        let store = self.store_for(path)?;
        let record = store.get(part, path)?;
        let legacy_used = record.is_none() && legacy.is_some();
        let record = record.or(legacy);
        let action = match read_text(path)? {
            None => Action::NotThere,
            Some(current) => {
                self.take_out(path, &current, record.as_ref(), legacy_used, |text, created| {
                    Ok(json::uninstall(path, text, spec, created)?.map(|r| (r.text, r.empty)))
                })?
            }
        };
        store.remove(part, path)?;
        self.push(path, what, action);
        Ok(action)
    }

    /// Give `path` back: byte for byte when it is still what install wrote,
    /// else through `surgery` (our entries out; `true`: nothing else left).
    pub(super) fn take_out(
        &mut self,
        path: &Path,
        current: &str,
        record: Option<&Record>,
        legacy: bool,
        surgery: impl Fn(&str, Option<&[String]>) -> Result<Option<(String, bool)>>,
    ) -> Result<Action> {
        if let Some(r) = record
            && r.after == current
        {
            match &r.before {
                // A file git t3 created that another install changed
                // since goes once nothing else is left in it (below).
                Some(before) if !r.file_created => {
                    self.write_text(path, before)?;
                    return Ok(Action::Restored);
                }
                None if is_plain_file(path) => {
                    self.delete(path)?;
                    return Ok(Action::Deleted);
                }
                _ => {}
            }
        }
        let created = record.filter(|_| !legacy).map(|r| r.created.as_slice());
        let Some((text, empty)) = surgery(current, created)? else {
            return Ok(Action::NotThere);
        };
        if let Some(r) = record {
            if (r.before.is_none() || r.file_created) && empty && is_plain_file(path) {
                self.delete(path)?;
                return Ok(Action::Deleted);
            }
            if let Some(before) = &r.before
                && (*before == text || (legacy && same_json(before, &text)))
            {
                self.write_text(path, before)?;
                return Ok(Action::Restored);
            }
        }
        self.write_text(path, &text)?;
        Ok(Action::Removed)
    }
}
