//! Paths that look like secrets: `capture` warns (once per thread) when a
//! checkpoint records one, and `push` refuses to send one (its scan is in
//! `sync/secrets.rs`) unless `--allow-secrets`.
//!
//! The patterns are gitignore patterns, matched by gix against each file's
//! worktree-relative path (a pattern without `/` matches the file name in
//! any folder; directories themselves are not matched): the defaults
//! ([`DEFAULT_PATTERNS`]), then every value of the multi-valued
//! `t3.secretPattern` in config order. As in a `.gitignore`, the last
//! matching line decides, so `t3.secretPattern = !.env.example` exempts a
//! file the defaults match, and an empty value drops every pattern before it
//! (the defaults included).

use gix::bstr::{BStr, BString, ByteSlice};
use gix::ignore::Search;

/// The patterns every repository starts with.
pub const DEFAULT_PATTERNS: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "credentials",
    "credentials.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    "*.keystore",
];
/// The config key adding patterns (multi-valued).
pub const PATTERN_KEY: &str = "t3.secretPattern";
/// How a note's warning about secret-looking paths starts: `capture` looks
/// for it in the thread's earlier notes to warn only once per thread.
pub const WARNING_PREFIX: &str = "records paths that look like secrets: ";
/// At most this many paths are named in a warning.
const NAMED: usize = 5;

/// The secret patterns of a repository.
pub struct Secrets {
    search: Search,
    case: gix::glob::pattern::Case,
}

impl Secrets {
    /// The defaults and `t3.secretPattern` of `repo`'s config.
    pub fn of(repo: &gix::Repository) -> Self {
        let configured = repo
            .config_snapshot()
            .plumbing()
            .strings(PATTERN_KEY)
            .unwrap_or_default();
        let ignore_case = repo.filesystem_options().map(|o| o.ignore_case).unwrap_or(false);
        Self::new(configured.iter().map(|v| v.as_bstr()), ignore_case)
    }

    /// The defaults followed by `extra` (an empty one drops everything before it).
    pub fn new<'a>(extra: impl IntoIterator<Item = &'a BStr>, ignore_case: bool) -> Self {
        let mut patterns: Vec<BString> = DEFAULT_PATTERNS.iter().map(|p| BString::from(*p)).collect();
        for p in extra {
            if p.trim().is_empty() {
                patterns.clear();
            } else {
                patterns.push(p.to_owned());
            }
        }
        let search = Search::from_overrides(
            patterns
                .iter()
                .filter_map(|p| gix::path::from_bstr(p.as_bstr()).ok())
                .map(|p| p.into_owned().into_os_string()),
            Default::default(),
        );
        Secrets {
            search,
            case: if ignore_case {
                gix::glob::pattern::Case::Fold
            } else {
                gix::glob::pattern::Case::Sensitive
            },
        }
    }

    /// Whether the file at the worktree-relative `path` looks like a secret.
    pub fn matches(&self, path: &BStr) -> bool {
        self.search
            .pattern_matching_relative_path(path, Some(false), self.case)
            .is_some_and(|m| !m.pattern.is_negative())
    }
}

/// The note warning for a checkpoint that records `paths` (sorted): the
/// first few, C-quoted, and how many more.
pub fn warning(paths: &[BString]) -> String {
    let mut text = String::from(WARNING_PREFIX);
    let named: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|p| crate::model::path::to_text(p).0)
        .collect();
    text.push_str(&named.join(", "));
    if paths.len() > NAMED {
        text.push_str(&format!(" and {} more", paths.len() - NAMED));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(s: &Secrets, p: &str) -> bool {
        s.matches(BStr::new(p))
    }

    #[test]
    fn defaults_match_file_names_anywhere() {
        let s = Secrets::new(std::iter::empty(), false);
        for p in [
            ".env",
            "app/.env.local",
            "tls/server.pem",
            "keys/deploy.key",
            "home/.ssh/id_rsa",
            "id_ed25519.pub",
            "cert.p12",
            "cert.pfx",
            ".aws/credentials",
            "gcp/credentials.json",
            ".netrc",
            ".npmrc",
            ".pypirc",
            "android/release.keystore",
        ] {
            assert!(secret(&s, p), "{p} should look like a secret");
        }
        for p in [
            "environment.txt",
            "src/key.rs",
            "keys/README.md",
            "credentials.md",
            "env",
        ] {
            assert!(!secret(&s, p), "{p} should not look like a secret");
        }
    }

    #[test]
    fn config_adds_exempts_and_resets() {
        let extra = [BStr::new("*.secret"), BStr::new("!.env.example")];
        let s = Secrets::new(extra, false);
        assert!(secret(&s, "db.secret"));
        assert!(!secret(&s, ".env.example"));
        assert!(secret(&s, ".env.local"));
        let s = Secrets::new([BStr::new(""), BStr::new("*.token")], false);
        assert!(!secret(&s, ".env"), "an empty value drops the defaults");
        assert!(secret(&s, "a/b.token"));
    }

    #[test]
    fn the_warning_names_a_few() {
        let paths: Vec<BString> = (0..7).map(|i| BString::from(format!("k{i}.pem"))).collect();
        let w = warning(&paths);
        assert!(w.starts_with(WARNING_PREFIX));
        assert!(w.ends_with("k4.pem and 2 more"), "{w}");
    }
}
