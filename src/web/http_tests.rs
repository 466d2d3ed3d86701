//! The unit tests of `http.rs`.

use super::*;

#[test]
fn a_percent_escape_is_two_hex_digits() {
    assert_eq!(decode("a%20b", false).unwrap(), "a b");
    for bad in ["%+A", "%-1", "% 1", "%4", "%zz"] {
        assert!(decode(bad, false).is_err(), "{bad}");
    }
}

const T: &str = "tok123tok123tok123";

fn get(url: &str) -> Result<Route, Refusal> {
    route(Method::Get, url, T)
}

fn status(url: &str) -> u16 {
    get(url).err().map_or(200, |r| r.status)
}

#[test]
fn routes_behind_the_token() {
    assert_eq!(get(&format!("/{T}/")), Ok(Route::Page));
    assert_eq!(get(&format!("/{T}/app.js")), Ok(Route::Asset("app.js")));
    assert_eq!(get(&format!("/{T}/api/threads")), Ok(Route::Threads));
    assert_eq!(
        get(&format!("/{T}/api/turns?thread=a%2Fb%20c")),
        Ok(Route::Turns("a/b c".into()))
    );
    // Dots are data in a query (a browser would resolve them in a path).
    for (query, id) in [("..", ".."), (".", "."), ("%2E%2E", ".."), ("a%26b%3D", "a&b=")] {
        assert_eq!(
            get(&format!("/{T}/api/turns?thread={query}")),
            Ok(Route::Turns(id.into())),
            "{query}"
        );
    }
    for bad in ["", "?thread=", "?thread=a&x=1", "?thread=a&thread=b", "?x=a"] {
        assert_eq!(status(&format!("/{T}/api/turns{bad}")), 400, "{bad}");
    }
    assert_eq!(status(&format!("/{T}/api/threads/a/turns")), 404);
    assert_eq!(status("/"), 403);
    assert_eq!(status("/api/threads"), 403);
    assert_eq!(status("/tok123tok123tok12x/"), 403);
    assert_eq!(status(&format!("/{T}/../etc/passwd")), 404);
    assert_eq!(status(&format!("/{T}/src/main.rs")), 404);
    assert_eq!(status(&format!("/{T}/api/")), 404);
    assert_eq!(status(&format!("/{T}/?x=1")), 400);
    assert_eq!(status(&format!("/{T}/{}", "a".repeat(MAX_URL))), 413);
    assert_eq!(
        route(Method::Post, &format!("/{T}/api/threads"), T).map_err(|r| r.status),
        Err(405)
    );
    assert_eq!(
        route(Method::Get, &format!("/{T}/api/revert"), T).map_err(|r| r.status),
        Err(405)
    );
    assert_eq!(
        route(Method::Post, &format!("/{T}/api/revert"), T),
        Ok(Route::Revert)
    );
}

#[test]
fn diff_queries_are_strict() {
    let q = |s: &str| get(&format!("/{T}/api/diff?{s}"));
    let turn = |thread: &str, turn| DiffQuery {
        mode: Mode::Turn {
            thread: thread.into(),
            turn,
        },
        ignore_whitespace: true,
    };
    assert_eq!(
        q("mode=turn&thread=t1&turn=3"),
        Ok(Route::Diff(turn("t1", Some(3))))
    );
    assert_eq!(q("thread=t1"), Ok(Route::Diff(turn("t1", None))));
    let d = DiffQuery {
        mode: Mode::Worktree,
        ignore_whitespace: false,
    };
    assert_eq!(q("mode=worktree&ws=0"), Ok(Route::Diff(d.clone())));
    for bad in [
        "mode=turn",
        "mode=turn&thread=t&turn=x",
        "mode=turn&thread=t&turn=-1",
        "mode=nope&thread=t",
        "mode=worktree&thread=t",
        "mode=branch&base=--upload-pack=x",
        "thread=t&thread=u",
        "thread=t&extra=1",
        "thread=t&ws=2",
        "thread=%zz",
        "thread=%ff",
        "thread=a%0Ab",
        "thread",
        "thread=t&start=1",
    ] {
        assert_eq!(q(bad).map_err(|r| r.status), Err(400), "{bad}");
    }
    assert_eq!(
        get(&format!("/{T}/api/patch?mode=full&thread=t&start=40")),
        Ok(Route::Patch(
            DiffQuery {
                mode: Mode::Full {
                    thread: "t".into(),
                    to: None
                },
                ignore_whitespace: true
            },
            40
        ))
    );
}

#[test]
fn hosts_and_secrets() {
    assert!(host_ok(Some("127.0.0.1:8080"), 8080));
    assert!(host_ok(Some("localhost:8080"), 8080));
    assert!(!host_ok(Some("evil.example:8080"), 8080));
    assert!(!host_ok(Some("127.0.0.1:8081"), 8080));
    assert!(!host_ok(None, 8080));
    assert!(origin_ok(None, 1));
    assert!(!origin_ok(Some("http://evil.example"), 1));
    assert!(same_secret("abc", "abc") && !same_secret("abc", "abd") && !same_secret("ab", "abc"));
}
