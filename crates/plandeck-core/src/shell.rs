//! Shell command lines, read and written by the rules of POSIX `sh`.
//!
//! Two sides of one thing. [`quote`] writes a word that `sh` reads back as exactly itself (the
//! hook command Plandeck installs into an agent's settings: a path holding `(`, `$(…)` or a quote
//! must run that file and nothing else). [`simple_commands`] reads a command line an agent ran as
//! `sh` would split it (quotes, backslashes, the operators `&&`, `||`, `;`, `|`, `&`, parentheses,
//! redirections, comments), so Verify can tell `cargo test` run from `echo "cargo test"` printed.
//!
//! Only splitting is done: nothing is expanded. `$(…)` and backquoted text stay inside the word
//! they are in (what they would run is not claimed as run).

/// One word of a command line: its text with the quotes taken away, and whether any of it was
/// quoted (`"test"` is a word a person wrote as text, not a subcommand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub quoted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// `&&`, `||`, `;`, `|`, `&`, a line break, `(`, `)`: the end of a simple command.
    Separator,
    /// `>`, `>>`, `<`, `>&`, `&>`…: the next word is where it goes, not an argument.
    Redirect,
}

/// `word` as one `sh` word: always single-quoted, a `'` written as `'\''`. Every other byte is
/// literal inside single quotes, so `sh` reads back exactly `word`.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Splits `line` into tokens. `None` when a quote or `$(` is never closed (not a command `sh`
/// would run as written).
fn tokens(line: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    macro_rules! end_word {
        () => {
            if in_word {
                out.push(Token::Word(Word {
                    text: std::mem::take(&mut word),
                    quoted,
                }));
                quoted = false;
                in_word = false;
            }
        };
    }
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word!(),
            '\n' | ';' | '(' | ')' => {
                end_word!();
                out.push(Token::Separator);
            }
            '|' => {
                end_word!();
                if matches!(chars.peek(), Some('|' | '&')) {
                    chars.next();
                }
                out.push(Token::Separator);
            }
            '&' => {
                end_word!();
                match chars.peek() {
                    Some('&') => {
                        chars.next();
                        out.push(Token::Separator);
                    }
                    Some('>') => {
                        chars.next();
                        if chars.peek() == Some(&'>') {
                            chars.next();
                        }
                        out.push(Token::Redirect);
                    }
                    _ => out.push(Token::Separator),
                }
            }
            '<' | '>' => {
                // `2>`: the digits before a redirection name a descriptor, not an argument.
                if in_word && !quoted && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word!();
                while matches!(chars.peek(), Some('>' | '<' | '&' | '|')) {
                    chars.next();
                }
                out.push(Token::Redirect);
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push(Token::Separator);
                        break;
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    word.push(next);
                    quoted = true;
                    in_word = true;
                }
                None => {}
            },
            '\'' => {
                in_word = true;
                quoted = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                quoted = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('$' | '`' | '"' | '\\') => word.push(c),
                            '\n' => {}
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                // A command substitution stays inside its word, parentheses balanced.
                in_word = true;
                word.push('$');
                let mut depth = 0usize;
                loop {
                    let c = chars.next()?;
                    word.push(c);
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            '`' => {
                in_word = true;
                word.push('`');
                loop {
                    let c = chars.next()?;
                    word.push(c);
                    if c == '`' {
                        break;
                    }
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(Token::Word(Word { text: word, quoted }));
    }
    Some(out)
}

/// Whether `w` is an assignment `NAME=value` before a command.
fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.text.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Programs that run the command after them (`sudo cargo test`), with how many of their own
/// words to skip: options (`-x`), and for these options one value more.
fn wrapper_options(program: &str) -> Option<&'static [&'static str]> {
    match program {
        "sudo" => Some(&["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"]),
        "time" | "exec" | "nohup" => Some(&[]),
        "nice" => Some(&["-n"]),
        "env" => Some(&["-u", "-C", "-S"]),
        "timeout" => Some(&["-s", "-k"]),
        _ => None,
    }
}

/// How many words a package runner takes before the program it runs (`npx vitest`, `pnpm exec
/// jest`, `bundle exec rspec`, `uv run pytest`, `python -m pytest`), if `words` starts with one.
fn launcher_words(words: &[Word]) -> Option<usize> {
    let first = program_name(&words.first()?.text);
    let second = words.get(1).map(|w| w.text.as_str());
    match (first, second) {
        ("npx" | "bunx", _) => Some(1),
        ("npm" | "pnpm" | "yarn", Some("exec" | "dlx")) => Some(2),
        ("bundle", Some("exec")) | ("poetry" | "uv" | "pipenv", Some("run")) => Some(2),
        ("python" | "python3", Some("-m")) => Some(2),
        _ => None,
    }
}

/// The argv of `words` once assignments, wrappers and package runners (`FOO=1 sudo -u x time
/// npx vitest run` → `vitest run`) are taken off.
fn strip_wrappers(mut words: &[Word]) -> &[Word] {
    loop {
        while words.first().is_some_and(is_assignment) {
            words = &words[1..];
        }
        if let Some(n) = launcher_words(words) {
            words = &words[n..];
            // Their own options: `npx --yes`, `npx -p pkg`, `npm exec -- vitest`.
            while let Some(w) = words.first() {
                match w.text.as_str() {
                    "--" => {
                        words = &words[1..];
                        break;
                    }
                    "-p" | "--package" if words.len() > 1 => words = &words[2..],
                    t if t.starts_with('-') && t.len() > 1 => words = &words[1..],
                    _ => break,
                }
            }
            continue;
        }
        let Some(first) = words.first() else {
            return words;
        };
        let Some(with_value) = wrapper_options(&first.text) else {
            return words;
        };
        let program = first.text.as_str();
        words = &words[1..];
        while let Some(w) = words.first() {
            if w.text == "--" {
                words = &words[1..];
                break;
            }
            if w.text.starts_with('-') && w.text.len() > 1 {
                words = &words[1..];
                if with_value.contains(&w.text.as_str()) && !words.is_empty() {
                    words = &words[1..];
                }
            } else if program == "env" && is_assignment(w) {
                words = &words[1..];
            } else {
                break;
            }
        }
        // `timeout 60 cargo test`: the duration goes too.
        if program == "timeout" && !words.is_empty() {
            words = &words[1..];
        }
    }
}

/// The simple commands `line` runs, each as its argv: split at `&&`, `||`, `;`, `|`, `&`, line
/// breaks and parentheses; redirections and their targets left out; leading assignments,
/// wrappers (`sudo`, `time`, `env`, `nice`, `timeout`, `nohup`, `exec`) and package runners
/// (`npx`, `pnpm exec`, `bundle exec`, `uv run`, `python -m`…) taken off;
/// `sh -c '<script>'` read as the script's commands. A line `sh` could not parse (an unclosed
/// quote) gives none.
pub fn simple_commands(line: &str) -> Vec<Vec<Word>> {
    let mut out = Vec::new();
    collect(line, &mut out, 0);
    out
}

fn collect(line: &str, out: &mut Vec<Vec<Word>>, depth: usize) {
    let Some(tokens) = tokens(line) else {
        return;
    };
    let mut current: Vec<Word> = Vec::new();
    let mut redirect = false;
    let flush = |current: &mut Vec<Word>, out: &mut Vec<Vec<Word>>| {
        let words = strip_wrappers(current);
        if !words.is_empty() {
            let program = program_name(&words[0].text);
            let is_shell = matches!(program, "sh" | "bash" | "zsh" | "dash" | "ksh");
            match words.get(1).map(|w| w.text.as_str()) {
                // `bash -lc 'cargo test'`: what the shell runs is the script.
                Some(flag)
                    if is_shell
                        && depth < 4
                        && flag.starts_with('-')
                        && !flag.starts_with("--")
                        && flag.contains('c') =>
                {
                    if let Some(script) = words.get(2) {
                        collect(&script.text, out, depth + 1);
                    }
                }
                // `bash scripts/test.sh`: the script is the program.
                Some(script) if is_shell && !script.starts_with('-') => {
                    out.push(words[1..].to_vec());
                }
                _ => out.push(words.to_vec()),
            }
        }
        current.clear();
    };
    for t in tokens {
        match t {
            Token::Word(w) => {
                if std::mem::take(&mut redirect) {
                    continue;
                }
                current.push(w);
            }
            Token::Redirect => redirect = true,
            Token::Separator => {
                redirect = false;
                flush(&mut current, out);
            }
        }
    }
    flush(&mut current, out);
}

/// The program's name as a person calls it: `/usr/bin/cargo` → `cargo`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The executable `name` beside `exe` (the running program), if it is one that only its owner can
/// change, owned by whoever owns `exe` (or root). A folder others can write to (a download folder,
/// `/tmp`) may hold a `plandeck-cli` or `plandeck-window` somebody else put there: Plandeck never
/// runs that, nor has an agent's hook run it.
pub fn trusted_sibling(exe: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let own = std::fs::metadata(exe).ok()?;
    let sibling = exe.with_file_name(name);
    let trusted = |m: &std::fs::Metadata| {
        (m.uid() == own.uid() || m.uid() == 0) && m.permissions().mode() & 0o022 == 0
    };
    // The entry itself (a symlink someone else made counts as theirs; a symlink's own mode
    // means nothing) and what it leads to.
    let entry_ok = std::fs::symlink_metadata(&sibling).is_ok_and(|m| {
        if m.file_type().is_symlink() {
            m.uid() == own.uid() || m.uid() == 0
        } else {
            trusted(&m)
        }
    });
    match std::fs::metadata(&sibling) {
        Ok(m) if entry_ok && m.is_file() && m.permissions().mode() & 0o111 != 0 && trusted(&m) => {
            Some(sibling)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(line: &str) -> Vec<Vec<String>> {
        simple_commands(line)
            .into_iter()
            .map(|c| c.into_iter().map(|w| w.text).collect())
            .collect()
    }

    #[test]
    fn splits_as_sh_does() {
        assert_eq!(argvs("cargo test -p x"), [["cargo", "test", "-p", "x"]]);
        assert_eq!(argvs("echo \"cargo test\""), [["echo", "cargo test"]]);
        assert_eq!(
            argvs("cd api && npm test || true; ls | wc -l &"),
            vec![
                vec!["cd", "api"],
                vec!["npm", "test"],
                vec!["true"],
                vec!["ls"],
                vec!["wc", "-l"]
            ]
        );
        assert_eq!(
            argvs("FOO=1 sudo -u me time cargo test 2>&1 >out.log"),
            [["cargo", "test"]]
        );
        assert_eq!(
            argvs("bash -lc 'cargo test --all'"),
            [["cargo", "test", "--all"]]
        );
        assert_eq!(
            argvs("(cd a; make test)"),
            vec![vec!["cd", "a"], vec!["make", "test"]]
        );
        assert_eq!(
            argvs("echo $(cargo test) `make`"),
            [["echo", "$(cargo test)", "`make`"]]
        );
        assert_eq!(argvs("cargo test # and more"), [["cargo", "test"]]);
        assert_eq!(argvs("a\\ b 'c'\\''d'"), [["a b", "c'd"]]);
        assert!(argvs("echo 'open").is_empty());
        assert_eq!(argvs("timeout 60 env A=1 cargo test"), [["cargo", "test"]]);
        assert_eq!(argvs("npx --yes vitest run"), [["vitest", "run"]]);
        assert_eq!(argvs("python3 -m pytest -q"), [["pytest", "-q"]]);
        assert_eq!(
            argvs("bundle exec rspec spec/a_spec.rb"),
            [["rspec", "spec/a_spec.rb"]]
        );
        assert_eq!(argvs("npm run test"), [["npm", "run", "test"]]);
    }

    #[test]
    fn a_quoted_word_reads_back_as_itself() {
        for w in [
            "plain",
            "it's",
            "a b",
            "$(touch x)",
            "`x`",
            "p(2)",
            "''",
            "\\n",
            "a\"b",
        ] {
            let words = argvs(&format!("{} arg", quote(w)));
            assert_eq!(words, [[w, "arg"]], "{w}");
        }
    }
}
