//! The attributes `git diff` reads for each file — `diff` (its driver:
//! binary, text, funcname and word patterns, algorithm, textconv, external
//! command) and `whitespace` (its whitespace errors) — from where git reads
//! them: `.gitattributes` files in the worktree, `$GIT_DIR/info/attributes`,
//! `core.attributesFile` and the system's file, `attr.tree` instead of the
//! worktree when set.
//!
//! As in git, a diff of two trees reads only the worktree's files (`git
//! diff A B` loads no index), a diff against the worktree falls back to
//! the index's `.gitattributes` where the worktree has none, and a bare
//! repository has only the files outside the tree. gix's attribute stack
//! does the matching (patterns, macros such as `binary`, precedence).

use std::sync::Arc;

use gix::bstr::{BStr, ByteSlice};
use gix::objs::tree::EntryKind;
use gix::worktree::stack::state::attributes::Source;

use crate::diff::changes::TreeChange;
use crate::diff::lines::{Algorithm, Treat};
use crate::diff::userdiff::{DiffAttr, Driver, Drivers};
use crate::error::{Context as _, Result};
use crate::model::whitespace::Rule;

/// The `whitespace` attribute of a path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WhitespaceAttr {
    /// Not mentioned, or `!whitespace`: `core.whitespace`.
    #[default]
    Unspecified,
    /// `whitespace`: every error rule.
    Set,
    /// `-whitespace`: none.
    Unset,
    /// `whitespace=<rules>`: these, from git's default.
    Rules(String),
}

impl WhitespaceAttr {
    /// The rule in force, `config` being `core.whitespace`'s; `None` for
    /// `config` itself. git refuses rules that ask for both `tab-in-indent`
    /// and `indent-with-non-tab`.
    pub fn rule(&self, config: Rule) -> std::result::Result<Option<Rule>, String> {
        Ok(match self {
            WhitespaceAttr::Unspecified => None,
            WhitespaceAttr::Set => Some(Rule::all(config.tab_width)),
            WhitespaceAttr::Unset => Some(Rule::none(config.tab_width)),
            WhitespaceAttr::Rules(value) => {
                let (rule, problems) = Rule::parse(value);
                if let Some(p) = problems
                    .iter()
                    .find(|p| matches!(p, crate::model::whitespace::Problem::Conflict))
                {
                    return Err(format!("whitespace={value}: {p}"));
                }
                Some(rule)
            }
        })
    }
}

/// How git treats one change because of its attributes.
#[derive(Debug, Clone, Default)]
pub struct Treatment {
    /// What changes its counts: binary by driver, a driver's algorithm.
    pub counts: Treat,
    /// The driver whose funcname patterns find its function lines (the
    /// old side's, else the new side's), if either has them.
    pub funcname: Option<Arc<Driver>>,
    /// The word regex of its drivers (the old side's, else the new side's).
    pub word_regex: Option<Vec<u8>>,
    /// Its `whitespace` attribute (at the new path).
    pub whitespace: WhitespaceAttr,
    /// The name of a driver that converts a side with `textconv`.
    pub textconv: Option<String>,
    /// The name of its driver when that runs an external diff (`command`).
    pub command: Option<String>,
}

/// The attributes of one path that a diff reads.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PathAttrs {
    diff: DiffAttr,
    whitespace: WhitespaceAttr,
}

/// Attribute lookups for one diff.
pub struct Attributes<'r> {
    stack: gix::AttributeStack<'r>,
    outcome: gix::attrs::search::Outcome,
    drivers: Drivers,
}

impl<'r> Attributes<'r> {
    /// The attributes of `repo` as `git diff` reads them: `live` when one
    /// side is the worktree (the index is a fallback then); `multibyte`
    /// when the locale's characters are UTF-8 sequences.
    pub fn new(repo: &'r gix::Repository, live: bool, multibyte: bool) -> Result<Self> {
        let drivers = Drivers::read(repo, multibyte)?;
        let context = || "could not read the attributes".to_string();
        let empty = || gix::index::State::new(repo.object_hash());
        let stack = if let Some(tree) = attr_tree(repo) {
            let index = repo.index_from_tree(&tree).context(context)?;
            repo.attributes_only(&index, Source::IdMapping)
        } else if repo.workdir().is_none() {
            repo.attributes_only(&empty(), Source::IdMapping)
        } else if live {
            let index = repo.index_or_empty().context(context)?;
            repo.attributes_only(&index, Source::WorktreeThenIdMapping)
        } else {
            repo.attributes_only(&empty(), Source::WorktreeThenIdMapping)
        }
        .context(context)?;
        let outcome = stack.selected_attribute_matches(["diff", "whitespace"]);
        Ok(Attributes {
            stack,
            outcome,
            drivers,
        })
    }

    /// The `diff` and `whitespace` attributes of `path`.
    fn at(&mut self, path: &BStr) -> Result<PathAttrs> {
        self.stack
            .at_entry(path, None)
            .context(|| format!("could not read the attributes of {}", path.to_str_lossy()))?
            .matching_attributes(&mut self.outcome);
        let mut attrs = PathAttrs {
            diff: DiffAttr::Unspecified,
            whitespace: WhitespaceAttr::Unspecified,
        };
        for m in self.outcome.iter_selected() {
            let value = || match m.assignment.state {
                gix::attrs::StateRef::Value(v) => Some(v.as_bstr().to_str_lossy().into_owned()),
                _ => None,
            };
            use gix::attrs::StateRef as S;
            match (m.assignment.name.as_str(), m.assignment.state) {
                ("diff", S::Set) => attrs.diff = DiffAttr::Set,
                ("diff", S::Unset) => attrs.diff = DiffAttr::Unset,
                ("diff", S::Value(_)) => attrs.diff = DiffAttr::Driver(value().unwrap_or_default()),
                ("whitespace", S::Set) => attrs.whitespace = WhitespaceAttr::Set,
                ("whitespace", S::Unset) => attrs.whitespace = WhitespaceAttr::Unset,
                ("whitespace", S::Value(_)) => {
                    attrs.whitespace = WhitespaceAttr::Rules(value().unwrap_or_default());
                }
                _ => {}
            }
        }
        Ok(attrs)
    }

    /// How git treats each of `changes`, in order: a driver's algorithm
    /// stays in force for the files after it, as in git (unless the
    /// command line named the algorithm: `ignore_driver_algorithm`).
    pub fn treatments(
        &mut self,
        changes: &[TreeChange],
        ignore_driver_algorithm: bool,
    ) -> Result<Vec<Treatment>> {
        let mut algorithm: Option<Algorithm> = None;
        let mut out = Vec::with_capacity(changes.len());
        for c in changes {
            let old_path = c.old_path.as_ref().unwrap_or(&c.path);
            let old = self.at(old_path.as_bstr())?;
            let new = if c.old_path.is_some() {
                self.at(c.path.as_bstr())?
            } else {
                old.clone()
            };
            let regular = |s: Option<crate::diff::changes::Side>| {
                s.is_some_and(|s| matches!(s.kind, EntryKind::Blob | EntryKind::BlobExecutable))
            };
            let old_driver = self.drivers.for_side(&old.diff, regular(c.old)).clone();
            let new_driver = self.drivers.for_side(&new.diff, regular(c.new)).clone();
            // git's run_diff: the driver of the old path sets the algorithm
            // (and runs an external diff), whatever the file is.
            let by_path = self.drivers.selected(&old.diff);
            if !ignore_driver_algorithm
                && let Some(a) = by_path
                    .and_then(|d| d.algorithm.as_deref())
                    .and_then(Algorithm::from_name)
            {
                algorithm = Some(a);
            }
            let sides = [(c.old.is_some(), &old_driver), (c.new.is_some(), &new_driver)];
            let textconv = sides
                .iter()
                .find(|(exists, d)| *exists && d.textconv.is_some())
                .map(|(_, d)| d.name.clone());
            out.push(Treatment {
                counts: Treat {
                    binary: [old_driver.binary, new_driver.binary],
                    algorithm,
                },
                funcname: [&old_driver, &new_driver]
                    .into_iter()
                    .find(|d| d.has_funcname())
                    .cloned(),
                word_regex: old_driver
                    .word_regex
                    .clone()
                    .or_else(|| new_driver.word_regex.clone()),
                whitespace: new.whitespace,
                textconv,
                command: by_path.filter(|d| d.command.is_some()).map(|d| d.name.clone()),
            });
        }
        Ok(out)
    }

    /// Whether the counts of files at `paths` are what they would be
    /// without attributes (no driver of theirs sets `binary` or an
    /// algorithm): a summary computed without attributes is theirs then.
    pub fn counts_unchanged<'p>(&mut self, paths: impl IntoIterator<Item = &'p [u8]>) -> Result<bool> {
        if !self.drivers.default_is_plain() {
            return Ok(false);
        }
        for path in paths {
            let attrs = self.at(path.as_bstr())?;
            if self
                .drivers
                .selected(&attrs.diff)
                .is_some_and(|d| d.binary.is_some() || d.algorithm.is_some())
            {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// `attr.tree`: the tree attributes are read from instead of the worktree
/// and index, when it names one (git ignores a name it cannot resolve).
fn attr_tree(repo: &gix::Repository) -> Option<gix::ObjectId> {
    let name = repo.config_snapshot().string("attr.tree")?.to_string();
    let id = repo.rev_parse_single(name.as_str()).ok()?;
    let tree = id.object().ok()?.peel_to_tree().ok()?;
    Some(tree.id)
}
