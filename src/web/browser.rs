//! The page token and opening the page in a browser.

use super::*;

/// 192 random bits from the system, base64url: the URL and CSRF tokens.
pub(super) fn random_token() -> Result<String> {
    use base64::Engine as _;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context(|| "could not read random bytes from /dev/urandom".into())?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// A page only this user can read that sends the browser on to `url`:
/// what the browser is started on, so the token is in no command line
/// (any user on the machine can read those), as Jupyter does.
pub(super) fn launcher(url: &str) -> std::result::Result<tempfile::NamedTempFile, String> {
    let mut file = tempfile::Builder::new()
        .prefix("t3-review-")
        .suffix(".html")
        .tempfile()
        .map_err(|e| format!("could not write the page that opens it: {e}"))?;
    let link = web::html_escape(url);
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={link}\"><title>git t3 review</title>\
         <p><a href=\"{link}\">Open git t3 review</a></p>\n"
    );
    std::io::Write::write_all(&mut file, page.as_bytes())
        .map_err(|e| format!("could not write the page that opens it: {e}"))?;
    Ok(file)
}

/// Start `$BROWSER` (split like a shell would, never through one), else
/// `xdg-open`, else `open`, on a [`launcher`] page for `url`, without
/// waiting for it; the page's file is returned to be kept while serving.
pub(super) fn open_browser(
    url: &str,
    browser: Option<&str>,
) -> std::result::Result<tempfile::NamedTempFile, String> {
    let page = launcher(url)?;
    let target = format!("file://{}", page.path().display());
    let mut candidates: Vec<Vec<String>> = Vec::new();
    if let Some(browser) = browser.filter(|b| !b.trim().is_empty()) {
        // `$BROWSER` may list several, separated by colons.
        for one in browser.split(':').filter(|b| !b.trim().is_empty()) {
            match shlex::split(one) {
                Some(words) if !words.is_empty() => candidates.push(words),
                _ => return Err(format!("cannot parse $BROWSER={browser:?}")),
            }
        }
    }
    candidates.push(vec!["xdg-open".into()]);
    candidates.push(vec!["open".into()]);
    let mut last = String::from("no browser");
    for words in candidates {
        let mut cmd = std::process::Command::new(&words[0]);
        cmd.args(&words[1..])
            .arg(&target)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        match cmd.spawn() {
            Ok(mut child) => {
                // Reap it whenever it ends.
                std::thread::spawn(move || child.wait());
                return Ok(page);
            }
            Err(e) => last = format!("{}: {e}", words[0]),
        }
    }
    Err(last)
}
