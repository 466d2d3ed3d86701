//! `git -c key=value` as git hands it to external commands: the
//! `GIT_CONFIG_PARAMETERS` variable, a list of shell-single-quoted entries,
//! each `'key'='value'`, `'key'=` (`git -c key`, a key without a value:
//! a boolean true), `'key'` or, from older gits, `'key=value'`.

/// The `key=value` overrides of `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`
/// and `GIT_CONFIG_VALUE_<n>` (git 2.31's other way to pass `-c`), read
/// through `var`; `None` when they are malformed (a count that is not a
/// number, a key or value missing, an empty key: git refuses to run then).
pub fn from_count(var: impl Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    let Some(count) = var("GIT_CONFIG_COUNT") else {
        return Some(Vec::new());
    };
    let count: usize = count.trim().parse().ok()?;
    (0..count)
        .map(|i| {
            let key = var(&format!("GIT_CONFIG_KEY_{i}")).filter(|k| !k.is_empty())?;
            let value = var(&format!("GIT_CONFIG_VALUE_{i}"))?;
            Some(format!("{key}={value}"))
        })
        .collect()
}

/// The `key=value` (or bare `key`) overrides in `params`, in order; `None`
/// when the variable is malformed (git then refuses to run).
pub fn parse(params: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = params.trim_start();
    while !rest.is_empty() {
        let (key, after) = quoted(rest)?;
        rest = after;
        if let Some(after_eq) = rest.strip_prefix('=') {
            if after_eq.is_empty() || after_eq.starts_with(char::is_whitespace) {
                // `git -c key` (no `=`): git writes `'key'=` and no value.
                out.push(key);
                rest = after_eq;
            } else {
                let (value, after) = quoted(after_eq)?;
                out.push(format!("{key}={value}"));
                rest = after;
            }
        } else {
            // Old style (`'key=value'`) or a bare key: the same text.
            out.push(key);
        }
        let trimmed = rest.trim_start();
        if trimmed.len() == rest.len() && !rest.is_empty() {
            return None;
        }
        rest = trimmed;
    }
    Some(out)
}

/// One single-quoted word at the start of `s` (git's `sq_quote`: a `'`
/// inside is written `'\''`, a `!` as `'\!'`), and what follows it.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut rest = s.strip_prefix('\'')?;
    let mut word = String::new();
    loop {
        let end = rest.find('\'')?;
        word.push_str(rest.get(..end)?);
        rest = rest.get(end + 1..)?;
        // `\X'` continues the word with X.
        let mut chars = rest.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some('\\'), Some(c), Some('\'')) => {
                word.push(c);
                rest = chars.as_str();
            }
            _ => return Some((word, rest)),
        }
    }
}

#[cfg(test)]
mod count_tests {
    use super::from_count;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn count_pairs_are_read_in_order_and_checked() {
        assert_eq!(from_count(env(&[])), Some(vec![]));
        assert_eq!(
            from_count(env(&[
                ("GIT_CONFIG_COUNT", "2"),
                ("GIT_CONFIG_KEY_0", "gc.auto"),
                ("GIT_CONFIG_VALUE_0", "0"),
                ("GIT_CONFIG_KEY_1", "a.b"),
                ("GIT_CONFIG_VALUE_1", "x=y"),
            ])),
            Some(vec!["gc.auto=0".to_owned(), "a.b=x=y".to_owned()])
        );
        assert_eq!(from_count(env(&[("GIT_CONFIG_COUNT", "0")])), Some(vec![]));
        for bad in [
            &[("GIT_CONFIG_COUNT", "x")][..],
            &[("GIT_CONFIG_COUNT", "1")][..],
            &[("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "a.b")][..],
            &[
                ("GIT_CONFIG_COUNT", "1"),
                ("GIT_CONFIG_KEY_0", ""),
                ("GIT_CONFIG_VALUE_0", "v"),
            ][..],
        ] {
            assert_eq!(from_count(env(bad)), None, "{bad:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_what_git_writes() {
        assert_eq!(parse("'color.ui'='always'").unwrap(), ["color.ui=always"]);
        assert_eq!(
            parse("'core.quotepath'='false' 'a.b'").unwrap(),
            ["core.quotepath=false", "a.b"]
        );
        assert_eq!(parse("'old.style=v'").unwrap(), ["old.style=v"]);
        assert_eq!(parse("'k.x'='it'\\''s!'").unwrap(), ["k.x=it's!"]);
        assert_eq!(parse("'k.x'='a'\\!'b'").unwrap(), ["k.x=a!b"]);
        assert_eq!(parse("").unwrap(), Vec::<String>::new());
        // What git 2.47 writes for `git -c color.diff.old -c a.b=c`.
        assert_eq!(
            parse("'color.diff.old'= 'a.b'='c'").unwrap(),
            ["color.diff.old", "a.b=c"]
        );
        assert_eq!(parse("'k'=").unwrap(), ["k"]);
        for bad in ["'unterminated", "noquote", "'a''b'", "'k'=x", "'a'x"] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
