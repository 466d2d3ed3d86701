//! git's diff drivers (`userdiff.c`): what the `diff` attribute of a file
//! selects — `diff` (text whatever the content), `-diff` (binary), or
//! `diff=<name>`: a driver of git's config (`diff.<name>.xfuncname`,
//! `funcname`, `wordRegex`, `binary`, `textconv`, `command`, `algorithm`)
//! over the built-in one of that name ([`builtin`]), if any.
//!
//! As in git, a name neither configured nor built in selects nothing, and
//! a file that selects nothing (or is not a regular file) gets the
//! `default` driver, which `diff.default.*` configures.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use gix::bstr::ByteSlice;

use crate::diff::posix::{Flags, Posix};
use crate::error::{Error, Result};

mod builtin;
mod funcname;
pub use funcname::FuncName;

/// The `diff` attribute of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffAttr {
    /// Not mentioned (or `!diff`).
    Unspecified,
    /// `diff`: text.
    Set,
    /// `-diff`: binary.
    Unset,
    /// `diff=<name>`.
    Driver(String),
}

/// One driver, as git's config and built-ins make it.
#[derive(Debug, Default)]
pub struct Driver {
    /// Its name.
    pub name: String,
    /// `diff.<name>.binary`: `Some(true)` binary, `Some(false)` text,
    /// `None` (auto, the default) as the content says.
    pub binary: Option<bool>,
    /// Its funcname patterns: the text, extended syntax, ignoring case.
    funcname: Option<(Vec<u8>, bool, bool)>,
    /// Its word regex (extended syntax).
    pub word_regex: Option<Vec<u8>>,
    /// `diff.<name>.textconv`.
    pub textconv: Option<String>,
    /// `diff.<name>.command`: an external diff.
    pub command: Option<String>,
    /// `diff.<name>.algorithm`.
    pub algorithm: Option<String>,
    /// The locale's characters are UTF-8 sequences.
    multibyte: bool,
    /// The funcname patterns compiled, the first time they are needed.
    compiled: OnceLock<std::result::Result<FuncName, String>>,
}

impl Driver {
    /// Whether it has funcname patterns.
    pub fn has_funcname(&self) -> bool {
        self.funcname.is_some()
    }

    /// Its funcname patterns compiled (`None`: it has none); git's refusal
    /// of a pattern it cannot compile as the error.
    pub fn funcname(&self) -> Option<Result<&FuncName>> {
        let (text, extended, icase) = self.funcname.as_ref()?;
        let compiled = self.compiled.get_or_init(|| {
            FuncName::new(
                text,
                Flags {
                    extended: *extended,
                    icase: *icase,
                    newline: false,
                    multibyte: self.multibyte,
                },
            )
        });
        Some(compiled.as_ref().map_err(|e| Error::BadInput {
            source_name: format!("diff.{}.xfuncname (or funcname)", self.name),
            problem: e.clone(),
        }))
    }
}

/// Every driver git would know, and the `default` one.
#[derive(Debug)]
pub struct Drivers {
    by_name: HashMap<String, Arc<Driver>>,
    default: Arc<Driver>,
    text: Arc<Driver>,
    binary: Arc<Driver>,
}

/// A word regex as git compiles it (extended syntax, `REG_NEWLINE`).
pub fn word_regex(pattern: &[u8], multibyte: bool) -> Result<Posix> {
    Posix::new(
        pattern,
        Flags {
            extended: true,
            icase: false,
            newline: true,
            multibyte,
        },
    )
    .map_err(|e| Error::BadInput {
        source_name: format!("the word regex {}", pattern.to_str_lossy()),
        problem: format!("invalid regular expression: {e}"),
    })
}

impl Drivers {
    /// The drivers `repo`'s config defines over git's built-in ones
    /// (`multibyte`: the locale's characters are UTF-8 sequences, which
    /// changes the built-in word regexes as in git).
    pub fn read(repo: &gix::Repository, multibyte: bool) -> Result<Drivers> {
        let mut by_name: HashMap<String, Driver> = HashMap::new();
        let config = repo.config_snapshot();
        for section in config.plumbing().sections() {
            let header = section.header();
            if !header.name().eq_ignore_ascii_case(b"diff") {
                continue;
            }
            let Some(name) = header.subsection_name() else {
                continue;
            };
            let name = name.to_str_lossy().into_owned();
            let body = section.body();
            for key in body.value_names() {
                let driver = by_name
                    .entry(name.clone())
                    .or_insert_with(|| Self::fresh(&name, multibyte));
                let value = body
                    .value_implicit(&key)
                    .and_then(|v| v.map(|v| v.to_str_lossy().into_owned()));
                set(driver, &key.to_ascii_lowercase(), value)?;
            }
        }
        for b in builtin::BUILTIN {
            let d = by_name
                .entry(b.name.to_owned())
                .or_insert_with(|| Self::fresh(b.name, multibyte));
            if multibyte {
                // git's `userdiff_find_by_name` puts the built-in regex back
                // over `diff.<name>.wordRegex` in a multibyte locale.
                d.word_regex = Some(builtin_word_regex(b.word, multibyte));
            }
        }
        let mut by_name: HashMap<String, Arc<Driver>> =
            by_name.into_iter().map(|(k, v)| (k, Arc::new(v))).collect();
        let default = by_name
            .remove("default")
            .unwrap_or_else(|| Arc::new(Self::fresh("default", multibyte)));
        let fixed = |name: &str, binary: bool| {
            Arc::new(Driver {
                name: name.into(),
                binary: Some(binary),
                ..Driver::default()
            })
        };
        Ok(Drivers {
            by_name,
            default,
            text: fixed("diff=true", false),
            binary: fixed("!diff", true),
        })
    }

    /// A driver before the config: the built-in one of `name`, else empty.
    fn fresh(name: &str, multibyte: bool) -> Driver {
        let mut d = Driver {
            name: name.into(),
            multibyte,
            ..Driver::default()
        };
        if let Some(b) = builtin::BUILTIN.iter().find(|b| b.name == name) {
            d.funcname = Some((b.funcname.to_vec(), true, b.icase));
            d.word_regex = Some(builtin_word_regex(b.word, multibyte));
        }
        d
    }

    /// The driver the attribute selects, if any (`userdiff_find_by_path`).
    pub fn selected(&self, attr: &DiffAttr) -> Option<&Arc<Driver>> {
        match attr {
            DiffAttr::Unspecified => None,
            DiffAttr::Set => Some(&self.text),
            DiffAttr::Unset => Some(&self.binary),
            DiffAttr::Driver(name) => self.by_name.get(name),
        }
    }

    /// The driver a side of a diff uses: the selected one for a regular
    /// file, else `default`.
    pub fn for_side(&self, attr: &DiffAttr, regular: bool) -> &Arc<Driver> {
        regular
            .then(|| self.selected(attr))
            .flatten()
            .unwrap_or(&self.default)
    }

    /// Whether the `default` driver changes anything of the counts (its
    /// `binary` set).
    pub fn default_is_plain(&self) -> bool {
        self.default.binary.is_none()
    }
}

/// A built-in word regex with git's catch-all alternatives: any
/// non-space character, and in a single-byte locale a whole UTF-8
/// sequence (which glibc matches there only as several bytes).
fn builtin_word_regex(word: &[u8], multibyte: bool) -> Vec<u8> {
    let tail: &[u8] = if multibyte {
        b"|[^[:space:]]"
    } else {
        b"|[^[:space:]]|[\xc0-\xff][\x80-\xbf]+"
    };
    [word, tail].concat()
}

/// Apply one `diff.<name>.<key>` setting, as `userdiff_config` does.
fn set(d: &mut Driver, key: &str, value: Option<String>) -> Result<()> {
    let string = |value: Option<String>| {
        value.ok_or_else(|| Error::BadConfig {
            key: format!("diff.{}.{key}", d.name),
            value: String::new(),
            origin: "git config".into(),
            problem: "missing value".into(),
        })
    };
    match key {
        "funcname" => d.funcname = Some((string(value)?.into_bytes(), false, false)),
        "xfuncname" => d.funcname = Some((string(value)?.into_bytes(), true, false)),
        "binary" => {
            d.binary = match value.as_deref() {
                Some(v) if v.eq_ignore_ascii_case("auto") => None,
                v => Some(config_bool(v).ok_or_else(|| Error::BadConfig {
                    key: format!("diff.{}.binary", d.name),
                    value: v.unwrap_or_default().into(),
                    origin: "git config".into(),
                    problem: "not a boolean (true, false or auto)".into(),
                })?),
            }
        }
        "command" => d.command = Some(string(value)?),
        "textconv" => d.textconv = Some(string(value)?),
        "wordregex" => d.word_regex = Some(string(value)?.into_bytes()),
        "algorithm" => d.algorithm = Some(string(value)?),
        _ => {}
    }
    Ok(())
}

/// git's boolean: no value is true, an empty one false.
fn config_bool(v: Option<&str>) -> Option<bool> {
    let Some(v) = v else { return Some(true) };
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        n => n.parse::<i64>().ok().map(|n| n != 0),
    }
}

#[cfg(test)]
mod tests;
