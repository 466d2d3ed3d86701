//! The forms the page posts (`application/x-www-form-urlencoded`): a
//! revert (or its preview) and an undo, each with the page's CSRF token.

use super::http::{Refusal, flag, number, only, parse_query, thread_value};

/// The revert the page asks for (`POST /api/revert`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevertForm {
    /// The thread.
    pub thread: String,
    /// The turn to go back to.
    pub to: u64,
    /// Leave the agent's conversation alone.
    pub files_only: bool,
    /// Only say what would change (the page's preview).
    pub dry_run: bool,
    /// The page's CSRF token.
    pub csrf: String,
}

/// The undo the page asks for (`POST /api/undo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoForm {
    /// The operation (its id, or a unique prefix of at least 4 hex digits).
    pub op: String,
    /// The page's CSRF token.
    pub csrf: String,
}

/// A form the page posts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// `POST /api/revert`.
    Revert(RevertForm),
    /// `POST /api/undo`.
    Undo(UndoForm),
}

impl Form {
    /// Its CSRF token.
    pub fn csrf(&self) -> &str {
        match self {
            Form::Revert(f) => &f.csrf,
            Form::Undo(f) => &f.csrf,
        }
    }
}

/// Parse the revert form (`application/x-www-form-urlencoded`).
pub fn revert_form(body: &str) -> Result<RevertForm, Refusal> {
    let q = parse_query(body)?;
    only(&q, &["thread", "to", "files_only", "dry_run", "csrf"])?;
    let need = |k: &str| {
        q.get(k)
            .ok_or_else(|| Refusal::bad(format!("the form needs {k}")))
    };
    Ok(RevertForm {
        thread: thread_value(need("thread")?)?,
        to: number(need("to")?)?,
        files_only: flag(q.get("files_only").map(String::as_str), false)?,
        dry_run: flag(q.get("dry_run").map(String::as_str), false)?,
        csrf: need("csrf")?.clone(),
    })
}

/// Parse the undo form: an op id (4 to 40 hex digits) and the CSRF token.
pub fn undo_form(body: &str) -> Result<UndoForm, Refusal> {
    let q = parse_query(body)?;
    only(&q, &["op", "csrf"])?;
    let need = |k: &str| {
        q.get(k)
            .ok_or_else(|| Refusal::bad(format!("the form needs {k}")))
    };
    let op = need("op")?;
    if !(4..=40).contains(&op.len()) || !op.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Refusal::bad("op must be an operation id (4 to 40 hex digits)"));
    }
    Ok(UndoForm {
        op: op.clone(),
        csrf: need("csrf")?.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_take_their_fields_and_nothing_else() {
        let f = revert_form("thread=t+1&to=2&csrf=abc").unwrap();
        assert_eq!(
            (f.thread.as_str(), f.to, f.files_only, f.dry_run, f.csrf.as_str()),
            ("t 1", 2, false, false, "abc")
        );
        assert!(revert_form("thread=t&to=2&dry_run=1&csrf=a").unwrap().dry_run);
        assert!(revert_form("thread=t&to=2").is_err());
        assert!(revert_form("thread=t&to=2&csrf=a&x=1").is_err());
        let u = undo_form("op=0123abcd&csrf=x").unwrap();
        assert_eq!((u.op.as_str(), u.csrf.as_str()), ("0123abcd", "x"));
        for bad in [
            "op=abc&csrf=x",
            "op=--force&csrf=x",
            "op=0123abcd",
            "op=0123abcd&csrf=x&y=1",
        ] {
            assert!(undo_form(bad).is_err(), "{bad}");
        }
        assert_eq!(Form::Undo(u).csrf(), "x");
    }
}
