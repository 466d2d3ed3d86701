use super::*;

#[test]
fn every_builtin_pattern_compiles_in_both_locales() {
    for multibyte in [false, true] {
        for b in builtin::BUILTIN {
            let flags = Flags {
                extended: true,
                icase: b.icase,
                newline: false,
                multibyte,
            };
            FuncName::new(b.funcname, flags).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            word_regex(&builtin_word_regex(b.word, multibyte), multibyte)
                .unwrap_or_else(|e| panic!("{}: {e}", b.name));
        }
    }
}

#[test]
fn builtin_function_lines() {
    let d = |name: &str| Drivers::fresh(name, false);
    let cpp = d("cpp");
    let cpp = cpp.funcname().unwrap().unwrap();
    assert_eq!(cpp.find(b"int main(void)\n", 80), Some(&b"int main(void)"[..]));
    // Jump targets are rejected.
    assert_eq!(cpp.find(b"label:\n", 80), None);
    let py = d("python");
    let py = py.funcname().unwrap().unwrap();
    assert_eq!(py.find(b"    def f(x):  \r\n", 80), Some(&b"def f(x):"[..]));
    assert_eq!(py.find(b"x = 1\n", 80), None);
    let rust = d("rust");
    let rust = rust.funcname().unwrap().unwrap();
    assert_eq!(
        rust.find(b"pub(crate) fn go() {\n", 80),
        Some(&b"pub(crate) fn go() {"[..])
    );
    assert_eq!(rust.find(b"pub fn go() {\n", 5), Some(&b"pub f"[..]));
}

#[test]
fn config_bools_as_git_reads_them() {
    assert_eq!(config_bool(None), Some(true));
    assert_eq!(config_bool(Some("")), Some(false));
    assert_eq!(config_bool(Some("On")), Some(true));
    assert_eq!(config_bool(Some("2")), Some(true));
    assert_eq!(config_bool(Some("maybe")), None);
}
